"""Gold and submission files as {id: (line, cells)}, with the same id rules and messages for every generic kind.

Ids compare as text with surrounding spaces removed, and integer ids as numbers (``canonical_integer``: "007" is
7), as in every task of this project. A submission must give each gold id exactly once: an unknown id, an id
given twice and missing ids are SubmissionErrors naming the file and line. Ids are public (participants get them
with the inputs), so messages may quote them; they never quote a gold label.
"""
import os
import re

from json_stream import JsonStream
from scoring_runtime import (SubmissionError, ReferenceDataError, canonical_integer, find_reference_file,
                             find_submission_file, quote, read_csv)

_SHOWN_IDS = 5
# Ids that id_key leaves as they are (most ids), recognised with one match instead of its several steps.
_PLAIN_ID = re.compile(r"(?:[1-9][0-9]*|0|[A-Za-z_][A-Za-z0-9_.:-]*[A-Za-z0-9_.:])\Z")


def id_key(text):
    text = text.strip()
    return canonical_integer(text) or text


def locate(directory, name, error, expected=None):
    """The file called ``name`` ("*.ext": the one file ending in .ext) in a ref or res folder."""
    names, suffix = (None, name[1:]) if name.startswith("*") else (name, None)
    if error is ReferenceDataError:
        return find_reference_file(directory, names, suffix)
    return find_submission_file(directory, names, suffix, expected)


def describe(path, error):
    """How messages name a file: the submission's by its name, the gold as 'reference file NAME'."""
    name = os.path.basename(path)
    return name if error is SubmissionError else "reference file " + name


def column_index(header, name, label, error, tabs=False):
    """Position of column ``name`` (exact, else the one column equal to it ignoring case)."""
    names = [cell.strip() for cell in header]
    if name in names:
        return names.index(name)
    folded = [cell.lower() for cell in names]
    if folded.count(name.lower()) == 1:
        return folded.index(name.lower())
    for mark, what in ((",", "commas"), ("\t", "tabs"), (";", "semicolons"), ("|", "vertical bars")):
        if len(names) == 1 and mark in names[0] and mark != ("\t" if tabs else ","):  # another delimiter
            raise error("%s: the header line is separated by %s, not %s (found %s): %s"
                        % (label, what, "tabs" if tabs else "commas", quote(names[0].replace("\t", "<TAB>"), 80),
                           "write the file with tabs" if tabs else
                           "write the file as CSV, with commas, or as TSV (tabs) in a file named .tsv"))
    raise error("%s: no %s column in the header line (found %s)" % (label, quote(name), quote(",".join(names), 80)))


def is_tsv(path):
    return path.lower().endswith(".tsv")


def csv_records(path, label, id_column, columns, error):
    """(line, id text, [cells of ``columns``]) per data row; without ``id_column`` a row's id is its 0-based
    position among the data rows (the layout of toxic-spans' released CSV). A file named .tsv is read as TSV
    (tabs, no quoting)."""
    tabs = is_tsv(path)
    header, rows = read_csv(path, label, error, stream=True, tabs=tabs)
    id_at = column_index(header, id_column, label, error, tabs) if id_column else None
    wanted = [column_index(header, name, label, error, tabs) for name in columns]
    named = sorted(zip(wanted, columns)) + ([(id_at, id_column)] if id_column else [])
    needed = max(index for index, _ in named) + 1
    for position, (line, record) in enumerate(rows):
        if tabs and len(record) > len(header) and not any(cell.strip() for cell in record[len(header):]):
            record = record[:len(header)]  # a TSV line's trailing tabs (empty cells beyond the header) are ignored
        if len(record) > len(header):  # a stray comma, or an unquoted comma inside a cell: the cells would shift
            raise error("%s, line %d: the row has %d cells, the header %d (%s)"
                        % (label, line, len(record), len(header),
                           "a tab inside a cell?" if tabs else "quote a cell that holds a comma"))
        if len(record) < needed:
            name = min((index, name) for index, name in named if index >= len(record))[1]
            raise error("%s, line %d: the row has no %s cell (it has %d cells, the header %d)"
                        % (label, line, quote(name), len(record), len(header)))
        yield line, (record[id_at] if id_column else "%d" % position), [record[index] for index in wanted]


