"""The replay itself: open the bundle, let the platform's worker prepare the run, run its commands, read the scores.

Then decide what the platform shows: the status and its reason, the scores the leaderboard stores (which a Failed
run can have on Codabench), warnings where the platform surprises (a run past its time limit), the detailed
results page, and what the other platform's parser would make of the same output.
"""
from __future__ import annotations

import os
import tempfile
from typing import Dict, List, Optional, Type, Union

from ..platforms import codabench_leaderboard
from ..zips import safe_zip
from .base_worker import Worker, read_optional
from . import broken_zip, code_submission, codabench_worker
from .bundle import BrokenZip, Bundle, ReplayError, read_submission
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
        return "Failed", (TIME_LIMIT_MESSAGE if worker.name == "codalab"
                          else codabench_worker.CODABENCH_SOFT_LIMIT_DETAILS)
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
           limits: Optional[safe_zip.Limits] = None, tracks: Optional[List[str]] = None) -> Report:
    """Replay the scoring step. ``submission`` is a path to a zip, or None for the phase's sample submission.

    ``platform`` picks the worker to emulate ("codabench", the default, or "codalab"); ``executor`` runs the
    commands (default: locally; see docker_run for containers); ``limits`` bounds every zip extraction
    (safe_zip.Limits). Returns a dict report (see ``format_report``); ``scores`` are the scores the leaderboard
    stores, which a Failed run can have on Codabench, the computed columns included. Raises ReplayError when nothing
    can be run at all.

    A phase with several tasks (a task with tracks) runs the submission once per task, as Codabench does (each run
    a child submission whose scores go to the submission's row), or only on the tasks named in ``tracks`` (the
    tasks a participant chooses); the report then merges the runs (``merge_runs``) and lists each in ``tasks``.
    """
    worker = WORKERS[platform]()
    worker.limits = limits or safe_zip.Limits()
    bundle = Bundle(bundle_path, platform, worker.limits)
    phase = bundle.phase(phase_number)
    chosen = phase.chosen_tasks(tracks)
    data, submission_name = read_submission(bundle, phase, submission, worker.limits)
    executor = executor or LocalExecutor()
    executor.prepare(bundle)
    reports = [_replay_task(bundle_path, bundle, phase.for_task(task), data, submission_name, worker, executor,
                            platform, temp_dir, keep) for task in chosen]
    computed = bundle.computed_columns() if platform == "codabench" else []
    if len(phase.tasks) == 1:
        return _with_computed(reports[0], computed)
    return merge_runs(reports, chosen, computed)


def _with_computed(report: Report, computed) -> Report:
    """The report with the computed columns the site fills from its scores (Codabench's calculate_scores)."""
    if not computed:
        return report
    columns = [_Computed(key, computation, fields) for key, computation, fields in computed]
    report["scores"] = codabench_leaderboard.fill_computed(report["scores"], columns)
    report["columns_without_score"] = [k for k in report["columns_without_score"] if k not in report["scores"]]
    return report


class _Computed(object):
    def __init__(self, key, computation, fields):
        self.key, self.computation, self.fields = key, computation, fields


def merge_runs(reports: List[Report], tasks, computed) -> Report:
    """One report for a submission run on several tasks of a phase: every run's stored scores (each task writes
    its own columns), the computed columns filled from them, the runs' commands, warnings and output one after
    the other, and ``tasks``: each run's task, status, reason, scores, exit code and stderr. Its status is Finished
    when a run finished (its scores are on the submission's row), Failed when none did; the reason names the tasks
    whose run failed (``failed_tasks`` says whether one did). Codabench itself shows the submission Finished once
    every run has ended, whatever their statuses, and each run's status on the run (a warning says so)."""
    merged = dict(reports[0])
    names = [task.name if task.name is not None else str(task.index) for task in tasks]
    runs = [{"task": name, "index": task.index, "status": r["status"], "reason": r["reason"],
             "exit_code": r["exit_code"], "scores": r["scores"], "stderr": r["stderr"], "signature": r["signature"],
             "detailed_results": r["detailed_results"]} for name, task, r in zip(names, tasks, reports)]
    scores: Dict[str, float] = {}
    for report in reports:
        scores.update(report["scores"])
    failed = [(run["task"], run["reason"] or run["status"]) for run in runs if run["status"] != "Finished"]
    merged.update(
        status="Failed" if len(failed) == len(runs) else "Finished",
        reason="; ".join("task %s: %s" % pair for pair in failed) or None,
        exit_code=max((r["exit_code"] or 0 for r in reports), key=abs) if any(r["exit_code"] is not None
                                                                              for r in reports) else None,
        elapsed_seconds=round(sum(r["elapsed_seconds"] for r in reports), 3),
        command=[c for r in reports for c in r["command"]], scores=scores,
        columns_without_score=[k for k in reports[0]["columns_without_score"] if k not in scores],
        keys_without_column=sorted(set(k for r in reports for k in r["keys_without_column"])),
        score_warnings=["task %s: %s" % (name, w) for name, r in zip(names, reports) for w in r["score_warnings"]],
        warnings=["task %s: %s" % (name, w) for name, r in zip(names, reports) for w in r["warnings"]],
        other_platform_scores=None, detailed_results=None,
        stdout="".join("[task %s]\n%s" % (name, r["stdout"]) for name, r in zip(names, reports)),
        stderr="".join("[task %s]\n%s" % (name, r["stderr"]) for name, r in zip(names, reports) if r["stderr"]),
        run_dir=None, tasks=runs)
    if failed:
        merged["warnings"].append(
            "Codabench shows the submission Finished once each task's run has ended, whatever their statuses "
            "(competitions/models.py check_child_submission_statuses); the runs: %s" % ", ".join(
                "%s %s" % (run["task"], run["status"]) for run in runs))
    return _with_computed(merged, computed)


