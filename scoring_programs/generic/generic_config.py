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
}
# Keys a kind writes only when `keys` names them, because they need an option (never in the default keys).
OPTION_KEYS = {
    "classification": ("subset_macro_f1", "subset_micro_f1", "subset_macro_precision", "subset_macro_recall"),
}
# Per-class keys: <measure>_<label's key name> (label_key_name), when `keys` names them.
PER_CLASS_KEY = {"classification": re.compile(r"^(f1|precision|recall)_([a-z0-9_]+)$")}

_COMMON = {"kind": None, "reference": None, "submission": None, "keys": None, "title": None}
# Fields of each kind and their defaults (None: no default).
FIELDS = {
    "classification": dict(_COMMON, reference="gold.csv", submission="predictions.csv",
                           id_column="id", label_column="label", unknown_labels="warn", labels=None,
                           subset_labels=None),
    "multilabel": dict(_COMMON, reference="gold.csv", submission="predictions.csv",
                       id_column="id", labels_column="labels", separator="|", zero_division=0, labels=None),
    "spans": dict(_COMMON, reference="spans-gold.txt", submission="spans-pred.txt",
                  id_column=None, spans_column="spans"),
    "ranking": dict(_COMMON, reference="gold.json", submission="predictions.json",
                    id_column="id", answer_column="answer", ranking_column="ranking", separator="|"),
}
_STRING_FIELDS = ("reference", "submission", "title", "id_column", "label_column", "labels_column", "separator",
                  "spans_column", "answer_column", "ranking_column")
# A plain file name, or "*" and a suffix ("*.csv": the one file of the folder ending so).
_FILE_RE = re.compile(r"^(\*?\.?[A-Za-z0-9_][A-Za-z0-9_.-]*)$")
# File formats by name: spans read "<id><TAB>[offsets]" lines unless the name ends in .csv.
_FORMATS = {"classification": (".csv", ".tsv"), "multilabel": (".csv", ".tsv"), "ranking": (".json", ".csv")}


def file_format(name):
    """"csv", "json" or "lines" (anything else: the spans' <id><TAB>[offsets] lines), from a file name."""
    lower = name.lower()
    return "csv" if lower.endswith(".csv") else "json" if lower.endswith(".json") else "lines"


def file_suffixes(kind):
    """The endings a reference or submission file of ``kind`` may have (() when any: spans' lines)."""
    return _FORMATS.get(kind, ())


def label_key_name(label):
    """How a label names its per-class keys (f1_<name>): lower case, every run of characters other than a-z and
    0-9 as one "_", none at either end ("Very Negative" -> very_negative, "FAVOR" -> favor); "" for none left."""
    return "_".join(part for part in re.split(r"[^a-z0-9]+", label.lower()) if part)


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
    problems.extend(_check_labels(config, kind))
    if kind == "classification" and config.get("unknown_labels", "warn") not in ("warn", "refuse"):
        problems.append("unknown_labels must be \"warn\" or \"refuse\", found %s"
                        % json.dumps(config.get("unknown_labels")))
    zero = config.get("zero_division", 0)
    if kind == "multilabel" and (isinstance(zero, bool) or zero not in (0, 1)):
        problems.append("zero_division must be 0 or 1, found %s" % json.dumps(zero))
    problems.extend(_check_keys(config.get("keys"), kind))
    if not problems and kind == "classification":
        problems.extend(_check_class_keys(config))
    return problems


def _label_list(config, name):
    """Problems of the label list ``name`` (absent is fine): a non-empty list of distinct non-empty strings."""
    if name not in config:
        return []
    value = config[name]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        return ["%s must be a non-empty list of labels (non-empty strings), found %s"
                % (json.dumps(name), json.dumps(value)[:80])]
    stripped = [v.strip() for v in value]
    if len(set(stripped)) != len(stripped):
        return ["%s lists a label twice" % json.dumps(name)]
    return []


def _check_labels(config, kind):
    if kind not in ("classification", "multilabel"):
        return []
    problems = _label_list(config, "labels")
    if kind == "classification":
        problems.extend(_label_list(config, "subset_labels"))
        if not problems and config.get("labels") and config.get("subset_labels"):
            declared = set(v.strip() for v in config["labels"])
            outside = [v for v in config["subset_labels"] if v.strip() not in declared]
            if outside:
                problems.append("subset_labels must be among labels; not declared: %s"
                                % ", ".join(json.dumps(v) for v in outside))
    return problems


def _check_class_keys(config):
    """Classification keys that need an option: subset_* keys need subset_labels; a per-class key must name a
    declared label (labels, else subset_labels; without either it is checked against the gold at scoring)."""
    problems = []
    keys = config.get("keys") or []
    if any(k in OPTION_KEYS["classification"] for k in keys) and not config.get("subset_labels"):
        problems.append("keys %s need \"subset_labels\": the labels to average over"
                        % ", ".join(k for k in keys if k in OPTION_KEYS["classification"]))
    per_class = [k for k in keys if k not in AVAILABLE_KEYS["classification"] + OPTION_KEYS["classification"]
                 and PER_CLASS_KEY["classification"].match(k)]
    declared = config.get("labels") or config.get("subset_labels")
    if declared and per_class:
        names = {}
        for label in declared:
            names.setdefault(label_key_name(label.strip()), []).append(label)
        for name, labels in sorted(names.items()):
            if len(labels) > 1:
                problems.append("labels %s share the per-class key name %s: a per-class key would not say which "
                                "(key names: lower case, runs of other characters as _)"
                                % (", ".join(json.dumps(v) for v in labels), json.dumps(name)))
        for key in per_class:
            if PER_CLASS_KEY["classification"].match(key).group(2) not in names:
                problems.append("score key %s names no declared label (per-class keys: %s)"
                                % (json.dumps(key), ", ".join(sorted("f1_" + n for n in names if n))))
    return problems


def _is_available(key, kind):
    if key in AVAILABLE_KEYS[kind] or key in OPTION_KEYS.get(kind, ()):
        return True
    pattern = PER_CLASS_KEY.get(kind)
    return bool(pattern and pattern.match(key))


def _check_keys(keys, kind):
    if keys is None:
        return []
    available = AVAILABLE_KEYS[kind] + OPTION_KEYS.get(kind, ())
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        return ["'keys' must be a non-empty list of score keys among %s" % ", ".join(available)]
    extra = " and per-class f1_<label>, precision_<label>, recall_<label>" if kind in PER_CLASS_KEY else ""
    problems = ["score key %s is not available for kind %s (available: %s%s)"
                % (json.dumps(k), kind, ", ".join(available), extra) for k in keys if not _is_available(k, kind)]
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
    if config.get("labels") and "unknown_labels" not in config and "unknown_labels" in full:
        full["unknown_labels"] = "refuse"  # a declared label set: a prediction outside it is refused by default
    return full
