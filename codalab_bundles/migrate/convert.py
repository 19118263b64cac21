"""Moving a CodaLab v1.5 competition (its bundle, or a dump of it) to Codabench.

``migrate`` writes a version 2 bundle that keeps what the old one meant on CodaLab, where Codabench's own import of
the unchanged bundle would change it (its v1 unpacker, src/apps/competitions/unpackers/v1.py at
codalab/codabench@c7dbc756b07b, modelled in platforms/codabench_model.py): every phase but the last ends one second
before the next starts (not a day before), dates are quoted UTC strings (Codabench keeps only the day of an unquoted
timestamp and drops offsets), CodaLab's defaults are written out (open registration, 999 submissions a day, 300 s),
the ranking column stays the ranking column. What has no Codabench equivalent gets the closest choice, and is
reported. The report lists every change, every loss and every manual step left, then the checks of the scoring
programs (Python 3 syntax; a replay under the Codabench worker of each task's sample submission).

This module is the orchestration: ``convert`` reads the old bundle (old_bundle), makes the competition and its
pages (competition), the schedule and phases (schedule), the tasks and programs (tasks) and the leaderboard
(leaderboard), and writes the competition.yaml (v2_writer); an early Codabench bundle that only lacks 'version: 2'
gets it added instead. ``migrate`` writes the zip and checks it (bundle_check); ``migrate_many`` migrates several.
"""
from __future__ import annotations

import os
from typing import Iterable, Optional, Union

import yaml

from .. import validate
from ..platforms import codabench_model
from ..zips import pack
from . import bundle_check, competition, leaderboard, schedule, tasks, v2_writer
from .competition import STAND_IN_TERMS
from .old_bundle import MigrationError, OldBundle, earliest_start, is_dump, ordered_phases, when
from .report import CHANGE, CONTENT, MANUAL, REFUSED, Report

HEADER = ("Codabench (version 2) bundle written by build_bundle.py migrate from the CodaLab bundle %s.\n"
          "Dates are UTC and quoted: Codabench keeps the time of a string, but only the day of an unquoted timestamp.")


SUFFIX = "-codabench.zip"

PathLike = Union[str, os.PathLike]


def default_output(source: PathLike, folder: Optional[PathLike] = None) -> str:
    """OLD-codabench.zip beside OLD.zip (or in ``folder``), within the 64 characters Codabench's upload takes."""
    base = os.path.basename(str(source).rstrip("/"))
    stem = base[:-4] if base.lower().endswith(".zip") else base
    stem = stem[:validate.MAX_BUNDLE_FILE_NAME - len(SUFFIX)]
    return os.path.join(str(folder) if folder is not None else os.path.dirname(str(source)), stem + SUFFIX)


def _with_version_2(text):
    """An early Codabench competition.yaml with 'version: 2' added after any leading comments and '---'."""
    lines = text.splitlines(True)
    at = 0
    while at < len(lines) and (not lines[at].strip() or lines[at].lstrip().startswith(("#", "%")) or
                               lines[at].strip() == "---"):
        at += 1
    return "".join(lines[:at] + ["version: 2\n"] + lines[at:])


def _convert_codabench_style(old, report):
    """An early Codabench bundle that lacks 'version: 2': Codabench's upload then reads it as v1.5 and refuses it
    ('HTML pages could not be found in the yaml file'). Adding the version is the whole migration."""
    report.add(CHANGE, "version", "a Codabench-style competition.yaml (a list of phases with tasks) without "
               "'version: 2', which Codabench reads as CodaLab v1.5 and refuses: 'version: 2' is added, nothing "
               "else is changed")
    text = _with_version_2(old.text.decode("utf-8"))
    replaced, terms = {}, old.spec.get("terms")
    if not isinstance(terms, str) or not (old.read(terms) or b"").strip():
        if not isinstance(terms, str):
            terms = "terms.html" if old.read("terms.html") is None else "terms_codabench.html"
            text = _with_version_2(text.replace("version: 2\n", "terms: %s\n" % terms, 1))
        replaced[terms] = STAND_IN_TERMS.format(why="no terms page").encode("utf-8")
        report.add(MANUAL, "terms", "no terms page, which Codabench requires: a short stand-in page %s is written; "
                   "write the competition's terms there" % terms, CONTENT)
    return text, yaml.safe_load(text), replaced


