/* Confinement of one command, applied by the reporter's child right before it execs the shell
   (PROTOCOL.md, "The confinement entry"). zodexd sends the policy as the environment entry
   ZODEX_CONFINE; the reporter takes it out of the command's environment. Flow:
     parse -> namespaces (root: a mount namespace; others: a user namespace mapping only
     themselves, and a mount namespace) -> every mount made private to us (slave) -> governed:
     each credential store that exists now masked (files and sockets under /dev/null, folders
     under an empty read-only tmpfs), their folders pinned, redacted copies bound, the runtime
     folder replaced, every listening socket we could connect to by owner or group masked -> as
     root: a minimal /dev, /proc/sys and /sys read-only -> sandbox: everything read-only but the
     writable roots, a private /tmp and /dev/shm -> as root: every capability dropped for good ->
     no_new_privs -> Landlock (processes outside the command cannot be traced or read through
     /proc; abstract unix sockets outside it cannot be reached) -> seccomp (network off: socket()
     for anything but AF_UNIX is refused and reported to the reporter; keyrings refused) -> exec.
   Any step that fails ends the child (exit 126) with one line naming the step: a command never
   runs less confined than the policy says. `zodex-spawn --probe` runs the same steps in a
   throwaway child at zodexd's start. */
#include "spawn.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sched.h>
#include <stddef.h>
#endif

/* The policy, decoded. Strings point into one copy of the entry's value. */
struct policy {
  int governed, sandbox, network_off; /* sandbox: 0 off, 1 read-only, 2 workspace-write */
  const char **masks, **pins, **allowed, **bind_src, **bind_dst, **roots, **keep, **readonly, **prefixes, **visible;
  size_t n_masks, n_pins, n_allowed, n_binds, n_bind_dst, n_roots, n_keep, n_readonly, n_prefixes, n_visible;
  const char *tmp, *runtime;
};

static struct policy current;
static int have_policy = 0;
/* Every entry as parsed, in order, for `--show-policy`. */
static char *entry_keys = NULL;
static const char **entry_values = NULL;
static size_t entry_count = 0;
static char failure[512]; /* why the last step failed */

static int fail(const char *format, ...) {
  int saved = errno;
  va_list args;
  va_start(args, format);
  int len = vsnprintf(failure, sizeof failure, format, args);
  va_end(args);
  if (saved && len > 0 && (size_t)len < sizeof failure) snprintf(failure + len, sizeof failure - (size_t)len, ": %s", strerror(saved));
  errno = saved;
  return -1;
}

const char *confine_failure(void) { return failure; }

static int push(const char ***list, size_t *count, const char *value) {
  const char **grown = realloc(*list, (*count + 1) * sizeof **list);
  if (!grown) return -1;
  grown[(*count)++] = value;
  *list = grown;
  return 0;
}

/* ZODEX_CONFINE's value: entries KEY LEN ':' BYTES, KEY one letter, LEN decimal, one after the
   other. Unknown keys and malformed entries are refused: a policy this build cannot read in full is
   never half applied. */
