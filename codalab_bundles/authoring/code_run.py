"""A code submission run through a Codabench bundle's two steps on this machine, laid out as Codabench's compute
worker lays them out (compute_worker.py at c7dbc756), without Docker: the build's check of a code-submission task's
baseline, and what the tests run broken models through. The replay of both steps in Docker, with the network off
and the worker's time limit, is codalab_bundles/replay's.

Prediction step: ``program/`` = the ingestion program, ``ingested_program/`` = the submission, ``input_data/`` = the
task's input data, ``output/`` = first a copy of the submission's files (the worker copies a submission without a
``metadata`` file there), then what the ingestion program writes; the command is the ingestion program's metadata
with Codabench's substitutions ($input -> input_data, $submission_program -> ingested_program, $output, $program),
run from ``program/``. The worker then writes ``output/metadata`` (exitCode, ingestionExitCode) and, whatever the
ingestion's exit status, the scoring step runs: ``program/`` = the scoring program, ``input/ref`` = the reference
data, ``input/res`` = the prediction step's output. Limits, the network and the container are the replay's
(codalab_bundles/replay); this module runs the programs with this machine's Python.
"""
from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import yaml

# Codabench's substitutions for each kind of program (compute_worker.replace_legacy_metadata_command), as
# folders of the run's root
INGESTION_PATHS = (("$input", "input_data"), ("$output", "output"), ("$program", "program"),
                   ("$ingestion_program", "program"), ("$submission_program", "ingested_program"))
SCORING_PATHS = (("$input", "input"), ("$output", "output"), ("$program", "program"), ("$shared", "shared"))


def _extract(data: bytes, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(str(target))


def _command(program: Path, root: Path, paths) -> list:
    text = yaml.safe_load((program / "metadata").read_text(encoding="utf-8"))["command"]
    for name, folder in paths:
        text = text.replace(name, str(root / folder))
    words = shlex.split(text)
    return [sys.executable if words[0] in ("python", "python3") else words[0]] + words[1:]


def _run(command, cwd, timeout):
    try:
        done = subprocess.run(command, cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout, env=dict(os.environ, PYTHONUNBUFFERED="1"))
        return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", "Execution Time Limit exceeded. Limit was %s seconds" % timeout


def phase_files(bundle: Path, phase_number: int) -> dict:
    """{name: bytes} of the phase's first task: ingestion_program, input_data, scoring_program, reference_data, and
    the phase's execution_time_limit and starting_kit."""
    with zipfile.ZipFile(str(bundle)) as archive:
        spec = yaml.safe_load(archive.read("competition.yaml"))
        phase = spec["phases"][phase_number - 1]
        task = [t for t in spec["tasks"] if t["index"] == phase["tasks"][0]][0]
        found = dict((key, archive.read(task[key])) for key in
                     ("ingestion_program", "input_data", "scoring_program", "reference_data") if task.get(key))
        if phase.get("starting_kit"):
            found["starting_kit"] = archive.read(phase["starting_kit"])
    found["execution_time_limit"] = phase.get("execution_time_limit", 600)
    return found


def sample_submission(kit: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(kit)) as archive:
        return archive.read("sample_submission.zip")


def run(bundle, phase_number: int, submission: bytes | None = None, workdir=None) -> dict:
    """Both steps of ``submission`` (zip bytes; default: the phase's starting kit's sample) in the bundle's phase:
    {"status": Finished|Failed, "step": the step that failed or None, "scores", "reason", "stderr",
    "ingestion_stderr", "predictions": {file name: bytes} of the prediction step's output}."""
    files = phase_files(Path(bundle), phase_number)
    if submission is None:
        submission = sample_submission(files["starting_kit"])
    limit = files["execution_time_limit"]
    with tempfile.TemporaryDirectory(prefix="code-run-", dir=workdir) as temp:
        predict, score = Path(temp) / "predict", Path(temp) / "score"
        _extract(files["ingestion_program"], predict / "program")
        _extract(submission, predict / "ingested_program")
        _extract(files["input_data"], predict / "input_data")
        shutil.copytree(str(predict / "ingested_program"), str(predict / "output"))
        ingestion_code, _, ingestion_err = _run(_command(predict / "program", predict, INGESTION_PATHS),
                                                predict / "program", limit)
        if ingestion_code is None:  # the worker fails the submission at the time limit, and scores nothing
            return {"status": "Failed", "step": "prediction", "scores": {}, "reason": ingestion_err,
                    "stderr": "", "ingestion_stderr": ingestion_err, "predictions": {}}
        (predict / "output" / "metadata").write_text(yaml.safe_dump(
            {"exitCode": None, "elapsedTime": 0, "ingestionExitCode": ingestion_code, "ingestionElapsedTime": 0}))
        predictions = dict((p.name, p.read_bytes()) for p in (predict / "output").iterdir() if p.is_file())
        _extract(files["scoring_program"], score / "program")
        _extract(files.get("reference_data", b"PK\x05\x06" + b"\0" * 18), score / "input" / "ref")
        shutil.copytree(str(predict / "output"), str(score / "input" / "res"))
        (score / "output").mkdir()
        (score / "shared").mkdir()
        code, _, stderr = _run(_command(score / "program", score, SCORING_PATHS), score / "program", limit)
        scores_path = score / "output" / "scores.json"
        scores = json.loads(scores_path.read_text(encoding="utf-8")) if code == 0 and scores_path.is_file() else {}
        scores = dict((k, v) for k, v in scores.items() if isinstance(v, (int, float)))  # not the signature
    failed = code != 0 or not scores
    last = (stderr.strip().splitlines() or [""])[-1]
    return {"status": "Failed" if failed else "Finished",
            "step": ("prediction" if ingestion_code != 0 else "scoring") if failed else None,
            "scores": scores, "reason": last if failed else "", "stderr": stderr,
            "ingestion_stderr": ingestion_err, "predictions": predictions}
