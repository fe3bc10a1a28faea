/*
 * zodex-spawn: the first process on every zodex PTY. It exists so that no output is lost.
 *
 * node-pty on Linux loses the tail of a command's output when the command exits right after
 * writing: the terminal's slave side closes, node-pty sees the child exit and destroys its read
 * stream 200 ms later (or on EIO), and whatever the kernel still held is gone (node-pty #72,
 * #85, #726). So zodexd never lets the slave close before it has read everything:
 *
 *   zodexd --node-pty--> zodex-spawn NONCE SHELL ARGS...      (session leader, owns the PTY)
 *                           |  fork + exec
 *                           +--> SHELL ARGS...                  (same session and process group)
 *
 *   1. Output post-processing (OPOST) is turned off before the shell starts, so '\n' reaches
 *      zodexd as '\n' (not "\r\n") and the kernel's per-character output path is skipped.
 *   2. When the shell ends, zodex-spawn writes an end marker, "ESC ] 6972 ; NONCE ; STATUS BEL",
 *      to the terminal. A terminal is a FIFO: once zodexd reads the marker it holds every byte
 *      written before it.
 *   3. zodex-spawn then keeps the terminal open until zodexd, having read the marker and
 *      killed what the command left behind, closes the terminal (SIGHUP).
 *
 * It ignores SIGINT, SIGQUIT, SIGTERM and the job-control stops, so that a ^C typed into the
 * session, or a SIGTERM to the process group, ends the shell but not the reporter. SIGKILL ends
 * it like anything else; zodexd then falls back to node-pty's own exit event.
 *
 * On Linux it is also a child subreaper: orphaned descendants of the command (a daemon that left
 * with setsid included) are re-parented to it rather than to init, so zodexd finds them as its
 * descendants and kills them with the rest.
 *
 * SIGUSR2 is zodexd's kill request (kill_process, a timeout): every descendant is killed, the
 * reporter stays, and the exit is reported as usual with all output read.
 *
 * SIGHUP means nobody is left to report to: the terminal hung up or (Linux: PR_SET_PDEATHSIG)
 * zodexd itself died, even by SIGKILL. zodex-spawn then kills its whole process group, so no
 * command outlives the server that started it.
 *
 * STATUS is "x<code>" for a normal exit and "s<signal>" when the shell died of a signal.
 *
 * Standby (`zodex-spawn NONCE --standby SOCKET`): started before its command is known, so that
 * the PTY and this process are ready when a command comes. It connects to zodexd's spawn
 * socket, says its nonce, and waits for the command: a frame of 32-bit little-endian numbers and
 * length-prefixed strings, "LEN ARGC ENVC [LEN cwd] [LEN program] [LEN arg]... [LEN NAME=value]...",
 * so no byte of any value can end a field or start another (a value holding NUL, which execve
 * cannot carry, is refused). From there on it behaves as above. `zodex-spawn --decode` reads
 * one frame on stdin and prints what it decoded (tests prove the encoder and this decoder agree).
 *
 * Zygote (`zodex-spawn --zygote SOCKET`): zodexd starts it once and asks it for each standby,
 * because forking zodexd costs a millisecond or more on its event loop (page tables of a large
 * process) and copy-on-write faults afterwards, where this small process forks in microseconds.
 * zodexd opens the PTY itself (openpty: no fork) and writes "NONCE /dev/pts/N\n" to the
 * zygote's stdin; the zygote forks, and the child becomes a session leader, takes the terminal
 * as its controlling terminal and runs `zodex-spawn NONCE --standby SOCKET` on it. On stdout the
 * zygote reports "s NONCE PID\n" when a standby started (PID 0: it could not) and
 * "e PID STATUS\n" when one ended (STATUS as in the marker). It dies with zodexd
 * (PR_SET_PDEATHSIG), and its standbys follow it (theirs), killing their commands.
 *
 * Every mode first closes the file descriptors it inherited beyond 0, 1 and 2 (close_range, else
 * every entry of /proc/self/fd, else up to the descriptor limit): zodexd's other terminals and
 * sockets never reach a command, however many there are.
 *
 * Kill (Linux): with ZODEX_CGROUP set (a cgroup v2 folder zodexd made, see src/exec/cgroup.ts),
 * the command runs in its own cgroup NONCE below it and a kill is `cgroup.kill` (or freeze, then
 * SIGKILL every member): a daemon that keeps re-forking with setsid cannot slip out between a
 * scan and a kill. Either way the /proc sweep then repeats until this process, the subreaper that
 * every orphan of the command is re-parented to, has no child left (bounded: 2 s).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/sched.h> /* struct clone_args, CLONE_INTO_CGROUP */
