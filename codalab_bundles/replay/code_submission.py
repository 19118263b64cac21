"""Code submissions on Codabench: the prediction step before the scoring step, as Codabench's worker runs them.

Modelled on codalab/codabench @ c7dbc756b07b: compute_worker/compute_worker.py (``Run.prepare``, ``start``,
``_run_program_directory``, ``replace_legacy_metadata_command``, ``push_output``), and the site's side,
src/apps/competitions/tasks.py ``_send_to_compute_worker`` (what each step is given) and
src/apps/api/serializers/submissions.py (the status "Scoring" that starts the scoring step). What Codabench does:

- Every submission runs a prediction step first, then a scoring step, each a run of the worker in a fresh folder.
  The prediction step gets the submission (``program/``), the task's ingestion program (``ingestion_program/``,
  unless ``ingestion_only_during_scoring``) and input data (``input_data/``); never the reference data.
- In it two containers run under one alarm, in fact one after the other (run_together): the submission's own ``metadata`` command, if it has one (a
  submission with no ``metadata`` file is copied to ``output/``: a results submission; one with ``metadata`` but no
  command runs nothing), and the ingestion program's (its ``metadata`` and command are required, else
  "Program directory missing ..."). Mounts: the program's folder at /app/program (its working directory), the
  submission at /app/ingested_program (ingestion only), /app/output, /app/input_data; all read-write. No
  PYTHONPATH is set: an ingestion program imports the submission from /app/ingested_program itself.
- Whatever the exit codes, the prediction step ends with the status "Scoring", which starts the scoring step: a
  failing ingestion program is not a failed submission by itself, its output (often empty) is scored. The worker
  then writes ``output/metadata`` (exitCode, elapsedTime, ingestionExitCode, ingestionElapsedTime; the submission
  fails when the program wrote that file itself) and uploads ``output/`` zipped: the scoring step's ``input/res``.
- With ``ingestion_only_during_scoring`` the ingestion program runs in the scoring step instead, beside the scoring
  program, with the submission (``input/res``) at /app/ingested_program and ``input/`` (the reference data
  included) at /app/input: the submission's code can read the gold. There ``$program`` becomes
  /app/ingestion_program, a folder the worker never mounts.
- The time limit: one alarm per step over both containers (the phase's limit, capped at 600 s on the default
  queue), caught by the current worker while it streams the logs, so the step runs on (its logs lost) until the
  site's Celery soft limit (the limit + 20 minutes; codabench_worker.kill_after), which the worker catches too:
  the container still running gets exit status 1 and is left running on the host, and the step goes on
  (soft_limit_notes; seen live).
- The network is on unless the worker runs with COMPETITION_CONTAINER_NETWORK_DISABLED=true; a replay in Docker
  always runs with ``--network none``.
"""
from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import time
import uuid
import zipfile
from typing import Dict, List, Optional, Tuple

import yaml

from . import docker_run
from .bundle import Bundle, PhaseInfo, ReplayError, safe_extract
from .executors import run_local

METADATA_NAMES = ("metadata.yaml", "metadata")  # Codabench reads metadata.yaml before metadata
NO_METADATA = "Program directory missing 'metadata.yaml/metadata'"
NO_COMMAND = "Program directory missing 'command' in metadata"
METADATA_WRITTEN = ("Error, the output directory already contains a metadata file. This file is used to store "
                    "exitCode and other data, do not write to this file manually.")
NO_OUTPUT = "Metadata file not found"  # push_output when the step made no output folder at all
CHILD_FAILED = "Child task failed or non-zero return code"  # the status details of a failed scoring program
SOFT_LIMIT = "Soft time limit exceeded!"
BAD_ZIP = "Bad or empty zip file"  # the scoring step's _get_bundle after its 10 tries, 20 s apart
NETWORK_NOTE = ("Codabench's workers leave the network on unless they run with "
                "COMPETITION_CONTAINER_NETWORK_DISABLED=true: on a default queue the submission can reach the "
                "Internet; a replay in Docker runs it with --network none")

