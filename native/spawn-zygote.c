/* Zygote (`zodex-spawn --zygote SOCKET`): started once by zodexd, it forks each standby onto a
   terminal zodexd opened itself, because forking zodexd costs a millisecond or more on its event
   loop where this small process forks in microseconds. Its line protocol, requests on stdin and
   reports on stdout, is in PROTOCOL.md ("The zygote's lines"). It dies with zodexd
   (PR_SET_PDEATHSIG), and its standbys follow it (theirs), killing their commands. */
#include "spawn.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