int confine_parse(const char *text) {
  memset(&current, 0, sizeof current);
  have_policy = 0;
  entry_count = 0;
  if (!text) return 0;
  const char *p = text, *end = text + strlen(text);
  while (p < end) {
    char key = *p++;
    char *colon;
    unsigned long len = strtoul(p, &colon, 10);
    if (colon == p || *colon != ':' || len > (size_t)(end - colon - 1)) { errno = 0; return fail("policy: malformed entry '%c'", key); }
    char *value = strndup(colon + 1, len);
    if (!value) return fail("policy: out of memory");
    if (strlen(value) != len) { errno = 0; return fail("policy: a value holds a NUL"); }
    p = colon + 1 + len;
    char *keys = realloc(entry_keys, entry_count + 1);
    if (!keys || push(&entry_values, &entry_count, value) < 0) return fail("policy: out of memory");
    entry_keys = keys;
    entry_keys[entry_count - 1] = key;
    int is_path = strchr("mabBwkptroMv", key) != NULL;
    if (is_path && value[0] != '/') { errno = 0; return fail("policy: '%c' path is not absolute", key); }
    int ok = 0;
    switch (key) {
    case 'g': current.governed = 1; break;
    case 's':
      current.sandbox = strcmp(value, "read-only") == 0 ? 1 : strcmp(value, "workspace-write") == 0 ? 2 : -1;
      if (current.sandbox < 0) { errno = 0; return fail("policy: unknown sandbox '%s'", value); }
      break;
    case 'n': current.network_off = 1; break;
    case 'm': ok = push(&current.masks, &current.n_masks, value); break;
    case 'p': ok = push(&current.pins, &current.n_pins, value); break;
    case 'a': ok = push(&current.allowed, &current.n_allowed, value); break;
    case 'b': ok = push(&current.bind_src, &current.n_binds, value); break;
    case 'B': ok = push(&current.bind_dst, &current.n_bind_dst, value); break;
    case 'w': ok = push(&current.roots, &current.n_roots, value); break;
    case 'k': ok = push(&current.keep, &current.n_keep, value); break;
    case 'o': ok = push(&current.readonly, &current.n_readonly, value); break;
    case 'M': ok = push(&current.prefixes, &current.n_prefixes, value); break;
    case 'v': ok = push(&current.visible, &current.n_visible, value); break;
    case 't': current.tmp = value; break;
    case 'r': current.runtime = value; break;
    default: errno = 0; return fail("policy: unknown entry '%c' (zodexd and zodex-spawn are from different builds?)", key);
    }
    if (ok < 0) return fail("policy: out of memory");
  }
  if (current.n_binds != current.n_bind_dst) { errno = 0; return fail("policy: a bind without its destination"); }
  have_policy = current.governed || current.sandbox || current.network_off;
  return 0;
}

int confine_active(void) { return have_policy; }

/* `zodex-spawn --show-policy`: parses ZODEX_CONFINE and prints "KEY LEN\nVALUE\n" per entry, in
   order, or the parse error and exits 2 (spec/exec/wire.test.ts pins the encoding with it). */
int show_policy(void) {
  if (confine_parse(getenv("ZODEX_CONFINE")) < 0) {
    fprintf(stdout, "%s\n", failure);
    return 2;
  }
  for (size_t i = 0; i < entry_count; i++) {
    char head[64];
    int len = snprintf(head, sizeof head, "%c %zu\n", entry_keys[i], strlen(entry_values[i]));
    write_all(STDOUT_FILENO, head, (size_t)len);
    write_all(STDOUT_FILENO, entry_values[i], strlen(entry_values[i]));
    write_all(STDOUT_FILENO, "\n", 1);
  }
  return 0;
}
int confine_network_off(void) { return have_policy && current.network_off; }

#ifdef __linux__

/* Kernel interfaces newer than some distributions' headers: defined here, numbers are the same on
   every architecture for syscalls added after 5.0. */
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef MOUNT_ATTR_NOSUID
#define MOUNT_ATTR_NOSUID 0x00000002
#endif
struct zx_mount_attr { uint64_t attr_set, attr_clr, propagation, userns_fd; };
struct zx_landlock_ruleset_attr { uint64_t handled_access_fs, handled_access_net, scoped; };
#define ZX_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define ZX_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
/* Landlock ABI 6 (Linux 6.12) scopes abstract unix sockets; older ABIs cannot keep a command from
   a D-Bus or X11 abstract socket of the user's, so they count as "cannot enforce". */
#define MIN_LANDLOCK_ABI 6
#ifndef SECBIT_NOROOT
#define SECBIT_NOROOT (1 << 0)
#define SECBIT_NOROOT_LOCKED (1 << 1)
#define SECBIT_NO_SETUID_FIXUP (1 << 2)
#define SECBIT_NO_SETUID_FIXUP_LOCKED (1 << 3)
#define SECBIT_KEEP_CAPS_LOCKED (1 << 5)
#define SECBIT_NO_CAP_AMBIENT_RAISE (1 << 6)
#define SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED (1 << 7)
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

static int open_tree_clone(const char *path) {
  return (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
}
static int attach(int tree, const char *path) {
  return (int)syscall(SYS_move_mount, tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH);
}
static int set_readonly(const char *path, int recursive) {
  struct zx_mount_attr attr = {MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID, 0, 0, 0};
  return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &attr, sizeof attr);
}

static int write_text(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, strlen(text));
  int saved = errno;
  close(fd);
  errno = saved;
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A user namespace where only our own uid and gid exist (they map to themselves): files keep their
   owners, and after execve the command holds no capability in it. */
