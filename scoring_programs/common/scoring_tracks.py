"""Tracks: one scoring program, scored once per track of a phase, each run showing only its track's columns.

A task with tracks (task.yaml ``tracks:``) becomes, in its Codabench bundle, one Codabench task per track and
split, each with its own copy of the scoring program holding ``track.json`` beside ``evaluate.py``:
``{"name": "st1", "keys": ["st1_score", ...], "prefix": ""}``. Codabench runs a submission once per task it is
sent to (a child submission each) and puts every child's scores on the one leaderboard row of the submission. So
each run keeps the scores of its track's ``keys`` (in the program's order), written as ``prefix`` + key: the
column keys of that track on the leaderboard. A run whose program has no track.json (every CodaLab bundle, the
starting kit's copy, a task without tracks) writes every score, as before.

track.json lives in the program, not in the gold: the gold's readers and its SHA-256 (the signature) never see it,
and tracks that share a split's gold share its reference zip.

Python 3.6+ and the standard library only, as the rest of the runtime.
"""
import io
import json
import os
import re

from scoring_base import SCORE_KEY_RE
from scoring_run import PROGRAM_ERROR

TRACK_FILE = "track.json"
HERE = os.path.dirname(os.path.abspath(__file__))  # a built program's folder: evaluate.py and the runtime
_NAME_RE = re.compile(r"^[a-z0-9_]{1,36}$")


def read_track(folder=HERE):
    """The track of the program in ``folder``: {"name", "keys", "prefix"}, or None when it has no track.json.
    ValueError, saying what is wrong, for a track.json the builder would not have written."""
    path = os.path.join(folder, TRACK_FILE)
    if not os.path.isfile(path):
        return None
    try:
        with io.open(path, encoding="utf-8") as handle:
            track = json.load(handle)
    except (OSError, ValueError) as exc:
        raise ValueError("%s cannot be read as JSON: %s" % (TRACK_FILE, exc))
    if not isinstance(track, dict):
        raise ValueError("%s is not a JSON object" % TRACK_FILE)
    name, keys, prefix = track.get("name"), track.get("keys"), track.get("prefix", "")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError("%s: name must be 1-36 characters of a-z, 0-9 and _" % TRACK_FILE)
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) and SCORE_KEY_RE.match(k) for k in keys):
        raise ValueError("%s: keys must be a non-empty list of score keys" % TRACK_FILE)
    if not isinstance(prefix, str) or (prefix and not re.match(r"^[A-Za-z0-9_]+$", prefix)):
        raise ValueError("%s: prefix must be letters, digits and _" % TRACK_FILE)
    return {"name": name, "keys": list(keys), "prefix": prefix}


def keep_track(result, message, folder=HERE):
    """(result, message) of a run as its track shows it: ``result`` with only the track's scores, renamed with its
    prefix; unchanged without a track (or when the run already failed). A run that gives none of the track's scores
    fails with one line (the program's notes say why: a sub-task the submission left out)."""
    if result is None or message is not None:
        return result, message
    try:
        track = read_track(folder)
    except ValueError as exc:
        return None, PROGRAM_ERROR % exc
    if track is None:
        return result, None
    wanted = set(track["keys"])
    kept = [(track["prefix"] + key, value) for key, value in result.scores if key in wanted]
    if not kept:
        why = "; ".join(note.strip() for note in result.notes if note.strip())
        return None, ("Submission error: this submission gives no score of track %s (%s)%s"
                      % (track["name"], ", ".join(track["keys"]), ": %s" % why if why else ""))
    result.scores = kept
    return result, None
