#!/usr/bin/env bash
# build-images.sh: the images CI and the conformance suite use, built from this working tree.
#
#   1. the base image (docker/make-base-image.sh; a no-op when it is up to date), unless
#      ZODEX_BASE_IMAGE names another base (e.g. node:20-bookworm-slim where it can be pulled);
#   2. zodex:local from docker/Dockerfile on that base (the layer cache makes an unchanged tree a
#      sub-second no-op);
#   3. zodex-client:local from docker/client/Dockerfile: the conformance suite as an isolated
#      MCP client (and the compose demo's agent).
#
# Prints the three tags on stdout (base first). Quiet otherwise; on failure, prints the build log.
#
# Environment:
#   ZODEX_BASE_IMAGE     base image (default zodex-local-base:node20, made here when needed)
#   ZODEX_IMAGE          tag to build (default zodex:local)
#   ZODEX_CLIENT_IMAGE   the client's tag (default zodex-client:local)
#   ZODEX_BUILD_NETWORK  docker build --network value (e.g. host) for RUN steps whose bridge
#                        network cannot reach the npm registry (not needed on the CI machines)
#   ZODEX_BUILD_VERBOSE  1 = stream the build output
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOCAL_BASE=zodex-local-base:node20
BASE=${ZODEX_BASE_IMAGE:-$LOCAL_BASE}
IMAGE=${ZODEX_IMAGE:-zodex:local}

say() { printf 'build-images: %s\n' "$*" >&2; }

docker info >/dev/null 2>&1 || { say "error: no Docker daemon (run .ci/install-deps.sh)"; exit 1; }

if [[ $BASE == "$LOCAL_BASE" ]]; then
  "$ROOT/docker/make-base-image.sh" "$BASE" >/dev/null
elif ! docker image inspect "$BASE" >/dev/null 2>&1; then
  say "base $BASE is not present locally; docker build will try to pull it"
fi

# Legacy builder unless BuildKit is really available (buildx is not installed on these machines).
if [[ -z ${DOCKER_BUILDKIT:-} ]] && ! docker buildx version >/dev/null 2>&1; then
  export DOCKER_BUILDKIT=0
fi

# With the legacy builder the layer cache *is* the build's intermediate images. The build stage's
# last image is tagged too (zodex:local-build), which keeps the current cache safe from
# `docker image prune` and lets the previous one be dropped after each build instead of piling up
# as dangling images. It is taken from this build's own output (the last " ---> ID" before the
# runtime stage's FROM), not from a second build: the tree may change in between.
if [[ ${IMAGE##*/} == *:* ]]; then STAGE_IMAGE=$IMAGE-build; else STAGE_IMAGE=$IMAGE:build; fi

args=(build --force-rm -f "$ROOT/docker/Dockerfile" --build-arg "BASE=$BASE" -t "$IMAGE")
[[ -n ${ZODEX_BUILD_NETWORK:-} ]] && args+=(--network "$ZODEX_BUILD_NETWORK")
args+=("$ROOT")

log=$(mktemp)
trap 'rm -f "$log"' EXIT
old_id=$(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)
old_stage_id=$(docker image inspect -f '{{.Id}}' "$STAGE_IMAGE" 2>/dev/null || true)
start=$(date +%s.%N)
if [[ ${ZODEX_BUILD_VERBOSE:-0} == 1 ]]; then
  docker "${args[@]}" 2>&1 | tee "$log" >&2
elif ! docker "${args[@]}" >"$log" 2>&1; then
  tail -n 100 "$log" >&2
  say "error: docker build of $IMAGE failed (command: docker ${args[*]})"
  exit 1
fi
new_id=$(docker image inspect -f '{{.Id}}' "$IMAGE")

stage_id=$(awk '/^Step [0-9]+\/[0-9]+ : FROM / { before_last_from = last }
                /^ ---> [0-9a-f]+$/ { last = $2 }
                END { print before_last_from }' "$log")
if [[ -n $stage_id ]] && docker tag "$stage_id" "$STAGE_IMAGE" 2>/dev/null; then
  new_stage_id=$(docker image inspect -f '{{.Id}}' "$STAGE_IMAGE")
else
  new_stage_id=$old_stage_id # BuildKit (no intermediate images) or unexpected output: leave it
fi

# What the tags named before is garbage now: drop it (docker refuses, harmlessly, when a container
# or another tag still uses it; layers shared with the new images stay).
if [[ -n $old_id && $old_id != "$new_id" ]]; then
  docker image rm "$old_id" >/dev/null 2>&1 || true
fi
if [[ -n $old_stage_id && $old_stage_id != "$new_stage_id" ]]; then
  docker image rm "$old_stage_id" >/dev/null 2>&1 || true
fi

say "$IMAGE $( [[ $old_id == "$new_id" ]] && echo 'unchanged' || echo 'built') in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f s", e - s}') (base $BASE)"

CLIENT_IMAGE=${ZODEX_CLIENT_IMAGE:-zodex-client:local}
client_args=(build --force-rm -f "$ROOT/docker/client/Dockerfile" --build-arg "BASE=$BASE" -t "$CLIENT_IMAGE")
[[ -n ${ZODEX_BUILD_NETWORK:-} ]] && client_args+=(--network "$ZODEX_BUILD_NETWORK")
client_args+=("$ROOT")
old_client_id=$(docker image inspect -f '{{.Id}}' "$CLIENT_IMAGE" 2>/dev/null || true)
start=$(date +%s.%N)
if ! docker "${client_args[@]}" >"$log" 2>&1; then
  tail -n 100 "$log" >&2
  say "error: docker build of $CLIENT_IMAGE failed (command: docker ${client_args[*]})"
  exit 1
fi
new_client_id=$(docker image inspect -f '{{.Id}}' "$CLIENT_IMAGE")
if [[ -n $old_client_id && $old_client_id != "$new_client_id" ]]; then
  docker image rm "$old_client_id" >/dev/null 2>&1 || true
fi
say "$CLIENT_IMAGE $( [[ $old_client_id == "$new_client_id" ]] && echo 'unchanged' || echo 'built') in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f s", e - s}')"

echo "$BASE"
echo "$IMAGE"
echo "$CLIENT_IMAGE"
