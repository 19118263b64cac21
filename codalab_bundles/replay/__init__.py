"""Replay a bundle's scoring step on a submission as the CodaLab v1.5 compute worker runs it (spec section 2.8).

The run directory is laid out as the worker does: program/, input/{ref,res,metadata,history,scores}, output/ with an
empty detailed_results.html, temp/, the downloaded temp files left behind; the metadata command is substituted and
split on single spaces (no shell), run with the phase's time limit in <run>, and scores.txt is read with the site's
parser (and, for comparison, Codabench's).
"""
import io
import os
import platform as platform_module
import shlex
import signal
import subprocess
import tempfile
import time
import zipfile

import yaml

from . import docker_run
from ..zips import pack
from ..zips import safe_zip
from ..platforms import score_parsing
from .docker_run import TIME_LIMIT_MESSAGE

DEFAULT_TIME_LIMIT = 300  # CompetitionPhase.execution_time_limit default on v1.5
CODABENCH_TIME_LIMIT = 600  # Codabench's phase default, and the default queue's cap
# Codabench's site gives each run a Celery soft time limit of the phase's limit plus 20 minutes; past it the run
# fails with "Soft time limit exceeded!" (src/apps/competitions/tasks.py, compute_worker.run_wrapper).
CODABENCH_SOFT_LIMIT_PADDING = 20 * 60
DEFAULT_IMAGE = "codalab/codalab-legacy:py37"  # both platforms' default when a bundle names none


class ReplayError(Exception):
    """The bundle or submission cannot be replayed at all (as opposed to a submission that fails)."""


# ---------------------------------------------------------------------------------------------------------------
# Zips


def safe_extract(data, target, source, limits=None, budget=None):
    """Extract zip bytes into ``target``, refusing unsafe entries and more than ``limits`` allow (safe_zip)."""
    limits = limits or safe_zip.Limits()
    try:
        with safe_zip.open_archive(io.BytesIO(data), source) as archive:
            safe_zip.extract(archive, target, source, limits, budget)
    except safe_zip.ZipRefused as exc:
        raise ReplayError(str(exc))


def _find_only_folder_with_metadata(path):
    """The worker's promotion rule: the first subfolder holding a file called 'metadata' (W L41-54)."""
    entries = sorted(os.listdir(path))
    if len(entries) > 2 and "metadata" in entries:
        return None
    for entry in entries:
        sub = os.path.join(path, entry)
        if os.path.isdir(sub) and os.path.isfile(os.path.join(sub, "metadata")):
            return sub
    return None


def get_bundle(data, target, source, temp_parent, limits=None):
    """Emulate the worker's get_bundle for a .zip: leave the download behind, extract, promote, extract nested.

    The nested zips share the outer zip's budget, so nesting cannot multiply the extraction limits."""
    handle, _ = tempfile.mkstemp(prefix="tmp", suffix=".zip", dir=temp_parent)
    with os.fdopen(handle, "wb") as raw:
        raw.write(data)  # the worker's NamedTemporaryFile(delete=False) stays in the parent folder
    os.makedirs(target)
    limits = limits or safe_zip.Limits()
    budget = limits.budget()
    safe_extract(data, target, source, limits, budget)
    promoted = _find_only_folder_with_metadata(target)
    if promoted is not None:
        holder = target + ".promote"
        os.rename(promoted, holder)
        safe_zip.remove_tree(target)
        os.rename(holder, target)
    for entry in sorted(os.listdir(target)):
        if entry.endswith(".zip") and os.path.isfile(os.path.join(target, entry)):
            with open(os.path.join(target, entry), "rb") as nested:
                safe_extract(nested.read(), os.path.join(target, entry[:-4]), "%s/%s" % (source, entry), limits,
                             budget)


# ---------------------------------------------------------------------------------------------------------------
# Bundle


class PhaseInfo(object):
    """What a replay needs of one phase, whichever the bundle's format."""

    def __init__(self, number, label, scoring_program, reference_data, starting_kit, time_limit):
        self.number = number
        self.label = label
        self.scoring_program = scoring_program
        self.reference_data = reference_data
        self.starting_kit = starting_kit
        self.time_limit = time_limit


