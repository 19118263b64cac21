"""Replay a bundle's scoring step on a submission as the CodaLab v1.5 compute worker runs it (spec section 2.8).

The run directory is laid out as the worker does: program/, input/{ref,res,metadata,history,scores}, output/ with an
empty detailed_results.html, temp/, the downloaded temp files left behind; the metadata command is substituted and
split on single spaces (no shell), run with the phase's time limit in <run>, and scores.txt is read with the site's
parser (and, for comparison, Codabench's).
"""
import io
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import zipfile
from pathlib import PurePosixPath

import yaml

from . import scores as score_parsers

DEFAULT_TIME_LIMIT = 300  # CompetitionPhase.execution_time_limit default on v1.5
TIME_LIMIT_MESSAGE = "Execution time limit exceeded!"


class ReplayError(Exception):
    """The bundle or submission cannot be replayed at all (as opposed to a submission that fails)."""


# ---------------------------------------------------------------------------------------------------------------
# Zips


def _check_entry(name, info, source):
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise ReplayError("%s: zip entry %r escapes the folder it is extracted into" % (source, name))
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise ReplayError("%s: zip entry %r is a symbolic link" % (source, name))


def safe_extract(data, target, source):
    """Extract zip bytes into ``target``, refusing entries that would land outside it."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ReplayError("%s is not a zip file" % source)
    with archive:
        for info in archive.infolist():
            _check_entry(info.filename, info, source)
        archive.extractall(target)


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


def get_bundle(data, target, source, temp_parent):
    """Emulate the worker's get_bundle for a .zip: leave the download behind, extract, promote, extract nested."""
    handle, _ = tempfile.mkstemp(prefix="tmp", suffix=".zip", dir=temp_parent)
    with os.fdopen(handle, "wb") as raw:
        raw.write(data)  # the worker's NamedTemporaryFile(delete=False) stays in the parent folder
    os.makedirs(target)
    safe_extract(data, target, source)
    promoted = _find_only_folder_with_metadata(target)
    if promoted is not None:
        holder = target + ".promote"
        os.rename(promoted, holder)
        shutil.rmtree(target)
        os.rename(holder, target)
    for entry in sorted(os.listdir(target)):
        if entry.endswith(".zip") and os.path.isfile(os.path.join(target, entry)):
            with open(os.path.join(target, entry), "rb") as nested:
                safe_extract(nested.read(), os.path.join(target, entry[:-4]), "%s/%s" % (source, entry))
    os.chmod(target, 0o777)


# ---------------------------------------------------------------------------------------------------------------
# Bundle