def collect(records, label, error, gold=None):
    """{id key: (line, cells)} in file order; ``gold`` (a submission's gold ids) makes unknown ids errors."""
    table = {}
    for key, line, cells in checked_records(records, label, error, gold, table):
        table[key] = (line, cells)
    return table


def checked_records(records, label, error, gold=None, seen=None):
    """(id key, line, cells) of each record, checked as collect checks them, as they are read: ``seen`` is
    {id key: (line, ...)} of the records given so far, which the caller fills."""
    seen = {} if seen is None else seen
    for line, raw_id, cells in records:
        key = raw_id if _PLAIN_ID.match(raw_id) else id_key(raw_id)
        if not key or key in seen or gold is not None and key not in gold:
            where = "%s, line %d" % (label, line)
            if not key:
                raise error("%s: the id is empty" % where)
            if key in seen:
                raise error("%s: id %s is given twice, on lines %d and %d"
                            % (where, quote(raw_id), seen[key][0], line))
            raise error("%s: id %s is not an id of this phase" % (where, quote(raw_id)))
        yield key, line, cells
    if not seen:
        raise error("%s holds no rows" % label)


def check_complete(predicted, gold, label, hint=""):
    """Every gold id has a prediction (predicted holds only gold ids, so equal sizes mean complete)."""
    if len(predicted) == len(gold):
        return
    missing = [key for key in gold if key not in predicted]
    shown = ", ".join(quote(key) for key in missing[:_SHOWN_IDS]) + (", ..." if len(missing) > _SHOWN_IDS else "")
    raise SubmissionError("%s has no prediction for %d of the %d ids (%s)%s"
                          % (label, len(missing), len(gold), shown, hint))


def read_gold_csv(ref_dir, config, columns):
    path = locate(ref_dir, config["reference"], ReferenceDataError)
    label = describe(path, ReferenceDataError)
    return collect(csv_records(path, label, config["id_column"], columns, ReferenceDataError),
                   label, ReferenceDataError), label


def read_submission_csv(res_dir, config, columns, gold, hint=""):
    """{id: (line, cells)} for exactly the gold ids, and the file's name for messages."""
    tabs = config["submission"].lower().endswith(".tsv")
    expected = ("the zip must hold %s at its root, a %s file with columns %s"
                % (config["submission"], "TSV (tab-separated)" if tabs else "CSV",
                   ",".join([config["id_column"]] + list(columns))))
    path = locate(res_dir, config["submission"], SubmissionError, expected)
    label = describe(path, SubmissionError)
    table = collect(csv_records(path, label, config["id_column"], columns, SubmissionError), label,
                    SubmissionError, gold)
    check_complete(table, gold, label, hint)
    return table, label


def json_members(path, label, error):
    """A JSON file whose top level should be an object, read member by member (json_stream): (None, members) where
    members yields (raw key, value) in file order, a key given twice refused where it comes again ("<key> is given
    more than once" is the caller's wording, so the repeated key is raised as RepeatedKey); or (the value, None)
    for any other JSON (a list only named, not parsed)."""
    stream = JsonStream(path, label, error, object_pairs_hook=json_object)
    if stream.kind == "empty":
        stream.whole()  # load_json's message for a file of white space
    if stream.kind == "array":
        return [], None
    if stream.kind == "value":
        return stream.value, None

    def members():
        seen = set()
        for key, value in stream:
            if key in seen:
                raise RepeatedKey(key)
            seen.add(key)
            yield key, value
    return None, members()


class RepeatedKey(Exception):
    """A top-level key given twice (json_members): the caller words the message."""


class JsonObject(dict):
    """A JSON object that remembers the first key given twice (json.loads keeps the last one silently)."""
    repeated = None


def json_object(pairs):
    """object_pairs_hook for load_json: a JsonObject whose ``repeated`` names a key given twice, if any."""
    obj = JsonObject(pairs)
    if len(obj) < len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                obj.repeated = key
                break
            seen.add(key)
    return obj
