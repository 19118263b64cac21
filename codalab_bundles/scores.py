"""How each platform reads a scoring program's output (codalab-platforms.md sections 3.1 and 4.5)."""
import json
import math

import yaml


class ParsedScores(object):
    """Scores as a platform would store them.

    ok: False when the platform marks the submission failed while reading the scores.
    error: why (as close to the platform's own wording as is useful).
    scores: {key: float} for keys that match a leaderboard column.
    ignored: keys that match no column (silently dropped by the platform).
    missing: leaderboard columns that got no score (shown as '-' and ranked last).
    warnings: things that are accepted but probably not what the organizer wants.
    """

    def __init__(self):
        self.ok = True
        self.error = None
        self.scores = {}
        self.ignored = []
        self.missing = []
        self.warnings = []

    def fail(self, message):
        self.ok = False
        self.error = message
        return self

    def as_dict(self):
        return {"ok": self.ok, "error": self.error, "scores": self.scores, "ignored_keys": self.ignored,
                "columns_without_score": self.missing, "warnings": self.warnings}


def _finish(parsed, columns):
    parsed.missing = [key for key in columns if key not in parsed.scores]
    return parsed


def parse_codalab(text, columns, computed=()):
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


def parse_codabench(json_text, txt_text, columns):
    """Codabench: output/scores.json if present, else output/scores.txt read as YAML (yaml.Loader)."""
    parsed = ParsedScores()
    if json_text is not None:
        try:
            data = json.loads(json_text)
        except ValueError as exc:
            return _finish(parsed.fail("scores.json is not valid JSON: %s" % exc), columns)
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
        # e.g. 'correct:1' without a space parses as one string: every score shows n/a.
        return _finish(parsed.fail("%s does not parse as a mapping of key to score (got %s): every score would "
                                   "be n/a" % (source, type(data).__name__)), columns)
    for key, value in data.items():
        key = str(key)
        if key not in columns:
            parsed.ignored.append(key)
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            return _finish(parsed.fail("%s: %s = %r is not a number" % (source, key, value)), columns)
        if isinstance(value, str):
            parsed.warnings.append("%s: %s is the string %r, not a YAML number" % (source, key, value))
        parsed.scores[key] = number
    return _finish(parsed, columns)
