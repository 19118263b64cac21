"""How each platform reads a scoring program's output: CodaLab v1.5's site parses output/scores.txt
(codalab/codalab-competitions@c7ef5e281af2, codalab/apps/web/tasks.py L584-611), Codabench's compute worker reads
output/scores.json, else scores.txt as YAML (codalab/codabench@c7dbc756b07b, compute_worker/compute_worker.py
L1307-1342)."""
from __future__ import annotations

import json
import math

import yaml
from typing import Iterable


class ParsedScores(object):
    """Scores as a platform would store them.

    ok: False when the platform marks the submission failed while reading the scores.
    error: why (as close to the platform's own wording as is useful).
    scores: {key: float} for keys that match a leaderboard column.
    ignored: keys that match no column (silently dropped by the platform).
    missing: leaderboard columns that got no score (shown as '-' and ranked last).
    warnings: things that are accepted but probably not what the organizer wants.
    signature: the {"program", "version", "gold_sha256"} object this project's programs put in scores.json (the
        platform ignores it: it is no column key), or None.
    """

    def __init__(self):
        self.ok = True
        self.error = None
        self.scores = {}
        self.ignored = []
        self.missing = []
        self.warnings = []
        self.signature = None

    def fail(self, message):
        self.ok = False
        self.error = message
        return self

    def as_dict(self):
        return {"ok": self.ok, "error": self.error, "scores": self.scores, "ignored_keys": self.ignored,
                "columns_without_score": self.missing, "warnings": self.warnings, "signature": self.signature}


def _finish(parsed, columns):
    parsed.missing = [key for key in columns if key not in parsed.scores]
    return parsed


def parse_codalab(text: str, columns: list[str], computed: Iterable[str] = ()) -> ParsedScores:
    """CodaLab v1.5: the site reads scores.txt line by line with ``label, value = line.split(":")``.

    ``text`` is None when output/scores.txt does not exist. ``columns`` are the leaderboard's column keys.
    """
    parsed = ParsedScores()
    if text is None:
        return _finish(parsed.fail("Scores.txt not found: the submission is marked Failed and the participant "
                                   "sees no explanation"), columns)
    for number, line in enumerate(text.split("\n"), 1):
        if len(line) == 0:
            continue
        parts = line.split(":")
        if len(parts) != 2:
            return _finish(parsed.fail("scores.txt line %d %r: the site splits on ':' and needs exactly one "
                                       "(ValueError, submission Failed)" % (number, line)), columns)
        key = parts[0].strip()
        if key not in columns:
            if key.startswith("\ufeff"):
                parsed.warnings.append("scores.txt starts with a byte-order mark: key %r matches no column"
                                       % key)
            parsed.ignored.append(key)
            continue
        try:
            value = float(parts[1])
        except ValueError:
            return _finish(parsed.fail("scores.txt line %d: %r is not a number (ValueError, submission Failed)"
                                       % (number, parts[1].strip())), columns)
        if key in parsed.scores:
            return _finish(parsed.fail("scores.txt line %d: key %s written twice (IntegrityError, submission "
                                       "Failed)" % (number, key)), columns)
        if key in computed and value != 0:
            return _finish(parsed.fail("scores.txt line %d: %s is a computed column (IntegrityError 'Score is "
                                       "computed', submission Failed)" % (number, key)), columns)
        if math.isinf(value) or (not math.isnan(value) and abs(value) >= 1e10):
            return _finish(parsed.fail("scores.txt line %d: %s = %r does not fit the database's decimal field "
                                       "(|x| < 1e10)" % (number, key, value)), columns)
        if math.isnan(value):
            parsed.warnings.append("%s is NaN: CodaLab ranks it as 0" % key)
        parsed.scores[key] = value
    return _finish(parsed, columns)


def parse_codabench(json_text: str | None, txt_text: str | None, columns: list[str]) -> ParsedScores:
    """Codabench: the worker reads output/scores.json if present, else output/scores.txt as YAML (yaml.Loader),
    and posts what it read; the site stores one score per leaderboard column key, in order.

    ``ok`` False means the worker fails the submission (no scores file, scores.json not JSON). What the worker
    posts but the site cannot store does not fail the submission (the worker ignores the site's answer): it is
    reported in ``warnings``, with the scores stored before it in ``scores``.
    """
    parsed = ParsedScores()
    if json_text is not None:
        try:
            data = json.loads(json_text)
        except ValueError as exc:
            return _finish(parsed.fail("Could not decode scores json properly, it contains an error. (%s)" % exc),
                           columns)
        source = "scores.json"
    elif txt_text is not None:
        try:
            data = yaml.load(txt_text, Loader=yaml.Loader)
        except yaml.YAMLError as exc:
            return _finish(parsed.fail("scores.txt is not valid YAML: %s" % str(exc).splitlines()[0]), columns)
        source = "scores.txt"
    else:
        return _finish(parsed.fail("Could not find scores file, did the scoring program output it?"), columns)
    if not isinstance(data, dict):
        # e.g. 'correct:1' without a space is one YAML string: the site fails on it and stores nothing.
        parsed.warnings.append("%s parses as a %s, not a mapping of key to score (%r): the submission shows "
                               "Finished but the site stores no score, so every column shows n/a; write "
                               "'key: value' with a space after the colon" % (source, type(data).__name__,
                                                                              _short(data)))
        return _finish(parsed, columns)
    for key, value in data.items():
        key = str(key)
        if key == "signature" and isinstance(value, dict) and source == "scores.json" and key not in columns:
            parsed.signature = value
            continue
        if key not in columns:
            parsed.ignored.append(key)
            continue
        number = _decimal_or_none(value)
        if number is None:
            parsed.warnings.append("%s: %s = %r cannot be stored as a score: the site stops there, so this and "
                                   "the later columns show n/a although the submission shows Finished"
                                   % (source, key, _short(value)))
            break
        if isinstance(value, str):
            parsed.warnings.append("%s: %s is the string %r, not a YAML number" % (source, key, value))
        parsed.scores[key] = number
    return _finish(parsed, columns)


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _decimal_or_none(value):
    """The float a DecimalField(max_digits=20, decimal_places=10) would store, or None if it cannot."""
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if math.isnan(number) or math.isinf(number) or abs(number) >= 1e10:
        return None
    return number
