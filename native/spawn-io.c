/* zodex-spawn's bytes: writing and reading whole buffers, the command frame (PROTOCOL.md, "The
   standby's command frame"), the status word of the end marker and the zygote's reports, and
   closing inherited descriptors. Pure of any mode: every mode links it. */
#include "spawn.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

void write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return;
    }
    buf += n;
    len -= (size_t)n;
  }
}

/* Reads exactly `len` bytes; a hang-up while waiting ends the process (nobody wants it). */
int read_all(int fd, char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = read(fd, buf, len);
    if (n == 0) return -1;
    if (n < 0) {
      if (errno == EINTR && !hung_up) continue;
      return -1;
    }
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

static uint32_t read_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Takes the next length-prefixed string of the frame as a C string; NULL when the frame ends
   early or the string holds a NUL (execve could not carry it). */
static char *take_string(const unsigned char **p, const unsigned char *end) {
  if (end - *p < 4) return NULL;
  uint32_t len = read_u32(*p);
  *p += 4;
  if ((size_t)(end - *p) < len || memchr(*p, '\0', len)) return NULL;
  char *text = malloc((size_t)len + 1);
  if (!text) return NULL;
  memcpy(text, *p, len);
  text[len] = '\0';
  *p += len;
  return text;
}

/* Decodes a command frame's payload, "ARGC ENVC [cwd] [program] [args]... [env]...", every
   number 32-bit little-endian and every string behind its length. Returns -1 unless the whole
   payload is exactly that (at least the program, nothing left over). */
int decode_spec(const unsigned char *p, size_t len, char **cwd, char ***args, char ***env) {
  const unsigned char *end = p + len;
  if (len < 8) return -1;
  uint32_t argc = read_u32(p), envc = read_u32(p + 4);
  p += 8;
  /* every string takes at least its 4-byte length: bounds the lists before allocating them */
  if (argc == 0 || argc > len / 4 || envc > len / 4 || (size_t)argc + envc + 1 > (len - 8) / 4) return -1;
  char **arg_list = calloc((size_t)argc + 1, sizeof *arg_list), **env_list = calloc((size_t)envc + 1, sizeof *env_list);
  if (!arg_list || !env_list || !(*cwd = take_string(&p, end))) return -1;
  for (uint32_t i = 0; i < argc; i++)
    if (!(arg_list[i] = take_string(&p, end))) return -1;
  for (uint32_t i = 0; i < envc; i++)
    if (!(env_list[i] = take_string(&p, end))) return -1;
  if (p != end) return -1;
  *args = arg_list;
  *env = env_list;
  return 0;
}

/* Reads one frame (its 4-byte length, then the payload) from `fd` and decodes it. */
int read_spec(int fd, char **cwd, char ***args, char ***env) {
  unsigned char header[4];
  if (read_all(fd, (char *)header, 4) < 0) return -1;
  size_t len = read_u32(header);
  if (len == 0 || len > (64u << 20)) return -1;
  unsigned char *payload = malloc(len);
  if (!payload || read_all(fd, (char *)payload, len) < 0) return -1;
  int decoded = decode_spec(payload, len, cwd, args, env);
  free(payload);
  return decoded;
}

static void print_field(const char *kind, const char *text) {
  char head[64];
  int len = snprintf(head, sizeof head, "%s %zu\n", kind, strlen(text));
  write_all(STDOUT_FILENO, head, (size_t)len);
  write_all(STDOUT_FILENO, text, strlen(text));
  write_all(STDOUT_FILENO, "\n", 1);
}

/* `--decode`: one frame on stdin; prints "KIND LEN\nBYTES\n" per field (cwd, arg, env) or exits 2. */
int decode_only(void) {
  char *cwd, **args, **env;
  if (read_spec(STDIN_FILENO, &cwd, &args, &env) < 0) return 2;
  print_field("cwd", cwd);
  for (char **arg = args; *arg; arg++) print_field("arg", *arg);
  for (char **entry = env; *entry; entry++) print_field("env", *entry);
  return 0;
}

/* A wait status as zodexd reads it: "x<code>" for an exit, "s<signal>" for a death by signal. */
int format_status(char *buf, size_t size, int status) {
  return WIFSIGNALED(status) ? snprintf(buf, size, "s%d", WTERMSIG(status)) : snprintf(buf, size, "x%d", WEXITSTATUS(status));
}

/* Closes every inherited descriptor above 2 (node-pty opens terminals without close-on-exec):
   close_range where the kernel has it (Linux 5.9, FreeBSD), else every entry of /proc/self/fd,
   collected first (closing while reading would skip entries), else up to the descriptor limit. */
void close_inherited(void) {
  /* ZODEX_SPAWN_CLOSE=proc|limit skips the better ways, so that tests reach the fallbacks */
  const char *forced = getenv("ZODEX_SPAWN_CLOSE");
  int use_proc = !forced || strcmp(forced, "limit") != 0;
#if defined(__linux__) && defined(SYS_close_range)
  if (!forced && syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
  DIR *fds = use_proc ? opendir("/proc/self/fd") : NULL;
  if (!fds && use_proc) fds = opendir("/dev/fd");
  if (fds) {
    int own = dirfd(fds), *found = NULL;
    size_t count = 0, size = 0;
    struct dirent *entry;
    int complete = 1;
    while ((entry = readdir(fds)) != NULL) {
      char *end;
      long fd = strtol(entry->d_name, &end, 10);
      if (*end != '\0' || entry->d_name[0] == '\0' || fd <= 2 || fd == own) continue;
      if (count == size) {
        int *grown = realloc(found, (size ? size * 2 : 256) * sizeof *found);
        if (!grown) {
          complete = 0;
          break;
        }
        found = grown;
        size = size ? size * 2 : 256;
      }
      found[count++] = (int)fd;
    }
    closedir(fds);
    for (size_t i = 0; i < count; i++) close(found[i]);
    free(found);
    if (complete) return;
  }
  long limit = sysconf(_SC_OPEN_MAX);
  if (limit < 0 || limit > (1L << 20)) limit = 1L << 20;
  for (long fd = 3; fd < limit; fd++) close((int)fd);
}

int valid_nonce(const char *nonce) {
  size_t len = strlen(nonce);
  return len > 0 && len <= 64 && strspn(nonce, "0123456789abcdef") == len;
}

