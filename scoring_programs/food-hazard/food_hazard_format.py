"""Reading the gold incidents file and a participant's submission.csv, and aligning the two row by row.

Each file is first read whole columns at a time (fast_csv.columns) and checked in bulk; when it is not in the
usual shape or a check fails, it is read again row by row (read_csv), which finds the first problem and names its
line: so the messages, and the results, are those of the row-by-row reading.
"""
import os
import re

import fast_csv
from scoring_runtime import SubmissionError, ReferenceDataError, canonical_integer, read_csv, shorten

SUBMISSION_NAME = "submission.csv"
SUBTASKS = (("st1", "hazard-category", "product-category"),
            ("st2", "hazard", "product"))
LABEL_COLUMNS = tuple(column for _, hazard, product in SUBTASKS for column in (hazard, product))
# DataFrame.to_csv writes the index under an empty name; some people name it. A first column of another name that
# is no label column (nor a near miss of one) is read as the index too, when its values are the gold's ids: the
# official scorer picked the label columns by name and ignored the rest, and real runs lead with a row number
# under a name of their own ('stt', the SemEval-2025 ST1 winner's). Its values must then be the gold's ids.
INDEX_NAMES = ("", "id")

_LABELS = {}


_CANONICAL_ID = re.compile(r"(?:0|[1-9][0-9]*)\Z")  # an integer id written as canonical_integer writes it
# Ids joined by NUL (which fast_csv never returns in a cell), all canonical.
_CANONICAL_IDS = re.compile(r"(?:0|[1-9][0-9]*)(?:\0(?:0|[1-9][0-9]*))*\Z")


def _normalize_id(value):
    """Ids compare as integers when they are integers (" 7", "07" and "7" are the same row), else as text."""
    number = canonical_integer(value)
    return number if number is not None else value.strip()


def _squash(name):
    return re.sub(r"[^a-z]", "", name.lower())


class LabelTable(object):
    """Label columns of a CSV, one list per column, with each row's id (None without an index column) and line
    (None when read in bulk: no message needs them then)."""

    def __init__(self, ids, columns, lines, rows):
        self.ids = ids
        self.columns = columns
        self.lines = lines
        self.rows = rows

    def __len__(self):
        return self.rows


def _cells(header, rows, label, error, wanted, index, check_row=None):
    """Check cell counts and empty labels; return (ids, {column: labels}, lines). ``check_row(row id, line,
    rows read before)``, if given, checks each row as it is read (the first bad row ends the reading there)."""
    ids = [] if index else None
    columns = dict((name, []) for name in wanted)
    # (name, position, append to its column) per label column; one string object per distinct label, shared by
    # every row that has it (and by gold and submission).
    readers = [(name, header.index(name), columns[name].append) for name in wanted]
    lines = []
    width, intern, canonical = len(header), _LABELS.setdefault, _CANONICAL_ID.match
    for line, record in rows:
        if len(record) != width:
            raise error("%s, line %d: %d cells where the header has %d columns (%s)"
                        % (label, line, len(record), len(header), ", ".join(repr(h) for h in header)))
        row_id = None
        if index:
            row_id = record[0]
            if canonical(row_id) is None:  # else the id is already as _normalize_id writes it
                row_id = _normalize_id(row_id)
            if not row_id:
                raise error("%s, line %d: the index column (the first one) is empty" % (label, line))
            ids.append(row_id)
        for name, position, append in readers:
            value = record[position]
            if not value.strip():
                where = "%s, line %d" % (label, line) + (" (id %s)" % shorten(row_id) if index else "")
                raise error("%s: the '%s' cell is empty" % (where, name))
            append(intern(value, value))
        if check_row is not None:
            check_row(row_id, line, len(lines))
        lines.append(line)
    return ids, columns, lines


def _gold_columns(header):
    """The cells read_gold reads: the index and the label columns (the texts are skipped)."""
    header = [cell.strip() for cell in header]
    return [0] + [header.index(name) for name in LABEL_COLUMNS if name in header]


