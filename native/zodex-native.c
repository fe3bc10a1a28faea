/* zodex_native.node: the two facts Node has no API for.
 *   peerCredentials(fd)  -> { uid, gid, pid } of the process at the other end of a unix socket
 *                           (SO_PEERCRED on Linux, getpeereid + LOCAL_PEERPID on macOS); throws.
 *   openForWriting(fd)   -> true when some process holds the file open for writing, false when
 *                           none does, null when this system cannot tell. Linux: a read lease
 *                           (F_SETLEASE F_RDLCK) is granted only when no descriptor anywhere is
 *                           open for writing on the inode; it is released at once. Its break
 *                           signal is set to SIGURG, which is ignored by default, so an opener
 *                           racing the probe cannot kill us with SIGIO.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
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

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"peerCredentials", NULL, peer_credentials, NULL, NULL, NULL, napi_default, NULL},
    {"openForWriting", NULL, open_for_writing, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