class Bundle(object):
    """A competition bundle opened for replay: CodaLab v1.5 (version 1) or Codabench (version 2)."""

    def __init__(self, path, platform="codabench", limits=None):
        self.path = str(path)
        self.limits = limits or safe_zip.Limits()
        try:
            self.zip = zipfile.ZipFile(self.path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise ReplayError("cannot open bundle %s: %s" % (self.path, exc))
        try:
            safe_zip.check_archive(self.zip, self.path, self.limits)
        except safe_zip.ZipRefused as exc:
            raise ReplayError(str(exc))
        # Codabench reads only the root competition.yaml; CodaLab the first entry whose name contains '.yaml'.
        yaml_names = [n for n in self.zip.namelist() if ".yaml" in n]
        if platform == "codabench":
            yaml_names = [n for n in yaml_names if n == "competition.yaml"]
        if not yaml_names:
            raise ReplayError("%s holds no competition.yaml%s" % (self.path, " at its root" if platform ==
                                                                  "codabench" else ""))
        self.spec = yaml.safe_load(self._member(yaml_names[0]).decode("utf-8"))
        if not isinstance(self.spec, dict):
            raise ReplayError("%s: competition.yaml is not a mapping" % self.path)
        self.version = str(self.spec.get("version", "1"))
        self.phases = self._phases_v2() if self.version == "2" else self._phases_v1()
        if not self.phases:
            raise ReplayError("%s: competition.yaml has no phases" % self.path)

    def _phases_v1(self):
        phases = self.spec.get("phases")
        if not isinstance(phases, dict):
            return []
        return [PhaseInfo(p.get("phasenumber"), p.get("label"), p.get("scoring_program"), p.get("reference_data"),
                          p.get("starting_kit"), p.get("execution_time_limit", DEFAULT_TIME_LIMIT))
                for p in phases.values() if isinstance(p, dict)]

    def _phases_v2(self):
        tasks = dict((t.get("index"), t) for t in self.spec.get("tasks") or [] if isinstance(t, dict))
        found = []
        for number, p in enumerate(sorted(self.spec.get("phases") or [], key=lambda p: p.get("index", 0)), 1):
            task = tasks.get((p.get("tasks") or [None])[0], {})
            found.append(PhaseInfo(number, p.get("name"), task.get("scoring_program"), task.get("reference_data"),
                                   p.get("starting_kit"), p.get("execution_time_limit", CODABENCH_TIME_LIMIT)))
        return found

    def phase(self, number=None):
        if number is None:
            return self.phases[0]
        for phase in self.phases:
            if phase.number == number:
                return phase
        raise ReplayError("no phase %s in %s (phases: %s)"
                          % (number, self.path, ", ".join(str(p.number) for p in self.phases)))

    def read(self, name, what):
        if not isinstance(name, str) or not name.endswith(".zip"):
            raise ReplayError("%s is %r: only zip files inside the bundle can be replayed, not dataset keys"
                              % (what, name))
        try:
            return self._member(name)
        except KeyError:
            raise ReplayError("%s %s is not in the bundle" % (what, name))

    def _member(self, name, archive=None, source=None):
        """An entry's bytes, read within the extraction limits (a bundle's headers may lie about sizes)."""
        try:
            return safe_zip.read_member(archive or self.zip, name, source or self.path, self.limits)
        except safe_zip.ZipRefused as exc:
            raise ReplayError(str(exc))

    def columns(self):
        """(column keys in leaderboard order, computed column keys) of the leaderboard the platform uses."""
        if self.version == "2":
            boards = self.spec.get("leaderboards") or [{}]
            columns = boards[0].get("columns") or []
            keys = [str(c.get("key")) for c in sorted(columns, key=lambda c: c.get("index", 0))]
            return keys, [str(c.get("key")) for c in columns if c.get("computation")]
        columns = (self.spec.get("leaderboard") or {}).get("columns") or {}
        computed = [key for key, col in columns.items() if isinstance(col, dict) and col.get("computed")]
        return [str(key) for key in columns], computed

    @property
    def docker_image(self):
        image = self.spec.get("docker_image" if self.version == "2" else "competition_docker_image")
        return image if isinstance(image, str) and image.strip() else DEFAULT_IMAGE

    def sample_submission(self, phase):
        """The starting kit's sample_submission.zip for this phase, or None."""
        kit = phase.starting_kit
        if not isinstance(kit, str) or kit not in self.zip.namelist():
            return None
        try:
            inner = safe_zip.open_archive(io.BytesIO(self._member(kit)), "%s/%s" % (self.path, kit))
        except safe_zip.ZipRefused as exc:
            raise ReplayError(str(exc))
        with inner:
            names = [n for n in inner.namelist() if n.rsplit("/", 1)[-1] == "sample_submission.zip"]
            return self._member(sorted(names, key=len)[0], inner, "%s/%s" % (self.path, kit)) if names else None


# ---------------------------------------------------------------------------------------------------------------
# The two workers


def _write(path, text=""):
    with open(path, "w") as handle:
        handle.write(text)


def _load_metadata(program_dir, names):
    for name in names:
        path = os.path.join(program_dir, name)
        if os.path.isfile(path):
            with open(path) as handle:
                data = yaml.safe_load(handle)
            return data if isinstance(data, dict) else {}
    return None


class Run(object):
    """A prepared run directory: where things are and which commands to run."""

    def __init__(self, root, cwd, output, stdout, stderr, commands, paths, setup_error=None):
        self.root = root
        self.cwd = cwd
        self.output = output
        self.stdout = stdout
        self.stderr = stderr
        self.commands = commands        # command strings from the program's metadata
        self.paths = paths              # {name: host folder} for mounts
        self.setup_error = setup_error  # what the worker reports when it cannot start the program


class CodalabWorker(object):
    """The v1.5 worker (spec 2.1-2.8): <run> at the same path inside the container, split(' '), no shell."""

    name = "codalab"
    label = "CodaLab v1.5"
    timeout_message = TIME_LIMIT_MESSAGE  # appended to stderr.txt when the worker kills the step
    bad_zip = ("the submission is not a zip file: the worker's extraction raises BadZipfile and the submission "
               "is marked Failed")
    limits = None  # safe_zip.Limits for every zip extracted; None: the defaults
    writable = ("output", "temp")  # folders the program writes (opened up only for a container, see DockerExecutor)

    def prepare(self, bundle, phase, submission, base):
        root = tempfile.mkdtemp(prefix="tmp", dir=base)
        shared = tempfile.mkdtemp(prefix="tmp", dir=base)
        run = os.path.join(root, "run")
        os.makedirs(run)
        _write(os.path.join(run, "metadata"), "program: scoring_program.zip\ninput: input.txt\nstdout: \nstderr: \n")
        get_bundle(bundle.read(phase.scoring_program, "scoring_program"), os.path.join(run, "program"),
                   "scoring_program", run, self.limits)
        input_dir = os.path.join(run, "input")
        os.makedirs(input_dir)
        _write(os.path.join(input_dir, "metadata"), _input_metadata(phase.number))
        if phase.reference_data:
            get_bundle(bundle.read(phase.reference_data, "reference_data"), os.path.join(input_dir, "ref"),
                       "reference_data", input_dir, self.limits)
        get_bundle(submission, os.path.join(input_dir, "res"), "submission", input_dir, self.limits)
        for name in ("history", "scores"):
            os.makedirs(os.path.join(input_dir, name))
            _write(os.path.join(input_dir, name, "metadata"))
        output = os.path.join(run, "output")
        for folder in (output, os.path.join(run, "temp")):
            os.makedirs(folder)
        _write(os.path.join(output, "detailed_results.html"))
        stdout, stderr = os.path.join(run, "stdout.txt"), os.path.join(run, "stderr.txt")
        _write(stdout)
        _write(stderr)
        metadata = _load_metadata(os.path.join(run, "program"), ["metadata"]) or {}
        command = metadata.get("command")
        commands = [command] if isinstance(command, str) else [c for c in command or [] if isinstance(c, str)]
        error = None if commands else "Program command is not specified."
        return Run(root, run, output, stdout, stderr, commands,
                   {"run": run, "shared": shared, "output": output, "temp": os.path.join(run, "temp")}, error)

    def tokens(self, run, command, in_container=False):
        """The worker's substitutions, in its order, then split(' ') (W L483-492). Same paths inside and out."""
        base = run.paths["run"]
        for variable, value in (("$program", os.path.join(base, "program")),
                                ("$predictions", os.path.join(base, "input", "res")),
                                ("$input", os.path.join(base, "input")),
                                ("$output", os.path.join(base, "output")),
                                ("$tmp", os.path.join(base, "temp")),
                                ("$shared", run.paths["shared"])):
            command = command.replace(variable, value)
        return command.split(" ")

    def finish(self, run, results):
        """After the program: the worker appends its own output/metadata (exit code and time)."""
        with open(os.path.join(run.output, "metadata"), "a") as handle:
            yaml.safe_dump(results[0] if len(results) == 1 else results, handle, default_flow_style=False)
        return None

    def time_limit(self, phase):
        return phase.time_limit

    def kill_after(self, phase):
        """Seconds after which the step is stopped: the time limit itself on v1.5."""
        return phase.time_limit

    def parse(self, run, columns, computed):
        return score_parsing.parse_codalab(_read_optional(os.path.join(run.output, "scores.txt")), columns,
                                           computed)


class CodabenchWorker(object):
    """The Codabench compute worker (spec 4.4): /app/{program,input,output,shared}, cwd /app/program, shlex split,
    plain extraction (no promotion, no nested zips), scores.json before scores.txt."""

    name = "codabench"
    label = "Codabench"
    timeout_message = None
    bad_zip = ("Bad or empty zip file (the worker tries the download 10 times, 20 s apart, before it says so: "
               "about 3 minutes)")
    APP = {"program": "/app/program", "input": "/app/input", "output": "/app/output", "shared": "/app/shared"}
    limits = None
    writable = ("output", "shared")

    def prepare(self, bundle, phase, submission, base):
        root = tempfile.mkdtemp(prefix="codabench-", dir=base)
        paths = dict((name, os.path.join(root, name)) for name in ("program", "input", "output", "shared"))
        safe_extract(bundle.read(phase.scoring_program, "scoring_program"), paths["program"], "scoring_program",
                     self.limits)
        if phase.reference_data:
            safe_extract(bundle.read(phase.reference_data, "reference_data"),
                         os.path.join(paths["input"], "ref"), "reference_data", self.limits)
        safe_extract(submission, os.path.join(paths["input"], "res"), "submission", self.limits)
        for name in ("input", "output", "shared"):
            if not os.path.isdir(paths[name]):
                os.makedirs(paths[name])
        stdout, stderr = os.path.join(root, "stdout.txt"), os.path.join(root, "stderr.txt")
        _write(stdout)
        _write(stderr)
        metadata = _load_metadata(paths["program"], ["metadata.yaml", "metadata"])
        command = (metadata or {}).get("command")
        if metadata is None:
            error = "Program directory missing 'metadata.yaml/metadata'"
        elif not isinstance(command, str) or not command.strip():
            error = "Program command is not specified."
        else:
            error = None
        return Run(root, paths["program"], paths["output"], stdout, stderr, [command] if error is None else [],
                   paths, error)

    def tokens(self, run, command, in_container=False):
        """Codabench's legacy substitutions, then a shell-style split (docker-py's shlex.split)."""
        where = self.APP if in_container else run.paths
        values = {"$ingestion_program": where["program"], "$submission_program": "/app/ingested_program",
                  "$predictions": os.path.join(where["input"], "res"),
                  "$hidden": os.path.join(where["input"], "ref"), "$program": where["program"],
                  "$input": where["input"], "$output": where["output"], "$shared": where["shared"],
                  "$tmp": where["output"]}
        for variable in sorted(values, key=len, reverse=True):  # longest first: $ingestion_program before $program
            command = command.replace(variable, values[variable])
        return shlex.split(command)

    def finish(self, run, results):
        if os.path.exists(os.path.join(run.output, "metadata")):
            return ("the scoring program wrote output/metadata: Codabench's worker writes that file itself and "
                    "fails the submission when it already exists")
        with open(os.path.join(run.output, "metadata"), "w") as handle:
            yaml.safe_dump({"exitCode": results[-1]["exitCode"], "elapsedTime": results[-1]["elapsedTime"]}, handle)
        return None

    def time_limit(self, phase):
        # The default queue caps the phase's limit at MAX_EXECUTION_TIME_LIMIT (600 s by default).
        return min(phase.time_limit or CODABENCH_TIME_LIMIT, CODABENCH_TIME_LIMIT)

    def kill_after(self, phase):
        """The worker's alarm at the time limit is caught while it streams the container's logs (its January 2026
        docker-py rewrite), so the program runs on; what stops it is the site's Celery soft time limit."""
        return (phase.time_limit or CODABENCH_TIME_LIMIT) + CODABENCH_SOFT_LIMIT_PADDING

    def parse(self, run, columns, computed):
        return score_parsing.parse_codabench(_read_optional(os.path.join(run.output, "scores.json")),
                                             _read_optional(os.path.join(run.output, "scores.txt")), columns)


WORKERS = {"codalab": CodalabWorker, "codabench": CodabenchWorker}


# ---------------------------------------------------------------------------------------------------------------
# Running


def _run_local(tokens, cwd, time_limit, stdout_path, stderr_path, timeout_message=TIME_LIMIT_MESSAGE):
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


def _input_metadata(phase_number):
    return ("submitted-by: replay\nsubmitted-at: 2000-01-01T00:00:00\ncompetition-submission: 1\n"
            "competition-phase: %s\nautomatic-submission: False\n" % phase_number)


def _read_optional(path):
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "replace")


