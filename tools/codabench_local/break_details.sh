#!/usr/bin/env bash
# Leave a submission of the local Codabench as a site worker stopped in the middle of its dispatch leaves it: one more
# details row (a log such as scoring_stdout) whose file was never written, so that the site answers HTTP 500 to
# GET /api/submissions/<id>/get_details/ (it cannot sign a URL for an empty file name) and the participant cannot open
# the submission's logs. Without restarting anything (FAULTS.md, "The site worker restarted"; the same state as
# restart.sh site-worker --term-all leaves when the stop falls between the row's creation and its file's).
#
#   tools/codabench_local/break_details.sh SUBMISSION_ID [LOG_NAME]      (LOG_NAME: default scoring_stdout)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CBI_ROOT=${CBI_ROOT:-/tmp/cbimport}
CB=${CODABENCH_SRC:-$CBI_ROOT/codabench}
VENV=${CODABENCH_VENV:-$CBI_ROOT/venv}
ID=${1:?usage: break_details.sh SUBMISSION_ID [LOG_NAME]}
NAME=${2:-scoring_stdout}
case "$ID" in *[!0-9]*) echo "break_details: $ID is not a submission id" >&2; exit 2 ;; esac
case "$NAME" in *[!a-z_]*) echo "break_details: $NAME is not a log name" >&2; exit 2 ;; esac
cd "$CB"
PYTHONPATH=$HERE DJANGO_SETTINGS_MODULE=codabench_local_settings PYTHONDONTWRITEBYTECODE=1 \
  "$VENV/bin/python" manage.py shell -c "
from competitions.models import Submission, SubmissionDetails
submission = Submission.objects.get(pk=$ID)
row = SubmissionDetails.objects.create(submission=submission, name='$NAME')
print('submission %s: details row %s (%s) without a file' % (submission.pk, row.pk, row.name))
" 2>&1 | grep -v "^\s*$" | tail -5
