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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static volatile sig_atomic_t hung_up = 0;
static volatile sig_atomic_t kill_requested = 0;
static void on_hangup(int sig) { (void)sig; hung_up = 1; }
static void on_kill_request(int sig) { (void)sig; kill_requested = 1; }
static void on_child(int sig) { (void)sig; } /* only to wake sigsuspend */

#ifdef __linux__
/* Kills every descendant of this process, found through /proc (pid -> ppid). As a subreaper it
   has inherited the command's orphans, daemons included, so this reaches all of them. */
static void kill_descendants(void) {
  enum { MAX_PROCS = 65536 };
  static pid_t pids[MAX_PROCS], ppids[MAX_PROCS];
  static char mine[MAX_PROCS];
  size_t count = 0;
  DIR *proc = opendir("/proc");
  if (!proc) return;
  struct dirent *entry;
  while ((entry = readdir(proc)) != NULL && count < MAX_PROCS) {
    char *end;
    long pid = strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 1) continue;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY);
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
    if (mine[i]) kill(pids[i], SIGKILL);
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

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: zodex-spawn NONCE PROGRAM [ARGS...]\n");
    return 127;
  }
  const char *nonce = argv[1];

  struct termios tio;
  if (tcgetattr(STDOUT_FILENO, &tio) == 0) {
    tio.c_oflag &= ~(tcflag_t)OPOST;
    tcsetattr(STDOUT_FILENO, TCSANOW, &tio);
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

  pid_t child = fork();
  if (child < 0) {
    perror("zodex-spawn: fork");
    return 127;
  }
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &old_set, NULL);
    execvp(argv[2], &argv[2]);
    fprintf(stderr, "zodex-spawn: cannot run %s: %s\n", argv[2], strerror(errno));
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
  int status = 0;
  for (int running = 1; running;) {
    if (hung_up) kill_group_and_exit();
    if (kill_requested) {
      kill_requested = 0;
      kill_descendants_or_group();
    }
    int reaped_status;
    pid_t reaped;
    while ((reaped = waitpid(-1, &reaped_status, WNOHANG)) > 0) {
      if (reaped == child) {
        status = reaped_status;
        running = 0;
      }
    }
    if (running && reaped < 0 && errno == ECHILD) {
      status = 127 << 8;
      running = 0;
    }
    if (running) sigsuspend(&wait_set);
  }

  char marker[256];
  int len;
  if (WIFSIGNALED(status)) {
    len = snprintf(marker, sizeof marker, "\033]6972;%s;s%d\007", nonce, WTERMSIG(status));
  } else {
    len = snprintf(marker, sizeof marker, "\033]6972;%s;x%d\007", nonce, WEXITSTATUS(status));
  }
  if (len > 0 && (size_t)len < sizeof marker) write_all(STDOUT_FILENO, marker, (size_t)len);

  /* Wait for zodexd to close the terminal (or to die), then take the group along. */
  while (!hung_up) {
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    sigsuspend(&wait_set);
  }
  kill_group_and_exit();
}
