/* Zygote (`zodex-spawn --zygote SOCKET`): started once by zodexd, it forks each standby, or a
   command's reporter itself, onto a terminal zodexd opened, because forking zodexd costs a
   millisecond or more on its event loop where this small process forks in microseconds. Its line protocol, requests on stdin and
   reports on stdout, is in PROTOCOL.md ("The zygote's lines"). It dies with zodexd
   (PR_SET_PDEATHSIG), and its standbys follow it (theirs), killing their commands. */
#include "spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static volatile sig_atomic_t child_ended = 0;
static void on_zygote_child(int sig) { (void)sig; child_ended = 1; }

static int valid_request(const char *nonce, const char *tty) {
  if (!valid_nonce(nonce)) return 0;
  /* Only a terminal's own name: /dev/pts/N (Linux) or /dev/ttysN (macOS). */
  const char *number = strncmp(tty, "/dev/pts/", 9) == 0 ? tty + 9 : strncmp(tty, "/dev/ttys", 9) == 0 ? tty + 9 : NULL;
  return number && *number != '\0' && strlen(number) < 12 && strspn(number, "0123456789") == strlen(number);
}

/* The child side of a zygote fork, first: a session of its own with TTY as its controlling
   terminal and its standard descriptors, node-pty's input settings, the zygote's signal mask
   and dispositions undone. */
static void take_terminal(const char *tty, const sigset_t *mask) {
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
}

/* A standby request: `zodex-spawn NONCE --standby SOCKET` on the terminal. */
static void become_standby(const char *self, const char *nonce, const char *tty, const char *socket_path, const sigset_t *mask) {
  take_terminal(tty, mask);
  execl(self, self, nonce, "--standby", socket_path, (char *)NULL);
  _exit(127);
}

/* A run request: this child is the reporter of the command in FRAME, no exec, no socket. */
static void become_reporter(const char *nonce, const char *tty, const unsigned char *frame, size_t len, const sigset_t *mask) {
  take_terminal(tty, mask);
  char *cwd, **args, **env;
  if (decode_spec(frame, len, &cwd, &args, &env) < 0) _exit(127);
  prepare_reporter(nonce);
  run_reporter(nonce, cwd, args, env);
}

/* Moves N bytes into DST: first those the line buffer holds past the request, then from stdin. */
static int pull(char *buf, size_t *have, unsigned char *dst, size_t n) {
  size_t take = *have < n ? *have : n;
  memcpy(dst, buf, take);
  memmove(buf, buf + take, *have - take);
  *have -= take;
  return take == n ? 0 : read_all(STDIN_FILENO, (char *)dst + take, n - take);
}

/* The command frame that follows a run request (PROTOCOL.md, format 2); NULL when it is cut
   short or its length is out of bounds: the stream cannot be read on from there. */
static unsigned char *take_frame(char *buf, size_t *have, size_t *len) {
  unsigned char header[4];
  if (pull(buf, have, header, 4) < 0) return NULL;
  *len = (size_t)header[0] | (size_t)header[1] << 8 | (size_t)header[2] << 16 | (size_t)header[3] << 24;
  if (*len == 0 || *len > (64u << 20)) return NULL;
  unsigned char *payload = malloc(*len);
  if (payload && pull(buf, have, payload, *len) == 0) return payload;
  free(payload);
  return NULL;
}

int zygote(const char *self, const char *socket_path) {
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
      char request[256];
      size_t consumed = (size_t)(newline - line) + 1;
      memcpy(request, line, consumed - 1);
      request[consumed - 1] = '\0';
      memmove(line, line + consumed, used - consumed);
      used -= consumed;
      char *tty = strchr(request, ' '), *mode = NULL; /* "NONCE TTY" or "NONCE TTY run" */
      if (tty) *tty++ = '\0';
      if (tty && (mode = strchr(tty, ' ')) != NULL) *mode++ = '\0';
      int run = mode && strcmp(mode, "run") == 0;
      unsigned char *frame = NULL;
      size_t frame_len = 0;
      if (run && !(frame = take_frame(line, &used, &frame_len))) return 1; /* the pipe broke mid-frame */
      pid_t pid = 0;
      if (tty && (!mode || run) && valid_request(request, tty)) {
        pid = fork();
        if (pid == 0 && run) become_reporter(request, tty, frame, frame_len, &old_set);
        if (pid == 0) become_standby(self, request, tty, socket_path, &old_set);
        if (pid < 0) pid = 0;
      }
      free(frame);
      char report[128];
      int len = snprintf(report, sizeof report, "s %.64s %d\n", request, (int)pid);
      if (len > 0 && (size_t)len < sizeof report) write_all(STDOUT_FILENO, report, (size_t)len);
    }
    if (used == sizeof line - 1) used = 0; /* an overlong line: not a request of ours */
  }
}

