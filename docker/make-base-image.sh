#!/usr/bin/env bash
# make-base-image.sh [TAG]  (default TAG: zodex-local-base:node20)
#
# Builds, from this machine's own files and without any image registry, a Docker base image that
# stands in for node:20-bookworm-slim: the host's node + npm (+ node's headers, so node-gyp works
# offline), bash, coreutils, git, tini, ca-certificates, useradd, and the toolchain a build stage
# needs (python3, make, gcc/g++, libc headers).
#
# How: the installed Debian packages' file lists (dpkg-query -L), following Depends/Pre-Depends
# of the installed packages, plus node's own files, minus docs, man pages and locales; a few
# generated files (/etc/passwd, /etc/group, /etc/ssl/certs, ld.so.cache, npmrc ...); then
# `docker import`. Only needed where node:20-bookworm-slim cannot be pulled (see docker/README.md).
#
# Idempotent: the image carries a label with a hash of its inputs (package versions, node and npm
# versions, CA bundle, this script); when the tag already has that hash, nothing is rebuilt.
# Set ZODEX_BASE_FORCE=1 to rebuild anyway. The tag is the only thing printed on stdout.
set -euo pipefail

TAG=${1:-zodex-local-base:node20}
LABEL_KEY=org.zodex.base.inputs
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF="$HERE/$(basename "${BASH_SOURCE[0]}")"

