"""The ``scoring.json`` of a generic task: the kinds, their score keys, defaults and validation.

Standard library only and no side effects, so the builder can import it (plain Python 3.11) to check a task's
scoring.json and learn its score keys at build time; the scoring program imports it too (Python 3.6+).

    from generic_config import AVAILABLE_KEYS, check_config, declared_keys
    problems = check_config(json.load(open("scoring.json")))   # [] when the config is usable
"""
import json
import re

CONFIG_NAME = "scoring.json"
# Set to a scoring.json path to run scoring_programs/generic/evaluate.py from the repository (tests, organizers).
CONFIG_ENV = "GENERIC_SCORING_CONFIG"

# Score keys each kind can write, in the default order (the first ranks the leaderboard when `keys` is absent).
AVAILABLE_KEYS = {
    "classification": ("macro_f1", "accuracy", "micro_f1", "weighted_f1", "macro_precision", "macro_recall"),
    "multilabel": ("samples_f1", "jaccard", "micro_f1", "macro_f1", "exact_match"),
    "spans": ("spans_f1", "spans_precision", "spans_recall"),
    "ranking": ("accuracy", "mrr", "hits_at_3", "hits_at_5", "hits_at_10"),
    "sequence": ("f1", "precision", "recall", "accuracy"),
}
# Keys a kind also takes by pattern (chunk types are data): sequence's f1_<type>, precision_<type>, recall_<type>.
PATTERN_KEYS = {"sequence": (re.compile(r"^(f1|precision|recall)_[a-z0-9_]+$"), "f1_<type>, precision_<type>, "
                                                                              "recall_<type>")}
SEQUENCE_SCHEMES = ("conlleval", "iob2", "iobes")

_COMMON = {"kind": None, "reference": None, "submission": None, "keys": None, "title": None}
# Fields of each kind and their defaults (None: no default).
FIELDS = {
    "classification": dict(_COMMON, reference="gold.csv", submission="predictions.csv",
                           id_column="id", label_column="label", unknown_labels="warn"),
    "multilabel": dict(_COMMON, reference="gold.csv", submission="predictions.csv",
                       id_column="id", labels_column="labels", separator="|", zero_division=0),
    "spans": dict(_COMMON, reference="spans-gold.txt", submission="spans-pred.txt",
                  id_column=None, spans_column="spans"),
    "ranking": dict(_COMMON, reference="gold.json", submission="predictions.json",
                    id_column="id", answer_column="answer", ranking_column="ranking", separator="|"),
    "sequence": dict(_COMMON, reference="gold.conll", submission="predictions.conll", id_column="id",
                     scheme="conlleval"),
}
_STRING_FIELDS = ("reference", "submission", "title", "id_column", "label_column", "labels_column", "separator",
                  "spans_column", "answer_column", "ranking_column")
# A plain file name, or "*" and a suffix ("*.csv": the one file of the folder ending so).
_FILE_RE = re.compile(r"^(\*?\.?[A-Za-z0-9_][A-Za-z0-9_.-]*)$")
# File formats by name: spans read "<id><TAB>[offsets]" lines unless the name ends in .csv.
_FORMATS = {"classification": (".csv",), "multilabel": (".csv",), "ranking": (".json", ".csv")}


def file_format(name):
    """"csv", "json" or "lines" (anything else: the spans' <id><TAB>[offsets] lines), from a file name."""
    lower = name.lower()
    return "csv" if lower.endswith(".csv") else "json" if lower.endswith(".json") else "lines"


def check_config(config):
    """Problems that make ``config`` (the parsed scoring.json) unusable, as sentences; [] when it is fine."""
    if not isinstance(config, dict):
        return ["scoring.json must hold a JSON object, found %s" % type(config).__name__]
    kind = config.get("kind")
    if kind not in FIELDS:
        return ["'kind' must be one of %s, found %s" % (", ".join(sorted(FIELDS)), json.dumps(kind))]
    fields = FIELDS[kind]
    problems = ["unknown field %s for kind %s (fields: %s)" % (json.dumps(name), kind, ", ".join(sorted(fields)))
                for name in sorted(config) if name not in fields]
    for name in _STRING_FIELDS:
        value = config.get(name)
        if name in config and name in fields and not (isinstance(value, str) and (value.strip() or
                                                                                   name == "separator" and value)):
            problems.append("%s must be a non-empty string" % json.dumps(name))
    for name in ("reference", "submission"):
        value = config.get(name, fields[name])
        if not isinstance(value, str):
            continue
        if not _FILE_RE.match(value):
            problems.append("%s must be a file name without folders, of letters, digits and _ . - (or *.ext), found %s"
                            % (name, json.dumps(value)))
        elif kind in _FORMATS and not value.lower().endswith(_FORMATS[kind]):
            problems.append("%s of kind %s must end in %s, found %s"
                            % (name, kind, " or ".join(_FORMATS[kind]), json.dumps(value)))
    if kind == "classification" and config.get("unknown_labels", "warn") not in ("warn", "refuse"):
        problems.append("unknown_labels must be \"warn\" or \"refuse\", found %s"
                        % json.dumps(config.get("unknown_labels")))
    if kind == "sequence" and config.get("scheme", "conlleval") not in SEQUENCE_SCHEMES:
        problems.append("scheme must be one of %s (IOB1 tags: conlleval), found %s"
                        % (", ".join(SEQUENCE_SCHEMES), json.dumps(config.get("scheme"))))
    zero = config.get("zero_division", 0)
    if kind == "multilabel" and (isinstance(zero, bool) or zero not in (0, 1)):
        problems.append("zero_division must be 0 or 1, found %s" % json.dumps(zero))
    problems.extend(_check_keys(config.get("keys"), kind))
    return problems


def _check_keys(keys, kind):
    if keys is None:
        return []
    available = AVAILABLE_KEYS[kind]
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        return ["'keys' must be a non-empty list of score keys among %s" % ", ".join(available)]
    pattern, named = PATTERN_KEYS.get(kind, (None, None))
    problems = ["score key %s is not available for kind %s (available: %s)"
                % (json.dumps(k), kind, ", ".join(available + ((named,) if named else ())))
                for k in keys if k not in available and not (pattern and pattern.match(k))]
    if len(set(keys)) != len(keys):
        problems.append("'keys' lists a key twice")
    return problems


def declared_keys(config):
    """The score keys a valid config makes the program write, in order."""
    return list(config.get("keys") or AVAILABLE_KEYS[config["kind"]])


def with_defaults(config):
    """A valid config with every field of its kind present (defaults filled in)."""
    full = dict(FIELDS[config["kind"]])
    full.update(config)
    full["keys"] = declared_keys(config)
    return full
