"""What every emulated compute worker provides, and the run directory it prepares.

A worker (codabench_worker.CodabenchWorker, codalab_worker.CodalabWorker) lays out a run directory from the bundle,
the phase and the submission (``prepare``, giving a ``Run``), turns each command of the program's metadata into
argv (``tokens``), writes what the worker itself writes once the program is done (``finish``), says how long the
program may run (``time_limit``, ``kill_after``) and reads the scores the way its site does (``parse``). Who runs
the commands is the executor's business (executors.py); the order of it all is run.replay's.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence, Tuple

import yaml

from ..platforms.score_parsing import ParsedScores
from ..zips import safe_zip
from .bundle import Bundle, PhaseInfo


class Run(object):
    """A prepared run directory: where things are and which commands to run."""

    def __init__(self, root: str, cwd: str, output: str, stdout: Optional[str], stderr: Optional[str],
                 commands: List[str], paths: Dict[str, str], setup_error: Optional[str] = None) -> None:
        self.root = root
        self.cwd = cwd
        self.output = output
        self.stdout = stdout
        self.stderr = stderr
        self.commands = commands        # command strings from the program's metadata
        self.paths = paths              # {name: host folder} for mounts
        self.setup_error = setup_error  # what the worker reports when it cannot start the program


class Worker(object):
    """The interface run.replay and the executors use; the subclasses say what their platform does."""

    name = ""                # the --platform value: "codabench" or "codalab"
    label = ""               # the platform's name in reports
    timeout_message: Optional[str] = None  # appended to stderr.txt when the worker kills the step, if anything
    limits: Optional[safe_zip.Limits] = None  # safe_zip.Limits for every zip extracted; None: the defaults
    writable: Tuple[str, ...] = ()  # Run.paths the program writes (opened up only for a container, see DockerExecutor)

    def prepare(self, bundle: Bundle, phase: PhaseInfo, submission: bytes, base: str) -> Run:
        """Lay out a run directory under ``base`` as the worker does, the submission's zip bytes included."""
        raise NotImplementedError

    def tokens(self, run: Run, command: str, in_container: bool = False) -> List[str]:
        """The argv of one metadata command, paths substituted for the host or (``in_container``) the container."""
        raise NotImplementedError

    def finish(self, run: Run, results: Sequence[Dict[str, float]]) -> Optional[str]:
        """What the worker does once the commands have run; returns why the submission fails there, or None."""
        raise NotImplementedError

    def time_limit(self, phase: PhaseInfo) -> Optional[int]:
        """The phase's time limit as this platform applies it, in seconds."""
        raise NotImplementedError

    def kill_after(self, phase: PhaseInfo) -> Optional[int]:
        """Seconds after which the step is stopped."""
        raise NotImplementedError

    def parse(self, run: Run, columns: Sequence[str], computed: Sequence[str]) -> ParsedScores:
        """The scores the platform's site reads from the run's output folder."""
        raise NotImplementedError


def write_file(path: str, text: str = "") -> None:
    with open(path, "w") as handle:
        handle.write(text)


def load_metadata(program_dir: str, names: Sequence[str]) -> Optional[dict]:
    """The first of ``names`` found in ``program_dir``, read as YAML ({} unless a mapping); None when none is."""
    for name in names:
        path = os.path.join(program_dir, name)
        if os.path.isfile(path):
            with open(path) as handle:
                data = yaml.safe_load(handle)
            return data if isinstance(data, dict) else {}
    return None


def read_optional(path: str) -> Optional[str]:
    """A file's text (undecodable bytes replaced), or None when there is no such file."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "replace")
