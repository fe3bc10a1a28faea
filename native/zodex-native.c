/* zodex_native.node: what Node has no API for.
 *   peerCredentials(fd)  -> { uid, gid, pid } of the process at the other end of a unix socket
 *                           (SO_PEERCRED on Linux, getpeereid + LOCAL_PEERPID on macOS); throws.
 *   openForWriting(fd)   -> true when some process holds the file open for writing, false when
 *                           none does, null when this system cannot tell. Linux: a read lease
 *                           (F_SETLEASE F_RDLCK) is granted only when no descriptor anywhere is
 *                           open for writing on the inode; it is released at once. Its break
 *                           signal is set to SIGURG, which is ignored by default, so an opener
 *                           racing the probe cannot kill us with SIGIO.
 *   eraseEnvironment(names) -> how many NAME=value strings were erased. unsetenv() alone leaves
 *                           the string where the kernel put it at exec, and /proc/PID/environ
 *                           reads that memory ([env_start, env_end) of /proc/self/stat) for as
 *                           long as the process lives. So each listed variable is unset, then
 *                           every string of it is overwritten with NUL bytes: those environ
 *                           pointed to, and those in the exec-time block (Linux).
 *   setDumpable(on)      -> PR_SET_DUMPABLE (Linux; false elsewhere): off, the process's /proc
 *                           files (mem, environ, fd, ...) belong to root and ptrace needs
 *                           CAP_SYS_PTRACE, so a process of the same uid cannot read its memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/socket.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>
#include <node_api.h>

static napi_value fail(napi_env env, const char *what, int err) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s", what, strerror(err));
  napi_throw_error(env, NULL, message);
  return NULL;
}

static int fd_argument(napi_env env, napi_callback_info info, int32_t *fd) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], fd) != napi_ok || *fd < 0) {
    napi_throw_type_error(env, NULL, "expected a file descriptor (a non-negative integer)");
    return -1;
  }
  return 0;
}

static void set_number(napi_env env, napi_value object, const char *name, double value) {
  napi_value number;
  napi_create_double(env, value, &number);
  napi_set_named_property(env, object, name, number);
}

static napi_value peer_credentials(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (fd_argument(env, info, &fd) != 0) return NULL;
  napi_value result;
  napi_create_object(env, &result);
#if defined(__linux__)
  struct ucred cred;
  socklen_t length = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) return fail(env, "SO_PEERCRED", errno);
  set_number(env, result, "uid", cred.uid);
  set_number(env, result, "gid", cred.gid);
  set_number(env, result, "pid", cred.pid);
#elif defined(__APPLE__)
  uid_t uid;
  gid_t gid;
  if (getpeereid(fd, &uid, &gid) != 0) return fail(env, "getpeereid", errno);
  set_number(env, result, "uid", uid);
  set_number(env, result, "gid", gid);
  pid_t pid = 0;
  socklen_t length = sizeof pid;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &pid, &length) == 0) set_number(env, result, "pid", pid);
#else
  return fail(env, "peer credentials", ENOSYS);
#endif
  return result;
}

static napi_value open_for_writing(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (fd_argument(env, info, &fd) != 0) return NULL;
  napi_value result;
#if defined(__linux__)
  if (fcntl(fd, F_SETSIG, SIGURG) != 0) {
    napi_get_null(env, &result);
    return result;
  }
  if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0) {
    fcntl(fd, F_SETLEASE, F_UNLCK);
    napi_get_boolean(env, false, &result);
  } else if (errno == EAGAIN) {
    napi_get_boolean(env, true, &result);
  } else {
    napi_get_null(env, &result); /* EACCES (not our file, no CAP_LEASE), EINVAL (no leases here) */
  }
#else
  napi_get_null(env, &result);
#endif
  return result;
}

extern char **environ;

#define MAX_NAMES 32
#define MAX_NAME_BYTES 256