def failed_tasks(report: Report) -> list:
    """The tasks whose run failed, in a report of a phase of several tasks (merge_runs): [(task, reason)]."""
    return [(run["task"], run["reason"] or run["status"]) for run in report.get("tasks") or []
            if run["status"] != "Finished"]


def _replay_task(bundle_path, bundle, phase, data, submission_name, worker, executor, platform, temp_dir, keep):
    """One run of the submission on one task of the phase (``phase`` as that task sees it)."""
    time_limit = worker.time_limit(phase)
    refused = broken_zip.check(data)  # not a zip, or no entry: the worker fails it before any program runs
    if refused is not None:
        return new_report(bundle_path, submission_name, phase, platform, worker, executor, time_limit,
                          **broken_zip.outcome(worker.name, *refused))

    base = temp_dir or tempfile.gettempdir()
    if not os.path.isdir(base):
        os.makedirs(base)
    # Everything of the run (gold included) lives in one private folder (mode 0o700) removed on every path,
    # a refused zip included; with keep, it stays only when there is a run to look at.
    holder = tempfile.mkdtemp(prefix="replay-", dir=base)
    run = None
    prediction = None
    try:
        try:
            if code_submission.applies(platform, phase, data):  # a code submission: the prediction step first
                prediction = code_submission.prediction_step(
                    bundle, phase, data, tempfile.mkdtemp(prefix="prediction-", dir=holder), executor,
                    worker.limits, time_limit, worker.kill_after(phase))
                if prediction.final:
                    return code_submission.failed_before_scoring(
                        new_report(bundle_path, submission_name, phase, platform, worker, executor, time_limit),
                        prediction, time_limit)
                data = prediction.output_zip
            elif platform == "codalab" and code_submission.task_of(phase).ingestion_program:
                raise ReplayError(code_submission.V15_UNSUPPORTED)
            run = worker.prepare(bundle, phase, data, holder)
        except BrokenZip as exc:  # an entry the worker's own unzipping fails on too
            if exc.source.split("/")[0] != "submission":
                raise
            return new_report(bundle_path, submission_name, phase, platform, worker, executor, time_limit,
                              **broken_zip.outcome(worker.name, exc.kind, exc.error))
        results, commands_run, timed_out = [], [], False
        if run.setup_error:
            with open(run.stderr, "a") as err:
                err.write(run.setup_error + "\n")
            results.append({"exitCode": 1, "ingestionExitCode": 0, "elapsedTime": 0.0})
        if prediction is not None and run.commands:
            code, elapsed, timed_out, shown = code_submission.scoring_step(bundle, phase, run, executor, worker,
                                                                           prediction)
            commands_run.extend(shown)
            results.append({"exitCode": code, "ingestionExitCode": 0, "elapsedTime": round(elapsed, 3)})
        for command in run.commands if prediction is None else []:
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
        if prediction is not None:
            code_submission.annotate(report, prediction, time_limit)
        page = _detailed_results(run.output)
        if page is not None:
            report["detailed_results"] = page if keep else os.path.relpath(page, os.path.dirname(run.output))
        return report
    finally:
        if run is None or not keep:
            safe_zip.remove_tree(holder)
