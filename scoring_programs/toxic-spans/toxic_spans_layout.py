"""Reading the gold spans (either reference layout) and a participant's ``spans-pred.txt``.

Both return {post id: tuple of distinct offsets}. Every problem in a submission is a SubmissionError naming the
file, the line and what is wrong; messages never quote gold offsets.
"""
import os

from scoring_runtime import (SubmissionError, ReferenceDataError, find_reference_file, find_submission_file,
                             read_text, iter_lines, numbered_lines, read_csv)
from toxic_spans_format import parse_offsets, describe_list_problem, split_line

GOLD_TXT = "spans-gold.txt"
PRED_TXT = "spans-pred.txt"
_SHOWN_IDS = 5
# The longest line a prediction can hold: far more than any post's offsets need (repeats included), little memory.
MAX_PREDICTION_LINE = 16 << 20


# ---------------------------------------------------------------------------------------------------------------
# Gold


def find_gold_file(ref_dir):
    """``spans-gold.txt`` if present, otherwise the one CSV file of the reference folder."""
    try:
        return find_reference_file(ref_dir, names=GOLD_TXT)
    except ReferenceDataError:
        pass
    try:
        return find_reference_file(ref_dir, suffix=".csv")
    except ReferenceDataError as exc:
        raise ReferenceDataError("expected %s or one CSV file with columns spans,text (%s)" % (GOLD_TXT, exc))


def _gold_offsets(text, label, where):
    offsets = parse_offsets(text)
    if offsets is None:
        # Participants see this message too: say where, never quote the gold.
        raise ReferenceDataError("%s, %s: the spans are not a list of non-negative integers such as [4, 5, 6]"
                                 % (label, where))
    return offsets


def read_gold_lines(path, label=GOLD_TXT):
    gold = {}
    for number, line in iter_lines(read_text(path, label, ReferenceDataError)):
        if not line.strip():
            continue
        try:
            post_id, spans = split_line(line)
        except ValueError as exc:
            raise ReferenceDataError("%s, line %d: %s" % (label, number, exc))
        if post_id in gold:
            raise ReferenceDataError("%s, line %d: id %d appears twice" % (label, number, post_id))
        gold[post_id] = _gold_offsets(spans, label, "line %d" % number)
    return gold


def _spans_column(header):
    """Only the spans are read from a gold CSV (its texts are skipped)."""
    names = [name.strip().lower() for name in header]
    return [names.index("spans")] if "spans" in names else None


def read_gold_csv(path, label):
    """The released ``tsd_*.csv`` layout: columns spans,text; a post's id is its 0-based row number."""
    header, rows = read_csv(path, label, ReferenceDataError, columns=_spans_column)
    names = [name.strip().lower() for name in header]
    if "spans" not in names:
        raise ReferenceDataError("%s: no 'spans' column in the header (found %s)" % (label, ",".join(header)))
    column = names.index("spans")
    gold = {}
    for post_id, (number, record) in enumerate(rows):
        if column >= len(record):
            raise ReferenceDataError("%s, line %d: the row has no 'spans' cell" % (label, number))
        offsets = parse_offsets(record[column])
        gold[post_id] = offsets if offsets is not None else _gold_offsets(record[column], label, "line %d" % number)
    return gold


def read_gold(ref_dir):
    path = find_gold_file(ref_dir)
    label = "reference file " + os.path.basename(path)
    gold = read_gold_csv(path, label) if path.lower().endswith(".csv") else read_gold_lines(path, label)
    if not gold:
        raise ReferenceDataError("%s holds no posts" % label)
    return gold


# ---------------------------------------------------------------------------------------------------------------
# Submission


def _list_ids(ids):
    ids = sorted(ids)
    shown = ", ".join("%d" % i for i in ids[:_SHOWN_IDS])
    return shown + (", ..." if len(ids) > _SHOWN_IDS else "")


def _unknown_id_message(post_id, gold):
    low, high = min(gold), max(gold)
    if high - low + 1 == len(gold):
        return "id %d is not a post of this phase (the ids run from %d to %d)" % (post_id, low, high)
    return "id %d is not a post of this phase" % post_id


def read_predictions(res_dir, gold):
    """{id: offsets} for every post of ``gold``, or a SubmissionError for the first problem found."""
    path = find_submission_file(
        res_dir, names=PRED_TXT,
        expected="the zip must hold %s at its root, one line <id><TAB><list of offsets> per post" % PRED_TXT)
    predicted = {}
    line_of = {}
    # Read as a stream: the first bad line ends the run before the rest of the file is read.
    for number, line in numbered_lines(path, PRED_TXT, max_line=MAX_PREDICTION_LINE):
        if not line.strip():
            continue
        try:
            post_id, spans = split_line(line)
        except ValueError as exc:
            raise SubmissionError("%s, line %d: %s" % (PRED_TXT, number, exc))
        if post_id not in gold:
            raise SubmissionError("%s, line %d: %s" % (PRED_TXT, number, _unknown_id_message(post_id, gold)))
        if post_id in line_of:
            raise SubmissionError("%s, line %d: id %d is given twice, on lines %d and %d"
                                  % (PRED_TXT, number, post_id, line_of[post_id], number))
        offsets = parse_offsets(spans)
        if offsets is None:
            raise SubmissionError("%s, line %d: %s" % (PRED_TXT, number, describe_list_problem(
                spans, "write [] for a post without toxic spans")))
        line_of[post_id] = number
        predicted[post_id] = offsets
    if not predicted:
        raise SubmissionError("%s is empty: expected one line <id><TAB><list of offsets> for each of the %d posts"
                              % (PRED_TXT, len(gold)))
    if len(predicted) < len(gold):
        missing = [post_id for post_id in gold if post_id not in predicted]
        raise SubmissionError("%s has no line for %d of the %d posts (ids %s); write [] for a post without "
                              "toxic spans" % (PRED_TXT, len(missing), len(gold), _list_ids(missing)))
    return predicted