_APP_PATH = re.compile(r"/app/(ingested_program|ingestion_program|input_data|program|output|input|shared|data)"
                       r"(?![A-Za-z0-9_])")


def task_of(phase: PhaseInfo):
    return phase.tasks[0]


def has_metadata(data: bytes) -> bool:
    """Whether a submission zip has Codabench's metadata file at its root (a code submission)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return any(name in METADATA_NAMES for name in archive.namelist())
    except zipfile.BadZipFile:
        return False


def applies(platform: str, phase: PhaseInfo, data: bytes) -> bool:
    """Whether the replay must run the prediction step: a task with an ingestion program, or a submission with its
    own metadata. (A results submission to a task without one comes out of that step as it went in, plus the
    worker's output/metadata.)"""
    if platform != "codabench":
        return False
    return bool(task_of(phase).ingestion_program) or has_metadata(data)


def read_command(folder: str) -> Tuple[Optional[str], Optional[object]]:
    """(the metadata file's name or None, its command or None), read as the worker does (YAML FullLoader; a file
    that is not YAML, or not a mapping, has no command)."""
    for name in METADATA_NAMES:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            try:
                with open(path) as handle:
                    metadata = yaml.load(handle.read(), Loader=yaml.FullLoader)
            except (yaml.YAMLError, UnicodeDecodeError):
                return name, None
            return name, metadata.get("command") if isinstance(metadata, dict) else None
    return None, None


def legacy_command(command: str, kind: str, is_scoring: bool, during_scoring: bool) -> str:
    """Codabench's replace_legacy_metadata_command, in its order."""
    pairs = [("$input", "/app/input_data" if kind == "ingestion" else "/app/input"), ("$output", "/app/output"),
             ("$program", "/app/ingestion_program" if during_scoring and is_scoring else "/app/program"),
             ("$ingestion_program", "/app/program"), ("$hidden", "/app/input/ref"), ("$shared", "/app/shared"),
             ("$submission_program", "/app/ingested_program"), ("$tmp", "/app/output"),
             ("$predictions", "/app/input/res" if is_scoring else "/app/output")]
    for variable, value in pairs:
        command = command.replace(variable, value)
    return command


class Container(object):
    """One container of a step: its kind ("program" or "ingestion"), its mounts {/app/...: host folder} and its
    command after the worker's substitutions."""

    def __init__(self, kind: str, mounts: Dict[str, str], command: str, root: str, label: str) -> None:
        self.kind, self.mounts, self.command, self.label = kind, mounts, command, label
        self.stdout = os.path.join(root, "%s_stdout.txt" % kind)
        self.stderr = os.path.join(root, "%s_stderr.txt" % kind)
        self.unmounted = os.path.join(root, ".not-mounted")  # where an /app path no mount serves leads locally
        for path in (self.stdout, self.stderr):
            open(path, "a").close()
        self.exit_code: Optional[int] = None  # as the worker records it
        self.returned: Optional[int] = None   # what the program returned, when the worker records another status
        self.held_back = 0.0                  # seconds it waited for the step's first container (run_together)
        self.soft_limit = False               # still running at the site's soft time limit (soft_limit_notes)
        self.elapsed = 0.0
        self.timed_out = False
        self.shown = ""

    def host_tokens(self) -> List[str]:
        def host(match):
            target = match.group(0)
            return self.mounts.get(target, os.path.join(self.unmounted, target[len("/app/"):]))
        return [_APP_PATH.sub(host, token) for token in shlex.split(self.command)]

    def docker_argv(self, image: str, network: bool) -> List[str]:
        argv = ["docker", "run", "--rm", "--name=replay-%s-%s" % (self.kind, uuid.uuid4().hex[:12]),
                "--security-opt=no-new-privileges"]
        argv += ["--cap-drop=%s" % capability for capability in docker_run.CODABENCH_CAP_DROP]
        argv.append("--userns=host")
        for target, host in sorted(self.mounts.items()):
            argv += ["-v", "%s:%s%s" % (host, target, ":ro" if target == "/app/data" else "")]
        argv += ["-e", "PYTHONUNBUFFERED=1", "-e", "http_proxy=", "-e", "https_proxy=", "-w", "/app/program"]
        if not network:
            argv += ["--network", "none"]
        return argv + [image] + shlex.split(self.command)

    def run(self, executor, kill_after: Optional[float]) -> None:
        image = getattr(executor, "image", None)
        try:
            if image:
                for host in self.mounts.values():  # the container's root keeps no capability to bypass modes
                    os.chmod(host, 0o777)
                argv = self.docker_argv(image, getattr(executor, "network", False))
                self.shown = " ".join(argv)
                code, self.elapsed, self.timed_out = docker_run.run_container(argv, kill_after, self.stdout,
                                                                              self.stderr, None)
                if code == docker_run.DOCKER_FAILED and not self.timed_out:
                    with open(self.stderr) as handle:
                        said = [line for line in handle.read().splitlines() if line.strip()]
                    if any(line.startswith("docker:") for line in said):
                        raise ReplayError(docker_run.explain_failure(image, said))
            else:
                tokens = self.host_tokens()
                self.shown = " ".join(tokens)
                code, self.elapsed, self.timed_out = run_local(tokens, self.mounts["/app/program"], kill_after,
                                                               self.stdout, self.stderr, None)
        except ValueError as exc:  # shlex: an unbalanced quote; docker-py's split fails the same way
            code = 1
            with open(self.stderr, "a") as err:
                err.write("the command cannot be split: %s\n" % exc)
        self.exit_code = code

    def logs(self, time_limit: Optional[int]) -> Tuple[str, str, bool]:
        """(stdout, stderr, lost): what the site keeps of the container's logs. The alarm cuts the log stream of the
        container running when it goes off, whose stdout and stderr then stay empty (codabench_worker, _overtime); a
        container held back until after it keeps its logs (seen live)."""
        with open(self.stdout, "rb") as out, open(self.stderr, "rb") as err:
            texts = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
        # the alarm (one, from the step's start) cuts the log stream of the container running when it goes off
        lost = self.soft_limit or bool(time_limit) and self.held_back < time_limit < self.held_back + self.elapsed
        return ("", "", True) if lost else texts + (False,)


WEBSOCKET_TIMEOUT = 10  # seconds: the worker's asyncio.wait_for on each container's websocket connection


def run_together(containers: List[Container], executor, kill_after: Optional[float]) -> None:
    """Run a step's containers (the program first, then the ingestion program) as the worker's asyncio.gather
    really does; a ReplayError from one is raised.

    The worker reads the first container's logs with blocking calls inside its event loop, so the second container
    starts only once the first has ended, even when the first writes output (seen on the local Codabench); held back
    longer than the worker waits for its websocket (10 s), it is recorded with exit status 1, whatever it returned.
    The step's limit counts from its start, for both."""
    started = time.time()
    for index, container in enumerate(containers):
        container.held_back = time.time() - started if index else 0.0
        limit = None if kill_after is None else max(kill_after - (time.time() - started), 0.1)
        container.run(executor, limit)
    for container in containers[1:]:
        if container.held_back > WEBSOCKET_TIMEOUT and not container.timed_out:
            container.returned, container.exit_code = container.exit_code, 1


def soft_limit_notes(containers: List[Container], notes: List[str]) -> None:
    """A container still running at the site's Celery soft limit (the step's time limit + 20 minutes): the worker
    catches SoftTimeLimitExceeded where it waits for the container, records exit status 1, keeps none of its logs
    and goes on (the prediction step to "Scoring", the scoring step to "Child task failed or non-zero return
    code"), leaving the container running on the worker's host, never removed (seen on the local Codabench). The
    replay stops it there."""
    for container in containers:
        if container.timed_out:
            container.returned, container.exit_code, container.timed_out = None, 1, False
            container.soft_limit = True
            notes.append("%s was still running at the site's soft time limit (the time limit + 20 minutes): "
                         "Codabench's worker records exit status 1 and goes on, and leaves the container running "
                         "on its host (the replay stopped it)" % container.label)


def held_back_notes(containers: List[Container]) -> List[str]:
    """What run_together's ordering did, for the report."""
    notes = []
    for container in containers[1:]:
        if container.held_back >= 1:
            notes.append("%s started %.1f s after %s: Codabench's worker starts it only once the first container "
                         "has ended (it reads that container's logs with blocking calls inside its event loop), so "
                         "the two never run at once" % (container.label, container.held_back, containers[0].label))
        if container.returned is not None:
            notes.append("%s returned %s, but the worker records exit status 1: it was held back more than %d s "
                         "and the worker's websocket connection for it timed out"
                         % (container.label, container.returned, WEBSOCKET_TIMEOUT))
    return notes


def _snapshot(folders: List[str]) -> Dict[str, Tuple[int, float]]:
    found = {}
    for folder in folders:
        for base, _, files in os.walk(folder):
            if "__pycache__" in base.split(os.sep):  # Python's own byte-code cache: not the program's doing
                continue
            for name in files:
                path = os.path.join(base, name)
                try:
                    stat = os.stat(path)
                except OSError:
                    continue
                found[path] = (stat.st_size, stat.st_mtime)
    return found


class Prediction(object):
    """The prediction step's outcome."""

    def __init__(self) -> None:
        self.notes: List[str] = []        # what the worker did that the organizer should know
        self.problems: List[str] = []     # why the step did not give the scoring step what it should
        self.final: Optional[str] = None  # a reason the submission fails at this step (no scoring step)
        self.containers: List[Container] = []
        self.metadata: Dict[str, object] = {}
        self.output_zip: Optional[bytes] = None
        self.outside_writes: List[str] = []
        self.elapsed = 0.0
        self.scoring_containers: List[Container] = []  # a scoring-time ingestion program's run

    def as_dict(self, time_limit: Optional[int]) -> dict:
        runs = []
        for c in self.containers:
            stdout, stderr, lost = c.logs(time_limit)
            runs.append({"kind": c.kind, "what": c.label, "command": c.shown, "exit_code": c.exit_code,
                         "elapsed_seconds": round(c.elapsed, 3), "timed_out": c.soft_limit, "stdout": stdout,
                         "stderr": stderr, "logs_lost": lost, "held_back_seconds": round(c.held_back, 3),
                         "returned": c.returned})
        return {"containers": runs, "metadata": self.metadata, "notes": self.notes, "problems": self.problems,
                "failed_here": self.final, "written_outside_output": self.outside_writes}


def _layout(bundle: Bundle, phase: PhaseInfo, data: bytes, root: str, limits, in_scoring: bool) -> Dict[str, str]:
    task = task_of(phase)
    folders = {}
    if not in_scoring:
        folders["program"] = os.path.join(root, "program")
        safe_extract(data, folders["program"], "submission", limits)
    ingestion_here = bool(task.ingestion_program) and task.ingestion_only_during_scoring == in_scoring
    if ingestion_here:
        folders["ingestion_program"] = os.path.join(root, "ingestion_program")
        safe_extract(bundle.read(task.ingestion_program, "ingestion_program"), folders["ingestion_program"],
                     "ingestion_program", limits)
    if task.input_data and (not in_scoring or task.ingestion_only_during_scoring):
        folders["input_data"] = os.path.join(root, "input_data")
        safe_extract(bundle.read(task.input_data, "input_data"), folders["input_data"], "input_data", limits)
    return folders


def _ingestion_container(folders: Dict[str, str], output: str, root: str, prediction: Prediction, in_scoring: bool,
                         extra_mounts: Dict[str, str], during_scoring: bool) -> Optional[Container]:
    name, command = read_command(folders["ingestion_program"])
    if name is None or not command:
        problem = NO_METADATA if name is None else NO_COMMAND
        prediction.problems.append("the ingestion program did not run: %s (Codabench's worker logs this and goes on: "
                                   "the submission is scored on an output without predictions)" % problem)
        return None
    if not isinstance(command, str):
        prediction.problems.append("the ingestion program did not run: its metadata command is not a string")
        return None
    mounts = {"/app/program": folders["ingestion_program"], "/app/output": output}
    mounts.update(extra_mounts)
    if "input_data" in folders:
        mounts["/app/input_data"] = folders["input_data"]
    return Container("ingestion", mounts, legacy_command(command, "ingestion", in_scoring, during_scoring), root,
                     "the ingestion program")


def prediction_step(bundle: Bundle, phase: PhaseInfo, data: bytes, root: str, executor, limits,
                    time_limit: Optional[int], kill_after: Optional[float]) -> Prediction:
    """Run the prediction step in ``root`` (a fresh folder) as Codabench's worker does."""
    task = task_of(phase)
    prediction = Prediction()
    folders = _layout(bundle, phase, data, root, limits, in_scoring=False)
    output = os.path.join(root, "output")
    made_output = False
    name, command = read_command(folders["program"])
    if name is None:
        shutil.copytree(folders["program"], output)
        made_output = True
        prediction.notes.append("the submission has no metadata file: the worker copies its files into the "
                                "prediction output (as for a results submission), so they reach the scoring "
                                "step's input/res")
    elif not command or not isinstance(command, str):
        prediction.notes.append("the submission's %s has no command: it runs nothing of its own%s" % (
            name, "" if task.ingestion_program and not task.ingestion_only_during_scoring else
            ", and no ingestion program runs it either: nothing is predicted"))
    else:
        os.makedirs(output, exist_ok=True)
        made_output = True
        mounts = {"/app/program": folders["program"], "/app/output": output}
        if "input_data" in folders:
            mounts["/app/input_data"] = folders["input_data"]
        prediction.containers.append(Container("program", mounts, legacy_command(command, "program", False, False),
                                               root, "the submission's own metadata command"))
    if "ingestion_program" in folders:
        ingestion_name, ingestion_command = read_command(folders["ingestion_program"])
        if ingestion_name is not None and ingestion_command:
            os.makedirs(output, exist_ok=True)
            made_output = True
        container = _ingestion_container(folders, output, root, prediction, False,
                                         {"/app/ingested_program": folders["program"]}, False)
        if container is not None:
            prediction.containers.append(container)
    watched = [f for f in folders.values()]
    before = _snapshot(watched)
    started = time.time()
    run_together(prediction.containers, executor, kill_after)
    prediction.elapsed = time.time() - started
    prediction.notes.extend(held_back_notes(prediction.containers))
    after = _snapshot(watched)
    prediction.outside_writes = sorted(os.path.relpath(p, root) for p in after if before.get(p) != after[p])
    if prediction.outside_writes:
        prediction.notes.append("written outside the output folder (Codabench never passes these on to the "
                                "scoring step): %s" % ", ".join(prediction.outside_writes[:10]))
    soft_limit_notes(prediction.containers, prediction.notes)
    for container in prediction.containers:
        if container.exit_code != 0:
            prediction.problems.append("%s exited with status %s (Codabench goes on to the scoring step all the "
                                       "same)" % (container.label, container.exit_code))
        if time_limit and container.elapsed > time_limit and not container.soft_limit:
            prediction.notes.append("%s ran %.1f s, past the time limit of %s s: Codabench's worker lets it run on "
                                    "but keeps none of its logs" % (container.label, container.elapsed, time_limit))
    by_kind = dict((c.kind, c) for c in prediction.containers)
    program, ingestion = by_kind.get("program"), by_kind.get("ingestion")
    prediction.metadata = {
        "exitCode": program.exit_code if program else None,
        "elapsedTime": (program.elapsed if program else None) or (ingestion.elapsed if ingestion else None),
        "ingestionExitCode": ingestion.exit_code if ingestion else None,
        "ingestionElapsedTime": ingestion.elapsed if ingestion else None}
    if not made_output:
        prediction.final = NO_OUTPUT
        return prediction
    if os.path.exists(os.path.join(output, "metadata")):
        prediction.final = METADATA_WRITTEN
        return prediction
    with open(os.path.join(output, "metadata"), "w") as handle:
        handle.write(yaml.dump(prediction.metadata, default_flow_style=False))
    archive = shutil.make_archive(os.path.join(root, "prediction_result"), "zip", output)
    with open(archive, "rb") as handle:
        prediction.output_zip = handle.read()
    if not any(n != "metadata" for n in zipfile.ZipFile(io.BytesIO(prediction.output_zip)).namelist()):
        prediction.problems.append("the prediction step's output holds nothing but the worker's metadata")
    return prediction


def scoring_ingestion(bundle: Bundle, phase: PhaseInfo, run, limits) -> Tuple[Optional[Container], List[str]]:
    """The ingestion program of a task with ``ingestion_only_during_scoring``, laid out beside the scoring run
    (``run``, base_worker.Run) and ready to start with it; (the container or None, problems)."""
    prediction = Prediction()
    folders = _layout(bundle, phase, b"", run.root, limits, in_scoring=True)
    if "ingestion_program" not in folders:
        return None, []
    extra = {"/app/ingested_program": os.path.join(run.paths["input"], "res"), "/app/shared": run.paths["shared"],
             "/app/input": run.paths["input"]}
    container = _ingestion_container(folders, run.output, run.root, prediction, True, extra, True)
    return container, prediction.problems


def scoring_container(run, command: str, input_data: Optional[str], during_scoring: bool) -> Container:
    """The scoring program as a Container of the scoring step (with a scoring-time ingestion program beside it)."""
    mounts = {"/app/program": run.paths["program"], "/app/output": run.output, "/app/shared": run.paths["shared"],
              "/app/input": run.paths["input"]}
    if input_data:
        mounts["/app/input_data"] = input_data
    return Container("program", mounts, legacy_command(command, "program", True, during_scoring), run.root,
                     "the scoring program")


def site_details(status: str, reason: Optional[str], exit_code: Optional[int]) -> str:
    """The status details Codabench shows with the status (Submission.status_details)."""
    if status == "Finished":
        return ""
    if reason == SOFT_LIMIT:
        return reason
    if exit_code not in (0, None):
        return CHILD_FAILED
    return reason or ""


V15_UNSUPPORTED = ("this phase has an ingestion program (a code-submission phase): the CodaLab v1.5 replay runs the "
                   "scoring step only, not v1.5's prediction step (its own layout, $hidden, a separate time limit "
                   "per step); replay it as Codabench runs it (--platform codabench)")


def scoring_step(bundle: Bundle, phase: PhaseInfo, run, executor, worker, prediction: Prediction):
    """The scoring step of a code submission: the scoring program, and beside it (ingestion_only_during_scoring) the
    ingestion program, after it (run_together), under one alarm. (exit code, elapsed, timed out, [command lines]); the scoring-time
    ingestion program's run is added to ``prediction`` (its exit code matters to nobody: only the scoring
    program's decides the status)."""
    task = task_of(phase)
    containers = [scoring_container(run, run.commands[0], None, False)]
    if task.ingestion_only_during_scoring and task.ingestion_program:
        ingestion, problems = scoring_ingestion(bundle, phase, run, worker.limits)
        prediction.problems.extend("scoring step: %s" % p for p in problems)
        input_data = os.path.join(run.root, "input_data")
        containers = [scoring_container(run, run.commands[0], input_data if os.path.isdir(input_data) else None,
                                        True)]
        if ingestion is not None:
            ingestion.label = "the ingestion program (in the scoring step, ingestion_only_during_scoring)"
            containers.append(ingestion)
            prediction.notes.append("ingestion_only_during_scoring: the ingestion program runs the submission in the "
                                    "scoring step, with the reference data at /app/input/ref: the submission's "
                                    "code can read the gold")
    run_together(containers, executor, worker.kill_after(phase))
    prediction.notes.extend("scoring step: %s" % n for n in held_back_notes(containers))
    soft = []
    soft_limit_notes(containers, soft)
    prediction.notes.extend("scoring step: %s" % n for n in soft)
    scoring = containers[0]
    for extra in containers[1:]:
        prediction.scoring_containers.append(extra)
    with open(scoring.stdout, "rb") as src, open(run.stdout, "ab") as dst:
        dst.write(src.read())
    with open(scoring.stderr, "rb") as src, open(run.stderr, "ab") as dst:
        dst.write(src.read())
    return scoring.exit_code, scoring.elapsed, False, [c.shown for c in containers]


def failed_before_scoring(report: dict, prediction: Prediction, time_limit: Optional[int]) -> dict:
    """The report of a code submission that fails in its prediction step (no scoring step)."""
    report["reason"] = "the prediction step failed: %s" % prediction.final
    report["site_details"] = prediction.final
    report["prediction"] = prediction.as_dict(time_limit)
    if prediction.final in (METADATA_WRITTEN, NO_OUTPUT):
        # the worker posts "Scoring" (which starts the scoring step) before push_output fails, and the scoring
        # step then finds the empty placeholder the site made for the prediction result (checked live)
        report["reason"] += ("; Codabench has already started the scoring step, which finds no prediction result "
                             "and fails after about 3 minutes of retries: '%s'" % BAD_ZIP)
        report["site_details"] = BAD_ZIP
        report["prediction"]["site_details_first"] = [prediction.final]  # shown until the scoring step starts
    ingestion = [c for c in report["prediction"]["containers"] if c["kind"] == "ingestion"]
    if ingestion:
        report["exit_code"] = ingestion[0]["exit_code"]
        report["elapsed_seconds"] = ingestion[0]["elapsed_seconds"]
    return report


def annotate(report: dict, prediction: Prediction, time_limit: Optional[int]) -> None:
    """Add the prediction step to the report of a code submission's scoring step: which step failed and why."""
    beside = ["%s exited with status %s (only the scoring program's exit status decides)"
              % (c.label, c.exit_code) for c in prediction.scoring_containers if c.exit_code != 0]
    report["prediction"] = prediction.as_dict(time_limit)
    report["prediction"]["notes"].append(NETWORK_NOTE)
    for container in prediction.scoring_containers:
        stdout, stderr, lost = container.logs(time_limit)
        report["prediction"]["containers"].append({
            "kind": "ingestion", "what": container.label, "command": container.shown,
            "exit_code": container.exit_code, "elapsed_seconds": round(container.elapsed, 3),
            "timed_out": container.soft_limit, "stdout": stdout, "stderr": stderr, "logs_lost": lost,
            "held_back_seconds": round(container.held_back, 3), "returned": container.returned})
    report["site_details"] = site_details(report["status"], report["reason"], report["exit_code"])
    if report["status"] == "Failed":
        report["reason"] = "the scoring step failed: %s" % report["reason"]
        if beside:
            report["reason"] += "; beside it, %s" % "; ".join(beside)
        if prediction.problems:
            report["reason"] += "; before it, in the prediction step: %s" % "; ".join(prediction.problems)
    else:
        report["warnings"].extend("scoring step: %s" % p for p in beside)
        report["warnings"].extend("prediction step: %s" % p for p in prediction.problems)
    report["prediction"]["problems"].extend("scoring step: %s" % p for p in beside)


def participant_stderr(report: dict) -> str:
    """The stderr a code submission's page shows first, as the site's logs are read (site.batch.site_stderr): the
    first not blank of the scoring step's, the prediction step's own command's, the scoring-time ingestion's and the
    prediction-time ingestion's."""
    containers = (report.get("prediction") or {}).get("containers") or []
    def of(kind, in_scoring):
        return "".join(c["stderr"] for c in containers if c["kind"] == kind and
                       ("in the scoring step" in c["what"]) == in_scoring)
    for text in (report.get("stderr") or "", of("program", False), of("ingestion", True), of("ingestion", False)):
        if text.strip():
            return text
    return ""
