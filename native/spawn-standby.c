/* Standby (`zodex-spawn NONCE --standby SOCKET`): started before its command is known, so that
   the terminal and this process are ready when one comes. Flow: connect to zodexd's socket ->
   say the nonce -> read one command frame (PROTOCOL.md) -> run it as the reporter. A hang-up
   while waiting (zodexd closed the terminal or died) ends it with nothing started. */
#include "spawn.h"
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif


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

int standby(const char *nonce, const char *socket_path) {
  prepare_reporter(nonce);
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
  char *cwd = NULL, **args = NULL, **env = NULL;
  if (await_command(socket_path, nonce, &cwd, &args, &env) < 0) {
    remove_cgroup();
    return 129;
  }
  run_reporter(nonce, cwd, args, env);
  return 127; /* not reached */
}