#include <sys/prctl.h>
#endif

static volatile sig_atomic_t hung_up = 0;
static volatile sig_atomic_t kill_requested = 0;
static void on_hangup(int sig) { (void)sig; hung_up = 1; }
static void on_kill_request(int sig) { (void)sig; kill_requested = 1; }
static void on_child(int sig) { (void)sig; } /* only to wake sigsuspend */

static pid_t command_child = 0; /* the shell; its wait status is kept for the end marker */
static int command_status = 0, command_reaped = 0;

/* Reaps every ended child; returns 1 while any child is left, 0 once there is none. */
static int reap_children(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    if (pid == command_child && !command_reaped) {
      command_status = status;
      command_reaped = 1;
    }
  }
  return !(pid < 0 && errno == ECHILD);
}

#ifdef __linux__
static char cgroup_dir[4096]; /* this command's cgroup, or "" */

static int write_file(const char *dir, const char *name, const char *text) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Kills every member of the command's cgroup at once: cgroup.kill (Linux 5.14), else freeze it
   so that nothing forks, SIGKILL every pid in cgroup.procs (a frozen task still dies of it) and
   thaw. */
static void kill_cgroup(void) {
  if (!cgroup_dir[0] || write_file(cgroup_dir, "cgroup.kill", "1") == 0) return;
  write_file(cgroup_dir, "cgroup.freeze", "1");
  char path[4200], line[32];
  snprintf(path, sizeof path, "%s/cgroup.procs", cgroup_dir);
  FILE *procs = fopen(path, "re");
  if (procs) {
    while (fgets(line, sizeof line, procs)) {
      long pid = strtol(line, NULL, 10);
      if (pid > 1 && pid != getpid()) kill((pid_t)pid, SIGKILL);
    }
    fclose(procs);
  }
  write_file(cgroup_dir, "cgroup.freeze", "0");
}

/* One /proc pass: kills every descendant of this process (pid -> ppid) found; returns how many.
   As a subreaper it has inherited the command's orphans, daemons included. */
static size_t kill_descendants_once(void) {
  enum { MAX_PROCS = 65536 };
  static pid_t pids[MAX_PROCS], ppids[MAX_PROCS];
  static char mine[MAX_PROCS];
  size_t count = 0, killed = 0;
  DIR *proc = opendir("/proc");
  if (!proc) return 0;
  struct dirent *entry;
  while ((entry = readdir(proc)) != NULL && count < MAX_PROCS) {
    char *end;
    long pid = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 1) continue;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    char *paren = strrchr(buf, ')'); /* "pid (comm) state ppid ..." */
    long ppid;
    char state;
    if (!paren || sscanf(paren + 1, " %c %ld", &state, &ppid) != 2) continue;
    pids[count] = (pid_t)pid;
    ppids[count] = (pid_t)ppid;
    mine[count] = 0;
    count++;
  }
  closedir(proc);
  pid_t self = getpid();
  for (int changed = 1; changed;) { /* mark descendants until nothing new is found */
    changed = 0;
    for (size_t i = 0; i < count; i++) {
      if (mine[i]) continue;
      int parent_is_mine = ppids[i] == self;
      for (size_t j = 0; !parent_is_mine && j < count; j++) parent_is_mine = mine[j] && pids[j] == ppids[i];
      if (parent_is_mine) mine[i] = changed = 1;
    }
  }
  for (size_t i = 0; i < count; i++)
    if (mine[i] && kill(pids[i], SIGKILL) == 0) killed++;
  return killed;
}

/* Kills every descendant, repeating until none is left: a pass can miss a process forked (or
   re-parented here) after it read /proc, but not the next one. Done when this process has no
   child at all, alive or zombie: every descendant hangs below a child of the subreaper, so a
   command that left nothing behind costs no scan. With a cgroup, cgroup.kill comes first and
   /proc is read only if children are still left after it. */
static void kill_descendants(void) {
  struct timespec start, now, pause = {0, 1000000};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int pass = 0; reap_children(); pass++) {
    kill_cgroup();
    if (!cgroup_dir[0] || pass > 0) kill_descendants_once();
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= 2) return; /* a process stuck in the kernel: give up */
    if (pass > 0) nanosleep(&pause, NULL);
  }
}

