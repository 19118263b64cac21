#!/usr/bin/env bash
# Stop everything start.sh started. Data stays (database, S3 objects saved to $ROOT/s3, logs) unless --wipe,
# which also drops the database, removes the image aliases start.sh tagged and deletes $CODABENCH_LOCAL_ROOT.
#
#   tools/codabench_local/stop.sh [--wipe]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${CODABENCH_LOCAL_ROOT:-/tmp/codabench-local}
CBI_ROOT=${CBI_ROOT:-/tmp/cbimport}
VENV=${CODABENCH_VENV:-$CBI_ROOT/venv}
CBI_PGPORT=${CBI_PGPORT:-55432}
DB=${CODABENCH_LOCAL_DB:-codabench_live}
S3_PORT=${CODABENCH_LOCAL_S3_PORT:-8766}
EPMD_PORT=${CODABENCH_LOCAL_EPMD_PORT:-8769}
RUN=$ROOT/run
WIPE=0
[ "${1:-}" = "--wipe" ] && WIPE=1
[ -d "$RUN" ] || { echo "codabench-local: nothing to stop ($RUN absent)"; [ $WIPE = 0 ] || rm -rf "$ROOT"; exit 0; }
say() { echo "codabench-local: $*"; }
alive() { [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }

stop_one() {  # name [seconds]: TERM the service's process group (its own session), then KILL
  local name=$1 secs=${2:-20} pid
  [ -f "$RUN/$name.pid" ] || return 0
  pid=$(cat "$RUN/$name.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
    for _ in $(seq $((secs * 2))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && { kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null; }
    say "$name stopped (pid $pid)"
  fi
  rm -f "$RUN/$name.pid"
}

for pidfile in "$RUN"/compute-worker.pid "$RUN"/compute-worker-*.pid; do
  [ -e "$pidfile" ] && stop_one "$(basename "$pidfile" .pid)" 30
done
stop_one site-worker 30
stop_one web 20
stop_one docker-proxy 5
if alive s3 && [ $WIPE = 0 ]; then
  rm -rf "$ROOT/s3.new" && mkdir -p "$ROOT/s3.new" &&
    "$VENV/bin/python" "$HERE/s3_state.py" save "http://127.0.0.1:$S3_PORT" "$ROOT/s3.new" &&
    rm -rf "$ROOT/s3" && mv "$ROOT/s3.new" "$ROOT/s3" || say "warning: could not save the S3 objects"
fi
stop_one s3 10
if alive rabbitmq; then
  HOME=$ROOT/rabbitmq/home ERL_EPMD_PORT=$EPMD_PORT /usr/lib/rabbitmq/bin/rabbitmqctl -n codabench_local@localhost \
    stop > /dev/null 2>&1
fi
stop_one rabbitmq 20
ERL_EPMD_PORT=$EPMD_PORT epmd -kill > /dev/null 2>&1 || true
stop_one redis 10

if [ -f "$RUN/codabench-symlink.made-here" ]; then
  [ "$(readlink /codabench 2>/dev/null)" = "$ROOT/compute" ] && rm -f /codabench
  rm -f "$RUN/codabench-symlink.made-here"
fi
if [ $WIPE = 1 ]; then
  psql -h 127.0.0.1 -p "$CBI_PGPORT" -U postgres -Atq -c "drop database if exists $DB" 2>/dev/null &&
    say "database $DB dropped"
  if [ -f "$RUN/image-aliases" ]; then
    while read -r img; do docker rmi "$img" > /dev/null 2>&1 && say "image alias $img removed"; done < "$RUN/image-aliases"
  fi
fi
if [ -f "$RUN/postgres.started-here" ]; then
  PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D $CBI_ROOT/pg/data -m fast stop" > /dev/null
  else "$PGBIN/pg_ctl" -D "$CBI_ROOT/pg/data" -m fast stop > /dev/null; fi
  rm -f "$RUN/postgres.started-here"
  say "postgres stopped (start.sh had started it)"
fi
if [ $WIPE = 1 ]; then
  # containers of submissions write root-owned files; the state dir is ours, so remove it all
  rm -rf "$ROOT" && say "wiped $ROOT"
else
  say "stopped; data kept in $ROOT (database $DB; stop.sh --wipe removes both)"
fi