/* NAME=... with NAME one of `names`. */
static int listed(const char *entry, size_t length, char names[][MAX_NAME_BYTES], size_t count) {
  for (size_t i = 0; i < count; i++) {
    size_t n = strlen(names[i]);
    if (n < length && memcmp(entry, names[i], n) == 0 && entry[n] == '=') return 1;
  }
  return 0;
}

#if defined(__linux__)
/* The exec-time environment block, from fields 50 and 51 of /proc/self/stat (Linux 3.5). */
static int environment_block(char **start, char **end) {
  char line[4096];
  FILE *stat = fopen("/proc/self/stat", "r");
  if (!stat) return -1;
  size_t length = fread(line, 1, sizeof line - 1, stat);
  fclose(stat);
  line[length] = '\0';
  char *field = strrchr(line, ')'); /* the command name may hold spaces and parentheses */
  if (!field) return -1;
  unsigned long long values[2] = {0, 0};
  int number = 2;
  for (char *token = strtok(field + 1, " \n"); token; token = strtok(NULL, " \n")) {
    number++;
    if (number == 50) values[0] = strtoull(token, NULL, 10);
    if (number == 51) values[1] = strtoull(token, NULL, 10);
  }
  if (number < 51 || values[0] == 0 || values[1] <= values[0]) return -1;
  *start = (char *)(uintptr_t)values[0];
  *end = (char *)(uintptr_t)values[1];
  return 0;
}
#endif

static napi_value erase_environment(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  uint32_t count = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_get_array_length(env, argv[0], &count) != napi_ok || count > MAX_NAMES) {
    napi_throw_type_error(env, NULL, "expected an array of at most 32 variable names");
    return NULL;
  }
  char names[MAX_NAMES][MAX_NAME_BYTES];
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    size_t length = 0;
    if (napi_get_element(env, argv[0], i, &item) != napi_ok || napi_get_value_string_utf8(env, item, names[i], MAX_NAME_BYTES, &length) != napi_ok || length == 0 ||
        length >= MAX_NAME_BYTES - 1 || strchr(names[i], '=')) {
      napi_throw_type_error(env, NULL, "expected variable names (no '=', at most 254 bytes)");
      return NULL;
    }
  }
  int erased = 0;
  /* The strings environ points to, found before unsetenv drops the pointers. */
  char *found[256];
  size_t found_count = 0;
  for (char **entry = environ; entry && *entry && found_count < 256; entry++) {
    if (listed(*entry, strlen(*entry), names, count)) found[found_count++] = *entry;
  }
  for (uint32_t i = 0; i < count; i++) unsetenv(names[i]);
  for (size_t i = 0; i < found_count; i++) {
    memset(found[i], 0, strlen(found[i]));
    erased++;
  }
#if defined(__linux__)
  char *start, *end;
  if (environment_block(&start, &end) == 0) {
    for (char *entry = start; entry < end;) {
      size_t length = strnlen(entry, (size_t)(end - entry));
      if (length > 0 && listed(entry, length, names, count)) {
        memset(entry, 0, length);
        erased++;
      }
      entry += length + 1;
    }
  }
#endif
  napi_value result;
  napi_create_int32(env, erased, &result);
  return result;
}

static napi_value set_dumpable(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  bool on = true;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_get_value_bool(env, argv[0], &on) != napi_ok) {
    napi_throw_type_error(env, NULL, "expected a boolean");
    return NULL;
  }
  napi_value result;
#if defined(__linux__)
  if (prctl(PR_SET_DUMPABLE, on ? 1 : 0, 0, 0, 0) != 0) return fail(env, "PR_SET_DUMPABLE", errno);
  napi_get_boolean(env, true, &result);
#else
  napi_get_boolean(env, false, &result);
#endif
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"peerCredentials", NULL, peer_credentials, NULL, NULL, NULL, napi_default, NULL},
    {"openForWriting", NULL, open_for_writing, NULL, NULL, NULL, napi_default, NULL},
    {"eraseEnvironment", NULL, erase_environment, NULL, NULL, NULL, napi_default, NULL},
    {"setDumpable", NULL, set_dumpable, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