static int enter_namespaces(void) {
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (uid == 0) {
    if (unshare(CLONE_NEWNS) < 0) return fail("unshare(CLONE_NEWNS)");
    return 0;
  }
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) return fail("unshare(CLONE_NEWUSER|CLONE_NEWNS) (user namespaces)");
  char map[64];
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  if (write_text("/proc/self/uid_map", map) < 0) return fail("writing /proc/self/uid_map");
  if (write_text("/proc/self/setgroups", "deny\n") < 0 && errno != ENOENT) return fail("writing /proc/self/setgroups");
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  if (write_text("/proc/self/gid_map", map) < 0) return fail("writing /proc/self/gid_map");
  return 0;
}

static int in_group(gid_t gid) {
  if (gid == getegid()) return 1;
  gid_t groups[256];
  int n = getgroups(256, groups);
  for (int i = 0; i < n; i++)
    if (groups[i] == gid) return 1;
  return 0;
}

static int listed(const char *path, const char **list, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (strcmp(list[i], path) == 0) return 1;
  return 0;
}

/* An empty, read-only folder over a folder; /dev/null over anything else (a file reads as empty,
   a socket refuses connections). Paths that do not exist now are skipped, also one removed
   between the stat and the mount (ENOENT: another zodexd's private folder, gone as it exited). */
static int mask(const char *path) {
  struct stat st;
  if (stat(path, &st) < 0) return 0;
  int rc = S_ISDIR(st.st_mode) ? mount("zodex-masked", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=0,mode=0500")
                               : mount("/dev/null", path, NULL, MS_BIND, NULL);
  if (rc < 0 && errno != ENOENT) return fail("masking %s", path);
  return 0;
}

/* 'M' DIR/PREFIX: every entry of DIR whose name starts with PREFIX, masked (the private folders of
   every zodexd of this user: their zodex-spawn copies must stay theirs). */
static int mask_prefixed(const char *pattern) {
  const char *slash = strrchr(pattern, '/');
  char dir[4096];
  snprintf(dir, sizeof dir, "%.*s", (int)(slash - pattern), pattern);
  if (!dir[0]) snprintf(dir, sizeof dir, "/");
  const char *prefix = slash + 1;
  DIR *folder = opendir(dir);
  if (!folder) return 0;
  struct dirent *entry;
  int rc = 0;
  while (rc == 0 && (entry = readdir(folder)) != NULL) {
    if (strncmp(entry->d_name, prefix, strlen(prefix)) != 0) continue;
    char path[4096 + 256];
    snprintf(path, sizeof path, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, entry->d_name);
    rc = mask(path);
  }
  closedir(folder);
  return rc;
}

/* Binds a folder onto itself: a mount point cannot be renamed or removed, so a command cannot move
   a store's folder away from the path where the next command masks it. */
static int pin(const char *path) {
  struct stat st;
  if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) return 0;
  if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0) return fail("pinning %s", path);
  return 0;
}