def _bulk_read(path, choose, limit=None):
    """(ids or None, [labels of each label column]) read with fast_csv.columns; ``choose`` takes the header (cells
    stripped) and returns (has an index column, [positions of the label columns]) or raises NotPlain. None when
    the file is not in the usual shape, an id is not a canonical integer or a label is empty, or as soon as it has
    more than ``limit`` rows (the row-by-row reading then names the first one too many)."""
    found = {}

    def positions(header):
        index, labels = choose([cell.strip() for cell in header])
        found.update(ids=[] if index else None, labels=[[] for _ in labels])
        return ([0] if index else []) + labels

    intern = _LABELS.setdefault
    try:
        for part in fast_csv.columns(path, positions):
            if found["ids"] is not None:
                found["ids"].extend(part.pop(0))
            for labels, cells in zip(found["labels"], part):
                labels.extend(map(intern, cells, cells))
            if limit is not None and found["labels"] and len(found["labels"][0]) > limit:
                return None
    except fast_csv.NotPlain:
        return None
    ids, labels = found["ids"], found["labels"]
    # Labels are shared through _LABELS before they are checked, once each: the row-by-row reading never adds an
    # empty one, so any there is from this file (and taken out again).
    empty = [label for label in _LABELS if not label.strip()]
    for label in empty:
        del _LABELS[label]
    if empty or not labels[0]:
        return None
    if ids is not None and not _CANONICAL_IDS.match("\0".join(ids)):
        return None
    return ids, labels


def _bulk_gold(path):
    """read_gold's table read in bulk, or None (the file is then read row by row)."""
    def choose(header):
        if header[0] not in INDEX_NAMES or not all(name in header for name in LABEL_COLUMNS):
            raise fast_csv.NotPlain()
        return True, [header.index(name) for name in LABEL_COLUMNS]
    found = _bulk_read(path, choose)
    if found is None or len(set(found[0])) != len(found[0]):
        return None
    ids, labels = found
    return LabelTable(ids, dict(zip(LABEL_COLUMNS, labels)), None, len(ids))


def read_gold(path):
    table = _bulk_gold(path)
    if table is not None:
        return table
    label = "reference file " + os.path.basename(path)
    header, rows = read_csv(path, label, ReferenceDataError, stream=True, columns=_gold_columns)
    header = [cell.strip() for cell in header]
    missing = [name for name in LABEL_COLUMNS if name not in header]
    if missing:
        raise ReferenceDataError("%s has no column %s" % (label, ", ".join(repr(m) for m in missing)))
    index = header[0] in INDEX_NAMES
    ids, columns, lines = _cells(header, rows, label, ReferenceDataError, LABEL_COLUMNS, index)
    if not lines:
        raise ReferenceDataError("%s has no rows" % label)
    if ids is None:
        ids = [str(i) for i in range(len(lines))]
    elif len(set(ids)) != len(ids):
        raise ReferenceDataError("%s: the index column has duplicate ids" % label)
    return LabelTable(ids, columns, lines, len(lines))


def _is_index(first):
    """Whether the header's first cell names an index column (see INDEX_NAMES)."""
    return first in INDEX_NAMES or first not in LABEL_COLUMNS and not _close(first)


def _close(column):
    return [c for c in LABEL_COLUMNS if _squash(c) == _squash(column)]


def _submission_columns(header):
    """Validate the header; return (has index column, [label columns present])."""
    name = SUBMISSION_NAME
    allowed = "'" + "', '".join(LABEL_COLUMNS) + "'"
    index = _is_index(header[0])
    seen = []
    for position, column in enumerate(header[1:] if index else header, 2 if index else 1):
        if column in seen:
            raise SubmissionError("%s: column '%s' appears twice in the header" % (name, shorten(column)))
        if column not in LABEL_COLUMNS:
            if not column:
                problem = "column %d of the header has no name (only the first column, the index, may be unnamed)"
                raise SubmissionError("%s: %s" % (name, problem % position))
            close = _close(column)
            hint = "did you mean '%s'?" % close[0] if close else "the columns are %s" % allowed
            if column.startswith("Unnamed:"):
                hint = ("this is an index pandas wrote twice; read incidents.csv with index_col=0, "
                        "or write with index=False")
            elif not close and not any(c in LABEL_COLUMNS for c in header):
                hint = ("the first line must be the header: an optional index column, then %s" % allowed)
            raise SubmissionError("%s: unknown column '%s' in the header; %s" % (name, shorten(column), hint))
        seen.append(column)
    present = [c for c in LABEL_COLUMNS if c in seen]
    for subtask, hazard, product in SUBTASKS:
        if (hazard in seen) != (product in seen):
            have, lack = (hazard, product) if hazard in seen else (product, hazard)
            raise SubmissionError("%s: column '%s' is missing; %s needs both '%s' and '%s' (found '%s' alone)"
                                  % (name, lack, subtask.upper(), hazard, product, have))
    if not present:
        raise SubmissionError("%s: no label columns; expected %s (or one of the two pairs)" % (name, allowed))
    return index, present