/* Removes the command's cgroup once it is empty (its last members may still be exiting). */
static void remove_cgroup(void) {
  if (!cgroup_dir[0]) return;
  struct timespec pause = {0, 1000000};
  for (int i = 0; i < 200 && rmdir(cgroup_dir) < 0 && errno == EBUSY; i++) nanosleep(&pause, NULL);
  cgroup_dir[0] = '\0';
}

/* Makes NONCE's cgroup below ZODEX_CGROUP (zodexd's folder); "" when there is none. */
static void make_cgroup(const char *nonce) {
  const char *base = getenv("ZODEX_CGROUP");
  cgroup_dir[0] = '\0';
  if (!base || !*base) return;
  int len = snprintf(cgroup_dir, sizeof cgroup_dir, "%s/%s", base, nonce);
  if (len <= 0 || (size_t)len >= sizeof cgroup_dir || (mkdir(cgroup_dir, 0700) < 0 && errno != EEXIST)) cgroup_dir[0] = '\0';
}

/* Starts the command's process inside its cgroup: clone3 with CLONE_INTO_CGROUP (Linux 5.7),
   born there, else fork and the child moves itself (a migration waits for an RCU grace period:
   milliseconds, measured 10 ms a command on the loaded test machine, so only as a fallback). */
static pid_t fork_into_cgroup(void) {
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
  int dir = cgroup_dir[0] ? open(cgroup_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  if (dir >= 0) {
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = (uint64_t)dir;
    long pid = syscall(SYS_clone3, &args, sizeof args); /* no stack given: returns twice, as fork */
    if (pid >= 0) {
      if (pid > 0) close(dir);
      return (pid_t)pid;
    }
    close(dir);
  }
#endif
  pid_t pid = fork();
  if (pid == 0 && cgroup_dir[0]) write_file(cgroup_dir, "cgroup.procs", "0");
  return pid;
}
#endif

/* A kill request: everything but this process. Without /proc, the child's group is all we can
   reach: the shell and what stayed in its group. */
static void kill_descendants_or_group(void) {
#ifdef __linux__
  kill_descendants();
#else
  kill(-getpgrp(), SIGKILL);
#endif
}

static void kill_group_and_exit(void) {
  signal(SIGHUP, SIG_IGN);
#ifdef __linux__
  kill_descendants();
  remove_cgroup();
#endif
  kill(0, SIGKILL); /* the whole process group, this process included */
  _exit(129);
}

static void write_all(int fd, const char *buf, size_t len) {
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
static int read_all(int fd, char *buf, size_t len) {
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
static int decode_spec(const unsigned char *p, size_t len, char **cwd, char ***args, char ***env) {
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
static int read_spec(int fd, char **cwd, char ***args, char ***env) {
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
static int decode_only(void) {
  char *cwd, **args, **env;
  if (read_spec(STDIN_FILENO, &cwd, &args, &env) < 0) return 2;
  print_field("cwd", cwd);
  for (char **arg = args; *arg; arg++) print_field("arg", *arg);
  for (char **entry = env; *entry; entry++) print_field("env", *entry);
  return 0;
}

/* Standby: waits on zodexd's spawn socket for the command to run. */
static int await_command(const char *socket_path, const char *nonce, char **cwd, char ***args, char ***env) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct sockaddr_un address;
  memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  if (strlen(socket_path) >= sizeof address.sun_path) return -1;
  strcpy(address.sun_path, socket_path);
  if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) return -1;
  char hello[160];
  int hello_len = snprintf(hello, sizeof hello, "%s\n", nonce);
  if (hello_len <= 0 || (size_t)hello_len >= sizeof hello) return -1;
  write_all(fd, hello, (size_t)hello_len);
  int decoded = read_spec(fd, cwd, args, env);
  close(fd);
  return decoded;
}

/* A wait status as zodexd reads it: "x<code>" for an exit, "s<signal>" for a death by signal. */
static int format_status(char *buf, size_t size, int status) {
  return WIFSIGNALED(status) ? snprintf(buf, size, "s%d", WTERMSIG(status)) : snprintf(buf, size, "x%d", WEXITSTATUS(status));
}

/* Closes every inherited descriptor above 2 (node-pty opens terminals without close-on-exec):
   close_range where the kernel has it (Linux 5.9, FreeBSD), else every entry of /proc/self/fd,
   collected first (closing while reading would skip entries), else up to the descriptor limit. */
static void close_inherited(void) {
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

static volatile sig_atomic_t child_ended = 0;
static void on_zygote_child(int sig) { (void)sig; child_ended = 1; }

static int valid_nonce(const char *nonce) {
  size_t len = strlen(nonce);
  return len > 0 && len <= 64 && strspn(nonce, "0123456789abcdef") == len;
}

static int valid_request(const char *nonce, const char *tty) {
  if (!valid_nonce(nonce)) return 0;
  /* Only a terminal's own name: /dev/pts/N (Linux) or /dev/ttysN (macOS). */
  const char *number = strncmp(tty, "/dev/pts/", 9) == 0 ? tty + 9 : strncmp(tty, "/dev/ttys", 9) == 0 ? tty + 9 : NULL;
  return number && *number != '\0' && strlen(number) < 12 && strspn(number, "0123456789") == strlen(number);
}

/* The child side of a zygote fork: `zodex-spawn NONCE --standby SOCKET` on the terminal TTY. */
static void become_standby(const char *self, const char *nonce, const char *tty, const char *socket_path, const sigset_t *mask) {
  signal(SIGCHLD, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  sigprocmask(SIG_SETMASK, mask, NULL);
  if (setsid() < 0) _exit(127);
  int fd = open(tty, O_RDWR); /* a session leader's first terminal becomes its controlling one */
  if (fd < 0) _exit(127);
  ioctl(fd, TIOCSCTTY, 0);
  struct termios tio; /* node-pty's settings for a new terminal */
  if (tcgetattr(fd, &tio) == 0) {
    tio.c_iflag |= ICRNL | IXON | IXANY | IMAXBEL | BRKINT;
#ifdef IUTF8
    tio.c_iflag |= IUTF8;
#endif
    tcsetattr(fd, TCSANOW, &tio);
  }
  for (int target = 0; target <= 2; target++)
    if (dup2(fd, target) < 0) _exit(127);
  if (fd > 2) close(fd);
  execl(self, self, nonce, "--standby", socket_path, (char *)NULL);
  _exit(127);
}

static int zygote(const char *self, const char *socket_path) {
#ifdef __linux__
  pid_t server = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != server) return 129;
#endif
  signal(SIGPIPE, SIG_IGN); /* zodexd gone: writes fail, the read below ends the loop */
  sigset_t blocked, old_set;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGCHLD);
  sigprocmask(SIG_BLOCK, &blocked, &old_set);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  sigemptyset(&action.sa_mask);
  action.sa_handler = on_zygote_child;
  sigaction(SIGCHLD, &action, NULL);

  char line[256];
  size_t used = 0;
  for (;;) {
    if (child_ended) {
      child_ended = 0;
      int status;
      pid_t pid;
      while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        char word[32], report[64];
        format_status(word, sizeof word, status);
        int len = snprintf(report, sizeof report, "e %d %s\n", (int)pid, word);
        write_all(STDOUT_FILENO, report, (size_t)len);
      }
    }
    fd_set input;
    FD_ZERO(&input);
    FD_SET(STDIN_FILENO, &input);
    int ready = pselect(STDIN_FILENO + 1, &input, NULL, NULL, NULL, &old_set); /* SIGCHLD only wakes us here */
    if (ready < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    ssize_t n = read(STDIN_FILENO, line + used, sizeof line - 1 - used);
    if (n == 0) return 0; /* zodexd closed the pipe: its standbys die with their terminals */
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return 1;
    }
    used += (size_t)n;
    char *newline;
    while ((newline = memchr(line, '\n', used)) != NULL) {
      *newline = '\0';
      char *space = strchr(line, ' ');
      pid_t pid = 0;
      if (space) {
        *space = '\0';
        if (valid_request(line, space + 1)) {
          pid = fork();
          if (pid == 0) become_standby(self, line, space + 1, socket_path, &old_set);
          if (pid < 0) pid = 0;
        }
      }
      char report[128];
      int len = snprintf(report, sizeof report, "s %.64s %d\n", line, (int)pid);
      if (len > 0 && (size_t)len < sizeof report) write_all(STDOUT_FILENO, report, (size_t)len);
      size_t consumed = (size_t)(newline - line) + 1;
      memmove(line, line + consumed, used - consumed);
      used -= consumed;
    }
    if (used == sizeof line - 1) used = 0; /* an overlong line: not a request of ours */
  }
}

int main(int argc, char **argv) {
  close_inherited();
  if (argc == 3 && strcmp(argv[1], "--zygote") == 0) return zygote(argv[0], argv[2]);
  if (argc == 2 && strcmp(argv[1], "--decode") == 0) return decode_only();
  if (argc < 3 || (strcmp(argv[2], "--standby") == 0 && argc != 4)) {
    fprintf(stderr, "usage: zodex-spawn NONCE PROGRAM [ARGS...] | zodex-spawn NONCE --standby SOCKET | zodex-spawn --zygote SOCKET\n");
    return 127;
  }
  const char *nonce = argv[1];
  const char *standby = strcmp(argv[2], "--standby") == 0 ? argv[3] : NULL;

  struct termios tio;
  if (tcgetattr(STDOUT_FILENO, &tio) == 0) {
    tio.c_oflag &= ~(tcflag_t)OPOST;
    tcsetattr(STDOUT_FILENO, TCSANOW, &tio);
  }

#ifdef __linux__
  if (valid_nonce(nonce)) make_cgroup(nonce); /* before the command is known: off its path */
#endif
  unsetenv("ZODEX_CGROUP"); /* zodexd's, not the command's */
  char *cwd = NULL;
  char **program_args = &argv[2];
  char **program_env = NULL;
  if (standby) {
    struct sigaction hangup;
    memset(&hangup, 0, sizeof hangup);
    sigemptyset(&hangup.sa_mask);
    hangup.sa_handler = on_hangup;
    sigaction(SIGHUP, &hangup, NULL); /* no SA_RESTART: a hang-up interrupts the wait */
#ifdef __linux__
    pid_t server = getppid();
    prctl(PR_SET_PDEATHSIG, SIGHUP);
    if (getppid() != server) return 129;
#endif
    if (await_command(standby, nonce, &cwd, &program_args, &program_env) < 0) {
#ifdef __linux__
      remove_cgroup();
#endif
      return 129;
    }
  }

  /* SIGHUP and SIGCHLD stay blocked except inside sigsuspend, which unblocks them atomically:
     neither can slip in between a check and the wait. The child gets the original mask. */
  sigset_t blocked, old_set;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGHUP);
  sigaddset(&blocked, SIGCHLD);
  sigaddset(&blocked, SIGUSR2);
  sigprocmask(SIG_BLOCK, &blocked, &old_set);

#ifdef __linux__
  prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif

#ifdef __linux__
  pid_t child = fork_into_cgroup();
#else
  pid_t child = fork();
#endif
  if (child < 0) {
    perror("zodex-spawn: fork");
    return 127;
  }
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &old_set, NULL);
    if (cwd && chdir(cwd) < 0) {
      fprintf(stderr, "zodex-spawn: cannot enter %s: %s\n", cwd, strerror(errno));
      _exit(127);
    }
    if (program_env) execve(program_args[0], program_args, program_env);
    else execvp(program_args[0], program_args);
    fprintf(stderr, "zodex-spawn: cannot run %s: %s\n", program_args[0], strerror(errno));
    _exit(127);
  }

  struct sigaction action;
  memset(&action, 0, sizeof action);
  sigemptyset(&action.sa_mask);
  action.sa_handler = SIG_IGN;
  int ignored[] = {SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE};
  for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++) sigaction(ignored[i], &action, NULL);
  action.sa_handler = on_hangup;
  sigaction(SIGHUP, &action, NULL);
  action.sa_handler = on_child;
  sigaction(SIGCHLD, &action, NULL);
  action.sa_handler = on_kill_request;
  sigaction(SIGUSR2, &action, NULL);

