"""What an organizer's gold file looks like, so that ``new`` can name the kind it would pick and refuse a clear misfit.

    look = sniff(path)                       # Look(form, kind, detail, columns)
    problem = misfit("classification", look, {"label_column": "label"})   # None, or a sentence with the fix

``form`` is how the file is laid out: "table" (CSV, or TSV for a .tsv name, with a header line), "squad" (SQuAD
dataset JSON), "json" (another JSON value), "jsonl" (one JSON object per line), "conll" (token columns, a tag last,
blank lines between sentences), "qrels" (TREC ``qid 0 docid grade``), "run" (TREC ``qid Q0 docid rank score tag``),
"spans_lines" (``<id><TAB>[offsets]``), "empty" or "text" (none of these). ``kind`` is the generic kind that reads
such a gold, when the file says so (None when several could). For a table, ``columns`` tells per column what its
cells hold (ColumnLook: "numbers", "labels", "label_sets", "offsets", "texts" or "empty").

Only the file is read, never scored: the guess is a hint for the organizer, and ``misfit`` refuses only what a kind
certainly cannot mean (a tag sequence given as classes, a score per item given as hundreds of classes).
"""
import csv
import io
import json
import re
from collections import namedtuple
from pathlib import Path

Look = namedtuple("Look", "form kind detail columns")
ColumnLook = namedtuple("ColumnLook", "holds distinct integers")  # integers: every number whole (for "numbers")

# More distinct whole numbers than this in a label column: scores, not class names.
MAX_NUMERIC_CLASSES = 20
_SAMPLE_LINES = 200000  # a gold is judged on its first lines at most

_NUMBER = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
_TAG = re.compile(r"^(?:O|[BIESL]-.+|[BIESLU]_.+|-X-)$")
_OFFSETS = re.compile(r"^\[\s*(?:[0-9]+\s*(?:,\s*[0-9]+\s*)*,?\s*)?\]$")
_INTEGER = re.compile(r"^[+-]?[0-9]+$")
_SEPARATORS = ("|",)

# The forms each kind reads (the interface of issue 39); a form no kind of the list reads is a misfit.
READS = {
    "classification": ("table",),
    "multilabel": ("table",),
    "regression": ("table",),
    "spans": ("table", "spans_lines"),
    "ranking": ("table", "json", "qrels"),
    "text": ("table", "json", "squad"),
    "sequence": ("conll", "jsonl"),
}
_FORM_WORDS = {
    "squad": "a SQuAD dataset (JSON with data/paragraphs/qas)",
    "json": "JSON",
    "jsonl": "JSON lines",
    "conll": "CoNLL columns (a token and a tag per line, blank lines between sentences)",
    "qrels": "TREC qrels (qid 0 docid grade)",
    "run": "a TREC run (qid Q0 docid rank score tag): that is a submission, not a gold",
    "spans_lines": "<id><TAB>[offsets] lines",
    "empty": "an empty file",
    "text": "text in no layout the generic kinds read",
}


def is_number(text):
    """A decimal number as written in data files (no nan, no inf, no thousands separators)."""
    return _NUMBER.match(text.strip()) is not None


