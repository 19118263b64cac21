"""Kind ``spans``: character offsets per post, scored as SemEval-2021 Task 5 (scoring_programs/toxic-spans).

Per post, with P the predicted and G the gold offsets (sets): F1 = 2|P&G| / (|P|+|G|), precision |P&G|/|P|,
recall |P&G|/|G|; when G or P is empty all three are 1 if both are empty and 0 otherwise. The scores are the means
over the gold posts. Files are ``<id><TAB>[offsets]`` lines, or CSV with a spans column (and an id column, or the
0-based row number as id, as in the released tsd_*.csv).
"""
import re

from report_html import paragraph, section, table
from scoring_runtime import ReferenceDataError, SubmissionError, iter_lines, mean, parse_integer, quote, read_text

from generic_config import file_format
from generic_result import make_result, scores_section
from generic_table import check_complete, collect, csv_records, describe, locate

_DIGITS_RE = re.compile(r"[0-9]+\Z")  # not \d, which takes other scripts' digits
_OFFSETS = {}  # item text -> offset: items repeat across posts, so a lookup replaces validation and int()
_HINT = " (write [] for a post without spans)"
GROUPS = (
    ("gold has spans, spans predicted", False, False),
    ("gold has spans, nothing predicted", False, True),
    ("gold has no span, nothing predicted", True, True),
    ("gold has no span, spans predicted", True, False),
)


def _offset(item):
    try:
        return _OFFSETS[item]
    except KeyError:
        digits = item.strip()
        if not _DIGITS_RE.match(digits):
            raise ValueError(_item_problem(digits))
        value = _OFFSETS[item] = parse_integer(digits, "offset")
        return value


def _item_problem(item):
    if not item:
        return "the list has an empty item (two commas in a row, or a comma first)"
    if item[0] in "+-" and _DIGITS_RE.match(item[1:].strip()):
        return "offset %s has a sign: offsets are whole numbers 0, 1, 2, ..." % quote(item)
    return "%s is not an offset (offsets are whole numbers 0, 1, 2, ...)" % quote(item)


def parse_offsets(text):
    """The distinct offsets of ``[4, 5, 6]`` (spaces anywhere, one trailing comma); ValueError saying why not."""
    text = text.strip()
    if not text:
        raise ValueError("the list of offsets is missing" + _HINT)
    if text[0] != "[" or text[-1] != "]":
        raise ValueError("the offsets must be a list in square brackets such as [] or [4, 5, 6], found %s"
                         % quote(text))
    items = text[1:-1].split(",")
    if len(items) == 1 and not items[0].strip():
        return frozenset()
    if len(items) > 1 and not items[-1].strip():
        items.pop()
    return frozenset(_offset(item) for item in items)


def line_records(path, label, error):
    """(line, id, [list text]) of each ``<id><TAB>[offsets]`` line; blank lines and trailing tabs are ignored."""
    for number, line in iter_lines(read_text(path, label, error)):
        if not line.strip():
            continue
        parts = line.split("\t")
        while len(parts) > 2 and not parts[-1].strip():
            parts.pop()
        if len(parts) != 2:
            raise error("%s, line %d: expected <id><TAB><list of offsets>, found %s"
                        % (label, number, "no tab" if len(parts) == 1 else "%d tabs" % (len(parts) - 1)))
        yield number, parts[0], [parts[1]]


def read_spans(directory, config, error, gold=None):
    """{id: offsets}; a submission (``gold`` given) must cover exactly the gold ids."""
    name = config["reference" if gold is None else "submission"]
    expected = "the zip must hold %s at its root, one line <id><TAB><list of offsets> per post" % name
    path = locate(directory, name, error, expected)
    label = describe(path, error)
    if file_format(name) == "csv":
        records = csv_records(path, label, config["id_column"], [config["spans_column"]], error)
    else:
        records = line_records(path, label, error)
    table = collect(records, label, error, gold)
    if gold is not None:
        check_complete(table, gold, label, _HINT)
    spans = {}
    for key, (line, cells) in table.items():
        try:
            spans[key] = parse_offsets(cells[0])
        except ValueError as exc:
            if error is ReferenceDataError:  # never quote the gold: participants see this message too
                raise error("%s, line %d: the spans are not a list of non-negative integers such as [4, 5, 6]"
                            % (label, line))
            raise error("%s, line %d: %s" % (label, line, exc))
    return spans


def post_scores(predicted, gold):
    """(F1, precision, recall) of one post, as toxic-spans' toxic_spans_metric.post_scores (bit for bit)."""
    if not gold or not predicted:
        value = 1.0 if not gold and not predicted else 0.0
        return value, value, value
    common = len(predicted & gold)
    return 2 * common / float(len(predicted) + len(gold)), common / float(len(predicted)), common / float(len(gold))


def score(ref_dir, res_dir, config):
    gold = read_spans(ref_dir, config, ReferenceDataError)
    predicted = read_spans(res_dir, config, SubmissionError, gold)
    groups = dict(((g, p), []) for _, g, p in GROUPS)
    per_post = []
    for key, gold_offsets in gold.items():
        scores = post_scores(predicted[key], gold_offsets)
        per_post.append(scores)
        groups[(not gold_offsets, not predicted[key])].append(scores)
    f1, precision, recall = _means(per_post)
    values = {"spans_f1": f1, "spans_precision": precision, "spans_recall": recall}

    def render(scores, gold_public):
        return _page(scores, groups, len(per_post), gold_public)
    return make_result(config, values, render, ["scored %d posts" % len(per_post)])


def _means(rows):
    return tuple(mean(column) for column in zip(*rows)) if rows else (0.0, 0.0, 0.0)


def _page(scores, groups, posts, gold_public):
    overview = scores_section(scores, [("posts scored", posts)])
    note = paragraph("Each score is the mean over all posts of a per-post value. A post without gold spans scores 1 "
                     "only if nothing is predicted for it; a post with gold spans scores 0 when nothing is predicted.",
                     "note")
    if not gold_public:  # the groups split the posts by a gold property (with or without spans)
        return [overview, note]
    rows = [(name,) + (len(groups[(g, p)]),) + _means(groups[(g, p)]) for name, g, p in GROUPS]
    return [overview, note, section("Posts by kind", table(
        ["posts", "count", "mean F1", "mean precision", "mean recall"], rows))]