def _detailed_results(output):
    """The page the site would upload: detailed_results.html if non-empty, else the last *.html in the walk."""
    main = os.path.join(output, "detailed_results.html")
    if os.path.isfile(main) and os.path.getsize(main) > 0:
        return main
    found = None
    for root, _, files in os.walk(output):
        for name in files:
            if name.endswith(".html") and os.path.getsize(os.path.join(root, name)) > 0:
                found = os.path.join(root, name)
    return found


def _read_submission(bundle, phase, submission, limits):
    """(zip bytes, name shown in the report)."""
    if submission is None:
        data = bundle.sample_submission(phase)
        if data is None:
            raise ReplayError("phase %s has no starting kit with a sample_submission.zip: give a submission zip"
                              % phase.number)
        return data, "%s (starting kit sample_submission.zip)" % phase.starting_kit
    if os.path.isdir(str(submission)):  # an unzipped submission: zipped as a participant would (its files, no folder)
        return pack.zip_directory(str(submission)), "%s (the folder's files, zipped)" % submission
    if os.path.getsize(str(submission)) > limits.max_bytes:
        raise ReplayError("%s is larger than %d bytes, the extraction limit" % (submission, limits.max_bytes))
    with open(str(submission), "rb") as handle:
        return handle.read(), str(submission)