/* PATH is under (or is) ROOT. */
static int beneath(const char *path, const char *root) {
  size_t len = strlen(root);
  if (strcmp(root, "/") == 0) return 1;
  return strncmp(path, root, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* The folders zodexd named ('p': those between a home and its stores, and a home the command
   could rename) are pinned where a store that exists now lies below them. */
static int pin_parents(void) {
  for (size_t i = 0; i < current.n_pins; i++) {
    int guards = 0;
    for (size_t j = 0; j < current.n_masks && !guards; j++) {
      struct stat st;
      guards = beneath(current.masks[j], current.pins[i]) && strcmp(current.masks[j], current.pins[i]) != 0 && stat(current.masks[j], &st) == 0;
    }
    if (guards && pin(current.pins[i]) < 0) return -1;
  }
  return 0;
}

/* Every listening named unix socket we could connect to through its owner or group bits (a
   service of our own user, or of a group we are in: docker's, for one), except the allowed ones,
   gets /dev/null over it. Sockets open to everyone (a database's, nscd's) stay. */
static int mask_sockets(void) {
  FILE *table = fopen("/proc/net/unix", "re");
  if (!table) return fail("reading /proc/net/unix");
  char line[4608];
  uid_t uid = getuid();
  int rc = 0;
  if (!fgets(line, sizeof line, table)) { fclose(table); return 0; }
  while (rc == 0 && fgets(line, sizeof line, table)) {
    unsigned long flags = 0;
    char *slash = strchr(line, '/');
    if (sscanf(line, "%*s %*s %*s %lx", &flags) != 1 || !(flags & 0x10000) || !slash) continue; /* __SO_ACCEPTCON */
    slash[strcspn(slash, "\n")] = '\0';
    struct stat st;
    if (listed(slash, current.allowed, current.n_allowed) || lstat(slash, &st) < 0 || !S_ISSOCK(st.st_mode)) continue;
    int ours = st.st_uid == uid ? (st.st_mode & S_IWUSR) != 0 : in_group(st.st_gid) && (st.st_mode & S_IWGRP);
    if (ours && mount("/dev/null", slash, NULL, MS_BIND, NULL) < 0 && errno != ENOENT) rc = fail("masking the socket %s", slash);
  }
  fclose(table);
  return rc;
}

/* Makes the missing folders of PATH (absolute), then PATH itself as a folder (DIR) or an empty
   file: a mount point. */
static void make_mount_point(const char *path, int dir) {
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", path);
  for (char *slash = strchr(copy + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    *slash = '\0';
    mkdir(copy, 0700);
    *slash = '/';
  }
  if (dir) mkdir(copy, 0700);
  else close(open(copy, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
}

/* The runtime folder ($XDG_RUNTIME_DIR: the session bus, the keyring, gpg-agent, systemd's user
   manager, ssh agents) becomes an empty private tmpfs; the kept paths (the publisher's socket
   folder in publish-pr, ssh-agent's socket in direct mode) are bound back at their places. */
static int replace_runtime(void) {
  struct stat st;
  if (!current.runtime || stat(current.runtime, &st) < 0 || !S_ISDIR(st.st_mode)) return 0;
  int kept[16];
  const char *where[16];
  size_t n = 0;
  for (size_t i = 0; i < current.n_keep && n < 16; i++) {
    if (!beneath(current.keep[i], current.runtime) || strcmp(current.keep[i], current.runtime) == 0) continue;
    int tree = open_tree_clone(current.keep[i]);
    if (tree < 0 && errno == ENOENT) continue;
    if (tree < 0) return fail("keeping %s", current.keep[i]);
    kept[n] = tree;
    where[n++] = current.keep[i];
  }
  char options[64];
  snprintf(options, sizeof options, "mode=0700,uid=%u,gid=%u", (unsigned)getuid(), (unsigned)getgid());
  if (mount("zodex-runtime", current.runtime, "tmpfs", MS_NOSUID | MS_NODEV, options) < 0) return fail("replacing %s", current.runtime);
  for (size_t i = 0; i < n; i++) {
    struct stat target;
    if (fstat(kept[i], &target) < 0) return fail("keeping %s", where[i]);
    make_mount_point(where[i], S_ISDIR(target.st_mode));
    if (attach(kept[i], where[i]) < 0) return fail("keeping %s", where[i]);
    close(kept[i]);
  }
  return 0;
}

/* Root: a /dev of its own with only the harmless nodes and the terminals (uid 0 owns the disks),
   /proc/sys, /proc/sysrq-trigger and /sys read-only (core_pattern, modprobe, uevent_helper would
   run a program as root outside every confinement). */
static int root_filesystems(void) {
  static const char *nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
  int fds[6];
  for (size_t i = 0; i < 6; i++) {
    char path[32];
    snprintf(path, sizeof path, "/dev/%s", nodes[i]);
    fds[i] = open(path, O_PATH | O_CLOEXEC);
    if (fds[i] < 0) return fail("opening %s", path);
  }
  int pts = open_tree_clone("/dev/pts"), shm = current.sandbox ? -1 : open_tree_clone("/dev/shm");
  if (pts < 0) return fail("cloning /dev/pts");
  if (mount("zodex-dev", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") < 0) return fail("mounting /dev");
  for (size_t i = 0; i < 6; i++) {
    char path[32], source[64];
    snprintf(path, sizeof path, "/dev/%s", nodes[i]);
    snprintf(source, sizeof source, "/proc/self/fd/%d", fds[i]);
    close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0666));
    if (mount(source, path, NULL, MS_BIND, NULL) < 0) return fail("binding %s", path);
    close(fds[i]);
  }
  mkdir("/dev/pts", 0755);
  mkdir("/dev/shm", 01777);
  if (attach(pts, "/dev/pts") < 0) return fail("attaching /dev/pts");
  close(pts);
  if (shm >= 0) {
    if (attach(shm, "/dev/shm") < 0) return fail("attaching /dev/shm");
    close(shm);
  }
  static const char *links[][2] = {{"pts/ptmx", "/dev/ptmx"}, {"/proc/self/fd", "/dev/fd"}, {"/proc/self/fd/0", "/dev/stdin"},
                                   {"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"}};
  for (size_t i = 0; i < 5; i++)
    if (symlink(links[i][0], links[i][1]) < 0) return fail("linking %s", links[i][1]);
  if (set_readonly("/dev", 0) < 0) return fail("making /dev read-only");
  static const char *readonly[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"};
  for (size_t i = 0; i < 4; i++) {
    struct stat st;
    if (stat(readonly[i], &st) < 0) continue;
    if (mount(readonly[i], readonly[i], NULL, MS_BIND | MS_REC, NULL) < 0 || set_readonly(readonly[i], 1) < 0) return fail("making %s read-only", readonly[i]);
  }
  if (set_readonly("/sys", 1) < 0) return fail("making /sys read-only");
  return 0;
}

/* The sandbox: every mount read-only, then the writable roots (workspace-write: the workdir and each
   --writable-root, as they were) attached back on top, /proc and /dev as they were, a private
   /tmp (zodexd's, shared by its commands) and a private /dev/shm. A write anywhere else fails
   with EROFS. In read-only, the workdir stays readable where it was hidden by the private /tmp, and
   so does each visible path (zodexd's spill files, which results name) that exists. */
/* The private /tmp, cloned before the masks (it lies among the folders they hide). */
static int early_tmp = -1;

static int sandbox_filesystems(const char *workdir) {
  char real[PATH_MAX];
  const char *cwd = workdir && realpath(workdir, real) ? real : NULL;
  if (workdir && !cwd) return fail("resolving the workdir %s", workdir);
  const char *roots[64];
  size_t n = 0;
  if (current.sandbox == 2 && cwd) roots[n++] = cwd;
  for (size_t i = 0; current.sandbox == 2 && i < current.n_roots && n < 63; i++) roots[n++] = current.roots[i];
  int tmp_is_root = 0;
  for (size_t i = 0; i < n; i++) tmp_is_root |= beneath("/tmp", roots[i]);
  int private_tmp = current.tmp && !tmp_is_root && !(cwd && beneath("/tmp", cwd));
  int trees[64], proc = open_tree_clone("/proc"), dev = open_tree_clone("/dev"), tmp = -1, seen = -1;
  if (proc < 0 || dev < 0) return fail("cloning /proc and /dev");
  for (size_t i = 0; i < n; i++)
    if ((trees[i] = open_tree_clone(roots[i])) < 0) return fail("cloning the writable root %s", roots[i]);
  if (private_tmp && (tmp = early_tmp) < 0) return fail("cloning the private /tmp %s", current.tmp);
  /* read-only mode, workdir under /tmp: it stays visible (read-only) inside the private /tmp */
  if (private_tmp && current.sandbox == 1 && cwd && beneath(cwd, "/tmp") && (seen = open_tree_clone(cwd)) < 0) return fail("cloning %s", cwd);
  /* visible paths under /tmp: read-only inside the private /tmp, where they exist now */
  int shown[16];
  const char *shown_at[16];
  size_t n_shown = 0;
  for (size_t i = 0; private_tmp && i < current.n_visible && n_shown < 16; i++) {
    if (!beneath(current.visible[i], "/tmp") || strcmp(current.visible[i], "/tmp") == 0) continue;
    int tree = open_tree_clone(current.visible[i]);
    if (tree < 0 && errno == ENOENT) continue;
    if (tree < 0) return fail("cloning %s", current.visible[i]);
    shown_at[n_shown] = current.visible[i];
    shown[n_shown++] = tree;
  }
  if (set_readonly("/", 1) < 0) return fail("making / read-only");
  if (attach(proc, "/proc") < 0 || attach(dev, "/dev") < 0) return fail("attaching /proc and /dev");
  if (private_tmp && attach(tmp, "/tmp") < 0) return fail("attaching the private /tmp");
  if (mount("zodex-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0) return fail("mounting a private /dev/shm");
  for (size_t i = 0; i < n; i++) {
    if (private_tmp && beneath(roots[i], "/tmp")) make_mount_point(roots[i], 1);
    if (attach(trees[i], roots[i]) < 0) return fail("attaching the writable root %s", roots[i]);
  }
  if (seen >= 0) {
    make_mount_point(cwd, 1);
    if (attach(seen, cwd) < 0 || set_readonly(cwd, 1) < 0) return fail("attaching %s", cwd);
  }
  for (size_t i = 0; i < n_shown; i++) {
    make_mount_point(shown_at[i], 1);
    if (attach(shown[i], shown_at[i]) < 0 || set_readonly(shown_at[i], 1) < 0) return fail("attaching %s", shown_at[i]);
  }
  return 0;
}

/* Root: no capability can come back, through execve or anything else: securebits locked (root
   is not special at exec), the bounding and ambient sets emptied, then the sets themselves. */
static int drop_capabilities(void) {
  if (getuid() != 0 && geteuid() != 0) return 0;
  int bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
             SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
  if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0) return fail("setting securebits");
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  for (int cap = 0; cap <= 63; cap++)
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL) return fail("dropping capability %d from the bounding set", cap);
  return 0;
}

static int clear_capabilities(void) {
  struct { uint32_t version; int pid; } header = {0x20080522, 0}; /* _LINUX_CAPABILITY_VERSION_3 */
  struct { uint32_t effective, permitted, inheritable; } data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &header, data) < 0) return fail("clearing capabilities");
  return 0;
}

int landlock_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, ZX_LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? -errno : (int)abi;
}

/* A Landlock domain of the command's own: no process outside it can be ptraced, or read through
   /proc/PID/{environ,mem,root,cwd,fd} (zodexd, the publisher, the user's own shells), and no
   abstract unix socket bound outside it can be reached. */
static int landlock(void) {
  int abi = landlock_abi();
  if (abi == -ENOSYS) { errno = 0; return fail("Landlock is not in this kernel (Linux 5.13+ with CONFIG_SECURITY_LANDLOCK)"); }
  if (abi == -EOPNOTSUPP) { errno = 0; return fail("Landlock is built but not enabled (add landlock to the lsm= kernel parameter)"); }
  if (abi < 0) { errno = -abi; return fail("landlock_create_ruleset"); }
  if (abi < MIN_LANDLOCK_ABI) { errno = 0; return fail("Landlock ABI %d is older than %d (Linux 6.12), which is needed to keep abstract unix sockets (D-Bus, X11) out of reach", abi, MIN_LANDLOCK_ABI); }
  struct zx_landlock_ruleset_attr attr = {0, 0, ZX_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET};
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0) return fail("landlock_create_ruleset");
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) {
    close(ruleset);
    return fail("landlock_restrict_self");
  }
  close(ruleset);
  return 0;
}

#if defined(__x86_64__)
#define ZX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ZX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

static int install_filter(struct sock_filter *code, size_t count, unsigned int flags) {
  struct sock_fprog program = {(unsigned short)count, code};
  long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &program);
  if (fd < 0) return fail("installing a seccomp filter");
  return (int)fd;
}

