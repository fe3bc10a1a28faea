#!/usr/bin/env bash
# Installs what zodex's tests need on a Debian bookworm CI machine (Docker Engine, docker-compose,
# Chromium, bubblewrap, kubectl where an apt source has it, and openssh-server: the write-mode tests
# push through a real sshd and ssh-agent) and makes sure one Docker daemon is answering on
# /var/run/docker.sock.
# Idempotent and quiet: it prints nothing when all is already in place, and prints the relevant log
# when something fails. Runs as root (no sudo, no systemd needed).
set -euo pipefail

PACKAGES=(docker.io docker-compose chromium curl bubblewrap openssh-server procps)
SOCK=/var/run/docker.sock
DOCKERD_LOG=/var/log/dockerd.log
WAIT_SECONDS=60

die() { printf 'install-deps: %s\n' "$*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "must run as root"

# --- Debian packages -----------------------------------------------------------------------------
is_installed() {
  [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) == ii* ]]
}

missing=()
for p in "${PACKAGES[@]}"; do is_installed "$p" || missing+=("$p"); done

if ((${#missing[@]})); then
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  export DEBIAN_FRONTEND=noninteractive
  apt_install() { apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1; }
  # apt-get update only when needed: no package lists at all, or the install fails on stale lists.
  if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
    apt-get update >>"$log" 2>&1 || { cat "$log" >&2; die "apt-get update failed"; }
  fi
  if ! apt_install; then
    apt-get update >>"$log" 2>&1 || { cat "$log" >&2; die "apt-get update failed"; }
    apt_install || { tail -n 50 "$log" >&2; die "apt-get install ${missing[*]} failed"; }
  fi
  rm -f "$log"
fi

# --- kubectl: deploy/kubernetes is built with `kubectl kustomize` (spec/deploy/manifests.test.ts) --
# The CI machines' image has it (kubectl 1.32, kustomize v5.5, from the cloud SDK's apt source,
# which `apt-get install kubectl` uses where it is configured). Debian bookworm itself has only
# kubernetes-client 1.20, whose kustomize v2 cannot read these manifests: it is not installed, and
# without kubectl the manifests test fails under ZODEX_NO_SKIP, saying why.
if ! command -v kubectl >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends kubectl >/dev/null 2>&1 ||
    printf 'install-deps: warning: kubectl is not installed and no apt source offers it; the manifests test will fail\n' >&2
fi

# --- Docker daemon -------------------------------------------------------------------------------
ping_ok() {
  [[ $(curl -s --max-time 2 --unix-socket "$SOCK" http://localhost/_ping 2>/dev/null || true) == OK ]]
}

ping_ok && exit 0

# Never start a second dockerd beside a running one (a second daemon can tear down docker0):
# when one is already running but not answering yet (it is starting), just wait for it.
dockerd_running() {
  local pid
  pid=$(cat /var/run/docker.pid 2>/dev/null || true)
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && return 0
  if command -v pgrep >/dev/null; then pgrep -x dockerd >/dev/null; else pidof dockerd >/dev/null; fi
}
if ! dockerd_running; then
  # setsid: the daemon gets its own session, so it outlives the CI step's process group.
  setsid nohup dockerd >"$DOCKERD_LOG" 2>&1 </dev/null &
fi

deadline=$((SECONDS + WAIT_SECONDS))
while ((SECONDS < deadline)); do
  ping_ok && exit 0
  sleep 0.1
done

printf 'install-deps: dockerd did not answer %s/_ping within %ss; last lines of %s:\n' \
  "$SOCK" "$WAIT_SECONDS" "$DOCKERD_LOG" >&2
tail -n 40 "$DOCKERD_LOG" >&2 2>/dev/null || true
exit 1