def _status(worker, run, results, timed_out, finish_error, parsed):
    """(status, reason) as the platform shows them."""
    exit_code = results[-1]["exitCode"]
    if timed_out:
        return "Failed", (TIME_LIMIT_MESSAGE if worker.name == "codalab" else "Soft time limit exceeded!")
    if exit_code != 0:
        return "Failed", run.setup_error or "the scoring program exited with status %s" % exit_code
    if not parsed.ok:
        return "Failed", parsed.error
    if finish_error:
        return "Failed", finish_error
    return "Finished", None


def _stored_scores(worker, exit_code, timed_out, parsed):
    """The scores the leaderboard gets, whatever the status.

    v1.5: the site reads scores.txt only after a zero exit, and keeps the lines stored before a failing one.
    Codabench: the worker posts the scores before it writes output/metadata, so a run that then fails (a program
    that wrote output/metadata) still has its scores on the site.
    """
    if timed_out or exit_code != 0:
        return {}
    return dict(parsed.scores)


def _timing_warnings(worker, elapsed, time_limit):
    if worker.name != "codabench" or elapsed <= time_limit:
        return []
    return ["the program ran %.1f s, past the phase's time limit of %s s: Codabench's current worker (its "
            "January 2026 rewrite) catches its own alarm and lets the run finish and be scored, while older "
            "Codabench workers and CodaLab fail it with 'Execution Time Limit exceeded'. Do not rely on either: "
            "keep scoring under the limit or raise execution_time_limit" % (elapsed, time_limit)]


