"""The runs a results table is made of, and how they are found in a folder of runs.

A run is one submission: its id, the team it counts for, its place in the team's order of submission (for a
"last submission" rule), the zip to score and, when it came from a site, what the site stored for it.

A folder of runs (``results RUNS_DIR``) holds one entry per team: a folder of its runs (zips, or one folder per
unzipped run), or a zip when the team has one run. Runs are taken in natural order of their names (run2 before
run10, submission 576683 before 577194), which stands for the order of submission.

Fact-sheet answers (the systems table) are JSON objects {"key": answer}: ``<team>/fact_sheet.json`` for all of a
team's runs, ``<run>.fact_sheet.json`` beside a run (its zip or its folder; ``<team>.fact_sheet.json`` beside a
team's only zip) for that run, taking precedence over the team's. A run with neither came with no fact sheet.
"""
from __future__ import annotations

import json
import os
import re
from typing import Dict, List, Optional

from ..zips import pack


class RunsError(Exception):
    pass


class Run(object):
    """One submission. ``stored``: the site's scores ({key: float}), None when not from a site; ``chosen``: whether
    the site shows it on the leaderboard (None when unknown); ``scores``/``status``/``error`` are filled by
    rescoring."""

    def __init__(self, run_id: str, team: str, order: int, path: str, submitter: Optional[str] = None,
                 stored: Optional[Dict[str, float]] = None, chosen: Optional[bool] = None,
                 site_status: Optional[str] = None):
        self.id, self.team, self.order, self.path = run_id, team, order, path
        self.submitter, self.stored, self.chosen, self.site_status = submitter, stored, chosen, site_status
        self.scores: Dict[str, float] = {}
        self.answers: Optional[dict] = None  # its fact-sheet answers ({key: answer}), None when it came with none
        self.status, self.error = "Not scored", ""
        self.tracks: Optional[List[str]] = None  # a phase of several tasks: the ones it was made to (None: all)

    def __repr__(self):
        return "Run(%r, team=%r)" % (self.id, self.team)


def natural_key(name: str):
    """Digits compared as numbers: run2 < run10."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part.lower()) for part in re.split(r"(\d+)", name)]


def _entries(folder):
    return sorted((name for name in os.listdir(folder) if not name.startswith(".") and name != "__MACOSX"),
                  key=natural_key)


FACT_SHEET = "fact_sheet.json"


def _answers(path: str) -> Optional[dict]:
    """The answers in the JSON file at ``path``, None when there is no such file; RunsError when it is not a JSON
    object."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            found = json.load(handle)
    except (OSError, ValueError) as exc:
        raise RunsError("%s: not a JSON file of fact-sheet answers: %s" % (path, exc))
    if not isinstance(found, dict):
        raise RunsError("%s: fact-sheet answers are a JSON object {\"key\": answer, ...}" % path)
    return found or None


def from_folder(runs_dir: str, workdir: str) -> List[Run]:
    """The runs of ``runs_dir`` (see the module's docstring); unzipped runs are zipped into ``workdir``."""
    if not os.path.isdir(runs_dir):
        raise RunsError("%s: no such folder (give a folder with one entry per team)" % runs_dir)
    found: List[Run] = []

    def add(team, name, path, team_answers=None):
        run_id = "%s/%s" % (team, name)
        answers = _answers(os.path.join(os.path.dirname(path), "%s.%s" % (name, FACT_SHEET)))
        if os.path.isdir(path):
            target = os.path.join(workdir, "run-%d.zip" % len(found))
            with open(target, "wb") as handle:
                handle.write(pack.zip_directory(path))
            path = target
        found.append(Run(run_id, team, sum(1 for r in found if r.team == team), path))
        found[-1].answers = answers if answers is not None else team_answers

    for name in _entries(runs_dir):
        path = os.path.join(runs_dir, name)
        if os.path.isfile(path) and name.lower().endswith(".zip"):
            add(name[:-4], name[:-4], path)
        elif os.path.isdir(path):
            inside = [n for n in _entries(path) if os.path.isdir(os.path.join(path, n))
                      or n.lower().endswith(".zip")]
            if not inside:
                raise RunsError("%s: a team's folder holds its runs (zips, or a folder per run); this one has none"
                                % path)
            team_answers = _answers(os.path.join(path, FACT_SHEET))
            for run in inside:
                add(name, run[:-4] if run.lower().endswith(".zip") else run, os.path.join(path, run), team_answers)
    if not found:
        raise RunsError("%s holds no runs (a folder per team, holding its runs as zips or folders)" % runs_dir)
    return found
