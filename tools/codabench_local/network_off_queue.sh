#!/usr/bin/env bash
# A queue of its own on the local Codabench, served by ONE compute worker whose submissions' containers have no
# network (COMPETITION_CONTAINER_NETWORK_DISABLED=true), beside the site's shared workers (left alone):
#
#   tools/codabench_local/network_off_queue.sh start [VHOST]   prints QUEUE_VHOST=<uuid> (default: a fixed one)
#   tools/codabench_local/network_off_queue.sh stop            stops that worker (the queue stays, harmless)
#   tools/codabench_local/network_off_queue.sh status
#
# What a real site does when an organizer makes a queue (queues/rabbit.py: a RabbitMQ virtual host, a Queue row
# owned by the organizer) is done here by hand, since this local site has no RabbitMQ management API: the vhost
# with rabbitmqctl (guest may use it, as the site's broker user), the Queue row with the site's Django shell (owner
# "organizer"). A competition whose bundle says `queue: <vhost>` (published by "organizer") then sends its
# submissions to that vhost's compute-worker queue, which only this worker serves; its phases' execution_time_limit
# applies uncapped, as on any custom queue. The worker is Codabench's own, unchanged, started as start.sh starts
# the others, with COMPETITION_CONTAINER_NETWORK_DISABLED=true: the setting a real organizer's worker needs for a
# code-submission competition (Codabench leaves the network on otherwise).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${CODABENCH_LOCAL_ROOT:-/tmp/codabench-local}
CBI_ROOT=${CBI_ROOT:-/tmp/cbimport}
CB=${CODABENCH_SRC:-$CBI_ROOT/codabench}
VENV=${CODABENCH_VENV:-$CBI_ROOT/venv}
AMQP_PORT=${CODABENCH_LOCAL_AMQP_PORT:-8767}
EPMD_PORT=${CODABENCH_LOCAL_EPMD_PORT:-8769}
RUN=$ROOT/run LOGS=$ROOT/logs
NAME=network-off-worker
VHOST=${2:-5e0c0a42-0000-4000-8000-00000000c0de}
say() { echo "network-off-queue: $*" >&2; }
die() { echo "network-off-queue: ERROR: $*" >&2; exit 1; }
running() { [ -f "$RUN/$NAME.pid" ] && kill -0 "$(cat "$RUN/$NAME.pid")" 2>/dev/null; }

rabbitctl() {
  RABBITMQ_NODENAME=codabench_local@localhost ERL_EPMD_PORT=$EPMD_PORT HOME=$ROOT/rabbitmq/home \
    RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" /usr/lib/rabbitmq/bin/rabbitmqctl -q "$@"
}

case "${1:-}" in
  start)
    [ -d "$RUN" ] || die "the local Codabench is not set up ($RUN missing): tools/codabench_local/start.sh"
    rabbitctl list_vhosts | grep -qx "$VHOST" || rabbitctl add_vhost "$VHOST" > /dev/null
    rabbitctl set_permissions -p "$VHOST" guest ".*" ".*" ".*" > /dev/null
    (cd "$CB" && PYTHONPATH=$HERE DJANGO_SETTINGS_MODULE=codabench_local_settings LOG_LEVEL=WARNING \
      PYTHONDONTWRITEBYTECODE=1 VHOST=$VHOST "$VENV/bin/python" manage.py shell -v 0 -c '
import os
from profiles.models import User
from queues.models import Queue
owner = User.objects.get(username="organizer")
queue = Queue.objects.filter(vhost=os.environ["VHOST"]).first()
if queue is None:
    queue = Queue(name="network off (local)", vhost=os.environ["VHOST"], owner=owner, is_public=True)
    queue.save(create_queue=False)
') || die "cannot make the Queue row (has token.sh made the organizer account?)"
    if running; then
      say "$NAME already running (pid $(cat "$RUN/$NAME.pid"))"
    else
      HOSTDIR=$(readlink /codabench 2>/dev/null || echo /codabench)
      cd "$CB/compute_worker"
      echo "=== $(date -Is) start" >> "$LOGS/$NAME.log"
      BROKER_URL="pyamqp://guest:guest@127.0.0.1:$AMQP_PORT/$VHOST" HOST_DIRECTORY=$HOSTDIR \
        CONTAINER_SOCKET="unix://$RUN/docker.sock" PYTHONPATH="$CB/src/settings" \
        COMPETITION_CONTAINER_NETWORK_DISABLED=true LOG_LEVEL=info \
        setsid env -u DJANGO_SETTINGS_MODULE "$ROOT/worker-venv/bin/celery" -A compute_worker worker -l info \
        -Q compute-worker -n "$NAME@%h" --concurrency=1 >> "$LOGS/$NAME.log" 2>&1 < /dev/null &
      echo $! > "$RUN/$NAME.pid"
      for _ in $(seq 60); do grep -q "ready" "$LOGS/$NAME.log" 2>/dev/null && break; sleep 1; done
      say "$NAME started (pid $(cat "$RUN/$NAME.pid")), log $LOGS/$NAME.log"
    fi
    echo "QUEUE_VHOST=$VHOST"
    ;;
  stop)
    if running; then
      pid=$(cat "$RUN/$NAME.pid")
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid"
      for _ in $(seq 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -KILL -- "-$pid" 2>/dev/null || true
      say "$NAME stopped"
    fi
    rm -f "$RUN/$NAME.pid"
    ;;
  status)
    if running; then echo "running (pid $(cat "$RUN/$NAME.pid"))"; else echo "not running"; exit 1; fi ;;
  *) sed -n '2,8p' "$0"; exit 2 ;;
esac
