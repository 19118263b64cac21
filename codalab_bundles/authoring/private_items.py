"""task.yaml's public and private items (``private:``), a phase's ``private_scores`` and ``blind``, and ``reveal``:
the rules across fields, the private items' ids, and the marks each phase's reference zip gets.

The scoring runtime reads the marks (scoring_programs/common/scoring_private.py): ``private_ids.txt`` makes a run
write the ranking score over the public items only; with ``private_scoring.txt`` beside it, also
``private_<key>`` over the private items; ``scores_withheld.txt`` makes it write no figure at all (a blind phase).
The private figure is computed only in phases marked ``private_scores``, which start after the deadline: what
Codabench stores is readable by anyone through its API, hidden column or not (README, "Public and private test
scores").

A split's private items are given as ``{ids: FILE}`` (one id per line, relative to the competition folder) or
``{column: NAME, value: VALUE}`` for a CSV or TSV gold: the rows whose NAME is VALUE are private, their ids are the
``id_column``'s (default ``id``; a table without it numbers its rows from 0, as toxic-spans's program numbers its
posts), and the column is taken out of the gold the program and the derive hooks see, so participants' files never
say which items are private.
"""
from __future__ import annotations

import atexit
import csv
import io
import shutil
import tempfile
from pathlib import Path

PRIVATE_IDS = "private_ids.txt"  # scoring_base.PRIVATE_IDS
PRIVATE_SCORING = "private_scoring.txt"  # scoring_base.PRIVATE_SCORING
SCORES_WITHHELD = "scores_withheld.txt"  # scoring_base.SCORES_WITHHELD
PRIVATE_PREFIX = "private_"
MARK_TEXT = {
    PRIVATE_SCORING: b"This phase writes the private figure (private_<key>) into scores.txt and scores.json.\n",
    SCORES_WITHHELD: b"This phase withholds every score: submissions are read and checked, no figure is written.\n",
}

# The reference zips a split may need: (suffix of its name, marks beside the gold). "" is the split's own.
MODES = {"": (), "private": (PRIVATE_SCORING,), "withheld": (SCORES_WITHHELD,)}


def phase_mode(phase):
    """Which reference zip of its split a phase uses: "withheld", "private" or ""."""
    return "withheld" if phase.blind else "private" if phase.private_scores else ""


def check_declaration(spec, where, check):
    """The rules across task.yaml's fields that the schema cannot say; ``check(condition, message)`` raises."""
    phases = spec["phases"]
    private = spec.get("private") or {}
    splits = [p["split"] for p in phases]
    unknown = sorted(set(private) - set(splits))
    check(not unknown, "%s: private names splits no phase uses: %s" % (where, ", ".join(unknown)))
    both = sorted(s for s in private if (spec.get("gold_public") or {}).get(s))
    check(not both, "%s: split %s is gold_public and has private items: participants may see its gold, so no item of "
                    "it is private" % (where, ", ".join(both)))
    columns = [c["key"] for c in spec["leaderboard"]["columns"]]
    marked = private or any(p.get("private_scores") or p.get("blind") for p in phases)
    check(not (marked and spec.get("tracks")), "%s: private items, private_scores and blind phases cannot be used "
                                               "with tracks yet (each track's program would need its own private "
                                               "figure)" % where)
    for number, phase in enumerate(phases, 1):
        pwhere = "%s: phase %d" % (where, number)
        if phase.get("private_scores"):
            check(phase["split"] in private, "%s: private_scores, but split %s has no private items (task.yaml's "
                                             "private:)" % (pwhere, phase["split"]))
            check(not phase.get("blind"), "%s: blind and private_scores: a blind phase writes no figure" % pwhere)
            earlier = [p for p in phases[:number - 1] if p["split"] == phase["split"] and not p.get("private_scores")]
            check(earlier, "%s: writes the private figures of split %s, and no earlier phase scores its public items "
                           "alone: the private figures would be readable from the first submission on (phases with "
                           "private_scores come after the deadline)" % (pwhere, phase["split"]))
            wanted = PRIVATE_PREFIX + columns[0]
            check(wanted in columns, "%s: private_scores, and the leaderboard has no column %s (the private figure of "
                                     "the ranking score %s): add it" % (pwhere, wanted, columns[0]))
        if phase.get("blind"):
            rule = spec["leaderboard"].get("submission_rule", "Add")
            check(rule != "Force_Best", "%s: blind, and the leaderboard's submission_rule is Force_Best: a blind phase "
                                        "stores no score to choose the best by (use Force_Last or Add)" % pwhere)
    stray = [k for k in columns if k.startswith(PRIVATE_PREFIX)]
    check(not stray or private, "%s: column %s: private_ columns are written only for splits with private items "
                                "(task.yaml's private:)" % (where, ", ".join(stray)))
    too_long = [k for k in columns[:1] if private and len(PRIVATE_PREFIX + k) > 36]
    check(not too_long, "%s: the private figure's key %s would be longer than Codabench's 36 characters: shorten "
                        "the ranking column's key" % (where, PRIVATE_PREFIX + (too_long or [""])[0]))


def _read_ids(path, where):
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise _error("%s: the private ids %s cannot be read: %s" % (where, path, exc))
    ids = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    if len(set(ids)) != len(ids):
        repeated = sorted(set(i for i in ids if ids.count(i) > 1))[0]
        raise _error("%s: %s lists id %s twice" % (where, path, repeated))
    return ids


