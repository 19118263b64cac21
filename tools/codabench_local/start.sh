#!/usr/bin/env bash
# Start a real Codabench on this machine, loopback only, from its own source (see README.md here).
#
#   tools/codabench_local/start.sh [--compute-workers N]
#       idempotent: starts what is not running, leaves the rest; N compute workers (default 1, or
#       $CODABENCH_LOCAL_COMPUTE_WORKERS), each Codabench's own worker serving the default queue with concurrency 1
#       (as one worker container of the docker-compose file); workers beyond N left by an earlier start are stopped
#   tools/codabench_local/start.sh --network-off   (or CODABENCH_LOCAL_NETWORK_OFF=true)
#       the compute workers it starts now run submissions' containers without network
#       (COMPETITION_CONTAINER_NETWORK_DISABLED=true); running workers keep their setting until restarted
#
# Services (127.0.0.1 only; ports overridable by the variables in brackets):
#   web        Django ASGI site (uvicorn)                           :8765  [CODABENCH_LOCAL_WEB_PORT]
#   s3         moto server, buckets public/private                  :8766  [CODABENCH_LOCAL_S3_PORT]
#   rabbitmq   broker (Debian rabbitmq-server)                      :8767  [CODABENCH_LOCAL_AMQP_PORT], epmd :8769
#   redis      cache, channel layer, celery results                 :8768  [CODABENCH_LOCAL_REDIS_PORT]
#   site-worker  celery -A celery_config worker -B -Q site-worker  (Codabench's site worker + beat)
#   compute-worker  Codabench's compute_worker.py (celery -Q compute-worker, the default queue), runs
#                submissions in Docker through docker-proxy (a pass-through socket that answers "pull" for
#                images already present: nothing can be pulled here)
#   postgres   reused from the codabench-import tool (127.0.0.1:$CBI_PGPORT), own database codabench_live
# State (logs, pids, data) under $CODABENCH_LOCAL_ROOT (default /tmp/codabench-local).
# Reuses $CBI_ROOT (default /tmp/cbimport): codabench/ source tree, venv/, pg/ (made by
# ../../../shared/tools/codabench-import/setup.sh).
set -euo pipefail

WORKERS=${CODABENCH_LOCAL_COMPUTE_WORKERS:-1}
NETWORK_OFF=${CODABENCH_LOCAL_NETWORK_OFF:-false}
while [ $# -gt 0 ]; do
  case "$1" in
    --compute-workers) WORKERS=${2:?--compute-workers needs a number}; shift ;;
    --compute-workers=*) WORKERS=${1#*=} ;;
    --network-off) NETWORK_OFF=true ;;  # workers started now run submissions without network (see README)
    -h|--help) sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "codabench-local: unknown argument: $1 (start.sh [--compute-workers N] [--network-off])" >&2; exit 2 ;;
  esac
  shift
done
case "$WORKERS" in ''|*[!0-9]*|0) echo "codabench-local: --compute-workers takes a number from 1 up, not '$WORKERS'" >&2; exit 2 ;; esac

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${CODABENCH_LOCAL_ROOT:-/tmp/codabench-local}
CBI_ROOT=${CBI_ROOT:-/tmp/cbimport}
CB=${CODABENCH_SRC:-$CBI_ROOT/codabench}
VENV=${CODABENCH_VENV:-$CBI_ROOT/venv}
PIN=c7dbc756b07b133f8e552ae626fab54817ed93f3
export CBI_PGPORT=${CBI_PGPORT:-55432}
export CODABENCH_LOCAL_ROOT=$ROOT
export CODABENCH_LOCAL_DB=${CODABENCH_LOCAL_DB:-codabench_live}
export CODABENCH_LOCAL_WEB_PORT=${CODABENCH_LOCAL_WEB_PORT:-8765}
export CODABENCH_LOCAL_S3_PORT=${CODABENCH_LOCAL_S3_PORT:-8766}
export CODABENCH_LOCAL_AMQP_PORT=${CODABENCH_LOCAL_AMQP_PORT:-8767}
export CODABENCH_LOCAL_REDIS_PORT=${CODABENCH_LOCAL_REDIS_PORT:-8768}
EPMD_PORT=${CODABENCH_LOCAL_EPMD_PORT:-8769}
# images the worker may be asked for; each absent one is tagged from the stand-in (never overwrites an image)
STANDIN=${CODABENCH_LOCAL_STANDIN:-codalab-replay/standin:bullseye}
ALIASES=${CODABENCH_LOCAL_IMAGE_ALIASES:-codalab/codalab-legacy:py37}
WEB_URL="http://127.0.0.1:$CODABENCH_LOCAL_WEB_PORT"
S3_URL="http://127.0.0.1:$CODABENCH_LOCAL_S3_PORT"