def convert(source: PathLike, target: PathLike, wrap_scores: bool = False,
            rank_by: Optional[str] = None) -> tuple[str, bytes, Report]:
    """(competition.yaml text, zip bytes, report) for the old bundle at ``source``; nothing is written.
    ``rank_by``: the key of the column the migrated leaderboard ranks by, instead of the one CodaLab's rules give
    (or the report's choice where they cannot tell)."""
    report = Report(source, target)
    old = OldBundle(source, report)
    replaced = {}
    explained = set()
    if old.codabench_style:
        text, spec, replaced = _convert_codabench_style(old, report)
        new_phases, new_tasks = [p for p in spec["phases"] if isinstance(p, dict)], spec.get("tasks") or []
    else:
        ordered = ordered_phases(old)
        if old.python_tags:
            report.add(CHANGE, "(yaml)", "a CodaLab dump with %s tags, which Codabench's YAML loader refuses: "
                       "written as plain strings and numbers" % ", ".join(old.python_tags))
        settings, replaced = competition.settings(old, report)
        terms, pages, page_files = competition.pages(old, report)
        replaced.update(page_files)
        groups = schedule.open_together(schedule.spans(old, ordered, report))
        explained = schedule.report_groups(groups, report)
        scored = [kp for members, _, _ in groups for kp in schedule.scored_members(members, report)]
        renamed, program_files = tasks.programs(old, scored, report, wrap_scores)
        replaced.update(program_files)
        new_tasks, task_of = tasks.tasks_of_phases(old, scored, report, renamed)
        new_phases = schedule.phases(old, groups, task_of, report)
        context = leaderboard.Context(earliest_start(ordered), is_dump(old), rank_by)
        try:
            new_leaderboard = leaderboard.convert(old.spec, report, context)
        except ValueError as exc:
            raise MigrationError(str(exc))
        spec = dict(settings)
        spec.update({"terms": terms, "pages": pages, "tasks": new_tasks, "phases": new_phases,
                     "leaderboards": [new_leaderboard]})
        text = v2_writer.render(spec, HEADER % os.path.basename(str(source)))
    entries = [("competition.yaml", text.encode("utf-8"))]
    entries += [(name, replaced.get(name, data)) for name, data in old.files if name != "competition.yaml"]
    entries += sorted((name, data) for name, data in replaced.items() if name not in dict(entries))
    try:
        stored = codabench_model.stored_phases(yaml.safe_load(text), "2")
    except codabench_model.ImportRefused as exc:
        stored = []
        report.add(MANUAL, "phases", "Codabench refuses the phases: %s" % exc, REFUSED)
    schedule.name_phases_that_never_open(stored, report, explained)
    for phase in stored:
        report.schedule.append({"phase": phase.index + 1, "name": phase.name,
                                "start": when(phase.start.stored),
                                "end": when(phase.end.stored) if phase.end.stored else None})
    report.tasks = [{"index": t.get("index"), "name": t.get("name"),
                     "phases": [p.get("name") for p in new_phases if t.get("index") in (p.get("tasks") or [])]}
                    for t in new_tasks if isinstance(t, dict)]
    return text, pack.zip_entries(entries), report


def migrate(source: PathLike, target: Optional[PathLike] = None, wrap_scores: bool = False,
            submission: Optional[str] = None, check: bool = True, executor=None,
            rank_by: Optional[str] = None) -> Report:
    """Write the Codabench bundle for the CodaLab bundle at ``source``; returns the Report.

    With ``check``, the new bundle is validated (Codabench) and each task's sample submission (or ``submission``)
    is replayed under the Codabench worker; what must still change is added to the report's manual steps."""
    target = str(target or default_output(source))
    _, data, report = convert(source, target, wrap_scores, rank_by)
    partial = target + ".part"
    with open(partial, "wb") as handle:
        handle.write(data)
    os.replace(partial, target)
    if check:
        bundle_check.record_validation(target, report)
        bundle_check.check_replays(target, report, submission, wrap_scores, executor)
    return report


def migrate_many(sources: Iterable[PathLike], folder: PathLike,
                 **options) -> list[tuple[str, str, Optional[Report], Optional[str]]]:
    """Migrate each old bundle into ``folder`` (one bundle and one report each, names made unique); returns
    [(source, target, report or None, error or None)], in the order given. ``options`` are migrate's."""
    os.makedirs(str(folder), exist_ok=True)
    done, taken = [], set()
    for source in sources:
        target = default_output(source, folder)
        stem, n = os.path.basename(target)[:-len(SUFFIX)], 2
        while target in taken:  # OLD.zip from two folders
            room = validate.MAX_BUNDLE_FILE_NAME - len(SUFFIX) - len("-%d" % n)
            target = os.path.join(str(folder), "%s-%d%s" % (stem[:room], n, SUFFIX))
            n += 1
        taken.add(target)
        try:
            done.append((str(source), target, migrate(source, target, **options), None))
        except (MigrationError, OSError) as exc:
            done.append((str(source), target, None, str(exc)))
    return done
