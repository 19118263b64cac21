#!/usr/bin/env bash
# Make sure a Docker engine answers `docker info`, for the docker replay and its tests (and CI).
#
# Idempotent: does nothing when the engine already answers. Otherwise installs Debian's docker.io when the
# `docker` client or `dockerd` is missing, then starts dockerd in the background, trying configurations that
# need less and less of the kernel (sandboxes and CI containers often lack iptables or overlayfs).
# Exits 0 when the engine answers, non-zero with one "ensure_engine: ..." line on stderr when it cannot run.
#
# Environment: DOCKERD_LOG (default /tmp/codalab-replay-dockerd.log), ENGINE_WAIT seconds per attempt (default 60).
set -uo pipefail

LOG="${DOCKERD_LOG:-/tmp/codalab-replay-dockerd.log}"
WAIT="${ENGINE_WAIT:-60}"

say() { echo "ensure_engine: $*" >&2; }
fail() { say "$*"; exit 1; }

# `timeout`: a daemon that accepts the socket but hangs must not hang us.
engine_up() { timeout 20 docker info >/dev/null 2>&1; }

# Root commands run directly, or through password-less sudo; nothing interactive (CI must not hang).
AS_ROOT=()
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    AS_ROOT=(sudo -n)
fi

if command -v docker >/dev/null 2>&1 && engine_up; then
    say "engine ready ($(docker info --format '{{.ServerVersion}}' 2>/dev/null))"
    exit 0
fi

if [ "$(id -u)" != 0 ] && [ ${#AS_ROOT[@]} = 0 ]; then
    fail "the Docker engine does not answer ($(docker info 2>&1 | tail -n 1)); installing or starting it needs root or password-less sudo"
fi

if ! command -v docker >/dev/null 2>&1 || ! command -v dockerd >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || fail "docker/dockerd missing and apt-get is not available to install docker.io"
    say "installing Debian's docker.io (docker or dockerd missing)"
    "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 \
        && "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io >&2 \
        || fail "could not install docker.io (needs root or password-less sudo, and a reachable Debian mirror)"
    hash -r
    command -v dockerd >/dev/null 2>&1 || fail "docker.io installed but dockerd is still not on PATH"
fi

# Wait until the engine answers; gives up early when the dockerd we started ($1, may be empty) has died.
wait_for_engine() {
    local pid="$1" waited=0
    while [ "$waited" -lt "$WAIT" ]; do
        engine_up && return 0
        if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
    return 1
}

# A dockerd may already be starting (another test session, or a slow boot): give it its chance first.
if [ -S /var/run/docker.sock ] && pidof dockerd >/dev/null 2>&1; then
    say "dockerd is running but not answering yet; waiting up to ${WAIT}s"
    wait_for_engine "" && { say "engine ready"; exit 0; }
    fail "dockerd is running but 'docker info' still fails: $(docker info 2>&1 | tail -n 1)"
fi

# From the full default setup to the most degraded one that still runs containers.
ATTEMPTS=(
    ""
    "--iptables=false --bridge=none"
    "--iptables=false --bridge=none --storage-driver=vfs"
)
for flags in "${ATTEMPTS[@]}"; do
    say "starting dockerd ${flags:-(default options)}; log: $LOG"
    echo "=== $(date -u +%FT%TZ) dockerd $flags" >>"$LOG"
    # setsid + all three descriptors redirected: the daemon must outlive us and hold no caller's pipe open
    # (pytest and CI wait for EOF on the pipes they give this script).
    # shellcheck disable=SC2086
    # $! is dockerd itself (setsid execs it), or sudo, which lives as long as dockerd and relays signals to it.
    "${AS_ROOT[@]}" setsid dockerd $flags </dev/null >>"$LOG" 2>&1 &
    starter=$!
    if wait_for_engine "$starter"; then
        say "engine ready ($(docker info --format '{{.ServerVersion}} {{.Driver}}' 2>/dev/null))"
        exit 0
    fi
    if [ -n "$starter" ] && kill -0 "$starter" 2>/dev/null; then
        kill "$starter" 2>/dev/null  # our own dockerd, alive but unresponsive: stop it before the next attempt
        sleep 2
    fi
done
fail "no Docker engine can run here (last dockerd log line: $(grep -v '^===' "$LOG" | tail -n 1))"