RUN=$ROOT/run LOGS=$ROOT/logs
mkdir -p "$RUN" "$LOGS" "$ROOT/codalab_tmp" "$ROOT/emails" "$ROOT/s3" "$ROOT/redis" "$ROOT/compute"

say() { echo "codabench-local: $*"; }
die() { echo "codabench-local: ERROR: $*" >&2; exit 1; }
running() { [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_for() {  # name seconds command...
  local name=$1 secs=$2; shift 2
  for _ in $(seq "$secs"); do "$@" && return 0; running "$name" || die "$name exited; see $LOGS/$name.log"; sleep 1; done
  die "$name not ready after ${secs}s; see $LOGS/$name.log"
}
launch() {  # name command... : a new session (process group) per service, so stop.sh can end all of it
  local name=$1; shift
  if running "$name"; then say "$name already running (pid $(cat "$RUN/$name.pid"))"; return 1; fi
  echo "=== $(date -Is) start: $*" >> "$LOGS/$name.log"
  stat -c %s "$LOGS/$name.log" > "$RUN/$name.logoffset"
  setsid "$@" >> "$LOGS/$name.log" 2>&1 < /dev/null &
  echo $! > "$RUN/$name.pid"
  say "$name started (pid $!), log $LOGS/$name.log"
}

# ---------------------------------------------------------------- prerequisites
SETUP_HINT="create them with: CODABENCH_REPO=https://github.com/codalab/codabench.git bash ../shared/tools/codabench-import/setup.sh  (from this repository's folder; CBI_ROOT=$CBI_ROOT)"
[ -f "$CB/manage.py" ] || die "no Codabench tree at $CB; $SETUP_HINT"
[ -x "$VENV/bin/python" ] || die "no venv at $VENV; $SETUP_HINT"
"$VENV/bin/python" -c "import django, celery, moto, uvicorn, channels_redis, django_redis, storages" 2>/dev/null ||
  die "$VENV lacks Codabench's Python deps; $SETUP_HINT"
"$VENV/bin/python" -c "import flask_cors" 2>/dev/null || "$VENV/bin/pip" install -q "moto[server]"
head=$(git -C "$CB" rev-parse HEAD 2>/dev/null || echo unknown)
[ "$head" = "$PIN" ] || say "warning: $CB is at $head, not the pinned $PIN"
docker info > /dev/null 2>&1 || die "no Docker engine answers (docker info); tools/docker/ensure_engine.sh starts one"
if ! command -v redis-server > /dev/null || [ ! -x /usr/lib/rabbitmq/bin/rabbitmq-server ]; then
  [ "$(id -u)" = 0 ] || die "needs Debian's rabbitmq-server and redis-server: sudo apt-get install -y rabbitmq-server redis-server"
  say "installing rabbitmq-server and redis-server (apt)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q rabbitmq-server redis-server > "$LOGS/apt.log" 2>&1 ||
    { apt-get update -q > /dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y -q rabbitmq-server redis-server > "$LOGS/apt.log" 2>&1; } ||
    die "apt-get install failed, see $LOGS/apt.log"
fi

# ---------------------------------------------------------------- PostgreSQL (the import tool's cluster)
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
PSQL="psql -h 127.0.0.1 -p $CBI_PGPORT -U postgres -Atq"
if ! $PSQL -c "select 1" > /dev/null 2>&1; then
  [ -f "$CBI_ROOT/pg/data/PG_VERSION" ] || die "no PostgreSQL on 127.0.0.1:$CBI_PGPORT and no cluster in $CBI_ROOT/pg; $SETUP_HINT"
  as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi; }
  as_pg "$PGBIN/pg_ctl -D $CBI_ROOT/pg/data -w -l $CBI_ROOT/pg/server.log \
         -o '-p $CBI_PGPORT -k $CBI_ROOT/pg -c listen_addresses=127.0.0.1' start" > /dev/null
  touch "$RUN/postgres.started-here"
  say "postgres started (cluster $CBI_ROOT/pg/data; stop.sh stops it again)"
fi
$PSQL -c "select 1 from pg_database where datname='$CODABENCH_LOCAL_DB'" | grep -q 1 ||
  { $PSQL -c "create database $CODABENCH_LOCAL_DB"; say "database $CODABENCH_LOCAL_DB created"; }

# ---------------------------------------------------------------- redis
launch redis redis-server --bind 127.0.0.1 --port "$CODABENCH_LOCAL_REDIS_PORT" --protected-mode yes \
  --dir "$ROOT/redis" --save 60 1 --appendonly no --daemonize no || true
wait_for redis 30 port_open "$CODABENCH_LOCAL_REDIS_PORT"

# ---------------------------------------------------------------- rabbitmq
export RABBITMQ_NODENAME=codabench_local@localhost RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
  RABBITMQ_NODE_PORT=$CODABENCH_LOCAL_AMQP_PORT RABBITMQ_DIST_PORT=$((CODABENCH_LOCAL_AMQP_PORT + 20000)) \
  ERL_EPMD_PORT=$EPMD_PORT ERL_EPMD_ADDRESS=127.0.0.1 \
  RABBITMQ_MNESIA_BASE=$ROOT/rabbitmq/mnesia RABBITMQ_LOG_BASE=$LOGS/rabbitmq \
  RABBITMQ_CONFIG_FILE=$ROOT/rabbitmq/rabbitmq.conf RABBITMQ_ENABLED_PLUGINS_FILE=$ROOT/rabbitmq/enabled_plugins \
  RABBITMQ_ADVANCED_CONFIG_FILE=$ROOT/rabbitmq/advanced.config RABBITMQ_PID_FILE=$RUN/rabbitmq.beam.pid \
  RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" \
  RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
mkdir -p "$ROOT/rabbitmq/home" "$ROOT/rabbitmq/mnesia" "$LOGS/rabbitmq"
cat > "$ROOT/rabbitmq/rabbitmq.conf" <<EOF
listeners.tcp.default = 127.0.0.1:$CODABENCH_LOCAL_AMQP_PORT
# as Codabench's Containerfile.rabbitmq (WORKER_CONNECTION_TIMEOUT): long runs keep their unacked message
consumer_timeout = 100000000
EOF
echo "[]." > "$ROOT/rabbitmq/enabled_plugins"
HOME=$ROOT/rabbitmq/home launch rabbitmq /usr/lib/rabbitmq/bin/rabbitmq-server || true
wait_for rabbitmq 60 port_open "$CODABENCH_LOCAL_AMQP_PORT"

# ---------------------------------------------------------------- S3 stand-in (moto) + buckets + saved objects
if launch s3 "$VENV/bin/moto_server" -H 127.0.0.1 -p "$CODABENCH_LOCAL_S3_PORT"; then
  wait_for s3 30 port_open "$CODABENCH_LOCAL_S3_PORT"
  "$VENV/bin/python" "$HERE/s3_state.py" restore "$S3_URL" "$ROOT/s3"
else
  "$VENV/bin/python" "$HERE/s3_state.py" init "$S3_URL"
fi

# ---------------------------------------------------------------- Django: schema, static files, front end
export PYTHONPATH=$HERE DJANGO_SETTINGS_MODULE=codabench_local_settings PYTHONDONTWRITEBYTECODE=1
if [ "${CODABENCH_LOCAL_UI:-1}" = 1 ] && [ ! -s "$ROOT/frontend/static/generated/riot.js" ]; then
  if command -v npm > /dev/null; then
    say "building the front end (riot.js, output.css) into $ROOT/frontend (npm install; once)"
    mkdir -p "$ROOT/frontend/static/generated"
    cp "$CB/package.json" "$ROOT/frontend/"
    if (cd "$ROOT/frontend" && npm install --no-audit --no-fund --loglevel=error) > "$LOGS/frontend.log" 2>&1 &&
       (cd "$CB" && "$ROOT/frontend/node_modules/.bin/stylus" --compress < src/static/stylus/index.styl \
          > "$ROOT/frontend/static/generated/output.css") >> "$LOGS/frontend.log" 2>&1 &&
       (cd "$CB" && "$ROOT/frontend/node_modules/.bin/riot" src/static/riot \
          "$ROOT/frontend/static/generated/riot.js" --style stylus) >> "$LOGS/frontend.log" 2>&1; then
      say "front end built"
    else
      rm -f "$ROOT/frontend/static/generated/riot.js"
      say "warning: front end build failed (see $LOGS/frontend.log); the API works, pages lack their scripts"
    fi
  else
    say "warning: no npm; the API works, but pages lack their compiled scripts (riot.js)"
  fi
fi
(cd "$CB" && "$VENV/bin/python" manage.py migrate --no-input -v0) > "$LOGS/migrate.log" 2>&1 ||
  die "migrate failed, see $LOGS/migrate.log"
(cd "$CB" && "$VENV/bin/python" manage.py collectstatic --no-input -v0) > "$LOGS/collectstatic.log" 2>&1 ||
  say "warning: collectstatic failed, see $LOGS/collectstatic.log"

# ---------------------------------------------------------------- site: web (ASGI) and site worker (+ beat)
cd "$CB/src"
launch web "$VENV/bin/python" -m uvicorn asgi:application --host 127.0.0.1 --port "$CODABENCH_LOCAL_WEB_PORT" \
  --workers "${CODABENCH_LOCAL_WEB_WORKERS:-2}" --ws websockets || true
launch site-worker "$VENV/bin/celery" -A celery_config worker -B -Q site-worker -l info -n "site-worker@%h" \
  --concurrency=2 --schedule "$RUN/celerybeat-schedule" || true

# ---------------------------------------------------------------- compute worker (Codabench's own, on the host)
# Its own venv with compute_worker/pyproject.toml's dependencies.
WVENV=$ROOT/worker-venv
if ! [ -f "$WVENV/.deps-ok" ] || ! cmp -s "$CB/compute_worker/pyproject.toml" "$WVENV/.deps-ok"; then
  say "creating the compute worker's venv ($WVENV)"
  [ -x "$WVENV/bin/python" ] || python3 -m venv "$WVENV"
  python3 - "$CB/compute_worker/pyproject.toml" > "$WVENV/requirements.txt" <<'EOF'
import sys, tomllib
print("\n".join(tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]))
EOF
  "$WVENV/bin/pip" install -q -r "$WVENV/requirements.txt" > "$LOGS/worker-venv.log" 2>&1 ||
    die "pip install of the worker's deps failed, see $LOGS/worker-venv.log"
  cp "$CB/compute_worker/pyproject.toml" "$WVENV/.deps-ok"