#ifdef __linux__
  pid_t server = getppid();
  prctl(PR_SET_PDEATHSIG, SIGHUP);
  if (getppid() != server) hung_up = 1; /* the server died before prctl took effect */
#endif

  /* Reap every child: with PR_SET_CHILD_SUBREAPER (set before the fork) orphans of the command,
     daemons that left with setsid included, become children of this process, so zodexd still
     finds them under it and kills them with the rest. */
  sigset_t wait_set;
  sigemptyset(&wait_set);
  command_child = child;
  for (;;) {
    if (hung_up) kill_group_and_exit();
    if (kill_requested) {
      kill_requested = 0;
      kill_descendants_or_group();
    }
    int children_left = reap_children();
    if (command_reaped) break;
    if (!children_left) { /* cannot happen: the shell is our child until reaped */
      command_status = 127 << 8;
      break;
    }
    sigsuspend(&wait_set);
  }

  char word[32], marker[256];
  format_status(word, sizeof word, command_status);
  int len = snprintf(marker, sizeof marker, "\033]6972;%s;%s\007", nonce, word);
  if (len > 0 && (size_t)len < sizeof marker) write_all(STDOUT_FILENO, marker, (size_t)len);

  /* Wait for zodexd to close the terminal (or to die), then take the group along. */
  while (!hung_up) {
    reap_children();
    sigsuspend(&wait_set);
  }
  kill_group_and_exit();
}
