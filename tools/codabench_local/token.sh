#!/usr/bin/env bash
# Create (or reuse) an account on the local Codabench and print its DRF API token:
#
#   tools/codabench_local/token.sh                 superuser "organizer" (password "organizer")
#   tools/codabench_local/token.sh --bot NAME      a robot account NAME (User.is_bot = True), not a superuser
#   tools/codabench_local/token.sh --user NAME     a plain account NAME (participant), not a superuser
#
# Output (shell-sourceable):  CODABENCH_URL=http://127.0.0.1:8765
#                             CODABENCH_TOKEN=<key>          (header: Authorization: Token <key>)
#                             CODABENCH_USER=<username>
# The password of every account made here is its username. The site must have been started (start.sh);
# only the database is needed for this command.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CBI_ROOT=${CBI_ROOT:-/tmp/cbimport}
CB=${CODABENCH_SRC:-$CBI_ROOT/codabench}
VENV=${CODABENCH_VENV:-$CBI_ROOT/venv}
export CODABENCH_LOCAL_ROOT=${CODABENCH_LOCAL_ROOT:-/tmp/codabench-local}
export CBI_PGPORT=${CBI_PGPORT:-55432}
export CODABENCH_LOCAL_DB=${CODABENCH_LOCAL_DB:-codabench_live}
export CODABENCH_LOCAL_WEB_PORT=${CODABENCH_LOCAL_WEB_PORT:-8765}
KIND=super NAME=organizer
case "${1:-}" in
  --bot) KIND=bot NAME=${2:?--bot needs a name} ;;
  --user) KIND=user NAME=${2:?--user needs a name} ;;
  "") ;;
  *) sed -n '2,13p' "$0"; exit 2 ;;
esac
cd "$CB"
PYTHONPATH=$HERE DJANGO_SETTINGS_MODULE=codabench_local_settings LOG_LEVEL=WARNING PYTHONDONTWRITEBYTECODE=1 \
KIND=$KIND NAME=$NAME "$VENV/bin/python" manage.py shell -v 0 -c '
import os
from rest_framework.authtoken.models import Token
from profiles.models import User
kind, name = os.environ["KIND"], os.environ["NAME"]
u = User.objects.filter(username=name).first()
if u is None:
    make = User.objects.create_superuser if kind == "super" else User.objects.create_user
    u = make(username=name, email=f"{name}@localhost.invalid", password=name)
u.is_active = True
if kind == "bot":
    u.is_bot = True
u.save()
t, _ = Token.objects.get_or_create(user=u)
port = os.environ["CODABENCH_LOCAL_WEB_PORT"]
print(f"CODABENCH_URL=http://127.0.0.1:{port}")
print(f"CODABENCH_TOKEN={t.key}")
print(f"CODABENCH_USER={u.username}")
'