def _report(bundle_path, submission_name, phase, platform, worker, executor, time_limit, **outcome):
    """The report's every key: what was replayed, then ``outcome`` over the values of a run that never started."""
    report = {
        "bundle": str(bundle_path), "submission": submission_name, "phase": phase.number,
        "phase_label": phase.label, "platform": platform, "worker": "%s (%s)" % (worker.label, executor.label),
        "status": "Failed", "reason": None, "exit_code": None, "elapsed_seconds": 0.0,
        "time_limit_seconds": time_limit, "command": [], "scores": {}, "columns_without_score": [],
        "keys_without_column": [], "score_warnings": [], "warnings": [], "other_platform_scores": None,
        "signature": None,
        "stdout": "", "stderr": "", "detailed_results": None, "run_dir": None,
    }
    unknown = set(outcome) - set(report)
    if unknown:
        raise TypeError("not report keys: %s" % ", ".join(sorted(unknown)))
    report.update(outcome)
    return report


def replay(bundle_path, submission=None, phase_number=None, temp_dir=None, keep=False, platform="codabench",
           executor=None, limits=None):
    """Replay the scoring step. ``submission`` is a path to a zip, or None for the phase's sample submission.

    ``platform`` picks the worker to emulate ("codabench", the default, or "codalab"); ``executor`` runs the
    commands (default: locally; see docker_run for containers); ``limits`` bounds every zip extraction
    (safe_zip.Limits). Returns a dict report (see ``format_report``); ``scores`` are the scores the leaderboard
    stores, which a Failed run can have on Codabench. Raises ReplayError when nothing can be run at all.
    """
    worker = WORKERS[platform]()
    worker.limits = limits or safe_zip.Limits()
    bundle = Bundle(bundle_path, platform, worker.limits)
    phase = bundle.phase(phase_number)
    data, submission_name = _read_submission(bundle, phase, submission, worker.limits)
    time_limit = worker.time_limit(phase)
    executor = executor or LocalExecutor()
    executor.prepare(bundle)
    if not zipfile.is_zipfile(io.BytesIO(data)):
        return _report(bundle_path, submission_name, phase, platform, worker, executor, time_limit,
                       reason=worker.bad_zip)

    base = temp_dir or tempfile.gettempdir()
    if not os.path.isdir(base):
        os.makedirs(base)
    # Everything of the run (gold included) lives in one private folder (mode 0o700) removed on every path,
    # a refused zip included; with keep, it stays only when there is a run to look at.
    holder = tempfile.mkdtemp(prefix="replay-", dir=base)
    run = None
    try:
        run = worker.prepare(bundle, phase, data, holder)
        results, commands_run, timed_out = [], [], False
        if run.setup_error:
            with open(run.stderr, "a") as err:
                err.write(run.setup_error + "\n")
            results.append({"exitCode": 1, "ingestionExitCode": 0, "elapsedTime": 0.0})
        for command in run.commands:
            code, elapsed, timed_out, shown = executor.run(worker, run, command, worker.kill_after(phase))
            commands_run.append(shown)
            results.append({"exitCode": code, "ingestionExitCode": 0, "elapsedTime": round(elapsed, 3)})
            if code != 0:
                break
        finish_error = worker.finish(run, results)
        columns, computed = bundle.columns()
        parsed = worker.parse(run, columns, computed)
        other_worker = WORKERS["codabench" if platform == "codalab" else "codalab"]()
        other = other_worker.parse(run, columns, computed)
        exit_code = results[-1]["exitCode"]
        status, reason = _status(worker, run, results, timed_out, finish_error, parsed)
        scores = _stored_scores(worker, exit_code, timed_out, parsed)
        report = _report(
            bundle_path, submission_name, phase, platform, worker, executor, time_limit,
            status=status, reason=reason, exit_code=exit_code, elapsed_seconds=results[-1]["elapsedTime"],
            command=commands_run, scores=scores,
            columns_without_score=[key for key in columns if key not in scores],
            keys_without_column=parsed.ignored, score_warnings=parsed.warnings, signature=parsed.signature,
            warnings=_timing_warnings(worker, results[-1]["elapsedTime"], time_limit),
            other_platform_scores=dict(other.as_dict(), platform=other_worker.label),
            stdout=_read_optional(run.stdout) or "", stderr=_read_optional(run.stderr) or "",
            run_dir=run.root if keep else None)
        if status == "Failed" and report["scores"]:
            report["warnings"].append("the submission shows Failed, but the scores above are already stored on "
                                      "the leaderboard (the worker posts them before it fails)")
        page = _detailed_results(run.output)
        if page is not None:
            report["detailed_results"] = page if keep else os.path.relpath(page, os.path.dirname(run.output))
        return report
    finally:
        if run is None or not keep:
            safe_zip.remove_tree(holder)


