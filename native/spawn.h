/* zodex-spawn's shared declarations: one file per mode (reporter, standby, zygote), the frame and
   I/O helpers in spawn-io.c, the kill machinery in spawn-kill.c. The wire formats are in
   PROTOCOL.md beside this file. */
#ifndef ZODEX_SPAWN_H
#define ZODEX_SPAWN_H
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Set by signal handlers (spawn-reporter.c); on_hangup also serves the standby's wait. */
void on_hangup(int sig);
extern volatile sig_atomic_t hung_up;
extern volatile sig_atomic_t kill_requested;

/* spawn-io.c: bytes, the command frame, the status word, descriptors. */
void write_all(int fd, const char *buf, size_t len);
int read_all(int fd, char *buf, size_t len);
int decode_spec(const unsigned char *p, size_t len, char **cwd, char ***args, char ***env);
int read_spec(int fd, char **cwd, char ***args, char ***env);
int decode_only(void);
int format_status(char *buf, size_t size, int status);
int valid_nonce(const char *nonce);
void close_inherited(void);

/* spawn-kill.c: reaping, the command's cgroup, killing every descendant. */
extern pid_t command_child;
extern int command_status, command_reaped;
int reap_children(void);
void make_cgroup(const char *nonce);
void remove_cgroup(void);
pid_t fork_command(void);
void kill_descendants_or_group(void);
void kill_group_and_exit(void);

/* spawn-confine.c: the command's confinement (PROTOCOL.md, "The confinement entry"). */
int confine_parse(const char *text);
int confine_active(void);
int confine_network_off(void);
const char *confine_failure(void);
int confine_apply(const char *cwd, int channel);
int confine_receive(int channel, int *mount_ns, int *listener);
int confine_serve(int listener, unsigned long *refused);
int landlock_abi(void);
int probe(const char *dir, char **program);
int exec_confined(char **program);
int show_policy(void);

void prepare_reporter(const char *nonce);
/* spawn-reporter.c: runs one command on this terminal and reports its end (never returns). */
void run_reporter(const char *nonce, const char *cwd, char **args, char **env);
/* spawn-standby.c: `NONCE --standby SOCKET`: waits for the command, then runs it. */
int standby(const char *nonce, const char *socket_path);
/* spawn-zygote.c: `--zygote SOCKET`: forks standbys onto terminals zodexd opened. */
int zygote(const char *self, const char *socket_path);

#endif
