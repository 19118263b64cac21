"""Django settings for a local, loopback-only Codabench started by start.sh.

Everything comes from Codabench's own settings.base; only the infrastructure is pointed at local services
(the ports are start.sh's defaults, all overridable through the environment start.sh exports):

  * database:  the PostgreSQL of ../../../shared/tools/codabench-import (127.0.0.1:55432), own database
               (codabench_live by default; the import tool uses "codabench")
  * broker:    a RabbitMQ on 127.0.0.1:8767 (Debian's rabbitmq-server), as in docker-compose
  * redis:     a redis-server on 127.0.0.1:8768 for the cache, the channel layer and Celery results
  * storage:   the unchanged S3 backend (django-storages/boto3) on a moto server (127.0.0.1:8766), buckets
               "public" and "private"; presigned URLs point there, and the compute worker fetches/puts them
  * celery:    NOT eager: the site worker (queue site-worker) and the compute worker (queue compute-worker)
               are separate processes, as on the real site
  * email:     written to files under $CODABENCH_LOCAL_ROOT/emails (nothing is sent)
  * static:    collected to $CODABENCH_LOCAL_ROOT/staticfiles; the compiled front end (riot.js, output.css),
               when start.sh could build it, comes from $CODABENCH_LOCAL_ROOT/frontend
No Codabench file is changed.
"""
import os

ROOT = os.environ.get("CODABENCH_LOCAL_ROOT", "/tmp/codabench-local")
WEB_PORT = os.environ.get("CODABENCH_LOCAL_WEB_PORT", "8765")
for k, v in {
    "DOMAIN_NAME": f"localhost:{WEB_PORT}",
    "SITE_DOMAIN": f"http://127.0.0.1:{WEB_PORT}",
    "DATABASE_URL": "postgres://postgres@127.0.0.1:{}/{}".format(
        os.environ.get("CBI_PGPORT", "55432"), os.environ.get("CODABENCH_LOCAL_DB", "codabench_live")),
    "BROKER_URL": "pyamqp://guest:guest@127.0.0.1:{}//".format(os.environ.get("CODABENCH_LOCAL_AMQP_PORT", "8767")),
    "REDIS_URL": "redis://127.0.0.1:{}".format(os.environ.get("CODABENCH_LOCAL_REDIS_PORT", "8768")),
    "SUBMISSIONS_API_URL": f"http://127.0.0.1:{WEB_PORT}/api",
    "TEMP_SUBMISSION_STORAGE": os.path.join(ROOT, "codalab_tmp"),
    "STORAGE_TYPE": "s3",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_STORAGE_BUCKET_NAME": "public",
    "AWS_STORAGE_PRIVATE_BUCKET_NAME": "private",
    "AWS_S3_ENDPOINT_URL": "http://127.0.0.1:{}".format(os.environ.get("CODABENCH_LOCAL_S3_PORT", "8766")),
    "SECRET_KEY": "codabench-local-not-secret",
    "DEBUG": "False",
    "LOG_LEVEL": "INFO",
    "MAX_EXECUTION_TIME_LIMIT": "600",
}.items():
    os.environ.setdefault(k, v)

from settings.base import *  # noqa: E402,F401,F403

EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
EMAIL_FILE_PATH = os.path.join(ROOT, "emails")
STATIC_ROOT = os.path.join(ROOT, "staticfiles")
_frontend = os.path.join(ROOT, "frontend", "static")
if os.path.isdir(_frontend):
    STATICFILES_DIRS = (_frontend,) + tuple(STATICFILES_DIRS)  # noqa: F405
