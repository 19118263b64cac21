"""Checking a migrated bundle as Codabench would take it, once it is written: the validator's model of Codabench's
import (what it still refuses or cannot score becomes a manual step) and a replay of each task's sample submission
under the Codabench worker (what the scoring program does there: no score, output/metadata, a failure). Also the
validator's verdict on the old bundle as it is, for the summary of a migration of many.
"""
from __future__ import annotations

from typing import Optional

from .. import replay, validate
from .report import INCOMPLETE, MANUAL, NOTE, REFUSED, UNSCORED, Report


def record_validation(target: str, report: Report) -> None:
    """Validate the new bundle (Codabench); its errors and warnings become manual steps."""
    _, findings = validate.validate(target, ("codabench",), replay=False)
    report.imports = validate.imports(findings)
    for finding in findings:
        if finding.rule == "files" and finding.where.startswith("tasks."):
            continue  # a task's missing data: said once already, with the old site's key explained (tasks.tasks_of_phases)
        if finding.severity in ("error", "warning"):
            report.add(MANUAL, "validate: %s" % finding.where, "%s%s" % (
                finding.message, " (what to change: %s)" % finding.fix if finding.fix else ""),
                INCOMPLETE if finding.severity == "warning" else UNSCORED if finding.accepted else REFUSED)


def check_replays(target: str, report: Report, submission: Optional[str], wrapped: bool, executor=None) -> None:
    """Replay each task's sample submission (or the organizer's) under the Codabench worker."""
    try:
        bundle = replay.Bundle(target)
    except replay.ReplayError as exc:
        report.add(MANUAL, "replay", "the migrated bundle cannot be replayed: %s" % exc, UNSCORED)
        return
    seen = set()
    computed = bundle.columns()[1]  # filled by the site from the others
    for phase in bundle.phases:
        key = (phase.scoring_program, phase.reference_data)
        if key in seen:
            continue
        if submission is None and bundle.sample_submission(phase) is None:
            continue
        seen.add(key)
        where = "phase %s (%s)" % (phase.number, phase.label)
        if any(isinstance(name, str) and not name.endswith(".zip") for name in key):
            # a dataset key of the old site: its manual step names it already
            report.add(NOTE, where, "not replayed: its program or gold is a dataset key, not a file of the bundle")
            continue
        try:
            result = replay.replay(target, submission, phase.number, platform="codabench", executor=executor)
            report.ran_with = replay.ran_with(executor)
        except (replay.ReplayError, OSError) as exc:
            report.checks.append({"where": where, "status": "not run", "scores": {}, "message": str(exc)})
            report.add(MANUAL, where, "the scoring program could not be replayed: %s" % exc, UNSCORED)
            continue
        _judge_replay(where, result, report, wrapped, computed, executor)
    if not seen:
        report.add(NOTE, "replay", "no starting kit holds a sample_submission.zip: nothing checks the scoring "
                   "program; name a past submission with --submission")


def _judge_replay(where, result, report, wrapped, computed, executor=None):
    stderr = [line for line in result["stderr"].splitlines() if line.strip()]
    check = {"where": where, "status": result["status"], "scores": result["scores"],
             "submission": result["submission"], "message": result["reason"] or ""}
    report.checks.append(check)
    text_scores = [w for w in result["score_warnings"] if "not a mapping" in w]
    wrote_metadata = result["reason"] and "output/metadata" in result["reason"]
    fix = "rerun migrate with --wrap-scores (no change to the program)" if not wrapped else "fix the program"
    if text_scores:
        report.add(MANUAL, where, "the program writes scores.txt as key:value without a space: Codabench shows the "
                   "submission Finished with no score at all. Fix: %s, or write 'key: value'" % fix, UNSCORED)
    if wrote_metadata:
        report.add(MANUAL, where, "the program writes output/metadata: Codabench's worker fails the submission "
                   "(its scores are stored). Fix: %s, or stop writing that file" % fix, UNSCORED)
    if result["status"] != "Finished" and not wrote_metadata:
        report.add(MANUAL, where, "the sample submission fails under the Codabench worker, run with %s: %s%s%s" % (
            replay.ran_with(executor), result["reason"], "; stderr ends: %s" % stderr[-1] if stderr else "",
            "" if executor else " (check it in the platform's image: rerun migrate with --docker)"), UNSCORED)
    empty = [key for key in result["columns_without_score"] if key not in computed]
    if result["status"] == "Finished" and result["scores"] and empty:
        report.add(MANUAL, where, "leaderboard columns get no score from the program: %s" % ", ".join(empty))
    for warning in result["score_warnings"] + result["warnings"]:
        if warning not in text_scores:
            report.add(MANUAL, where, warning)


def original_imports(source) -> bool:
    """Whether Codabench would import the old bundle as it is (validate's model of its import)."""
    _, findings = validate.validate(str(source), ("codabench",), replay=False)
    return validate.imports(findings)