say() { printf 'make-base-image: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

for c in docker dpkg-query python3 tar ldconfig; do
  command -v "$c" >/dev/null || die "$c is required"
done
[[ $(id -u) -eq 0 ]] || die "must run as root (it reads and re-owns system files)"

NODE_BIN=$(readlink -f "$(command -v node)") || die "node is not installed"
NODE_PREFIX=$(dirname "$(dirname "$NODE_BIN")")
NODE_VERSION=$("$NODE_BIN" -p 'process.versions.node')
NPM_DIR="$NODE_PREFIX/lib/node_modules/npm"
[[ -f $NPM_DIR/package.json ]] || die "npm not found at $NPM_DIR"
[[ -f $NODE_PREFIX/include/node/node.h ]] || die "node headers not found at $NODE_PREFIX/include/node"
NPM_VERSION=$("$NODE_BIN" -p "require('$NPM_DIR/package.json').version")

# Debian packages to start from; their Depends/Pre-Depends are followed.
ROOTS=(
  base-files bash dash coreutils findutils grep sed diffutils gzip tar mawk hostname libc-bin
  passwd ca-certificates netbase git tini procps util-linux
  libc6 libstdc++6 libgcc-s1
  python3 make gcc g++ libc6-dev
)
# Packages never taken (nor followed): package management, docs, perl (git's core commands are C),
# gcc's sanitizer/profiling runtimes (only for -fsanitize / gprofng), the openssl CLI.
EXCLUDE=(
  dpkg debconf debconf-2.0 apt install-info init-system-helpers login
  perl perl-modules-5.36 libperl5.36 liberror-perl git-man
  libasan8 libtsan2 liblsan0 libubsan1 libhwasan0 libgprofng0 openssl
)

WORK=$(mktemp -d /var/tmp/zodex-base.XXXXXX)
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT

# --- 1. resolve the package set (one dpkg-query call; fast) ---------------------------------------
python3 - "$WORK/pkgs" "${#ROOTS[@]}" "${ROOTS[@]}" "${EXCLUDE[@]}" <<'PY'
import re, subprocess, sys
out, n = sys.argv[1], int(sys.argv[2])
roots, exclude = sys.argv[3:3 + n], set(sys.argv[3 + n:])
fmt = '${db:Status-Abbrev}\t${Package}\t${Version}\t${Provides}\t${Pre-Depends}\t${Depends}\n'
rows = subprocess.run(['dpkg-query', '-W', '-f=' + fmt], check=True, capture_output=True, text=True).stdout
info, provides = {}, {}
for line in rows.splitlines():
    st, pkg, ver, prov, pre, dep = (line.split('\t') + [''] * 6)[:6]
    if not st.startswith('ii'):
        continue
    info[pkg] = (ver, ', '.join(x for x in (pre, dep) if x.strip()))
    for v in prov.split(','):
        v = re.sub(r'\(.*?\)', '', v).strip()
        if v:
            provides.setdefault(v, pkg)
chosen, queue = {}, list(roots)
while queue:
    p = queue.pop(0)
    if p in chosen or p in exclude:
        continue
    if p not in info:
        sys.exit(f'make-base-image: error: package {p} is not installed on this machine')
    chosen[p] = info[p][0]
    for alt in filter(None, (a.strip() for a in info[p][1].split(','))):
        pick = None
        for cand in alt.split('|'):
            cand = re.sub(r'\(.*?\)|\[.*?\]|:any', '', cand).strip()
            if cand in exclude:
                pick = ''
                break
            if cand in info:
                pick = cand
                break
            if cand in provides:
                pick = provides[cand]
                break
        if pick is None:
            sys.exit(f'make-base-image: error: cannot satisfy "{alt}" (needed by {p})')
        if pick:
            queue.append(pick)
with open(out, 'w') as f:
    for p in sorted(chosen):
        f.write(f'{p}\t{chosen[p]}\n')
PY

CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
INPUTS_HASH=$(
  {
    cat "$WORK/pkgs"
    printf 'node=%s npm=%s prefix=%s\n' "$NODE_VERSION" "$NPM_VERSION" "$NODE_PREFIX"
    sha256sum "$SELF" | cut -d' ' -f1
    [[ -f $CA_BUNDLE ]] && sha256sum "$CA_BUNDLE" | cut -d' ' -f1
  } | sha256sum | cut -c1-32
)

if [[ ${ZODEX_BASE_FORCE:-0} != 1 ]] &&
  [[ $(docker image inspect -f "{{ index .Config.Labels \"$LABEL_KEY\" }}" "$TAG" 2>/dev/null || true) == "$INPUTS_HASH" ]]; then
  say "$TAG is up to date (inputs $INPUTS_HASH)"
  echo "$TAG"
  exit 0
fi

say "building $TAG: node $NODE_VERSION, npm $NPM_VERSION, $(wc -l <"$WORK/pkgs") Debian packages"

# --- 2. the file list ------------------------------------------------------------------------------
cut -f1 "$WORK/pkgs" | xargs dpkg-query -L >"$WORK/dpkg-files"
{
  for f in node npm npx corepack; do [[ -e $NODE_PREFIX/bin/$f ]] && echo "$NODE_PREFIX/bin/$f"; done
  echo "$NODE_BIN"
  echo "//TREE $NPM_DIR"
  [[ -d $NODE_PREFIX/lib/node_modules/corepack ]] && echo "//TREE $NODE_PREFIX/lib/node_modules/corepack"
  echo "//TREE $NODE_PREFIX/include/node"
  # whatever the node binary links against (for a node that did not come from a .deb)
  ldd "$NODE_BIN" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'
  # generated by maintainer scripts, so in no package's file list
  [[ -d /etc/ssl/certs ]] && echo "//TREE /etc/ssl/certs"
  for f in /etc/os-release /etc/profile /etc/login.defs /usr/sbin/nologin /etc/bash.bashrc /etc/debian_version; do
    [[ -e $f ]] && echo "$f"
  done
} >"$WORK/extra-files"

python3 - "$WORK/dpkg-files" "$WORK/extra-files" "$WORK/list" "$(uname -m)" <<'PY'
import os, re, sys
dpkg_files, extra_files, out, machine = sys.argv[1:5]
ssl_arch = {'x86_64': 'linux-x86_64', 'aarch64': 'linux-aarch64'}.get(machine, '')
drop = re.compile(
    # docs, man pages, locales, shell completions
    r'^/usr/share/(doc|doc-base|man|info|locale|lintian|linda|bug|bash-completion|zsh|fish'
    r'|gitweb|help|gtk-doc|menu|pixmaps|applications)(/|$)'
    r'|/lib/node_modules/npm/(docs|man)(/|$)|/__pycache__(/|$)'
    # gcc's LTO compiler and dumper (-flto only) and sanitizer archives (their runtimes are left out)
    r'|^/usr/lib/gcc/[^/]+/[^/]+/lto1$|^/usr/bin/[^/]*lto-dump[^/]*$'
    r'|^/usr/lib/gcc/[^/]+/[^/]+/lib(a|t|l|ub|hwa)san[^/]*\.a$'
    # node's OpenSSL headers for other platforms (node-gyp only reads this machine's)
    + (r'|/include/node/openssl/archs/(?!' + re.escape(ssl_arch) + r'(/|$))' if ssl_arch else ''))
# merged /usr: /bin -> usr/bin etc. Paths are canonicalised so the tar holds each file once, under
# its real directory, and the top-level links are recorded as links.
def canon(p):
    d, b = os.path.split(p)
    d = os.path.realpath(d)
    return os.path.join(d, b) if b else d
paths = set()
def add(p, follow):
    if not p or drop.search(p) or not os.path.lexists(p):
        return
    c = canon(p)
    if c in paths:
        return
    paths.add(c)
    # Symlink chains are followed for node's own files and for alternatives
    # (/usr/bin/cc -> /etc/alternatives/cc -> /usr/bin/gcc), not for packaged links into packages
    # deliberately left out (gcc's libasan.so -> libasan8): those stay dangling, harmlessly.
    if os.path.islink(c):
        t = os.path.normpath(os.path.join(os.path.dirname(c), os.readlink(c)))
        if follow or t.startswith('/etc/alternatives/'):
            add(t, True)
def add_tree(root):
    for d, dirs, files in os.walk(root):
        add(d, True)
        for n in dirs + files:
            full = os.path.join(d, n)
            if os.path.isdir(full) and not os.path.islink(full):
                continue
            add(full, True)
with open(dpkg_files) as f:
    for line in f:
        line = line.rstrip('\n')
        if line.startswith('/') and line != '/.':
            add(line, False)
with open(extra_files) as f:
    for line in f:
        line = line.rstrip('\n')
        if line.startswith('//TREE '):
            add_tree(line[7:])
        else:
            add(line, True)
# alternatives are made by maintainer scripts (update-alternatives), so no file list has them:
# take every master and slave link whose chosen target is in the image.
altdb = '/var/lib/dpkg/alternatives'
if os.path.isdir(altdb):
    for name in os.listdir(altdb):
        try:
            lines = open(os.path.join(altdb, name)).read().split('\n')
        except OSError:
            continue
        links = [(name, lines[1])] if len(lines) > 1 else []
        i = 2
        while i + 1 < len(lines) and lines[i]:
            links.append((lines[i], lines[i + 1]))
            i += 2
        for alt, link in links:
            sel = '/etc/alternatives/' + alt
            if os.path.islink(sel) and canon(os.path.realpath(sel)) in paths:
                add(link, True)
# every parent directory, so modes and owners come from the host, not from tar's defaults
for p in list(paths):
    d = os.path.dirname(p)
    while d not in ('/', ''):
        paths.add(d)
        d = os.path.dirname(d)
# the merged-/usr links themselves
for top in ('bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'):
    if os.path.islink('/' + top):
        paths.add('/' + top)
with open(out, 'wb') as f:
    for p in sorted(paths):
        rel = p.lstrip('/')
        if rel:
            f.write(rel.encode() + b'\0')
PY

# --- 3. the root filesystem ----------------------------------------------------------------------
ROOT="$WORK/rootfs"
mkdir -p "$ROOT"
tar -C / --no-recursion --null -T "$WORK/list" -cf - | tar -C "$ROOT" -xpf -

install -d -m 1777 "$ROOT/tmp" "$ROOT/var/tmp"
install -d -m 0700 "$ROOT/root"
install -d -m 0755 "$ROOT/home" "$ROOT/run" "$ROOT/proc" "$ROOT/sys" "$ROOT/dev" \
  "$ROOT/usr/local/bin" "$ROOT/usr/local/sbin" "$ROOT/usr/local/lib" "$ROOT/usr/local/share" \
  "$ROOT/usr/local/include" "$ROOT/var/log" "$ROOT/var/cache" "$ROOT/var/lib" "$ROOT/etc/skel"
[[ -e $ROOT/var/run ]] || ln -s /run "$ROOT/var/run"
for f in dot.bashrc dot.profile; do
  [[ -f /usr/share/base-files/$f ]] && install -m 0644 "/usr/share/base-files/$f" "$ROOT/root/.${f#dot.}"
done

# Debian's standard users and groups (base-passwd), with shadow files as Debian has them
if [[ -f /usr/share/base-passwd/passwd.master ]]; then
  sed 's/^\([^:]*\):\*:/\1:x:/' /usr/share/base-passwd/passwd.master >"$ROOT/etc/passwd"
  sed 's/^\([^:]*\):\*:/\1:x:/' /usr/share/base-passwd/group.master >"$ROOT/etc/group"
else
  printf '%s\n' 'root:x:0:0:root:/root:/bin/bash' 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' >"$ROOT/etc/passwd"
  printf '%s\n' 'root:x:0:' 'tty:x:5:' 'shadow:x:42:' 'staff:x:50:' 'users:x:100:' 'nogroup:x:65534:' >"$ROOT/etc/group"
fi
cut -d: -f1 "$ROOT/etc/passwd" | sed 's/$/:*:19000:0:99999:7:::/' >"$ROOT/etc/shadow"
cut -d: -f1 "$ROOT/etc/group" | sed 's/$/:*::/' >"$ROOT/etc/gshadow"
chmod 0644 "$ROOT/etc/passwd" "$ROOT/etc/group"
chmod 0640 "$ROOT/etc/shadow" "$ROOT/etc/gshadow"
chgrp 42 "$ROOT/etc/shadow" "$ROOT/etc/gshadow"

cat >"$ROOT/etc/nsswitch.conf" <<'EOF'
passwd:         files
group:          files
shadow:         files
gshadow:        files
hosts:          files dns
networks:       files
protocols:      files
services:       files
ethers:         files
rpc:            files
EOF
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$ROOT/etc/hosts"
: >"$ROOT/etc/resolv.conf"
echo localhost >"$ROOT/etc/hostname"

# npm's global config ($PREFIX/etc/npmrc): node-gyp takes node's headers from the image itself and
# never downloads them; npm trusts the system CA bundle (which holds any local TLS-proxy CA too).
mkdir -p "$ROOT$NODE_PREFIX/etc"
{
  echo "nodedir=$NODE_PREFIX"
  [[ -f $CA_BUNDLE ]] && echo "cafile=$CA_BUNDLE"
  echo "update-notifier=false"
  echo "fund=false"
} >"$ROOT$NODE_PREFIX/etc/npmrc"

ldconfig -r "$ROOT"
rm -rf "$ROOT/var/cache/ldconfig/aux-cache"

# --- 4. import ------------------------------------------------------------------------------------
OLD_ID=$(docker image inspect -f '{{.Id}}' "$TAG" 2>/dev/null || true)
PATH_IN_IMAGE=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
[[ $NODE_PREFIX == /usr || $NODE_PREFIX == /usr/local ]] || PATH_IN_IMAGE="$NODE_PREFIX/bin:$PATH_IN_IMAGE"
tar -C "$ROOT" --numeric-owner -cf - . |
  docker import \
    --change "ENV PATH=$PATH_IN_IMAGE" \
    --change "ENV LANG=C.UTF-8" \
    --change "ENV NODE_VERSION=$NODE_VERSION" \
    --change "LABEL $LABEL_KEY=$INPUTS_HASH" \
    --change "LABEL org.zodex.base.source=make-base-image.sh" \
    --change 'WORKDIR /' \
    --change 'CMD ["node"]' \
    --message "zodex local base: node $NODE_VERSION, npm $NPM_VERSION" \
    - "$TAG" >/dev/null

# the image this tag named before: drop it unless something still uses it (then docker refuses)
NEW_ID=$(docker image inspect -f '{{.Id}}' "$TAG")
if [[ -n $OLD_ID && $OLD_ID != "$NEW_ID" ]]; then docker image rm "$OLD_ID" >/dev/null 2>&1 || true; fi

say "built $TAG ($(docker image inspect -f '{{.Size}}' "$TAG" | awk '{printf "%.0f MB", $1/1e6}'))"
echo "$TAG"
