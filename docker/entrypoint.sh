#!/usr/bin/env bash
# zodexd's container entrypoint (PID 1 is tini, which forwards signals and reaps orphans).
#
# It runs `node /app/dist/cli/zodexd.js "$@"`, with one addition: over http, when no address is
# given (neither --listen nor ZODEX_LISTEN), zodexd listens on the container's own hostname,
# port ${ZODEX_PORT:-7391}. zodexd refuses wildcard binds (0.0.0.0, ::) by design, and the
# hostname resolves to the container's address on its network, which is what `-p` publishes.
# A non-loopback bind needs a token: ZODEX_AUTH_TOKEN or --auth-token-file.
#
# The address used is written to /tmp/zodexd.listen for the image's HEALTHCHECK.
set -euo pipefail

LISTEN_FILE=/tmp/zodexd.listen
transport=${ZODEX_TRANSPORT:-stdio}
listen=${ZODEX_LISTEN:-}
info=0

# flags win over the environment, as in zodexd itself
args=("$@")
i=0
while ((i < ${#args[@]})); do
  a=${args[i]}
  case $a in
    --transport) transport=${args[i + 1]:-} && i=$((i + 1)) ;;
    --transport=*) transport=${a#*=} ;;
    --listen) listen=${args[i + 1]:-} && i=$((i + 1)) ;;
    --listen=*) listen=${a#*=} ;;
    -h | --help | -V | --version) info=1 ;;
    --) break ;;
  esac
  i=$((i + 1))
done

rm -f "$LISTEN_FILE" 2>/dev/null || true
if [[ $transport == http && $info == 0 ]]; then
  if [[ -z $listen ]]; then
    host=$(hostname 2>/dev/null || cat /etc/hostname)
    listen="$host:${ZODEX_PORT:-7391}"
    set -- --listen "$listen" "$@"
  fi
  printf '%s\n' "$listen" >"$LISTEN_FILE" 2>/dev/null || true
fi

exec node /app/dist/cli/zodexd.js "$@"