/* Two filters. The first, always: another architecture's calls (i386's socketcall, x32) kill the
   process; keyrings are refused (a Kerberos ticket or a keyctl secret of the same user). The
   second, with the network off: socket() of any family but AF_UNIX (and AF_NETLINK's route
   protocol, for getifaddrs) goes to the reporter, which refuses it and counts it; io_uring, which
   can open sockets without socket(), is refused. *LISTENER gets the second filter's listener. */
static int seccomp_filters(int *listener) {
  *listener = -1;
#ifdef ZX_AUDIT_ARCH
  struct sock_filter base[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ZX_AUDIT_ARCH, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __x86_64__
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_add_key, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_keyctl, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_request_key, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  if (install_filter(base, sizeof base / sizeof base[0], 0) < 0) return -1;
  if (!current.network_off) return 0;
  struct sock_filter network[] = {
    /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
    /* 2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 6),
    /* 4 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 4, 0),
    /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 0, 2),
    /* 7 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
    /* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0 /* NETLINK_ROUTE */, 1, 0),
    /* 9 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    /* 10 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  int fd = install_filter(network, sizeof network / sizeof network[0], SECCOMP_FILTER_FLAG_NEW_LISTENER);
  if (fd < 0) return -1;
  *listener = fd;
  return 0;
#else
  errno = 0;
  return fail("seccomp: this architecture is not supported");
#endif
}

/* Hands the reporter, over CHANNEL (SCM_RIGHTS), the command's mount namespace (so that tearing
   it down, a few hundred umounts and RCU waits, happens after the end marker, when the reporter
   lets go, not while the command's exit is on its way) and the seccomp listener, if any. */
static int send_to_reporter(int channel, int mount_ns, int listener) {
  int fds[2] = {mount_ns, listener};
  int count = listener >= 0 ? 2 : 1;
  char byte = listener >= 0 ? 'L' : 'N';
  struct iovec io = {&byte, 1};
  union { struct cmsghdr header; char space[CMSG_SPACE(2 * sizeof(int))]; } control;
  memset(&control, 0, sizeof control);
  struct msghdr message = {0};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control.space;
  message.msg_controllen = CMSG_SPACE((size_t)count * sizeof(int));
  struct cmsghdr *header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN((size_t)count * sizeof(int));
  memcpy(CMSG_DATA(header), fds, (size_t)count * sizeof(int));
  if (sendmsg(channel, &message, MSG_NOSIGNAL) < 0) return fail("handing the mount namespace and the seccomp listener to the reporter");
  close(mount_ns);
  if (listener >= 0) close(listener);
  return 0;
}

/* The reporter's side: *MOUNT_NS and *LISTENER (-1 when absent); -1 when the child sent nothing
   (it failed before, and exits 126). */
int confine_receive(int channel, int *mount_ns, int *listener) {
  *mount_ns = *listener = -1;
  char byte;
  struct iovec io = {&byte, 1};
  union { struct cmsghdr header; char space[CMSG_SPACE(2 * sizeof(int))]; } control;
  struct msghdr message = {0};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control.space;
  message.msg_controllen = sizeof control.space;
  ssize_t n;
  do n = recvmsg(channel, &message, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return -1;
  struct cmsghdr *header = CMSG_FIRSTHDR(&message);
  if (!header || header->cmsg_type != SCM_RIGHTS) return -1;
  int fds[2] = {-1, -1};
  size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
  memcpy(fds, CMSG_DATA(header), (count > 2 ? 2 : count) * sizeof(int));
  *mount_ns = fds[0];
  if (byte == 'L' && count >= 2) *listener = fds[1];
  return 0;
}

/* One notification on the listener: a socket() of the network family the sandbox refuses. It is
   answered EACCES (as a firewall would: "Permission denied") and counted. Returns 1 when one was
   answered, 0 when there was none, -1 when the listener is gone. */
int confine_serve(int listener, unsigned long *refused) {
  struct seccomp_notif request;
  struct seccomp_notif_resp response;
  memset(&request, 0, sizeof request);
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) < 0) return errno == EINTR || errno == ENOENT ? 0 : -1;
  memset(&response, 0, sizeof response);
  response.id = request.id;
  response.error = -EACCES;
  (*refused)++;
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response);
  return 1;
}