def ran_with(executor):
    """Where a replay's program ran, for reports: this machine's interpreter or a Docker image."""
    if executor is not None and getattr(executor, "image", None):
        return "the Docker image %s" % executor.image
    return "this machine's python3 (Python %s), not the platform's image" % platform_module.python_version()


class LocalExecutor(object):
    """Runs the program with this machine's interpreter, in the worker's working directory."""

    label = "local"

    def prepare(self, bundle):
        pass

    def run(self, worker, run, command, time_limit):
        tokens = worker.tokens(run, command)
        code, elapsed, timed_out = _run_local(tokens, run.cwd, time_limit, run.stdout, run.stderr,
                                              worker.timeout_message)
        return code, elapsed, timed_out, " ".join(tokens)


class DockerExecutor(object):
    """Runs the program in a container, with the platform worker's own ``docker run`` (see docker_run).

    The image is the bundle's (competition_docker_image / docker_image) unless one is given; the v1.5 worker's
    name sanitising applies to it. The network is off unless ``network`` is true (the real workers leave it on).
    """

    def __init__(self, image=None, network=False, memory_mb=None):
        self.image = image
        self.network = network
        self.memory_mb = memory_mb if memory_mb is not None else docker_run.worker_memory_mb()
        self.label = "docker"

    def prepare(self, bundle):
        self.image = self.image or bundle.docker_image
        self.label = "docker %s%s" % (self.image, ", network on" if self.network else "")

    def run(self, worker, run, command, time_limit):
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


