/* The kill machinery: reaping, the command's cgroup (PROTOCOL.md, "Signals and kills"), and
   killing every descendant of this process, the subreaper every orphan of the command is
   re-parented to. Flow: make_cgroup() before the command is known -> fork_command() starts it
   inside -> kill_descendants_or_group() on SIGUSR2 -> kill_group_and_exit() on the hang-up. */
#include "spawn.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/sched.h> /* struct clone_args, CLONE_INTO_CGROUP */
#endif

pid_t command_child = 0; /* the shell; its wait status is kept for the end marker */
int command_status = 0, command_reaped = 0;

/* Reaps every ended child; returns 1 while any child is left, 0 once there is none. */
int reap_children(void) {
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
void remove_cgroup(void) {
  if (!cgroup_dir[0]) return;
  struct timespec pause = {0, 1000000};
  for (int i = 0; i < 200 && rmdir(cgroup_dir) < 0 && errno == EBUSY; i++) nanosleep(&pause, NULL);
  cgroup_dir[0] = '\0';
}

/* Makes NONCE's cgroup below ZODEX_CGROUP (zodexd's folder); "" when there is none. */
void make_cgroup(const char *nonce) {
  const char *base = getenv("ZODEX_CGROUP");
  cgroup_dir[0] = '\0';
  if (!base || !*base) return;
  int len = snprintf(cgroup_dir, sizeof cgroup_dir, "%s/%s", base, nonce);
  if (len <= 0 || (size_t)len >= sizeof cgroup_dir || (mkdir(cgroup_dir, 0700) < 0 && errno != EEXIST)) cgroup_dir[0] = '\0';
}

/* Starts the command's process inside its cgroup: clone3 with CLONE_INTO_CGROUP (Linux 5.7),
   born there, else fork and the child moves itself (a migration waits for an RCU grace period:
   milliseconds, measured 10 ms a command on the loaded test machine, so only as a fallback). */
pid_t fork_command(void) {
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
#else
void make_cgroup(const char *nonce) { (void)nonce; }
void remove_cgroup(void) {}
pid_t fork_command(void) { return fork(); }
#endif

/* A kill request: everything but this process. Without /proc, the child's group is all we can
   reach: the shell and what stayed in its group. */
void kill_descendants_or_group(void) {
#ifdef __linux__
  kill_descendants();
#else
  kill(-getpgrp(), SIGKILL);
#endif
}

void kill_group_and_exit(void) {
  signal(SIGHUP, SIG_IGN);
#ifdef __linux__
  kill_descendants();
#endif
  remove_cgroup();
  kill(0, SIGKILL); /* the whole process group, this process included */
  _exit(129);
}

