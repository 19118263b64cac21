"""The replay's report: the dict ``replay`` returns (every key always present) and its human-readable text."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional, Union

from .base_worker import Worker
from .bundle import PhaseInfo
from .executors import Executor

Report = Dict[str, Any]  # the keys are new_report's


def new_report(bundle_path: Union[str, os.PathLike], submission_name: str, phase: PhaseInfo, platform: str,
               worker: Worker, executor: Executor, time_limit: Optional[int],
               **outcome: Any) -> Report:
    """The report's every key: what was replayed, then ``outcome`` over the values of a run that never started."""
    report = {
        "bundle": str(bundle_path), "submission": submission_name, "phase": phase.number,
        "phase_label": phase.label, "platform": platform, "worker": "%s (%s)" % (worker.label, executor.label),
        "status": "Failed", "reason": None, "exit_code": None, "elapsed_seconds": 0.0,
        "time_limit_seconds": time_limit, "command": [], "scores": {}, "columns_without_score": [],
        "keys_without_column": [], "score_warnings": [], "warnings": [], "other_platform_scores": None,
        "signature": None,
        "stdout": "", "stderr": "", "detailed_results": None, "run_dir": None,
        "tasks": None,  # a phase of several tasks: each run's task, status, reason, scores (run.merge_runs)
        "prediction": None,  # a code submission: its prediction step (code_submission.Prediction.as_dict)
        "site_details": None,  # a code submission: the status details Codabench shows (code_submission)
    }
    unknown = set(outcome) - set(report)
    if unknown:
        raise TypeError("not report keys: %s" % ", ".join(sorted(unknown)))
    report.update(outcome)
    return report


def _rounded(scores):
    return dict((key, round(value, 10)) for key, value in scores.items())


def format_report(report: Report) -> str:
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
    for run in report.get("tasks") or []:
        lines.append("  task %s: %s%s" % (run["task"], run["status"], " (%s)" % run["reason"] if run["reason"] else ""))
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
    if report.get("prediction"):
        if report.get("site_details"):
            lines.append("Codabench shows: %s, \"%s\"" % (report["status"], report["site_details"]))
        lines.extend(prediction_lines(report["prediction"]))
    stderr = report["stderr"].rstrip()
    lines.append("stderr (what the participant sees under 'View scoring error log'):")
    lines.extend("  | " + line for line in stderr.splitlines()) if stderr else lines.append("  (empty)")
    if report["run_dir"]:
        lines.append("run directory kept: %s" % report["run_dir"])
    return "\n".join(lines)


def prediction_lines(prediction) -> list:
    """The prediction step of a code submission, for the text report."""
    lines = ["prediction step (before the scoring step):"]
    for run in prediction["containers"]:
        lines.append("  %s: exit code %s, %.2f s%s" % (run["what"], run["exit_code"], run["elapsed_seconds"],
                                                       ", stopped at the time limit" if run["timed_out"] else ""))
        lines.append("    %s" % run["command"])
        for line in run["stderr"].rstrip().splitlines()[-5:]:
            lines.append("    | " + line)
    if not prediction["containers"]:
        lines.append("  no container ran")
    for note in prediction["problems"]:
        lines.append("  problem: %s" % note)
    for note in prediction["notes"]:
        lines.append("  note: %s" % note)
    if prediction["failed_here"]:
        lines.append("  the submission fails here: %s" % prediction["failed_here"])
    return lines
