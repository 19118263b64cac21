"""The phases as Codabench gets them: when each is open (CodaLab's schedule kept: a phase ends one second before
the next starts; a phase closed by a limit of 0 left out or made to end when it starts), the phases CodaLab had open
side by side made one phase with a task each, each phase's settings (CodaLab's defaults written out), and a check
that every phase Codabench would store as never open is explained by the report.
"""
from __future__ import annotations

import datetime
from typing import Any, Optional

from .. import validate
from ..platforms import codabench_model
from .old_bundle import PHASE_KEYS, OldBundle, OldPhase, read_date, when
from .report import CHANGE, CONTENT, INCOMPLETE, LOSS, MANUAL, NOTE, Report

# CodaLab v1.5's defaults for phase settings a bundle leaves out, and Codabench's (spec 1.4, 4.3).
V15_DEFAULTS = (("max_submissions", 100, 100), ("max_submissions_per_day", 999, 5),
                ("execution_time_limit", 300, 600))
ONE_SECOND = datetime.timedelta(seconds=1)

# A phase with its dates on Codabench: (key, settings, start, end or None), naive UTC.
Span = tuple[Any, dict, datetime.datetime, Optional[datetime.datetime]]
# Phases CodaLab had open together, one Codabench phase: ([(key, settings)], start, end or None).
Group = tuple[list[OldPhase], datetime.datetime, Optional[datetime.datetime]]


def _closed_by(phase):
    """The limit that closes a phase on CodaLab, or None: a limit of 0 refused every submission there (it was
    used for "ceasefire" phases), while Codabench skips a falsy limit (Phase.can_user_make_submissions: 'if
    self.max_submissions_per_day:'), so 0 would open the phase without limit."""
    for field in ("max_submissions", "max_submissions_per_day"):
        value = phase.get(field)
        if value is not None and not isinstance(value, bool) and str(value).strip() == "0":
            return field
    return None


def spans(old: OldBundle, ordered: list[OldPhase], report: Report) -> list[Span]:
    """The phases Codabench gets, as [(key, phase, start, end)] in UTC: each end one second before the next start;
    the last at end_date, or never.

    A phase closed by a limit of 0 is left out when nothing reaches it (no phase in its interval, so no submissions
    then); one that auto-migration fills keeps its place, its leaderboard and its migrated submissions, and ends
    when it starts, so it never takes a submission of its own."""
    starts = [read_date(p["start_date"], "phases.%s.start_date" % k, report) for k, p in ordered]
    kept, dropped = [], []
    for i, ((key, phase), start) in enumerate(zip(ordered, starts)):
        field = _closed_by(phase)
        if field and not phase.get("auto_migration") and len(dropped) + 1 < len(ordered):
            dropped.append((key, phase, field))
            continue
        if dropped and dropped[-1][0] == ordered[i - 1][0] and phase.get("auto_migration"):
            # CodaLab migrated into this phase what the closed phase before it held: nothing
            phase = dict((k, v) for k, v in phase.items() if k != "auto_migration")
            report.add(CHANGE, "phases.%s.auto_migration" % key, "not written: on CodaLab it brought the submissions "
                       "of the closed phase before (none); on Codabench it would bring those of the phase before that")
        kept.append((i, key, phase, start, field))
    spans = []
    for position, (i, key, phase, start, field) in enumerate(kept):
        if i + 1 < len(starts):
            end = starts[i + 1] - ONE_SECOND  # the next phase on CodaLab, even one left out here
        else:
            end_date = old.spec.get("end_date")
            end = None if phase.get("phase_never_ends") or end_date in (None, "", "null") else \
                read_date(end_date, "end_date", report)
        if field:
            end = start if end is None or end > start else end
        spans.append((key, phase, start, end))
    if len(starts) > 1:
        report.add(CHANGE, "phases", "every phase but the last ends one second before the next one starts, as on "
                   "CodaLab (Codabench's import of the old bundle would end it a day before, a day without "
                   "submissions)")
    for key, phase, field in dropped:
        last = ordered[-1][0] == key
        report.add(CHANGE, "phases.%s" % key, "phase %s (%s) has %s: 0, so CodaLab refused every submission to it; "
                   "Codabench reads 0 as no limit, so the phase is left out: no phase is open from its start%s, "
                   "and the phase before it ends as it did on CodaLab"
                   % (phase["phasenumber"], phase.get("label"), field, " on" if last else
                      " until the next phase starts"))
    for (key, phase, start, _), (_, _, _, _, field) in zip(spans, kept):
        if field:
            report.add(CHANGE, "phases.%s" % key, "phase %s (%s) has %s: 0, so CodaLab refused every submission to "
                       "it%s; Codabench reads 0 as no limit, so the phase ends when it starts (%s): it takes no "
                       "submission of its own%s" % (
                           phase["phasenumber"], phase.get("label"), field,
                           " but filled it by auto-migration" if phase.get("auto_migration") else "",
                           when(start), ", and still receives the migrated ones" if phase.get("auto_migration") else
                           " (it is kept: every phase of the bundle is closed)"))
    return spans


