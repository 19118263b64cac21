"""The replay itself: open the bundle, let the platform's worker prepare the run, run its commands, read the scores.

Then decide what the platform shows: the status and its reason, the scores the leaderboard stores (which a Failed
run can have on Codabench), warnings where the platform surprises (a run past its time limit), the detailed
results page, and what the other platform's parser would make of the same output.
"""
from __future__ import annotations

import io
import os
import tempfile
import zipfile
from typing import Dict, Optional, Type, Union

from ..zips import safe_zip
from .base_worker import Worker, read_optional
from .bundle import Bundle, read_submission
from .codabench_worker import CodabenchWorker
from .codalab_worker import CodalabWorker
from .docker_run import TIME_LIMIT_MESSAGE
from .executors import Executor, LocalExecutor
from .report import Report, new_report

# The worker each --platform value emulates.
WORKERS: Dict[str, Type[Worker]] = {"codalab": CodalabWorker, "codabench": CodabenchWorker}


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
    if not _overtime(worker, elapsed, time_limit):
        return []
    return ["the program ran %.1f s, past the phase's time limit of %s s: Codabench's current worker (its "
            "January 2026 rewrite) catches its own alarm and lets the run finish and be scored, but loses its "
            "output: the run's stdout and stderr stay empty on the site, so a run that fails past the limit shows "
            "the participant no message (seen on a real Codabench, bench/load.py). Older Codabench workers and "
            "CodaLab fail it with 'Execution Time Limit exceeded'. Do not rely on either: keep scoring under the "
            "limit or raise execution_time_limit" % (elapsed, time_limit)]


def _overtime(worker, elapsed, time_limit):
    """Whether Codabench's worker loses the run's output: its alarm went off while it streamed the container's
    logs, and what it then stores of stdout and stderr is empty."""
    return worker.name == "codabench" and elapsed > time_limit


def replay(bundle_path: Union[str, os.PathLike], submission: Union[str, os.PathLike, None] = None,
           phase_number: Optional[int] = None, temp_dir: Optional[str] = None, keep: bool = False,
           platform: str = "codabench", executor: Optional[Executor] = None,
           limits: Optional[safe_zip.Limits] = None) -> Report:
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
    data, submission_name = read_submission(bundle, phase, submission, worker.limits)
    time_limit = worker.time_limit(phase)
    executor = executor or LocalExecutor()
    executor.prepare(bundle)
    if not zipfile.is_zipfile(io.BytesIO(data)):
        return new_report(bundle_path, submission_name, phase, platform, worker, executor, time_limit,
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
        report = new_report(
            bundle_path, submission_name, phase, platform, worker, executor, time_limit,
            status=status, reason=reason, exit_code=exit_code, elapsed_seconds=results[-1]["elapsedTime"],
            command=commands_run, scores=scores,
            columns_without_score=[key for key in columns if key not in scores],
            keys_without_column=parsed.ignored, score_warnings=parsed.warnings, signature=parsed.signature,
            warnings=_timing_warnings(worker, results[-1]["elapsedTime"], time_limit),
            other_platform_scores=dict(other.as_dict(), platform=other_worker.label),
            stdout=read_optional(run.stdout) or "", stderr=read_optional(run.stderr) or "",
            run_dir=run.root if keep else None)
        if _overtime(worker, results[-1]["elapsedTime"], time_limit):
            # what the participant sees is empty; what the program wrote stays in the report for the organizer
            report["program_stderr"], report["stdout"], report["stderr"] = report["stderr"], "", ""
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
