"""The tasks and their scoring programs: each program checked (Python 3 syntax, metadata) and adapted for Codabench
(its files re-rooted, or wrapped with --wrap-scores), and one v2 task per distinct program and data, shared by the
phases that use the same bytes.
"""
from __future__ import annotations

import hashlib

from .. import validate
from . import program_check
from .old_bundle import DATA_FIELDS, OldBundle, OldPhase
from .report import CHANGE, MANUAL, REFUSED, UNSCORED, Report


def _digest(data):
    return hashlib.sha256(data).hexdigest()


def programs(old: OldBundle, ordered: list[OldPhase], report: Report,
             wrap: bool) -> tuple[dict[str, str], dict[str, bytes]]:
    """{old program file: new program file} for the programs that change (re-rooted or wrapped), and the new
    files {name: bytes}. Python 3 syntax is checked on every program."""
    renamed, files, seen = {}, {}, set()
    for key, phase in ordered:
        name = phase.get("scoring_program")
        data = old.read(name)
        if data is None or name in seen:
            continue
        seen.add(name)
        where = "scoring program %s" % name
        try:
            entries = program_check.entries(data, name)
        except program_check.ProgramError as exc:
            report.add(MANUAL, where, str(exc), UNSCORED)
            continue
        for file, line, message, text in program_check.syntax_errors(entries):
            report.add(MANUAL, where, "%s:%s: SyntaxError under Python 3: %s%s. Codabench's image runs Python 3.7"
                       ": port the program to Python 3 (e.g. print(...); 2to3 does most of it)"
                       % (file, line, message, " (%s)" % text if text else ""), UNSCORED)
        entries, folder = program_check.reroot(entries)
        changed = bool(folder)
        if folder:
            report.add(CHANGE, where, "its files are in the folder %s/: CodaLab moved them up, Codabench does not,"
                       " so they are put at the zip root" % folder)
        _, meta = program_check.metadata(entries)
        command = (meta or {}).get("command")
        if isinstance(command, list):  # a missing metadata file is validate's finding on the new bundle
            report.add(MANUAL, where, "its metadata has a list of commands: Codabench runs one command string",
                       UNSCORED)
        if wrap and isinstance(command, str):
            entries = program_check.wrap_scores(entries)
            changed = True
            report.add(CHANGE, where, "--wrap-scores: the unchanged program now runs through %s, which writes "
                       "scores.json from its scores.txt with CodaLab's rules and removes an output/metadata it "
                       "wrote" % program_check.WRAPPER_NAME)
        if changed:
            new_name = name if name.lower().endswith(".zip") else name + ".zip"
            renamed[name] = new_name
            files[new_name] = program_check.zipped(entries)
    return renamed, files


def _data_signature(old, phase):
    """What makes two phases' tasks the same: the bytes of their programs and data (or the dataset key)."""
    signature = []
    for field in DATA_FIELDS:
        value = phase.get(field)
        data = old.read(value)
        signature.append(_digest(data) if data is not None else value)
    return tuple(signature)


def _task_name(labels, report):
    """'<labels> task', within Codabench's 256 characters (Task.name): a task shared by many phases is named after
    its first and last."""
    name = "%s task" % " + ".join(labels)
    if len(name) > validate.MAX_TASK_NAME:
        short = "%s ... %s task (%d phases)" % (labels[0][:100], labels[-1][:100], len(labels))
        report.add(CHANGE, "tasks", "the task of phases %s would be named with %d characters, more than Codabench's "
                   "%d: named %r" % (", ".join(labels), len(name), validate.MAX_TASK_NAME, short))
        name = short
    return name


def tasks_of_phases(old: OldBundle, ordered: list[OldPhase], report: Report,
                    renamed: dict[str, str]) -> tuple[list[dict], dict]:
    """v2 tasks, one per distinct (program, reference data, ingestion program, input data); returns
    (tasks, {phase key: task index}). ``renamed`` is ``programs``'s {old program file: new program file}."""
    groups, of_phase = [], {}
    for key, phase in ordered:
        if phase.get("scoring_program") is None:
            report.add(MANUAL, "phases.%s" % key, "phase %s (%s) has no scoring program (on CodaLab its submissions "
                       "failed): Codabench needs one in every task, so the phase is written with none; add a task "
                       "in the competition editor, or leave the phase out" % (phase.get("phasenumber"),
                                                                              phase.get("label")), UNSCORED)
            continue
        signature = _data_signature(old, phase)
        for index, (sig, _, _) in enumerate(groups):
            if sig == signature:
                break
        else:
            index = len(groups)
            groups.append((signature, phase, []))
        groups[index][2].append(phase.get("label") or str(key))
        of_phase[key] = index
    tasks = []
    for index, (_, phase, labels) in enumerate(groups):
        task = {"index": index, "name": _task_name(labels, report),
                "description": "Scoring program and gold data of %s %s." % (
                    "phase" if len(labels) == 1 else "phases", ", ".join(labels))}
        for field in DATA_FIELDS:
            value = phase.get(field)
            if value is None:
                if field == "reference_data":
                    report.add(MANUAL, "task %s" % task["name"], "no %s: Codabench cannot score without it" % field,
                               UNSCORED)
                continue
            if old.read(value) is None:
                what = ("a dataset key of the old CodaLab site: upload the file to Codabench and use its key, or "
                        "put the zip in the bundle" if not str(value).endswith(".zip") else "not in the bundle")
                report.add(MANUAL, "task %s.%s" % (task["name"], field), "%r is %s" % (value, what), REFUSED)
            task[field] = renamed.get(value, value)
        if phase.get("ingestion_program_only_during_scoring"):
            task["ingestion_only_during_scoring"] = True
        tasks.append(task)
    shared = [t["name"] for t in tasks if " + " in t["name"]]
    report.add(CHANGE, "tasks", "%d task(s) from %d phase(s)%s" % (
        len(tasks), len(ordered), ": phases with the same program and data bytes share one (%s)" % "; ".join(shared)
        if shared else ""))
    return tasks, of_phase