fi
# Images: the competition's docker_image must exist locally; alias the stand-in where absent.
docker image inspect "$STANDIN" > /dev/null 2>&1 ||
  say "warning: $STANDIN absent (tools/docker/build_standin_image.sh builds it); submissions need their image present"
for img in $ALIASES; do
  if ! docker image inspect "$img" > /dev/null 2>&1 && docker image inspect "$STANDIN" > /dev/null 2>&1; then
    docker tag "$STANDIN" "$img" && echo "$img" >> "$RUN/image-aliases" &&
      say "docker image $img = $STANDIN (tagged; the real one cannot be pulled here)"
  fi
done
launch docker-proxy "$VENV/bin/python" "$HERE/docker_pull_proxy.py" --listen "$RUN/docker.sock" || true
# The worker keeps runs under the fixed path /codabench (BASE_DIR in compute_worker.py) and tells Docker the
# same directory as HOST_DIRECTORY: /codabench is made a symlink to $ROOT/compute unless it is a real directory.
if [ -d /codabench ] && [ ! -L /codabench ]; then
  HOSTDIR=/codabench
else
  if [ "$(readlink /codabench 2>/dev/null)" != "$ROOT/compute" ]; then
    ln -sfn "$ROOT/compute" /codabench 2>/dev/null || die "cannot create the symlink /codabench -> $ROOT/compute (needs root)"
    touch "$RUN/codabench-symlink.made-here"
  fi
  HOSTDIR=$ROOT/compute
