"""The participant's run file: one CSV ``doc_id, sentence_id, is_relevant, sector_id``, checked against the gold.

Every problem is a ``SubmissionError`` naming the file and line; messages quote only the participant's own
values and the public sentence ids, never a gold label.
"""
import os

from scoring_runtime import SubmissionError, find_submission_file, is_integer, parse_integer, quote, read_csv, shorten

from cheers_gold import sentence_key

RUN_COLUMNS = ("doc_id", "sentence_id", "is_relevant", "sector_id")
NO_SECTOR = -1
MAX_LINE = 1 << 16

_EXPECTED = "submit a zip holding one CSV file with the header doc_id, sentence_id, is_relevant, sector_id"


class Prediction(object):
    __slots__ = ("relevant", "sector")

    def __init__(self, relevant, sector):
        self.relevant = relevant    # bool
        self.sector = sector        # int; NO_SECTOR when not relevant or when no sector is given


def _column_index(header, label):
    duplicated = sorted(set(name for name in header if header.count(name) > 1))
    if duplicated:
        raise SubmissionError("%s, line 1: the column %s appears more than once" % (label, duplicated[0]))
    unknown = [name for name in header if name not in RUN_COLUMNS]
    if unknown:
        hint = ""
        if unknown[0] == "" or unknown[0].startswith("Unnamed"):
            hint = " (an unnamed column is usually a table index: write the CSV without it, e.g. index=False)"
        raise SubmissionError("%s, line 1: unknown column %s%s; the columns must be %s"
                              % (label, quote(unknown[0]), hint, ", ".join(RUN_COLUMNS)))
    missing = [name for name in RUN_COLUMNS if name not in header]
    if missing:
        raise SubmissionError("%s, line 1: the column(s) %s are missing; the header must be %s"
                              % (label, ", ".join(missing), ", ".join(RUN_COLUMNS)))
    return [header.index(name) for name in RUN_COLUMNS]


def _known_sector_hint(gold):
    # The mapping file is public, so its ids can be listed; ids seen only in the gold cannot.
    if gold.sector_names:
        return " (known ids: %s)" % ", ".join(str(s) for s in sorted(gold.sector_names))
    return ""


def read_run(res_dir, gold):
    """{sentence key: Prediction} for every gold sentence, or a SubmissionError."""
    path = find_submission_file(res_dir, suffix=".csv", expected=_EXPECTED)
    label = os.path.basename(path)
    # Rows checked as they are read; no row needs more than MAX_LINE characters (four short values: the limit is
    # far above them, so that an absurd value still gets its own message, and far below a run that costs memory).
    header, rows = read_csv(path, label=label, strip_spaces=True, stream=True, max_line=MAX_LINE)
    columns = _column_index(header, label)
    predictions = {}
    first_line = {}
    for line, cells in rows:
        if len(cells) != len(header):
            raise SubmissionError("%s, line %d: %d values where the header has %d columns"
                                  % (label, line, len(cells), len(header)))
        doc_id, sentence_id, relevant, sector = [cells[i] for i in columns]
        key = sentence_key(doc_id, sentence_id)
        where = "%s, line %d (doc_id %s, sentence_id %s)" % (label, line, shorten(doc_id), shorten(sentence_id))
        if key in first_line:
            raise SubmissionError("%s: this sentence already has a row at line %d" % (where, first_line[key]))
        if key not in gold.sentences:
            raise SubmissionError("%s: no such sentence in this phase's data" % where)
        if relevant not in ("0", "1"):
            raise SubmissionError("%s: is_relevant must be 0 or 1, not %s" % (where, quote(relevant)))
        if not is_integer(sector):
            raise SubmissionError("%s: sector_id must be an integer, not %s" % (where, quote(sector)))
        try:
            sector = parse_integer(sector, "sector_id")
        except ValueError as exc:
            raise SubmissionError("%s: %s" % (where, exc))
        if relevant == "0" and sector != NO_SECTOR:
            raise SubmissionError("%s: sector_id must be -1 when is_relevant is 0, not %d" % (where, sector))
        if relevant == "1" and sector != NO_SECTOR and sector not in gold.known_sectors:
            raise SubmissionError("%s: sector_id %d is not a sector of this task%s; use -1 for no sector"
                                  % (where, sector, _known_sector_hint(gold)))
        first_line[key] = line
        predictions[key] = Prediction(relevant == "1", sector)
    if len(predictions) < len(gold.sentences):
        absent = [s for key, s in gold.sentences.items() if key not in predictions]
        raise SubmissionError("%s has no row for %d of the %d sentences, the first being doc_id %s, sentence_id %s; "
                              "give one row per sentence" % (label, len(absent), len(gold.sentences),
                                                             absent[0].doc_id, absent[0].sentence_id))
    return predictions
