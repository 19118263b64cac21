"""Replay a bundle's scoring step on a submission as the platform's compute worker runs it: Codabench's worker by
default, CodaLab v1.5's (for a self-hosted CodaLab) with ``platform="codalab"``; locally or in Docker.

The worker's run directory is laid out from the bundle and the submission, the program's metadata command is
substituted and split as that worker does, run with the phase's time limit, and the scores it writes are read with
the site's parser (and, for comparison, the other platform's). Where each part lives, bottom first (each module
imports only those above it in this list):

- docker_run.py: the workers' ``docker run`` command lines, the v1.5 image-name sanitiser, running a container
  under a time limit, and asking the engine whether it runs and has an image;
- bundle.py: reading a bundle (``Bundle``, ``PhaseInfo``, the phase defaults, ``DEFAULT_IMAGE``), unzipping
  (``safe_extract``; ``get_bundle``, the v1.5 worker's unzipping), the submission or the starting kit's sample,
  and ``ReplayError``;
- base_worker.py: what every worker provides (``Worker``) and the run directory it prepares (``Run``);
- codabench_worker.py, codalab_worker.py: the two workers (``CodabenchWorker``, ``CodalabWorker``), each citing
  the platform's worker source it models;
- executors.py: who runs the commands (``LocalExecutor``, ``DockerExecutor``, ``ran_with``);
- broken_zip.py: what each worker does with a submission it cannot unzip, or that holds nothing;
- report.py: the report dict and ``format_report``;
- run.py: ``replay`` itself and ``WORKERS``, the worker each platform name picks.

Section numbers ("platform notes 2.4") refer to the project's notes on how both platforms read bundles and run
scoring programs, kept outside this repository; the modules that model a platform name its source at a commit.
"""
from .base_worker import Run, Worker
from .bundle import (CODABENCH_TIME_LIMIT, DEFAULT_IMAGE, DEFAULT_TIME_LIMIT, Bundle, PhaseInfo, ReplayError,
                     get_bundle, safe_extract)
from .codabench_worker import CodabenchWorker
from .codalab_worker import CodalabWorker
from .docker_run import TIME_LIMIT_MESSAGE
from .executors import DockerExecutor, Executor, LocalExecutor, ran_with
from .report import format_report
from .run import WORKERS, failed_tasks, replay

__all__ = [
    "Bundle", "PhaseInfo", "ReplayError", "get_bundle", "safe_extract",
    "Run", "Worker", "CodabenchWorker", "CodalabWorker", "WORKERS",
    "Executor", "LocalExecutor", "DockerExecutor", "ran_with",
    "replay", "format_report", "failed_tasks",
    "TIME_LIMIT_MESSAGE", "DEFAULT_IMAGE", "DEFAULT_TIME_LIMIT", "CODABENCH_TIME_LIMIT",
]