class PrivateItemsError(ValueError):
    """A private: declaration that cannot be read (taskdef turns it into its TaskDefinitionError)."""


def _error(message):
    return PrivateItemsError(message)


def _tables(folder):
    return sorted(p for p in Path(folder).rglob("*") if p.is_file() and p.suffix.lower() in (".csv", ".tsv"))


def _read_table(path):
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() == ".tsv":  # the project's TSV: a record per line, cells at tabs, no quoting
        return [line.split("\t") for line in text.splitlines() if line.strip()]
    return [row for row in csv.reader(io.StringIO(text, newline="")) if row]


def _write_table(path, rows):
    if path.suffix.lower() == ".tsv":
        path.write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
        return
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")


def _from_column(task, split, spec, where):
    """The private ids of a split marked by a gold column, and the gold copied without that column."""
    column, value = spec["column"], str(spec["value"])
    gold = task.split_dirs[split]
    found = [p for p in _tables(gold) if column in (_read_table(p) or [[]])[0]]
    if len(found) != 1:
        raise _error("%s: private: %s: %s gold tables of %s have a column %r (one must)"
                     % (where, split, "no" if not found else "%d" % len(found), gold, column))
    rows = _read_table(found[0])
    header, body = rows[0], rows[1:]
    at = header.index(column)
    id_column = spec.get("id_column")
    if id_column is not None and id_column not in header:
        raise _error("%s: private: %s: %s has no id column %r" % (where, split, found[0], id_column))
    id_at = header.index(id_column or "id") if (id_column or "id") in header else None
    ids = [row[id_at] if id_at is not None else "%d" % n for n, row in enumerate(body)
           if len(row) > at and row[at] == value]
    copy = Path(tempfile.mkdtemp(prefix="gold-%s-%s-" % (task.name, split)))
    atexit.register(shutil.rmtree, str(copy), True)
    shutil.copytree(str(gold), str(copy / "gold"))
    _write_table(copy / "gold" / found[0].relative_to(gold), [row[:at] + row[at + 1:] for row in rows])
    task.split_dirs[split] = copy / "gold"
    return ids


_TASK_NAMES = {"": "%s split", "private": "%s split, private scores", "withheld": "%s split, scores withheld"}
_TASK_TEXTS = {"": "Scores submissions against the %s gold data.",
               "private": "Scores submissions against the %s gold data, with the private figures.",
               "withheld": "Checks submissions against the %s gold data and withholds their scores."}


def codabench_tasks(task, make):
    """The Codabench tasks of a task without tracks, each with its ``mode``: one per split (with the mark of the
    split's first phase), then one per other mark a split's phases use; ``make`` is tracks.CodabenchTask. Without
    marks, one task per split as tracks.codabench_tasks makes them."""
    modes = reference_modes(task)
    pairs = [(split, modes[split][0]) for split in task.splits]
    pairs += [(split, mode) for split in task.splits for mode in modes[split][1:]]
    found = []
    for index, (split, mode) in enumerate(pairs):
        one = make(index, _TASK_NAMES[mode] % split, _TASK_TEXTS[mode] % split, split, None, "scoring_program.zip",
                   reference_name(split, mode), task.split_dirs[split])
        one.mode = mode
        found.append(one)
    return found


def load(task, where):
    """Fill ``task.private_ids`` ({split: [ids]}) from task.yaml's ``private:``; a split marked by a column gets a
    copy of its gold without the column. Every Codabench task gets its ``mode`` ("": no mark); taskdef then makes
    a task without tracks one per mark its phases use (codabench_tasks)."""
    for split, spec in (task.spec.get("private") or {}).items():
        if "ids" in spec:
            path = Path(spec["ids"])
            path = path if path.is_absolute() else task.root / path
            ids = _read_ids(path, where)
        else:
            ids = _from_column(task, split, spec, where)
        if not ids:
            raise _error("%s: private: %s: no item is private" % (where, split))
        task.private_ids[split] = ids
    for one in task.codabench_tasks:
        one.mode = ""


def reference_marks(task, split, mode):
    """[(name, bytes)] the reference zip of ``split`` gets beside the gold for phases of ``mode``."""
    marks = []
    if split in task.private_ids:
        marks.append((PRIVATE_IDS, "".join("%s\n" % i for i in task.private_ids[split]).encode("utf-8")))
    marks.extend((name, MARK_TEXT[name]) for name in MODES[mode])
    return marks


def reference_modes(task):
    """{split: [modes its phases use]}, in phase order, "" first when used."""
    modes = {}
    for phase in task.phases:
        used = modes.setdefault(phase.split, [])
        if phase_mode(phase) not in used:
            used.append(phase_mode(phase))
    return modes


# The zip's name says its mark, never with the word "private": Codabench (c7dbc756, utils/data.py make_url_sassy)
# cuts a stored file's path at the name of its private bucket, "private" in its default settings, so a file named
# reference_test_private.zip gets the storage URL ".../private/.zip" and every run of its task fails ("Problem
# fetching ... to put in input/ref"; checked on the local Codabench).
NAME_SUFFIX = {"": "", "private": "_full", "withheld": "_withheld"}


def reference_name(split, mode):
    return "reference_%s%s.zip" % (split, NAME_SUFFIX[mode])
