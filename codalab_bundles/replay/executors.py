"""Who runs a prepared run's commands: this machine's interpreter (LocalExecutor) or a container (DockerExecutor).

Both do what ``Executor`` describes. The worker says what a command becomes (its ``tokens``); docker_run builds
the workers' ``docker run`` lines and runs them.
"""
from __future__ import annotations

import os
import platform as platform_module
import signal
import subprocess
import time
from typing import List, Optional, Protocol, Tuple

from . import docker_run
from .base_worker import Run, Worker
from .bundle import Bundle, ReplayError


class Executor(Protocol):
    """What replay asks of an executor."""

    label: str  # how the report names it

    def prepare(self, bundle: Bundle) -> None:
        """Once, before the run: take what it needs of the bundle (the Docker image)."""

    def run(self, worker: Worker, run: Run, command: str,
            time_limit: Optional[float]) -> Tuple[int, float, bool, str]:
        """Run one metadata command under ``time_limit`` (seconds), appending to the run's stdout.txt and stderr.txt;
        (exit code, elapsed seconds, timed out, the command line shown in the report)."""


def run_local(tokens: List[str], cwd: str, time_limit: Optional[float], stdout_path: str, stderr_path: str,
              timeout_message: Optional[str] = docker_run.TIME_LIMIT_MESSAGE) -> Tuple[int, float, bool]:
    """Run one command; returns (exit code, elapsed seconds, timed out)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    started = time.time()
    with open(stdout_path, "a") as out, open(stderr_path, "a") as err:
        try:
            proc = subprocess.Popen(tokens, cwd=cwd, stdout=out, stderr=err, env=env, start_new_session=True)
        except OSError as exc:
            err.write("%s: %s\n" % (tokens[0], exc.strerror or exc))
            return 127, time.time() - started, False
        try:
            code = proc.wait(timeout=time_limit if time_limit and time_limit > 0 else None)
            return code, time.time() - started, False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if timeout_message:
        with open(stderr_path, "a") as err:
            err.write(timeout_message + "\n")
    return -1, time.time() - started, True


class LocalExecutor(object):
    """Runs the program with this machine's interpreter, in the worker's working directory."""

    label = "local"

    def prepare(self, bundle: Bundle) -> None:
        pass

    def run(self, worker: Worker, run: Run, command: str,
            time_limit: Optional[float]) -> Tuple[int, float, bool, str]:
        tokens = worker.tokens(run, command)
        code, elapsed, timed_out = run_local(tokens, run.cwd, time_limit, run.stdout, run.stderr,
                                             worker.timeout_message)
        return code, elapsed, timed_out, " ".join(tokens)


class DockerExecutor(object):
    """Runs the program in a container, with the platform worker's own ``docker run`` (see docker_run).

    The image is the bundle's (competition_docker_image / docker_image) unless one is given; the v1.5 worker's
    name sanitising applies to it. The network is off unless ``network`` is true (the real workers leave it on).
    """

    def __init__(self, image: Optional[str] = None, network: bool = False,
                 memory_mb: Optional[int] = None) -> None:
        self.image = image
        self.network = network
        self.memory_mb = memory_mb if memory_mb is not None else docker_run.worker_memory_mb()
        self.label = "docker"

    def prepare(self, bundle: Bundle) -> None:
        self.image = self.image or bundle.docker_image
        self.label = "docker %s%s" % (self.image, ", network on" if self.network else "")

    def run(self, worker: Worker, run: Run, command: str,
            time_limit: Optional[float]) -> Tuple[int, float, bool, str]:
        # The container's user may not be the host's (and Codabench's keeps no capability to bypass modes), so the
        # folders it writes are opened up; they sit inside the replay's private 0o700 folder, out of other users' way.
        for name in worker.writable:
            os.chmod(run.paths[name], 0o777)
        if worker.name == "codalab":
            tokens = worker.tokens(run, command)
            argv = docker_run.codalab_docker_argv(run.paths["run"], run.paths["shared"],
                                                  docker_run.sanitize_image_name(self.image), tokens, time_limit,
                                                  self.memory_mb, network=self.network)
        else:
            tokens = worker.tokens(run, command, in_container=True)
            argv = docker_run.codabench_docker_argv(run.root, self.image, tokens, network=self.network)
        before = os.path.getsize(run.stderr) if os.path.exists(run.stderr) else 0
        code, elapsed, timed_out = docker_run.run_container(argv, time_limit, run.stdout, run.stderr,
                                                            worker.timeout_message)
        if code == docker_run.DOCKER_FAILED:  # docker run's own error: the program never started
            with open(run.stderr, "rb") as handle:
                handle.seek(before)
                said = [line for line in handle.read().decode("utf-8", "replace").splitlines() if line.strip()]
            raise ReplayError(docker_run.explain_failure(self.image, said))
        return code, elapsed, timed_out, " ".join(argv)


def ran_with(executor: Optional[Executor]) -> str:
    """Where a replay's program ran, for reports: this machine's interpreter or a Docker image."""
    if executor is not None and getattr(executor, "image", None):
        return "the Docker image %s" % executor.image
    return "this machine's python3 (Python %s), not the platform's image" % platform_module.python_version()