fi
wait_for docker-proxy 20 test -S "$RUN/docker.sock"
cd "$CB/compute_worker"
# Worker i is service "compute-worker" (i = 1) or "compute-worker-i": its own Celery node name, pid file and log.
# Each takes one submission at a time (concurrency 1, prefetch 1, acks late: compute_worker/celery_config.py), so N
# workers score N submissions at once; all share /codabench (every run has its own mkdtemp folder, the cache is shared).
worker_name() { if [ "$1" = 1 ]; then echo compute-worker; else echo "compute-worker-$1"; fi; }
for i in $(seq "$WORKERS"); do
  BROKER_URL="pyamqp://guest:guest@127.0.0.1:$CODABENCH_LOCAL_AMQP_PORT//" HOST_DIRECTORY=$HOSTDIR \
  CONTAINER_SOCKET="unix://$RUN/docker.sock" PYTHONPATH="$CB/src/settings" LOG_LEVEL=${CODABENCH_LOCAL_WORKER_LOG_LEVEL:-info} \
  COMPETITION_CONTAINER_NETWORK_DISABLED=$NETWORK_OFF \
    launch "$(worker_name "$i")" env -u DJANGO_SETTINGS_MODULE "$WVENV/bin/celery" -A compute_worker worker -l info \
    -Q compute-worker -n "$(worker_name "$i")@%h" --concurrency=1 || true