class Bundle(object):
    """A competition bundle opened for replay (v1.5 layout)."""

    def __init__(self, path):
        self.path = str(path)
        try:
            self.zip = zipfile.ZipFile(self.path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise ReplayError("cannot open bundle %s: %s" % (self.path, exc))
        for info in self.zip.infolist():
            _check_entry(info.filename, info, self.path)
        yaml_names = [n for n in self.zip.namelist() if ".yaml" in n]
        if not yaml_names:
            raise ReplayError("%s holds no competition.yaml" % self.path)
        self.spec = yaml.safe_load(self.zip.read(yaml_names[0]).decode("utf-8"))
        if not isinstance(self.spec, dict) or not isinstance(self.spec.get("phases"), dict):
            raise ReplayError("%s: competition.yaml has no phases mapping" % self.path)

    def phase(self, number=None):
        phases = list(self.spec["phases"].values())
        if number is None:
            return phases[0]
        for phase in phases:
            if phase.get("phasenumber") == number:
                return phase
        raise ReplayError("no phase %s in %s (phases: %s)"
                          % (number, self.path, ", ".join(str(p.get("phasenumber")) for p in phases)))

    def read(self, name, what):
        if not isinstance(name, str) or not name.endswith(".zip"):
            raise ReplayError("%s is %r: only files inside the bundle can be replayed, not dataset keys"
                              % (what, name))
        try:
            return self.zip.read(name)
        except KeyError:
            raise ReplayError("%s %s is not in the bundle" % (what, name))

    def columns(self):
        """(column keys in YAML order, computed column keys)."""
        columns = (self.spec.get("leaderboard") or {}).get("columns") or {}
        computed = [key for key, col in columns.items() if isinstance(col, dict) and col.get("computed")]
        return [str(key) for key in columns], computed

    def sample_submission(self, phase):
        """The starting kit's sample_submission.zip for this phase, or None."""
        kit = phase.get("starting_kit")
        if not isinstance(kit, str) or kit not in self.zip.namelist():
            return None
        with zipfile.ZipFile(io.BytesIO(self.zip.read(kit))) as inner:
            names = [n for n in inner.namelist() if n.rsplit("/", 1)[-1] == "sample_submission.zip"]
            return inner.read(sorted(names, key=len)[0]) if names else None


# ---------------------------------------------------------------------------------------------------------------
# Running


def _substitute(command, run, shared):
    """The worker's substitutions, in its order, then split(' ') (W L483-492)."""
    for variable, value in (("$program", os.path.join(run, "program")),
                            ("$predictions", os.path.join(run, "input", "res")),
                            ("$input", os.path.join(run, "input")),
                            ("$output", os.path.join(run, "output")),
                            ("$tmp", os.path.join(run, "temp")),
                            ("$shared", shared)):
        command = command.replace(variable, value)
    return command.split(" ")


def _run_local(tokens, run, time_limit, stdout_path, stderr_path):
    """Run one command in ``run``; returns (exit code, elapsed seconds, timed out)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    started = time.time()
    with open(stdout_path, "a") as out, open(stderr_path, "a") as err:
        try:
            proc = subprocess.Popen(tokens, cwd=run, stdout=out, stderr=err, env=env, start_new_session=True)
        except OSError as exc:
            err.write("%s: %s\n" % (tokens[0], exc.strerror or exc))
            return 127, time.time() - started, False
        try:
            code = proc.wait(timeout=time_limit if time_limit and time_limit > 0 else None)
            return code, time.time() - started, False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    with open(stderr_path, "a") as err:
        err.write(TIME_LIMIT_MESSAGE + "\n")
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


def replay(bundle_path, submission=None, phase_number=None, temp_dir=None, keep=False):
    """Replay the scoring step. ``submission`` is a path to a zip, or None for the phase's sample submission.

    Returns a dict report (see ``format_report``). Raises ReplayError when nothing can be run at all.
    """
    bundle = Bundle(bundle_path)
    phase = bundle.phase(phase_number)
    number = phase.get("phasenumber")
    if submission is None:
        data = bundle.sample_submission(phase)
        if data is None:
            raise ReplayError("phase %s has no starting kit with a sample_submission.zip: give a submission zip"
                              % number)
        submission_name = "%s (starting kit sample_submission.zip)" % phase.get("starting_kit")
    else:
        with open(str(submission), "rb") as handle:
            data = handle.read()
        submission_name = str(submission)
    time_limit = phase.get("execution_time_limit", DEFAULT_TIME_LIMIT)

    base = temp_dir or tempfile.gettempdir()
    if not os.path.isdir(base):
        os.makedirs(base)
    root = tempfile.mkdtemp(prefix="tmp", dir=base)
    shared = tempfile.mkdtemp(prefix="tmp", dir=base)
    run = os.path.join(root, "run")
    try:
        os.makedirs(run)
        os.chmod(root, 0o777)
        with open(os.path.join(run, "metadata"), "w") as handle:
            handle.write("program: scoring_program.zip\ninput: input.txt\nstdout: \nstderr: \n")
        get_bundle(bundle.read(phase.get("scoring_program"), "scoring_program"),
                   os.path.join(run, "program"), "scoring_program", run)
        input_dir = os.path.join(run, "input")
        os.makedirs(input_dir)
        with open(os.path.join(input_dir, "metadata"), "w") as handle:
            handle.write(_input_metadata(number))
        if phase.get("reference_data"):
            get_bundle(bundle.read(phase["reference_data"], "reference_data"),
                       os.path.join(input_dir, "ref"), "reference_data", input_dir)
        get_bundle(data, os.path.join(input_dir, "res"), "submission", input_dir)
        for name, content in (("history", ""), ("scores", "")):
            os.makedirs(os.path.join(input_dir, name))
            with open(os.path.join(input_dir, name, "metadata"), "w") as handle:
                handle.write(content)
        output = os.path.join(run, "output")
        for folder in (output, os.path.join(run, "temp")):
            os.makedirs(folder)
            os.chmod(folder, 0o777)
        open(os.path.join(output, "detailed_results.html"), "w").close()
        os.chmod(os.path.join(output, "detailed_results.html"), 0o777)
        stdout_path, stderr_path = os.path.join(run, "stdout.txt"), os.path.join(run, "stderr.txt")
        open(stdout_path, "w").close()
        open(stderr_path, "w").close()

        metadata_path = os.path.join(run, "program", "metadata")
        metadata = {}
        if os.path.isfile(metadata_path):
            with open(metadata_path) as handle:
                metadata = yaml.safe_load(handle) or {}
        command = metadata.get("command") if isinstance(metadata, dict) else None
        commands = [command] if isinstance(command, str) else list(command or [])
        results, tokens_run, timed_out = [], [], False
        if not commands:
            with open(stderr_path, "a") as err:
                err.write("Program command is not specified.\n")
            results.append({"exitCode": 1, "ingestionExitCode": 0, "elapsedTime": 0.0})
        for cmd in commands:
            tokens = _substitute(cmd, run, shared)
            tokens_run.append(tokens)
            code, elapsed, timed_out = _run_local(tokens, run, time_limit, stdout_path, stderr_path)
            results.append({"exitCode": code, "ingestionExitCode": 0, "elapsedTime": round(elapsed, 3)})
            if code != 0:
                break
        with open(os.path.join(output, "metadata"), "a") as handle:
            yaml.safe_dump(results[0] if len(results) == 1 else results, handle, default_flow_style=False)

        columns, computed = bundle.columns()
        exit_code = results[-1]["exitCode"]
        scores_txt = _read_optional(os.path.join(output, "scores.txt"))
        scores_json = _read_optional(os.path.join(output, "scores.json"))
        codalab = score_parsers.parse_codalab(scores_txt, columns, computed)
        codabench = score_parsers.parse_codabench(scores_json, scores_txt, columns)
        if timed_out:
            status, reason = "Failed", TIME_LIMIT_MESSAGE
        elif exit_code != 0:
            status, reason = "Failed", "the scoring program exited with status %s" % exit_code
        elif not codalab.ok:
            status, reason = "Failed", codalab.error
        else:
            status, reason = "Finished", None
        report = {
            "bundle": str(bundle_path),
            "submission": submission_name,
            "phase": number,
            "phase_label": phase.get("label"),
            "platform": "codalab-v1.5 (local)",
            "status": status,
            "reason": reason,
            "exit_code": exit_code,
            "elapsed_seconds": results[-1]["elapsedTime"],
            "time_limit_seconds": time_limit,
            "command": [" ".join(t) for t in tokens_run],
            "scores": codalab.scores if status == "Finished" else {},
            "columns_without_score": codalab.missing,
            "keys_without_column": codalab.ignored,
            "score_warnings": codalab.warnings,
            "codabench_scores": codabench.as_dict(),
            "stdout": _read_optional(stdout_path) or "",
            "stderr": _read_optional(stderr_path) or "",
            "detailed_results": None,
            "run_dir": run if keep else None,
        }
        page = _detailed_results(output)
        if page is not None:
            report["detailed_results"] = page if keep else os.path.relpath(page, run)
        return report
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(shared, ignore_errors=True)


def _rounded(scores):
    return dict((key, round(value, 10)) for key, value in scores.items())


def format_report(report):
    """The human-readable report."""
    lines = ["Replay of %s" % report["bundle"],
             "  phase %s (%s), submission %s" % (report["phase"], report["phase_label"], report["submission"]),
             "  as the %s worker runs it: %s" % (report["platform"], " && ".join(report["command"]) or "-"),
             "",
             "status: %s (exit code %s, %.2f s of %s s allowed)"
             % (report["status"], report["exit_code"], report["elapsed_seconds"], report["time_limit_seconds"])]
    if report["reason"]:
        lines.append("reason: %s" % report["reason"])
    if report["scores"]:
        lines.append("scores (as the CodaLab leaderboard stores them):")
        width = max(len(k) for k in report["scores"])
        for key, value in report["scores"].items():
            lines.append("  %-*s  %r" % (width, key, value))
    lines.append("leaderboard columns without a score: %s" % (", ".join(report["columns_without_score"]) or "none"))
    lines.append("score keys matching no column: %s" % (", ".join(report["keys_without_column"]) or "none"))
    for warning in report["score_warnings"]:
        lines.append("warning: %s" % warning)
    codabench = report["codabench_scores"]
    if report["status"] == "Finished":
        if not codabench["ok"]:
            lines.append("Codabench would fail to read the scores: %s" % codabench["error"])
        elif _rounded(codabench["scores"]) != _rounded(report["scores"]):
            lines.append("Codabench would read different scores: %s" % codabench["scores"])
        else:
            lines.append("Codabench would read the same scores (to the 10 decimals both platforms store).")
    if report["detailed_results"]:
        lines.append("detailed results: %s" % report["detailed_results"])
    stderr = report["stderr"].rstrip()
    lines.append("stderr (what the participant sees under 'View scoring error log'):")
    lines.extend("  | " + line for line in stderr.splitlines()) if stderr else lines.append("  (empty)")
    if report["run_dir"]:
        lines.append("run directory kept: %s" % report["run_dir"])
    return "\n".join(lines)
