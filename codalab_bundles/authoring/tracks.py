"""Tracks and the leaderboard's columns: what task.yaml's ``tracks:``, ``leaderboard.columns`` (computed ones
included) and ``leaderboard.primary`` become on Codabench.

A task without tracks has one Codabench task per split and one column per entry of ``leaderboard.columns``, as it
always had. A task with tracks has one Codabench task per track and split (the track's name is the task's name), each
scoring with its own copy of the program (``scoring_program_<track>.zip``, whose track.json tells the shared runtime
which scores to keep and the prefix to add: scoring_programs/common/scoring_tracks.py), against the split's gold or
the track's own (``reference_<track>_<split>.zip``); a phase lists its tracks' tasks. The leaderboard then has one
column per track and figure (key prefix + key, title "<track label> <column label>"), then the computed columns.

Codabench's limits are checked here, each refusal saying what to change: column keys and titles are at most 36
characters and unique; a title too long is shortened readably (its column label cut, ending in "…"). ``avg_rank`` is
not a computation the pinned Codabench knows (c7dbc756: avg, sum, min, max): such a column is left out of the
Codabench bundle (``results`` and ``rescore`` compute it) and cannot be the one that ranks.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

from .private_items import phase_mode

LIMIT = 36  # Codabench's Column.title and Column.key hold 36 characters
ELLIPSIS = "\u2026"
SITE_COMPUTATIONS = ("avg", "sum", "min", "max")  # Column.COMPUTATION_CHOICES at c7dbc756
LOCAL_COMPUTATIONS = ("avg_rank",)  # computed by results and rescore only
# With several tasks in a phase, these rules put only some of a submission's runs on the leaderboard (Codabench
# c7dbc756, leaderboards/strategies.py: each run's scores call the rule with the run itself): Force_Last keeps the
# run that finished last (codabench#1022), Force_Best the run that sorts first, one without the ranking column.
RULES_THAT_SPLIT_RUNS = ("Force_Last", "Force_Best")


class TrackError(ValueError):
    """task.yaml asks for tracks or columns Codabench cannot show; the message says what to change."""


class Track(object):
    """One track: ``name`` (its Codabench tasks' name), ``label``, ``keys`` (the program's score keys it shows),
    ``prefix`` (added to each key on the leaderboard), ``split_dirs`` ({split: gold folder} of its own; the task's
    gold for the other splits)."""

    def __init__(self, name, label, keys, prefix="", split_dirs=None):
        self.name, self.label, self.keys, self.prefix = name, label, list(keys), prefix
        self.split_dirs = dict(split_dirs or {})

    def board_key(self, key):
        return self.prefix + key

    def track_json(self) -> bytes:
        """track.json of its scoring program (read by scoring_tracks.read_track)."""
        return (json.dumps({"name": self.name, "keys": self.keys, "prefix": self.prefix}) + "\n").encode("utf-8")


class BoardColumn(object):
    """A column of the Codabench leaderboard: ``key`` (as the site stores it), ``title``, ``sort``, ``precision``;
    ``track`` and ``source`` (the program's key) for a track's column; ``computation`` and ``of`` (board keys) for
    a computed one. ``index`` is its place on the site (None for a column the site cannot have: avg_rank)."""

    def __init__(self, key, title, sort, precision, track=None, source=None, computation=None, of=(), hidden=None):
        self.key, self.title, self.sort, self.precision = key, title, sort, precision
        self.track, self.source, self.computation, self.of = track, source, computation, list(of)
        self.hidden = hidden  # task.yaml's hidden (None: not set), for each track's column of the figure
        self.index: Optional[int] = None

    @property
    def on_site(self) -> bool:
        return self.computation not in LOCAL_COMPUTATIONS

    def computation_indexes(self, board) -> List[int]:
        by_key = dict((c.key, c) for c in board)
        return [by_key[k].index for k in self.of]


class CodabenchTask(object):
    """One task of the Codabench bundle: what it scores (``split``, ``track`` or None) with which files."""

    def __init__(self, index, name, description, split, track, scoring_program, reference_data, reference_dir):
        self.index, self.name, self.description = index, name, description
        self.split, self.track = split, track
        self.scoring_program, self.reference_data, self.reference_dir = scoring_program, reference_data, reference_dir


def shorten(track_label: str, label: str, limit: int = LIMIT) -> str:
    """'<track label> <column label>' in at most ``limit`` characters: the column label cut and ended with '…'
    when the whole is too long (the track label, at most 30 characters, is kept whole)."""
    title = "%s %s" % (track_label, label)
    if len(title) <= limit:
        return title
    room = limit - len(track_label) - 2  # the space and the ellipsis
    return "%s %s%s" % (track_label, label[:room].rstrip(), ELLIPSIS)


def read_tracks(spec: dict, columns, root: Path) -> List[Track]:
    """The tracks of task.yaml (spec already checked by the schema); ``columns``: taskdef.Column of the leaderboard.
    A track's gold folders are relative to the competition folder ``root``."""
    figures = [c.key for c in columns if not c.computation]
    tracks, seen = [], set()
    for entry in spec.get("tracks") or []:
        name = entry["name"]
        if name in seen:
            raise TrackError("track %s appears twice: each track's name is its Codabench tasks' name, so it is "
                             "unique" % name)
        seen.add(name)
        keys = entry.get("keys") or figures
        unknown = [k for k in keys if k not in figures]
        if unknown:
            raise TrackError("track %s: keys %s are not columns of the leaderboard the program writes (its columns: "
                             "%s): list each figure once in leaderboard.columns, and name the program's keys here"
                             % (name, ", ".join(unknown), ", ".join(figures)))
        dirs = {}
        for split, folder in (entry.get("splits") or {}).items():
            path = Path(folder)
            path = (path if path.is_absolute() else root / path).resolve()
            if not path.is_dir():
                raise TrackError("track %s: the gold data of split %r is not a folder: %s" % (name, split, path))
            dirs[split] = path
        # keep the leaderboard's order of the figures, whatever the order of keys:
        tracks.append(Track(name, entry["label"], [k for k in figures if k in keys], entry.get("prefix", ""), dirs))
    return tracks


def board(columns, tracks: List[Track]) -> List[BoardColumn]:
    """The Codabench leaderboard's columns, in order, each with its index on the site (avg_rank columns, which the
    site cannot compute, last and without one). Raises TrackError for keys or titles Codabench cannot hold."""
    found = []
    if tracks:
        for track in tracks:
            for column in columns:
                if not column.computation and column.key in track.keys:
                    found.append(BoardColumn(track.board_key(column.key), shorten(track.label, column.label),
                                             column.sort, column.numeric_format, track, column.key,
                                             hidden=column.hidden))
    else:
        found = [BoardColumn(c.key, c.label, c.sort, c.numeric_format, source=c.key, hidden=c.hidden)
                 for c in columns if not c.computation]
    figures = set(c.key for c in found)
    for column in columns:
        if column.computation:
            found.append(BoardColumn(column.key, column.label, column.sort, column.numeric_format,
                                     computation=column.computation, of=column.of, hidden=column.hidden))
    if not tracks:  # the order of task.yaml, computed columns where they are listed
        order = dict((c.key, n) for n, c in enumerate(columns))
        found.sort(key=lambda c: order[c.key])
    _check_keys(found, tracks)
    _check_titles(found, tracks)
    for column in found:
        if column.computation:
            missing = [k for k in column.of if k not in figures]
            if missing:
                raise TrackError("column %s is computed of %s, which %s not %s column%s the program scores (its "
                                 "columns: %s)" % (column.key, ", ".join(missing), "is" if len(missing) == 1
                                                   else "are", "a" if len(missing) == 1 else "", "" if len(missing)
                                                   == 1 else "s", ", ".join(sorted(figures))))
    site = [c for c in found if c.on_site] + [c for c in found if not c.on_site]
    for index, column in enumerate(c for c in site if c.on_site):
        column.index = index
    return site


def _check_keys(found, tracks):
    seen = {}
    for column in found:
        if len(column.key) > LIMIT:
            raise TrackError("track %s: column key %s (prefix %r + %s) is %d characters, over Codabench's %d: "
                             "shorten the prefix" % (column.track.name, column.key, column.track.prefix,
                                                     column.source, len(column.key), LIMIT))
        if column.key in seen:
            where = [("track %s" % c.track.name) if c.track else "a computed column" for c in (seen[column.key],
                                                                                                column)]
            raise TrackError("%s and %s both put column %s on the leaderboard, and Codabench keys a column by its key: "
                             "%s" % (where[0], where[1], column.key, "give the tracks different prefixes"
                                     if all(c.track for c in (seen[column.key], column)) else
                                     "give the computed column another key"))
        seen[column.key] = column


def _check_titles(found, tracks):
    seen = {}
    for column in found:
        if column.title in seen:
            raise TrackError("columns %s and %s would both be titled %r on the leaderboard (titles are cut to "
                             "Codabench's %d characters): give %s" % (
                                 seen[column.title].key, column.key, column.title, LIMIT,
                                 "their tracks shorter labels or their columns shorter, distinct labels"
                                 if column.track else "them distinct labels"))
        seen[column.title] = column


def primary(spec_leaderboard: dict, found: List[BoardColumn]) -> BoardColumn:
    """The column that ranks: leaderboard.primary, else the first column."""
    key = spec_leaderboard.get("primary")
    if key is None:
        return found[0]
    by_key = dict((c.key, c) for c in found)
    if key not in by_key:
        raise TrackError("leaderboard.primary %s is not a column of the leaderboard (its columns: %s)"
                         % (key, ", ".join(by_key)))
    if not by_key[key].on_site:
        raise TrackError("leaderboard.primary %s is an avg_rank column, which Codabench (c7dbc756) cannot compute: "
                         "rank the site by another column, and make the paper's table by it with results --by %s"
                         % (key, key))
    return by_key[key]


def phase_tracks(spec_phase: dict, tracks: List[Track], number: int) -> List[Track]:
    """The tracks a phase scores: its ``tracks:``, default all."""
    names = spec_phase.get("tracks")
    if names is None:
        return list(tracks)
    if not tracks:
        raise TrackError("phase %d names tracks, and the task has no tracks: list them under tracks:" % number)
    by_name = dict((t.name, t) for t in tracks)
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise TrackError("phase %d: no track named %s (tracks: %s)" % (number, ", ".join(unknown),
                                                                        ", ".join(by_name)))
    return [t for t in tracks if t.name in names]


def codabench_tasks(task) -> List[CodabenchTask]:
    """The Codabench bundle's tasks, in order: per split (phase order), one per track its phases score, or one for
    the split when the task has no tracks."""
    found = []
    for split in task.splits:
        if not task.tracks:
            found.append(CodabenchTask(len(found), "%s split" % split,
                                       "Scores submissions against the %s gold data." % split, split, None,
                                       "scoring_program.zip", "reference_%s.zip" % split, task.split_dirs[split]))
            continue
        used = [t.name for phase in task.phases if phase.split == split for t in phase.tracks]
        for track in [t for t in task.tracks if t.name in used]:
            own = track.split_dirs.get(split)
            found.append(CodabenchTask(
                len(found), track.name, "%s: scores submissions against the %s gold data%s." % (
                    track.label, split, " of this track" if own else ""), split, track,
                "scoring_program_%s.zip" % track.name,
                "reference_%s_%s.zip" % (track.name, split) if own else "reference_%s.zip" % split,
                own or task.split_dirs[split]))
    return found


def phase_task_indexes(task, phase) -> List[int]:
    return [t.index for t in task.codabench_tasks if t.split == phase.split
            and (t.track is None or t.track in phase.tracks) and getattr(t, "mode", "") == phase_mode(phase)]


def check_rule(task) -> None:
    """A submission rule that would show only some of a submission's tracks (RULES_THAT_SPLIT_RUNS) is refused."""
    if task.tracks and task.submission_rule in RULES_THAT_SPLIT_RUNS:
        raise TrackError(
            "leaderboard.submission_rule %s cannot be used with tracks: Codabench (c7dbc756) applies it to each "
            "track's run on its own, so %s (checked on a local Codabench); use Add (the participant puts the "
            "submission on the leaderboard: every track's run goes), Add_And_Delete, Add_And_Delete_Multiple or "
            "Force_Latest_Multiple" % (task.submission_rule, "only the run that finished last stays on the leaderboard "
                                       "(codabench#1022)" if task.submission_rule == "Force_Last" else
                                       "the run it keeps is one without the ranking column, often the worse "
                                       "submission's"))


def several_tracks(task) -> List:
    """The phases that score more than one track: the site lists each track's run as a row of its own there."""
    return [phase for phase in task.phases if len(phase.tracks) > 1]


def one_run_writes_every_track(task) -> bool:
    """Whether one run of the program, without a track, writes every track's columns: tracks without prefixes and
    without gold of their own (as food-hazard's ST1 and ST2). Only then can a CodaLab v1.5 bundle (one program per
    phase) hold the tracks."""
    return all(not t.prefix and not t.split_dirs for t in task.tracks)


def v15_columns(task) -> List[BoardColumn]:
    """The columns of the CodaLab v1.5 bundle: the site's figures (no computed column: v1.5's `computed` Avg is an
    average rank, another figure), the ranking column first."""
    shown = [c for c in task.board if not c.computation]
    ranked = task.primary if not task.primary.computation else shown[0]
    return [ranked] + [c for c in shown if c is not ranked]


def notes(task) -> List[str]:
    """What the build says of the task's tracks and computed columns: what the bundles cannot hold."""
    found = []
    local = [c.key for c in task.board if not c.on_site]
    if local:
        found.append("column%s %s (avg_rank) %s left out of the Codabench bundle: Codabench (c7dbc756) computes "
                     "only avg, sum, min and max; results and rescore compute %s" % (
                         "s" if len(local) > 1 else "", ", ".join(local), "are" if len(local) > 1 else "is",
                         "them" if len(local) > 1 else "it"))
    if task.tracks and not one_run_writes_every_track(task):
        found.append("no CodaLab v1.5 bundle: its phases run one program on one gold, and tracks %s have a prefix "
                     "or gold of their own (CodaLab Competitions stopped taking submissions at the end of 2025)"
                     % ", ".join(t.name for t in task.tracks if t.prefix or t.split_dirs))
    elif task.tracks:
        found.append("the CodaLab v1.5 bundle scores every track in one run of the program (v1.5 has one program "
                     "per phase): participants cannot choose tracks there")
    if several_tracks(task):
        ordered = task.primary.sort == "asc" and not task.primary.computation  # a missing value last: see README
        found.append("on Codabench (c7dbc756) the leaderboard of phase%s %s lists each track's run of a submission "
                     "(under every track's columns, n/a where it has none)%s, and orders the rows by those runs, "
                     "%s: results and rescore rank by %s; see bundles/README.md, Tracks and computed columns" % (
                         "s" if len(several_tracks(task)) > 1 else "",
                         ", ".join(str(p.number) for p in several_tracks(task)),
                         ", shows no computed column there (the site stores them on the submission: results reads "
                         "them)" if any(c.computation and c.on_site for c in task.board) else "",
                         "by %s only where every row has a run of its track" % task.primary.key if ordered else
                         "not by %s" % task.primary.key, task.primary.key))
    computed = [c.key for c in task.board if c.computation and c.on_site]
    if computed and task.built_v15:
        found.append("the CodaLab v1.5 bundle leaves out the computed column%s %s (v1.5 computes average ranks, "
                     "not averages of values)%s" % ("s" if len(computed) > 1 else "", ", ".join(computed),
                                                   "; it ranks by %s" % v15_columns(task)[0].key
                                                   if task.primary.computation else ""))
    return found
