/* The reporter: the first process on a zodex PTY runs the command as its child and, when the
   command ends, writes the end marker (PROTOCOL.md, "The end marker") and holds the terminal
   open until zodexd hangs up. Flow: prepare_reporter() -> run_reporter(): fork the command into
   its cgroup -> reap, serving kill requests (SIGUSR2) -> marker -> wait for SIGHUP -> kill all. */
#include "spawn.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
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

/* The confinement entry of a command started with its arguments (node-pty's way): taken out of
   this process's environment, which the command inherits. */
static char *inherited_policy = NULL;

/* Before the command is known (off its path): output post-processing off, so '\n' reaches
   zodexd as '\n' and the kernel's per-character output path is skipped; the cgroup made;
   ZODEX_CGROUP (zodexd's, not the command's) and ZODEX_CONFINE removed from the environment. */
void prepare_reporter(const char *nonce) {
  struct termios tio;
  if (tcgetattr(STDOUT_FILENO, &tio) == 0) {
    tio.c_oflag &= ~(tcflag_t)OPOST;
    tcsetattr(STDOUT_FILENO, TCSANOW, &tio);
  }
  if (valid_nonce(nonce)) make_cgroup(nonce);
  unsetenv("ZODEX_CGROUP");
  const char *policy = getenv("ZODEX_CONFINE");
  if (policy) inherited_policy = strdup(policy);
  unsetenv("ZODEX_CONFINE");
}

/* Takes the ZODEX_CONFINE entry out of a frame's environment list; returns its value or NULL. */
static const char *take_policy(char **env) {
  if (!env) return inherited_policy;
  const char *found = NULL;
  char **out = env;
  for (char **entry = env; *entry; entry++) {
    if (strncmp(*entry, "ZODEX_CONFINE=", 14) == 0) found = *entry + 14;
    else *out++ = *entry;
  }
  *out = NULL;
  return found;
}

/* Waits for a signal (SIGCHLD, SIGHUP, SIGUSR2 are unblocked only here) or, while there is a
   seccomp listener, for a refused socket() to answer. */
static void wait_for_event(const sigset_t *wait_set, int *listener, unsigned long *refused) {
  if (*listener < 0) {
    sigsuspend(wait_set);
    return;
  }
  struct pollfd watched = {*listener, POLLIN, 0};
  if (ppoll(&watched, 1, NULL, wait_set) <= 0) return;
  if ((watched.revents & POLLIN) && confine_serve(*listener, refused) >= 0) return;
  if (watched.revents & (POLLHUP | POLLERR | POLLNVAL | POLLIN)) { /* nobody left under the filter */
    close(*listener);
    *listener = -1;
  }
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

  /* The confinement, read before the fork (a policy that cannot be read fails the command in the
     child, below). The child hands back its mount namespace and, with the network off, its
     seccomp listener on CHANNEL. */
  int policy_ok = confine_parse(take_policy(program_env)) == 0;
  int channel[2] = {-1, -1};
  if (policy_ok && confine_active() && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) < 0) policy_ok = 0;

  pid_t child = fork_command();
  if (child < 0) {
    perror("zodex-spawn: fork");
    _exit(127);
  }
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &old_set, NULL);
    if (channel[0] >= 0) close(channel[0]);
    char here[4096];
    const char *workdir = cwd ? cwd : getcwd(here, sizeof here);
    if (!policy_ok || confine_apply(workdir, channel[1]) < 0) {
      fprintf(stderr, "zodex-spawn: cannot confine the command: %s\n", confine_failure());
      _exit(126);
    }
    if (channel[1] >= 0) close(channel[1]);
    /* entered again after the confinement: the folder may now be another mount (a writable root) */
    if (workdir && (cwd || confine_active()) && chdir(workdir) < 0) {
      fprintf(stderr, "zodex-spawn: cannot enter %s: %s\n", workdir, strerror(errno));
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

  /* The seccomp listener (network off): socket() calls the sandbox refuses come here. The
     command's mount namespace is held until the end marker is out (see send_to_reporter). */
  int listener = -1, mount_ns = -1;
  unsigned long refused = 0;
  if (channel[1] >= 0) close(channel[1]);
  if (channel[0] >= 0) {
    confine_receive(channel[0], &mount_ns, &listener);
    close(channel[0]);
  }

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
    wait_for_event(&wait_set, &listener, &refused);
  }

  char word[32], facts[48] = "", marker[256];
  format_status(word, sizeof word, command_status);
  if (refused > 0) snprintf(facts, sizeof facts, ";net=%lu", refused);
  int len = snprintf(marker, sizeof marker, "\033]6972;%s;%s%s\007", nonce, word, facts);
  if (len > 0 && (size_t)len < sizeof marker) write_all(STDOUT_FILENO, marker, (size_t)len);
  if (mount_ns >= 0) close(mount_ns); /* its teardown now runs here, off the command's way out */

  /* Wait for zodexd to close the terminal (or to die), then take the group along. */
  while (!hung_up) {
    reap_children();
    wait_for_event(&wait_set, &listener, &refused);
  }
  kill_group_and_exit();
}
