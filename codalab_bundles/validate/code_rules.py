"""The checks of code-submission tasks (an ingestion program, input data) against what Codabench's worker needs
(codalab/codabench @ c7dbc756b07b, compute_worker/compute_worker.py; replay/code_submission.py models it).
Codabench's import accepts every bundle these rules flag (Finding.accepted): the competition is created, and its
submissions fail or expose what they should not."""
from __future__ import annotations

import io
import re

import yaml

from ..zips import safe_zip
from .findings import Context
from .v15_rules import v1_phases

_VARIABLE = re.compile(r"\$(program|hidden|input|output|ingestion_program|submission_program)\b")


def _tasks(ctx: Context):
    """(where, task fields) of each task: a version 2 bundle's tasks, or the task Codabench makes of each v1.5
    phase (its ingestion_program_only_during_scoring becomes ingestion_only_during_scoring)."""
    if ctx.version == "2":
        return [("tasks.%d" % i, t) for i, t in enumerate(ctx.spec.get("tasks") or []) if isinstance(t, dict)]
    found = []
    for key, phase in v1_phases(ctx):
        task = dict((k, phase.get(k)) for k in ("ingestion_program", "input_data", "scoring_program"))
        task["ingestion_only_during_scoring"] = phase.get("ingestion_program_only_during_scoring", False)
        found.append(("phases.%s" % key, task))
    return found


def _program_files(ctx: Context, name: str):
    """{file name: bytes reader} of a program given as a zip or (version 2) a folder of the bundle; None when it
    cannot be read (other rules report that)."""
    if not isinstance(name, str):
        return None
    if name.endswith(".zip") and name in ctx.names:
        try:
            program = safe_zip.open_archive(io.BytesIO(ctx.read(name)), name)
            safe_zip.check_archive(program, name, ctx.limits)
        except safe_zip.ZipRefused:
            return None
        return dict((n, (lambda n=n: safe_zip.read_member(program, n, name, ctx.limits)))
                    for n in program.namelist())
    prefix = name.strip("/") + "/"
    inside = [n for n in ctx.names if n.startswith(prefix) and not n.endswith("/")]
    if ctx.version != "2" or not inside:
        return None
    return dict((n[len(prefix):], (lambda n=n: ctx.read(n))) for n in inside)


def _command(files):
    """(metadata file name or None, command or None), as the worker reads them: metadata.yaml before metadata, at
    the root of the program."""
    for name in ("metadata.yaml", "metadata"):
        if name in files:
            try:
                metadata = yaml.load(files[name]().decode("utf-8"), Loader=yaml.FullLoader)
            except (yaml.YAMLError, UnicodeDecodeError, safe_zip.ZipRefused):
                return name, None
            return name, metadata.get("command") if isinstance(metadata, dict) else None
    return None, None


def code_submission(ctx: Context, platform: str) -> None:
    """Each task with an ingestion program or input data: what the worker needs, and what it exposes."""
    for where, task in _tasks(ctx):
        ingestion, during_scoring = task.get("ingestion_program"), bool(task.get("ingestion_only_during_scoring"))
        if during_scoring and not ingestion:
            ctx.add("warning", platform, "code-submission", where, "ingestion_only_during_scoring is set but the "
                    "task has no ingestion program: it changes nothing but $program in the scoring program's "
                    "command, which becomes /app/ingestion_program, a folder the worker never mounts",
                    "remove ingestion_only_during_scoring", accepted=True)
        if task.get("input_data") and not ingestion:
            ctx.add("note", platform, "code-submission", where, "input data without an ingestion program: only a "
                    "submission with its own metadata command reads it, at /app/input_data ($input in that "
                    "command is /app/input, which the prediction step does not mount)")
        if not ingestion:
            if during_scoring:
                _scoring_program_path(ctx, platform, where, task)
            continue
        files = _program_files(ctx, ingestion)
        if files is None:
            continue
        name, command = _command(files)
        if name is None or not command:
            problem = ("Program directory missing 'metadata.yaml/metadata'" if name is None else
                       "Program directory missing 'command' in metadata")
            ctx.add("error", platform, "code-submission", "%s.ingestion_program" % where, "%s: %s. Codabench's worker "
                    "logs it and goes on: the ingestion program never runs, and every submission is scored on a "
                    "prediction output without predictions" % (ingestion, problem), "add a file named metadata with "
                    "command: python3 /app/program/ingestion.py /app/input_data /app/output /app/ingested_program",
                    accepted=True)
            continue
        if not isinstance(command, str):
            ctx.add("error", platform, "code-submission", "%s.ingestion_program" % where, "%s: the metadata command "
                    "is not a string: the worker cannot substitute it and the ingestion program never runs"
                    % ingestion, "write command: as one line", accepted=True)
            continue
        used = set(_VARIABLE.findall(command))
        if "hidden" in used and not during_scoring:
            ctx.add("error", platform, "code-submission", "%s.ingestion_program" % where, "the ingestion command "
                    "uses $hidden (/app/input/ref), but the prediction step never has the reference data: the "
                    "worker mounts it only in the scoring step", "give the ingestion program what it needs in "
                    "input_data", accepted=True)
        if during_scoring and "program" in used:
            ctx.add("error", platform, "code-submission", "%s.ingestion_program" % where, "with "
                    "ingestion_only_during_scoring, $program in the ingestion command becomes "
                    "/app/ingestion_program, a folder the worker never mounts (the ingestion program is at "
                    "/app/program)", "write /app/program (or $ingestion_program) instead of $program",
                    accepted=True)
        for token in command.split():
            if token.startswith("$program/") and not during_scoring and token[len("$program/"):] not in files:
                ctx.add("error", platform, "code-submission", "%s.ingestion_program" % where, "the ingestion command "
                        "runs %s, which is not in %s" % (token, ingestion), "fix the file name or add the file",
                        accepted=True)
        if not task.get("input_data"):
            ctx.add("warning", platform, "code-submission", where, "an ingestion program without input_data: "
                    "/app/input_data is not mounted, so the submission has no test inputs to predict",
                    "add the task's input_data (the test inputs without the gold)", accepted=True)
        if during_scoring:
            ctx.add("warning", platform, "code-submission", where, "ingestion_only_during_scoring: the ingestion "
                    "program runs the submission in the scoring step, where /app/input/ref holds the reference "
                    "data: the participant's code can read the gold (and the network is on unless the queue's "
                    "workers disable it); and the worker starts it only after the scoring program has ended, so "
                    "a scoring program that waits for its predictions never gets them", "run the ingestion "
                    "program in the prediction step (leave ingestion_only_during_scoring out), where the worker "
                    "never mounts the reference data", accepted=True)
            _scoring_program_path(ctx, platform, where, task)


def _scoring_program_path(ctx: Context, platform: str, where: str, task: dict) -> None:
    """With ingestion_only_during_scoring, $program in the scoring program's command is /app/ingestion_program."""
    files = _program_files(ctx, task.get("scoring_program"))
    if files is None:
        return
    _, command = _command(files)
    if isinstance(command, str) and "program" in _VARIABLE.findall(command):
        ctx.add("error", platform, "code-submission", "%s.scoring_program" % where, "with "
                "ingestion_only_during_scoring, $program in the scoring command becomes /app/ingestion_program, a "
                "folder the worker never mounts: the scoring program cannot start", "write /app/program instead "
                "of $program", accepted=True)