/* Everything, in order; CHANNEL receives the seccomp listener when the network is off. */
int confine_apply(const char *cwd, int channel) {
  if (!have_policy) return 0;
  if (enter_namespaces() < 0) return -1;
  int mount_ns = channel >= 0 ? open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC) : -1;
  if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) return fail("making every mount private to the command");
  if (current.sandbox && current.tmp && (early_tmp = open_tree_clone(current.tmp)) < 0) return fail("cloning the private /tmp %s", current.tmp);
  /* pins first (a pin binds a folder with what is mounted below it), then the redacted copies
     (their sources may lie in a folder masked next), then the masks */
  if (pin_parents() < 0) return -1;
  for (size_t i = 0; i < current.n_binds; i++) {
    struct stat st;
    if (stat(current.bind_dst[i], &st) < 0) continue;
    if (mount(current.bind_src[i], current.bind_dst[i], NULL, MS_BIND, NULL) < 0) return fail("binding a redacted copy over %s", current.bind_dst[i]);
  }
  for (size_t i = 0; i < current.n_masks; i++)
    if (mask(current.masks[i]) < 0) return -1;
  for (size_t i = 0; i < current.n_prefixes; i++)
    if (mask_prefixed(current.prefixes[i]) < 0) return -1;
  if ((current.governed || current.sandbox) && (replace_runtime() < 0 || mask_sockets() < 0)) return -1;
  /* read-only folders (root: the system's programs and configuration, which unconfined processes
     run later: ld.so.preload, the publisher's git, cron) */
  for (size_t i = 0; i < current.n_readonly; i++) {
    struct stat st;
    if (lstat(current.readonly[i], &st) < 0 || !S_ISDIR(st.st_mode)) continue;
    if (mount(current.readonly[i], current.readonly[i], NULL, MS_BIND | MS_REC, NULL) < 0 || set_readonly(current.readonly[i], 1) < 0)
      return fail("making %s read-only", current.readonly[i]);
  }
  if (getuid() == 0 && root_filesystems() < 0) return -1;
  if (current.sandbox && sandbox_filesystems(cwd) < 0) return -1;
  if (drop_capabilities() < 0) return -1;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return fail("setting no_new_privs");
  if (landlock() < 0) return -1;
  int listener = -1;
  if (seccomp_filters(&listener) < 0) return -1;
  if (channel >= 0 && send_to_reporter(channel, mount_ns, listener) < 0) return -1;
  if (listener >= 0 && channel < 0) close(listener);
  if (getuid() == 0 && clear_capabilities() < 0) return -1;
  return 0;
}

