#!/usr/bin/env bash
# zodexd's container entrypoint (PID 1 is tini, which forwards signals and reaps orphans).
#
# It runs `node /app/dist/cli/zodexd.js "$@"`, with two additions over http, each only when not
# given (by flag or environment):
#   - the MCP address (--listen, ZODEX_LISTEN): the container's own hostname, port
#     ${ZODEX_PORT:-7391}. zodexd refuses wildcard binds (0.0.0.0, ::) by design, and the hostname
#     resolves to the container's address on its network, which is what `-p` publishes.
#   - the ops listener (--ops-listen, ZODEX_OPS_LISTEN): the same hostname, port
#     ${ZODEX_OPS_PORT:-9464}, for the HEALTHCHECK and an orchestrator's probes and scrapes;
#     ZODEX_OPS_PORT=off leaves it off.
# A non-loopback bind needs a token: ZODEX_AUTH_TOKEN or --auth-token-file.
# Nothing is written to disk: the root filesystem may be read-only.
set -euo pipefail

transport=${ZODEX_TRANSPORT:-stdio}
listen=${ZODEX_LISTEN:-}
ops=${ZODEX_OPS_LISTEN:-}
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
    --ops-listen) ops=${args[i + 1]:-} && i=$((i + 1)) ;;
    --ops-listen=*) ops=${a#*=} ;;
    -h | --help | -V | --version) info=1 ;;
    --) break ;;
  esac
  i=$((i + 1))
done

if [[ $transport == http && $info == 0 ]]; then
  host=$(hostname 2>/dev/null || cat /etc/hostname)
  [[ -z $listen ]] && set -- --listen "$host:${ZODEX_PORT:-7391}" "$@"
  [[ -z $ops && ${ZODEX_OPS_PORT:-9464} != off ]] && set -- --ops-listen "$host:${ZODEX_OPS_PORT:-9464}" "$@"
fi

exec node /app/dist/cli/zodexd.js "$@"
