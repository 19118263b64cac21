#!/usr/bin/env bash
# Stop one service of the local Codabench, keep it down a while, start it again: the faults of a real deployment, to
# rehearse what a competition's site does when a machine or a container goes away (see FAULTS.md here).
#
#   tools/codabench_local/restart.sh SERVICE [--kill | --term-all] [--down SECONDS]
#
# SERVICE: compute-worker, compute-worker-N, site-worker, web, rabbitmq (the broker) or s3 (the storage).
# --kill: SIGKILL to the service's whole process group (a machine lost, an OOM kill), instead of the clean stop,
#         which is `docker stop`'s: TERM to the service's main process (Celery's warm shutdown lets the task in
#         progress end; rabbitmqctl stop for the broker), then SIGKILL to all of it after 10 s.
# --term-all: TERM to every process of the service at once (systemd's default KillMode), not only its main one.
# --down: seconds to stay down before starting again (default 0). The start is start.sh's, with as many compute
#         workers as are running now (or were, for a worker that is restarted).
# s3 (moto, objects in memory): the objects are saved just before the stop and put back at the start, as stop.sh
# and start.sh do, so a restart loses only what is written in between (a real storage server keeps everything).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${CODABENCH_LOCAL_ROOT:-/tmp/codabench-local}
CBI_ROOT=${CBI_ROOT:-/tmp/cbimport}
VENV=${CODABENCH_VENV:-$CBI_ROOT/venv}
S3_PORT=${CODABENCH_LOCAL_S3_PORT:-8766}
EPMD_PORT=${CODABENCH_LOCAL_EPMD_PORT:-8769}
RUN=$ROOT/run
SERVICE=${1:-}
shift || true
KILL=0 DOWN=0 TERMALL=0
while [ $# -gt 0 ]; do
  case "$1" in
    --kill) KILL=1 ;;
    --term-all) TERMALL=1 ;;
    --down) DOWN=${2:?--down needs seconds}; shift ;;
    *) echo "codabench-local: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
case "$SERVICE" in
  compute-worker|compute-worker-[0-9]*|site-worker|web|rabbitmq|s3) ;;
  *) sed -n '5,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
[ -f "$RUN/$SERVICE.pid" ] || { echo "codabench-local: $SERVICE is not running (no $RUN/$SERVICE.pid)" >&2; exit 1; }
say() { echo "codabench-local: $(date -u +%H:%M:%S) $*"; }
workers=$(ls "$RUN"/compute-worker.pid "$RUN"/compute-worker-*.pid 2>/dev/null | wc -l)
pid=$(cat "$RUN/$SERVICE.pid")

if [ "$SERVICE" = s3 ]; then
  rm -rf "$ROOT/s3.new" && mkdir -p "$ROOT/s3.new" &&
    "$VENV/bin/python" "$HERE/s3_state.py" save "http://127.0.0.1:$S3_PORT" "$ROOT/s3.new" > /dev/null &&
    rm -rf "$ROOT/s3" && mv "$ROOT/s3.new" "$ROOT/s3" || say "warning: could not save the S3 objects"
fi
if [ $KILL = 1 ]; then
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null
  [ "$SERVICE" = rabbitmq ] && pkill -KILL -f "beam.*codabench_local" 2>/dev/null
  say "$SERVICE killed (SIGKILL, pid $pid)"
else
  if [ "$SERVICE" = rabbitmq ]; then
    HOME=$ROOT/rabbitmq/home ERL_EPMD_PORT=$EPMD_PORT /usr/lib/rabbitmq/bin/rabbitmqctl -n codabench_local@localhost \
      stop > /dev/null 2>&1
  fi
  if [ $TERMALL = 1 ]; then
    kill -TERM -- "-$pid" 2>/dev/null
    say "$SERVICE stopping (TERM to all its processes, group $pid)"
  else
    kill -TERM "$pid" 2>/dev/null
    say "$SERVICE stopping (TERM to pid $pid, as docker stop)"
  fi
fi
for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
kill -0 "$pid" 2>/dev/null && say "$SERVICE still running after 10 s: SIGKILL, as docker stop"
kill -KILL -- "-$pid" 2>/dev/null || true
rm -f "$RUN/$SERVICE.pid"
say "$SERVICE down"
[ "$DOWN" = 0 ] || sleep "$DOWN"
case "$SERVICE" in compute-worker-*) n=${SERVICE#compute-worker-}; [ "$n" -gt "$workers" ] && workers=$n ;; esac
"$HERE/start.sh" --compute-workers "$workers" > "$ROOT/logs/restart.log" 2>&1 || { say "start.sh failed, see $ROOT/logs/restart.log"; exit 1; }
say "$SERVICE up again ($(cat "$RUN/$SERVICE.pid" 2>/dev/null || echo '?'))"