def _row_checker(gold, index, first_column):
    """check_row for _cells: the submission's rows checked against the gold as they are read, with the messages
    _order_by_id gives for the whole table (an id twice, an id the gold lacks); without an index, a row beyond
    the gold's count is refused at once."""
    name, first_line, gold_ids = SUBMISSION_NAME, {}, None

    def check(row_id, line, before):
        nonlocal gold_ids
        if not index:
            if before == len(gold):
                raise SubmissionError("%s, line %d: a row beyond the data file's %d incidents; without an index "
                                      "column rows are matched by position, so give one row per incident in the "
                                      "file's order" % (name, line, len(gold)))
            return
        if gold_ids is None:
            gold_ids = set(gold.ids)
        problem = None
        if row_id in first_line:
            problem = ("%s, line %d: id %s appears twice (first on line %d)"
                       % (name, line, shorten(row_id), first_line[row_id]))
        elif row_id not in gold_ids:
            problem = ("%s, line %d: id %s is not an id of the data file (ids run %s to %s there)"
                       % (name, line, shorten(row_id), gold.ids[0], gold.ids[-1]))
        if problem is not None:
            if first_column not in INDEX_NAMES:
                problem += ("; the first column, '%s', is read as the row ids (an index column): give the data "
                            "file's ids there, or leave the column out to match rows by position"
                            % shorten(first_column))
            raise SubmissionError(problem)
        first_line[row_id] = line
    return check


def _order_by_id(table, gold):
    """Positions of the gold rows in the submission, checking that the two sets of ids are the same."""
    name = SUBMISSION_NAME
    where = dict(zip(table.ids, range(len(table.ids))))
    if len(where) < len(table.ids):
        where = {}
        for row_id, line in zip(table.ids, table.lines):
            if row_id in where:
                raise SubmissionError("%s, line %d: id %s appears twice (first on line %d)"
                                      % (name, line, shorten(row_id), table.lines[where[row_id]]))
            where[row_id] = len(where)
    gold_ids = set(gold.ids)
    if not gold_ids.issuperset(where):
        for row_id, line in zip(table.ids, table.lines):
            if row_id not in gold_ids:
                raise SubmissionError("%s, line %d: id %s is not an id of the data file (ids run %s to %s there)"
                                      % (name, line, shorten(row_id), gold.ids[0], gold.ids[-1]))
    if len(where) < len(gold_ids):
        missing = [row_id for row_id in gold.ids if row_id not in where]
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise SubmissionError("%s: %d of the %d ids of the data file have no row (%s)"
                              % (name, len(missing), len(gold.ids), shown))
    return list(map(where.__getitem__, gold.ids))


def _bulk_submission(path, gold):
    """read_submission's result read in bulk, or None (the file is then read row by row)."""
    present = []

    def choose(header):
        try:
            index, names = _submission_columns(header)
        except SubmissionError:
            raise fast_csv.NotPlain()
        present.extend(names)
        return index, [header.index(name) for name in names]
    found = _bulk_read(path, choose, limit=len(gold))
    if found is None or len(found[1][0]) != len(gold):
        return None
    ids, labels = found
    columns = dict(zip(present, labels))
    if ids is None:  # rows in the gold's order
        return columns
    where = dict(zip(ids, range(len(ids))))
    order = list(map(where.get, gold.ids))
    if None in order:  # else as many rows as gold ids, each of which is found: no id twice, no other id
        return None
    return dict((column, list(map(labels.__getitem__, order))) for column, labels in columns.items())


def read_submission(path, gold):
    """The submission's label columns in the gold's row order, as {column: labels} (only the columns given)."""
    predicted = _bulk_submission(path, gold)
    if predicted is not None:
        return predicted
    header, rows = read_csv(path, SUBMISSION_NAME, SubmissionError, stream=True)
    header = [cell.strip() for cell in header]
    index, present = _submission_columns(header)
    ids, columns, lines = _cells(header, rows, SUBMISSION_NAME, SubmissionError, present, index,
                                 _row_checker(gold, index, header[0]))
    table = LabelTable(ids, columns, lines, len(lines))
    if not len(table):
        raise SubmissionError("%s has a header but no rows: expected one row per incident (%d)"
                              % (SUBMISSION_NAME, len(gold)))
    if index:
        try:
            order = _order_by_id(table, gold)
        except SubmissionError as exc:
            if header[0] in INDEX_NAMES:
                raise
            raise SubmissionError("%s; the first column, '%s', is read as the row ids (an index column): give the "
                                  "data file's ids there, or leave the column out to match rows by position"
                                  % (exc, shorten(header[0])))
        return dict((column, list(map(labels.__getitem__, order))) for column, labels in columns.items())
    if len(table) != len(gold):
        raise SubmissionError("%s has %d rows but the data file has %d incidents; without an index column rows "
                              "are matched by position, so give one row per incident in the file's order"
                              % (SUBMISSION_NAME, len(table), len(gold)))
    return columns