def _rounded(scores):
    return dict((key, round(value, 10)) for key, value in scores.items())


def format_report(report):
    """The human-readable report."""
    lines = ["Replay of %s" % report["bundle"],
             "  phase %s (%s), submission %s" % (report["phase"], report["phase_label"], report["submission"]),
             "  as the %s worker runs it: %s" % (report["worker"], " && ".join(report["command"]) or "-"),
             "",
             "status: %s (exit code %s, %.2f s of %s s allowed)"
             % (report["status"], report["exit_code"], report["elapsed_seconds"], report["time_limit_seconds"])]
    if report["reason"]:
        lines.append("reason: %s" % report["reason"])
    if report["scores"]:
        lines.append("scores the %s leaderboard stores:" % report["worker"].split(" (")[0])
        width = max(len(k) for k in report["scores"])
        for key, value in report["scores"].items():
            lines.append("  %-*s  %r" % (width, key, value))
    lines.append("leaderboard columns without a score: %s" % (", ".join(report["columns_without_score"]) or "none"))
    lines.append("score keys matching no column: %s" % (", ".join(report["keys_without_column"]) or "none"))
    signature = report["signature"]
    if signature:
        lines.append("signature: %s %s, gold SHA-256 %s" % (signature.get("program"), signature.get("version"),
                                                            signature.get("gold_sha256")))
    for warning in report["score_warnings"] + report["warnings"]:
        lines.append("warning: %s" % warning)
    other = report["other_platform_scores"]
    if report["status"] == "Finished" and other:
        if not other["ok"]:
            lines.append("%s would fail to read these scores: %s" % (other["platform"], other["error"]))
        elif _rounded(other["scores"]) != _rounded(report["scores"]):
            lines.append("%s would read different scores: %s" % (other["platform"], other["scores"]))
        else:
            lines.append("%s would read the same scores (to the 10 decimals both platforms store)."
                         % other["platform"])
    if report["detailed_results"] and report["run_dir"]:  # without --keep the run folder is gone already
        lines.append("detailed results: %s" % report["detailed_results"])
    stderr = report["stderr"].rstrip()
    lines.append("stderr (what the participant sees under 'View scoring error log'):")
    lines.extend("  | " + line for line in stderr.splitlines()) if stderr else lines.append("  (empty)")
    if report["run_dir"]:
        lines.append("run directory kept: %s" % report["run_dir"])
    return "\n".join(lines)
