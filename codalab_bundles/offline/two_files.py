"""``codalab-bundles score TASK GOLD PRED``: a task's scoring program run on two files, as participants run it.

TASK is a task of the competition folder (its program assembled as the build packs it: the task's files and the
shared runtime) or a built bundle (its phase's scoring_program.zip, unpacked as the worker unpacks it). The
program itself does the work (``evaluate.py --gold GOLD --pred PRED ...``, score_files.py), so the figures are
those of the program participants download, run by this Python.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from .. import replay
from ..authoring import build, taskdef
from ..zips import safe_zip

# A program that can score two files carries this module (codalab-bundles 0.4.0 and later).
TWO_FILE_MODULE = "score_files.py"


class ScoreError(Exception):
    pass


def _task_program(name, folder, target):
    bundles = os.path.join(folder, "bundles")
    have = taskdef.task_names(bundles)
    if name not in have:
        raise ScoreError("no task %s in %s (have: %s); give a task of the folder or a built bundle (.zip)"
                         % (name, os.path.abspath(folder), ", ".join(have) or "none"))
    task = taskdef.load_task(name, bundles_dir=bundles)
    os.makedirs(target)
    for entry, data in build.program_entries(task):
        path = os.path.join(target, *entry.split("/"))
        if not os.path.isdir(os.path.dirname(path)):
            os.makedirs(os.path.dirname(path))
        with open(path, "wb") as handle:
            handle.write(data)
    return target


def _bundle_program(path, phase_number, workdir):
    bundle = replay.Bundle(path)
    phase = bundle.phase(phase_number)
    data = bundle.read(phase.scoring_program, "phase %s's scoring program" % phase.number)
    target = os.path.join(workdir, "program")
    replay.get_bundle(data, target, "%s:%s" % (path, phase.scoring_program), workdir)
    return target


def program_dir(source: str, workdir: str, folder: str = ".", phase_number: int | None = None) -> str:
    """The unpacked scoring program of ``source`` (a task name or a bundle zip), checked to score two files;
    ``workdir`` must exist and may hold other things."""
    try:
        if source.lower().endswith(".zip") or os.path.isfile(source):
            program = _bundle_program(source, phase_number, workdir)
        else:
            program = _task_program(source, folder, os.path.join(workdir, "program"))
    except (taskdef.TaskDefinitionError, build.BuildError, replay.ReplayError, safe_zip.ZipRefused) as exc:
        raise ScoreError(str(exc))
    if not os.path.isfile(os.path.join(program, TWO_FILE_MODULE)) or \
            not os.path.isfile(os.path.join(program, "evaluate.py")):
        raise ScoreError("%s: this scoring program cannot score two files (it was not made by codalab-bundles 0.4.0 "
                         "or later); replay a submission zip instead" % source)
    return program


def run(source: str, gold: str, pred: str, options: list[str], folder: str = ".",
        phase_number: int | None = None) -> int:
    """Run the program on GOLD and PRED with ``options`` (evaluate.py's own); returns its exit status (its output
    goes to this process's stdout and stderr)."""
    workdir = tempfile.mkdtemp(prefix="codalab-bundles-score-")
    try:
        program = program_dir(source, workdir, folder, phase_number)
        command = [sys.executable, os.path.join(program, "evaluate.py"), "--gold", gold, "--pred", pred] + options
        return subprocess.call(command)
    finally:
        safe_zip.remove_tree(workdir)