def look_at_cells(cells):
    """ColumnLook of a column's cells (stripped, empty ones ignored)."""
    values = [c.strip() for c in cells if c.strip()]
    distinct = set(values)
    if not values:
        return ColumnLook("empty", 0, False)
    if all(is_number(v) for v in distinct):
        return ColumnLook("numbers", len(distinct), all(float(v).is_integer() for v in distinct))
    if all(_OFFSETS.match(v) for v in distinct):
        return ColumnLook("offsets", len(distinct), False)
    if sum(any(s in v for s in _SEPARATORS) for v in values) * 10 >= len(values) and \
            all(len(part.split()) <= 3 for v in distinct for part in v.split("|")):
        return ColumnLook("label_sets", len(distinct), False)
    words = sum(len(v.split()) for v in values) / float(len(values))
    if words > 3 or len(distinct) > max(50, len(values) // 2):
        return ColumnLook("texts", len(distinct), False)
    return ColumnLook("labels", len(distinct), False)


def sniff(path):
    """The Look of the gold file at ``path`` (its first 64 MiB)."""
    with open(str(path), "rb") as handle:
        return sniff_data(Path(path).name, handle.read(64 << 20))


def sniff_data(name, data):
    """The Look of a gold file called ``name`` holding ``data`` (bytes or text)."""
    path = Path(name)
    text = data.decode("utf-8-sig", "replace") if isinstance(data, bytes) else data
    lines = text.splitlines()[:_SAMPLE_LINES]
    filled = [line for line in lines if line.strip()]
    if not filled:
        return Look("empty", None, _FORM_WORDS["empty"], {})
    stripped = text.strip()
    if stripped[:1] in "{[" and not path.name.lower().endswith((".csv", ".tsv")):
        look = _sniff_json(stripped, filled)
        if look:
            return look
    fields = [line.split() for line in filled]
    if all(len(f) == 4 and _INTEGER.match(f[3]) and _INTEGER.match(f[1]) for f in fields):
        return Look("qrels", "ranking", _FORM_WORDS["qrels"], {})
    if all(len(f) == 6 and _INTEGER.match(f[3]) and is_number(f[4]) for f in fields):
        return Look("run", None, _FORM_WORDS["run"], {})
    if all("\t" in line and _OFFSETS.match(line.split("\t", 1)[1].strip()) for line in filled):
        return Look("spans_lines", "spans", _FORM_WORDS["spans_lines"], {})
    conll = _sniff_conll(lines)
    if conll:
        return conll
    return _sniff_table(path, text)


def _sniff_json(stripped, filled):
    try:
        value = json.loads(stripped)
    except ValueError:
        try:
            rows = [json.loads(line) for line in filled]
        except ValueError:
            return None
        if all(isinstance(r, dict) for r in rows):
            if all("tokens" in r and ("tags" in r or "ner_tags" in r) for r in rows):
                return Look("jsonl", "sequence", "JSON lines of tokens and tags", {})
            return Look("jsonl", None, _FORM_WORDS["jsonl"], {})
        return None
    if isinstance(value, dict) and isinstance(value.get("data"), list) and value["data"] and \
            all(isinstance(d, dict) and "paragraphs" in d for d in value["data"]):
        return Look("squad", "text", _FORM_WORDS["squad"], {})
    if isinstance(value, dict) and value and all(isinstance(v, str) for v in value.values()):
        return Look("json", None, "a JSON object {id: text}: reference texts (text) or the correct option of each "
                                  "query (ranking)", {})
    return Look("json", None, _FORM_WORDS["json"], {})


def _sniff_conll(lines):
    """CoNLL columns: most non-blank lines have 2 or more whitespace-separated fields, the last a tag, and blank lines
    part sentences (a file of one sentence has none)."""
    rows = [line.split() for line in lines if line.strip() and not line.startswith("-DOCSTART-")]
    if len(rows) < 2 or any(len(r) < 2 for r in rows):
        return None
    widths = set(len(r) for r in rows)
    tagged = sum(bool(_TAG.match(r[-1])) for r in rows)
    if len(widths) == 1 and tagged * 10 >= len(rows) * 9 and any(r[-1] != "O" for r in rows):
        return Look("conll", "sequence", _FORM_WORDS["conll"], {})
    return None


def _sniff_table(path, text):
    tabs = path.name.lower().endswith(".tsv") or ("\t" in text.split("\n", 1)[0] and "," not in
                                                  text.split("\n", 1)[0])
    options = {"delimiter": "\t", "quoting": csv.QUOTE_NONE} if tabs else {}
    try:
        rows = [row for row in csv.reader(io.StringIO(text), **options) if any(c.strip() for c in row)]
    except csv.Error:
        return Look("text", None, _FORM_WORDS["text"], {})
    if len(rows) < 2 or len(rows[0]) < 2:
        return Look("text", None, _FORM_WORDS["text"], {})
    header, body = [c.strip() for c in rows[0]], rows[1:_SAMPLE_LINES]
    columns = dict((name, look_at_cells([r[i] for r in body if i < len(r)])) for i, name in enumerate(header))
    detail = "a %s table with columns %s" % ("TSV" if tabs else "CSV", ", ".join(
        "%s (%s)" % (name, columns[name].holds) for name in header))
    return Look("table", _table_kind(columns), detail, columns)


# The answer column each kind reads by default, most specific first.
_ANSWER_COLUMNS = (("labels", "multilabel"), ("spans", "spans"), ("label", "classification"),
                   ("score", "regression"), ("answer", None), ("tags", "sequence"))


def _table_kind(columns):
    lowered = dict((name.lower(), look) for name, look in columns.items())
    for name, kind in _ANSWER_COLUMNS:
        look = lowered.get(name)
        if look is None:
            continue
        if look.holds == "numbers" and _is_score(look):
            return "regression"
        if look.holds == "offsets":
            return "spans"
        if look.holds == "label_sets":
            return "multilabel"
        return kind
    return None


def _is_score(look):
    return look.holds == "numbers" and (not look.integers or look.distinct > MAX_NUMERIC_CLASSES)


def kind_named(look):
    """A sentence for ``new``: what the gold looks like and the kind it would pick."""
    if look.kind:
        return "the gold looks like %s: --kind %s" % (look.detail, look.kind)
    return "the gold looks like %s" % look.detail


def misfit(kind, look, config=None):
    """Why ``kind`` cannot mean a gold that looks like ``look`` (a sentence with the fix), or None. ``config``:
    the task's scoring.json fields so far (the answer column's name)."""
    config = config or {}
    if look.form == "run":
        return "the gold looks like %s" % _FORM_WORDS["run"]
    reads = READS.get(kind)
    if reads is not None and look.form not in reads and look.form not in ("text", "empty"):
        fix = " (use --kind %s)" % look.kind if look.kind else ""
        return "the gold looks like %s, which --kind %s does not read%s" % (look.detail, kind, fix)
    if look.form != "table" or kind not in ("classification", "multilabel"):
        return None
    column = config.get("label_column" if kind == "classification" else "labels_column",
                        "label" if kind == "classification" else "labels")
    found = [name for name in look.columns if name == column] or \
        [name for name in look.columns if name.lower() == column.lower()]
    if not found:
        return None  # the scorer names the missing column
    column_look = look.columns[found[0]]
    if _is_score(column_look):
        why = ("numbers, not all whole" if not column_look.integers else
               "%d distinct whole numbers" % column_look.distinct)
        return ("the gold's %s column holds %s: a score per item, not classes; use --kind regression (if the "
                "numbers name classes, write them as names, e.g. c17)" % (found[0], why))
    return None