def open_together(spans: list[Span]) -> list[Group]:
    """The phases CodaLab had open at the same time, as Codabench phases: [(members [(key, phase)], start, end)].

    CodaLab's CompetitionPhase.is_active is True for a phase_never_ends phase whatever the dates, so phases that
    start together, all but the last never ending, were open side by side (a common way to run subtasks); so were
    the parallel phases of a CodaLab v1.8 parent (parent_phasenumber), a submission to the parent going to each.
    Codabench's phases cannot overlap, but one phase can hold several tasks: each group becomes one phase."""
    groups = []
    for key, phase, start, end in spans:
        if groups:
            members, group_start, _ = groups[-1]
            parent = phase.get("parent_phasenumber")
            child = parent is not None and any(m.get("phasenumber") == parent for _, m in members)
            beside = start == group_start and all(m.get("phase_never_ends") for _, m in members)
            if child or beside:
                groups[-1] = (members + [(key, phase)], group_start, end)
                continue
        groups.append(([(key, phase)], start, end))
    return groups


def scored_members(members: list[OldPhase], report: Report) -> list[OldPhase]:
    """The phases of a group whose programs score its submissions: a parallel parent's program only gathered its
    children's scores, which Codabench's phase does itself, one column set per task."""
    if len(members) > 1 and members[1][1].get("parent_phasenumber") is not None:
        key, parent = members[0]
        if parent.get("scoring_program"):
            report.add(LOSS, "phases.%s.scoring_program" % key, "the parallel parent's program %s gathered the scores "
                       "of its phases; Codabench shows each task's own scores instead, so it is not used"
                       % parent["scoring_program"])
        return members[1:]
    return members


def _group_name(labels):
    """The labels' common part ('Dev - AR', 'Dev - Br' -> 'Dev'), else them all."""
    common = labels[0]
    for label in labels[1:]:
        while not label.startswith(common):
            common = common[:-1]
    common = common.rstrip(" -_:/([")
    name = common if len(common) >= 3 else " + ".join(labels)
    return name[:validate.MAX_TASK_NAME]


def report_groups(groups: list[Group], report: Report) -> set[int]:
    """Report what merging and phase_never_ends did; returns the positions of the phases the report says never
    open (closed by a limit of 0, or ending before they start)."""
    explained = set()
    for position, (members, start, end) in enumerate(groups):
        if end is not None and (end < start or (end == start and all(_closed_by(m) for _, m in members))):
            explained.add(position)
        key, phase = members[0]
        last_key, last = members[-1]
        labels = [str(m.get("label") or k) for k, m in members]
        where = "phases.%s" % key
        if len(members) > 1:
            parent = members[1][1].get("parent_phasenumber") is not None
            report.add(CHANGE, where, "phases %s were open at the same time on CodaLab (%s): Codabench's phases "
                       "cannot overlap, so they are one phase with a task each; a submission is scored on each task "
                       "of the phase (or those the participant picks) and counts once against its limits" % (
                           ", ".join(labels), "parallel phases of %s" % labels[0] if parent else
                           "phase_never_ends, and the same start"))
            limits = set((m.get("max_submissions"), m.get("max_submissions_per_day")) for _, m in members)
            if len(limits) > 1:
                report.add(LOSS, where, "the phases had different submission limits (%s): the first's are written"
                           % "; ".join("%s: %s total, %s a day" % (l, m.get("max_submissions"),
                                                                  m.get("max_submissions_per_day"))
                                       for l, (_, m) in zip(labels, members)))
        if last.get("phase_never_ends") and position + 1 < len(groups):
            report.add(LOSS, "phases.%s" % last_key, "%s %s %s phase_never_ends: on CodaLab %s open for good, beside "
                       "the phases after %s. Codabench's phases cannot overlap (its import refuses it: 'Phases must "
                       "be sequential'), so %s %s, one second before the next phase starts%s. To let participants "
                       "go on submitting, add a phase with the same task(s) after the last one" % (
                           "phase" if len(members) == 1 else "phases", ", ".join(labels),
                           "has" if len(members) == 1 else "have", "it stayed" if len(members) == 1 else "they stayed",
                           "it" if len(members) == 1 else "them",
                           "it ends" if len(members) == 1 else "their phase ends",
                           when(end), ": it never opens" if end < start else ""))
        elif end is not None and end < start:
            report.add(LOSS, where, "phase %s (%s) starts when or after the next one does: it never opens (nor did "
                       "it on CodaLab, where a phase is open until the next one starts); give it an earlier start, or "
                       "leave it out" % (phase["phasenumber"], ", ".join(labels)))
    return explained