done
# Workers an earlier start made beyond N: a warm shutdown (TERM: the worker finishes its run first, as Celery does)
for pidfile in "$RUN"/compute-worker-*.pid; do
  [ -e "$pidfile" ] || continue
  name=$(basename "$pidfile" .pid); i=${name#compute-worker-}
  if [ "$i" -gt "$WORKERS" ] 2>/dev/null; then
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
      for _ in $(seq 1200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -KILL -- "-$pid" 2>/dev/null || true
      say "$name stopped (only $WORKERS asked for)"
    fi
    rm -f "$pidfile"
  fi
done

# ---------------------------------------------------------------- ready?
cd "$ROOT"
wait_for web 90 curl -fs -o /dev/null "$WEB_URL/api/competitions/front_page/"
for w in site-worker $(for i in $(seq "$WORKERS"); do worker_name "$i"; done); do
  wait_for "$w" 90 sh -c "tail -c +\$(( \$(cat '$RUN/$w.logoffset' 2>/dev/null || echo 0) + 1 )) '$LOGS/$w.log' | grep -q 'ready\.'"
done
cat <<EOF
codabench-local: ready
  site:   $WEB_URL   (API: $WEB_URL/api/, docs: $WEB_URL/api/docs/)
  S3:     $S3_URL (moto)   broker: amqp://127.0.0.1:$CODABENCH_LOCAL_AMQP_PORT   redis: 127.0.0.1:$CODABENCH_LOCAL_REDIS_PORT
  workers: $WORKERS compute worker(s) on the default queue (compute-worker, compute-worker-2, ...)
  logs:   $LOGS/{web,site-worker,compute-worker*,docker-proxy,s3,redis,rabbitmq}.log
  token:  $HERE/token.sh      stop: $HERE/stop.sh [--wipe]
EOF