#else /* not Linux: nothing here can confine a command; zodexd refuses to start instead */
int confine_apply(const char *cwd, int channel) {
  (void)cwd;
  (void)channel;
  if (!have_policy) return 0;
  errno = 0;
  return fail("confinement needs Linux (namespaces, Landlock, seccomp)");
}
int confine_receive(int channel, int *mount_ns, int *listener) {
  (void)channel;
  *mount_ns = *listener = -1;
  return -1;
}
int confine_serve(int listener, unsigned long *refused) { (void)listener; (void)refused; return -1; }
int landlock_abi(void) { return -1; }
#endif

/* `zodex-spawn --probe DIR PROGRAM ARGS...`: the policy in ZODEX_CONFINE, applied in a child
   (workdir DIR) that then runs the program (zodexd passes its shell with `-c 'exit 0'`). Prints
   "ok", or one line naming the step that failed; exits 0 only when the child ran the program and
   it exited 0. */
int probe(const char *dir, char **program) {
  if (confine_parse(getenv("ZODEX_CONFINE")) < 0) {
    fprintf(stdout, "%s\n", failure);
    return 1;
  }
  unsetenv("ZODEX_CONFINE");
  int report[2];
  if (pipe2(report, O_CLOEXEC) < 0) return 1;
  int channel[2] = {-1, -1};
  if (confine_active() && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) < 0) return 1;
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(report[0]);
    if (channel[0] >= 0) close(channel[0]);
    if (confine_apply(dir, channel[1]) < 0 || (chdir(dir) < 0 && fail("entering %s", dir) < 0)) {
      write_all(report[1], failure, strlen(failure));
      _exit(126);
    }
    execvp(program[0], program);
    fail("running %s", program[0]);
    write_all(report[1], failure, strlen(failure));
    _exit(127);
  }
  close(report[1]);
  if (channel[1] >= 0) close(channel[1]);
  if (channel[0] >= 0) {
    int mount_ns, listener;
    if (confine_receive(channel[0], &mount_ns, &listener) == 0) {
      if (listener >= 0) close(listener);
      close(mount_ns);
    }
    close(channel[0]);
  }
  char why[512];
  ssize_t n = read(report[0], why, sizeof why - 1);
  close(report[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  if (n > 0) {
    why[n] = '\0';
    fprintf(stdout, "%s\n", why);
    return 1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char word[32];
    format_status(word, sizeof word, status);
    fprintf(stdout, "the confined probe command ended with status %s\n", word);
    return 1;
  }
  fprintf(stdout, "ok\n");
  return 0;
}

/* `zodex-spawn --exec PROGRAM ARGS...`: this process takes the policy in ZODEX_CONFINE (in the
   current folder) and becomes the program: zodexd's login-shell capture runs this way. With the
   network off nobody serves the seccomp listener, so socket() fails with ENOSYS there. */
int exec_confined(char **program) {
  char here[PATH_MAX];
  if (confine_parse(getenv("ZODEX_CONFINE")) < 0 || !getcwd(here, sizeof here)) {
    fprintf(stderr, "zodex-spawn: cannot confine %s: %s\n", program[0], failure);
    return 126;
  }
  unsetenv("ZODEX_CONFINE");
  if (confine_apply(here, -1) < 0 || chdir(here) < 0) {
    fprintf(stderr, "zodex-spawn: cannot confine %s: %s\n", program[0], failure);
    return 126;
  }
  execvp(program[0], program);
  fprintf(stderr, "zodex-spawn: cannot run %s: %s\n", program[0], strerror(errno));
  return 127;
}
