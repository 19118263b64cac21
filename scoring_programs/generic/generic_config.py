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
    "text": ("exact_match", "f1", "bleu", "chrf", "rouge1", "rouge2", "rouge_l"),
    "regression": ("pearson", "spearman", "kendall_tau", "mae", "rmse", "r2", "qwk"),
    "sequence": ("f1", "precision", "recall", "accuracy"),
}
# Keys a kind writes only when `keys` names them, because they need an option (never in the default keys).
OPTION_KEYS = {
    "classification": ("subset_macro_f1", "subset_micro_f1", "subset_macro_precision", "subset_macro_recall"),
}
# Per-class keys: <measure>_<label's key name> (label_key_name), when `keys` names them.
PER_CLASS_KEY = {"classification": re.compile(r"^(f1|precision|recall)_([a-z0-9_]+)$")}
# Keys where a lower value is better (the leaderboard sorts them ascending).
LOWER_IS_BETTER = ("mae", "rmse")
# Keys a kind writes only when `keys` lists them: fixed names, and names with a cutoff k >= 1 (no leading zero).
EXTRA_KEYS = {"ranking": ("map", "ndcg"), "classification": OPTION_KEYS["classification"]}
# sequence: per chunk type (types are data), the type lower-cased with other characters as "_".
KEY_PATTERNS = {
    "ranking": re.compile(r"(p|recall|mrr|ndcg|hits)_at_[1-9][0-9]*\Z"),
    "sequence": re.compile(r"(f1|precision|recall)_[a-z0-9_]+\Z"),
    "classification": PER_CLASS_KEY["classification"],
}
KEY_PATTERN_TEXT = {
    "ranking": "p_at_<k>, recall_at_<k>, mrr_at_<k>, ndcg_at_<k>, hits_at_<k> (k >= 1)",
    "sequence": "f1_<type>, precision_<type>, recall_<type>",
    "classification": "f1_<label>, precision_<label>, recall_<label>",
}
SEQUENCE_SCHEMES = ("conlleval", "iob2", "iobes")
# sequence: -DOCSTART- lines skipped, or counted as right tokens in accuracy (conlleval.pl); a submission's tokens
# must be the gold's, or are ignored (tags paired by position, as conlleval.pl and wnuteval.py).
SEQUENCE_CHOICES = {"docstart": ("skip", "token"), "tokens": ("check", "ignore")}

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
                    id_column="id", answer_column="answer", ranking_column="ranking", separator="|",
                    relevance_threshold=1, missing_queries=None),
    "text": dict(_COMMON, reference="gold.json", submission="predictions.json", id_column="id",
                 reference_column="answer", prediction_column="prediction", normalize=None),
    "regression": dict(_COMMON, reference="gold.csv", submission="predictions.csv",
                       id_column="id", value_column="score", label_range=None),
    "sequence": dict(_COMMON, reference="gold.conll", submission="predictions.conll", id_column="id",
                     scheme="conlleval", docstart="skip", tokens="check"),
}
_STRING_FIELDS = ("reference", "submission", "title", "id_column", "label_column", "labels_column", "separator",
                  "spans_column", "answer_column", "ranking_column",
                  "reference_column", "prediction_column",
                  "value_column",
                  )
# A plain file name, or "*" and a suffix ("*.csv": the one file of the folder ending so).
_FILE_RE = re.compile(r"^(\*?\.?[A-Za-z0-9_][A-Za-z0-9_.-]*)$")
# File formats by name: spans read "<id><TAB>[offsets]" lines unless the name ends in .csv.
_FORMATS = {
    "classification": (".csv", ".tsv"),
    "multilabel": (".csv", ".tsv"),
    "ranking": (".json", ".csv", ".tsv", ".txt", ".qrels", ".run", ".trec"),
    "text": (".json", ".csv", ".tsv"),
    "regression": (".csv", ".tsv"),
}
# text: the steps of SQuAD's answer normalization, each on by default ("articles" may also list other words).
_NORMALIZE_STEPS = ("lowercase", "punctuation", "articles", "whitespace")
# missing_queries of kind ranking; without it: "refuse" for a multiple-choice gold, "zero" for qrels.
MISSING_QUERIES = ("refuse", "zero", "skip")


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
    if kind == "sequence" and config.get("scheme", "conlleval") not in SEQUENCE_SCHEMES:
        problems.append("scheme must be one of %s (IOB1 tags: conlleval), found %s"
                        % (", ".join(SEQUENCE_SCHEMES), json.dumps(config.get("scheme"))))
    for name, choices in sorted(SEQUENCE_CHOICES.items()) if kind == "sequence" else ():
        if config.get(name, choices[0]) not in choices:
            problems.append("%s must be %s, found %s" % (name, " or ".join(json.dumps(c) for c in choices),
                                                         json.dumps(config[name])))
    zero = config.get("zero_division", 0)
    if kind == "multilabel" and (isinstance(zero, bool) or zero not in (0, 1)):
        problems.append("zero_division must be 0 or 1, found %s" % json.dumps(zero))
    if kind == "text" and config.get("normalize") is not None:
        problems.extend(_check_normalize(config["normalize"]))
    if kind == "regression":
        problems.extend(_check_label_range(config))
    if kind == "ranking":
        problems.extend(_check_ranking(config))
    problems.extend(_check_keys(config.get("keys"), kind))
    if not problems and kind == "classification":
        problems.extend(_check_class_keys(config))
    return problems


