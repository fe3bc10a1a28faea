/* The reporter: the first process on a zodex PTY runs the command as its child and, when the
   command ends, writes the end marker (PROTOCOL.md, "The end marker") and holds the terminal
   open until zodexd hangs up. Flow: prepare_reporter() -> run_reporter(): fork the command into
   its cgroup -> reap, serving kill requests (SIGUSR2) -> marker -> wait for SIGHUP -> kill all. */
#include "spawn.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

volatile sig_atomic_t hung_up = 0;
volatile sig_atomic_t kill_requested = 0;
void on_hangup(int sig) { (void)sig; hung_up = 1; }
static void on_kill_request(int sig) { (void)sig; kill_requested = 1; }
static void on_child(int sig) { (void)sig; } /* only to wake sigsuspend */

/* Before the command is known (off its path): output post-processing off, so '\n' reaches
   zodexd as '\n' and the kernel's per-character output path is skipped; the cgroup made;
   ZODEX_CGROUP (zodexd's, not the command's) removed from the environment. */
void prepare_reporter(const char *nonce) {
  struct termios tio;
  if (tcgetattr(STDOUT_FILENO, &tio) == 0) {
    tio.c_oflag &= ~(tcflag_t)OPOST;
    tcsetattr(STDOUT_FILENO, TCSANOW, &tio);
  }
  if (valid_nonce(nonce)) make_cgroup(nonce);
  unsetenv("ZODEX_CGROUP");
}

/* Runs ARGS (execve with ENV, or execvp in this environment when ENV is NULL) in CWD (NULL: here). */
void run_reporter(const char *nonce, const char *cwd, char **program_args, char **program_env) {
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

  pid_t child = fork_command();
  if (child < 0) {
    perror("zodex-spawn: fork");
    _exit(127);
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