def _phase_settings(key, phase, number, report, missing):
    where = "phases.%s" % key
    out = {}
    for field, codalab, _ in V15_DEFAULTS:
        value = phase.get(field)
        if value is None:
            missing.setdefault(field, []).append(str(number))
            value = codalab
        out[field] = value
    if isinstance(out["execution_time_limit"], int) and out["execution_time_limit"] > 600:
        report.add(NOTE, where, "execution_time_limit %d s: Codabench's default queue caps the limit at 600 s "
                   "(MAX_EXECUTION_TIME_LIMIT); a scoring run that needs longer needs a queue with a higher limit"
                   % out["execution_time_limit"])
    if phase.get("auto_migration"):
        if number == 1:
            report.add(LOSS, where, "auto_migration on the first phase: CodaLab ignored it and Codabench refuses "
                       "it, so it is left out")
        else:
            out["auto_migrate_to_this_phase"] = True
    mode = phase.get("leaderboard_management_mode")
    if mode == "hide_results":
        out["hide_output"] = True
        report.add(LOSS, where, "leaderboard_management_mode: hide_results (a blind phase): written hide_output: "
                   "true, which hides the submissions' output; CodaLab also hid the results and put each "
                   "participant's last successful submission on the leaderboard. On Codabench the leaderboard "
                   "and its rule are shared by all phases: hide the leaderboard by hand during this phase")
    if phase.get("is_scoring_only") is False:
        report.add(CHANGE, where, "is_scoring_only: false (code submissions): Codabench runs a submission as code "
                   "when it holds a metadata file, and the ingestion program is kept in the phase's task")
    if phase.get("color"):
        missing.setdefault("color", []).append(str(number))
    if phase.get("datasets"):
        report.add(MANUAL, where, "datasets (links on CodaLab's Get Data page) are not in a Codabench bundle: put "
                   "the links on the Data page", CONTENT)
    for extra in sorted(set(phase) - PHASE_KEYS - {"datasets"}, key=str):
        report.add(LOSS, "%s.%s" % (where, extra), "no Codabench equivalent: dropped")
    return out


def phases(old: OldBundle, groups: list[Group], task_of: dict, report: Report) -> list[dict]:
    """The v2 phases, one per group, with their settings, tasks (``task_of``: {phase key: task index}), public
    data and starting kit."""
    phases, missing = [], {}
    for number, (members, start, end) in enumerate(groups, 1):
        key, phase = members[0]
        settings = _phase_settings(key, phase, number, report, missing)
        labels = [str(m.get("label") or "Phase %d" % number) for _, m in members]
        parallel = len(members) > 1 and members[1][1].get("parent_phasenumber") is not None
        out = {"index": number - 1, "name": labels[0] if len(members) == 1 or parallel else _group_name(labels),
               "description": phase.get("description"), "start": when(start),
               "end": when(end) if end else None}
        if not phase.get("label"):
            report.add(CHANGE, "phases.%s" % key, "no label: named %s" % out["name"])
        out.update(settings)
        out["tasks"] = sorted(set(task_of[k] for k, _ in members if task_of.get(k) is not None))
        for field in ("public_data", "starting_kit"):
            value = next((m.get(field) for _, m in members if m.get(field) is not None), None)
            if value is None:
                continue
            if old.read(value) is None:  # Codabench would refuse the bundle: 'Cannot find dataset'
                report.add(MANUAL, "phases.%s.%s" % (key, field), "%r is not in the bundle, so it is left out "
                           "(Codabench refuses a bundle naming data it cannot find): add the file to the bundle and "
                           "the key back, or upload it in the editor" % (value,), INCOMPLETE)
                continue
            out[field] = value
        phases.append(out)
    if "color" in missing:
        report.add(LOSS, "phases", "color in phase(s) %s: Codabench has no phase colours" % ", ".join(missing["color"]))
    for field, codalab, codabench in V15_DEFAULTS:
        if field in missing:
            report.add(CHANGE, "phases", "%s absent in phase(s) %s: CodaLab's default %d is written (%sa CodaLab "
                       "dump leaves it out even when it was set: check the old site)" % (
                           field, ", ".join(missing[field]), codalab,
                           "Codabench's would be %d; " % codabench if codabench != codalab else ""))
    return phases


def name_phases_that_never_open(stored: list[codabench_model.StoredPhase], report: Report,
                                explained: set[int]) -> None:
    """Every phase Codabench would store ending when or before it starts takes no submission: each must be named by
    the report; ``explained`` holds the positions the report already explains (a closed phase kept for its migrated
    submissions, a phase_never_ends loss, a phase out of order), any other is a manual step."""
    for phase in stored:
        end, start = phase.end.stored, phase.start.stored
        if end is not None and end <= start and phase.index not in explained:
            report.add(MANUAL, "phases.%d" % (phase.index + 1), "phase %d (%s) ends (%s) when or before it starts "
                       "(%s): on Codabench nobody can ever submit to it; change its dates or leave it out"
                       % (phase.index + 1, phase.name, when(end), when(start)), INCOMPLETE)