def _check_normalize(normalize):
    if not isinstance(normalize, dict):
        return ["normalize must be an object {%s}, each true or false (articles: also a list of words; punctuation: "
                "also \"unicode\")"
                % ", ".join('"%s": true' % step for step in _NORMALIZE_STEPS)]
    problems = ["normalize has no step %s (steps: %s)" % (json.dumps(name), ", ".join(_NORMALIZE_STEPS))
                for name in sorted(normalize) if name not in _NORMALIZE_STEPS]
    for name in _NORMALIZE_STEPS:
        value = normalize.get(name, True)
        words = name == "articles" and isinstance(value, list)
        if name == "punctuation" and value == "unicode":
            continue
        if words and not (value and all(isinstance(w, str) and w.strip() and w == w.strip() for w in value)):
            problems.append("normalize.articles must be true, false or a non-empty list of words (strings without "
                            "spaces around), found %s" % json.dumps(value))
        elif not words and not isinstance(value, bool):
            problems.append("normalize.%s must be true or false%s, found %s"
                            % (name, ' or "unicode"' if name == "punctuation" else "", json.dumps(value)))
    return problems


# qwk counts labels from a confusion matrix of (max - min + 1)^2 cells at most: a bound keeps it small.
MAX_LABELS = 1000


def _check_label_range(config):
    """regression: ``label_range`` [min, max] of integers (min < max), required by the key qwk."""
    if "label_range" not in config or config["label_range"] is None:
        if "qwk" in (config.get("keys") or ()):
            return ["the key qwk needs \"label_range\": [min, max], the integer labels of the ordinal scale"]
        return []
    value = config["label_range"]
    if not (isinstance(value, list) and len(value) == 2 and
            all(isinstance(v, int) and not isinstance(v, bool) for v in value) and value[0] < value[1]):
        return ["label_range must be [min, max], two integers with min < max, found %s" % json.dumps(value)]
    if value[1] - value[0] + 1 > MAX_LABELS:
        return ["label_range must span at most %d labels, found %s" % (MAX_LABELS, json.dumps(value))]
    return []


def _check_ranking(config):
    problems = []
    threshold = config.get("relevance_threshold", 1)
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
        problems.append("relevance_threshold must be an integer >= 1 (a grade at least this counts as relevant), "
                        "found %s" % json.dumps(threshold))
    if "missing_queries" in config and config["missing_queries"] not in MISSING_QUERIES:
        problems.append("missing_queries must be one of %s, found %s"
                        % (", ".join(json.dumps(m) for m in MISSING_QUERIES), json.dumps(config["missing_queries"])))
    return problems


def key_available(kind, key):
    """Whether kind ``kind`` can write score key ``key`` (listed, or of one of its parametric forms)."""
    return (key in AVAILABLE_KEYS[kind] or key in EXTRA_KEYS.get(kind, ()) or
            kind in KEY_PATTERNS and KEY_PATTERNS[kind].match(key) is not None)


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


def _check_keys(keys, kind):
    if keys is None:
        return []
    available = ", ".join(AVAILABLE_KEYS[kind] + EXTRA_KEYS.get(kind, ()) +
                          ((KEY_PATTERN_TEXT[kind],) if kind in KEY_PATTERN_TEXT else ()))
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        return ["'keys' must be a non-empty list of score keys among %s" % available]
    problems = ["score key %s is not available for kind %s (available: %s)"
                % (json.dumps(k), kind, available) for k in keys if not key_available(kind, k)]
    if len(set(keys)) != len(keys):
        problems.append("'keys' lists a key twice")
    return problems


def declared_keys(config):
    """The score keys a valid config makes the program write, in order. Regression without ``keys``: qwk (first)
    only when ``label_range`` is declared."""
    if config.get("keys"):
        return list(config["keys"])
    if config["kind"] == "regression":
        keys = [key for key in AVAILABLE_KEYS["regression"] if key != "qwk"]
        return (["qwk"] + keys) if config.get("label_range") is not None else keys
    return list(AVAILABLE_KEYS[config["kind"]])


def with_defaults(config):
    """A valid config with every field of its kind present (defaults filled in)."""
    full = dict(FIELDS[config["kind"]])
    full.update(config)
    full["keys"] = declared_keys(config)
    if config.get("labels") and "unknown_labels" not in config and "unknown_labels" in full:
        full["unknown_labels"] = "refuse"  # a declared label set: a prediction outside it is refused by default
    return full
