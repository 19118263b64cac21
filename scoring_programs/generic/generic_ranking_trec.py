"""Kind ``ranking``: the TREC-style line files, a qrels gold and a run submission, read as trec_eval reads them.

Qrels (gold): one judgment a line, ``qid iter docid grade``, columns separated by spaces or tabs (trec_eval's qrels,
MS MARCO's qrels.*.tsv); ``iter`` is not read; the grade is an integer (a negative grade counts as 0, as in
trec_eval). A document judged twice for a query is an error (trec_eval stops on it too).

Runs (submission), by the number of columns of the first line:
  6: ``qid Q0 docid rank score tag``, a TREC run. A query's documents are ordered as trec_eval orders them: by score
     descending, ties by document id descending (strcmp of the ids, here of the ids as compared: the same for ids
     that are not integers with leading zeros); the rank, Q0 and tag columns are not read.
  3: ``qid docid rank``, MS MARCO's run; ordered by rank, which must be 1, 2, 3, ... without gaps or repeats.
A document ranked twice for a query is an error (trec_eval and msmarco_eval refuse it too).

Ids follow the generic kinds' rule (generic_table.id_key: integers as numbers). What a query's ranking keeps is its
summary: how many documents it ranks and the (rank, grade) of the ranked documents whose grade is above 0.
"""
from scoring_runtime import ReferenceDataError, SubmissionError, quote, stream_lines

from generic_table import id_key

QRELS_LINE = "qid iter docid grade"
RUN_LINES = "qid Q0 docid rank score tag (a TREC run) or qid docid rank (MS MARCO)"
_MAX_GRADE_DIGITS = 9


def _key(text):
    """id_key of a column's text (split: no spaces around): only an id starting with +, - or 0 can change."""
    return text if text[0] not in _SIGNS or text == "0" else id_key(text)


_SIGNS = "+-0"


def read_qrels(path, label):
    """{query: {document: grade}} in the file's order of queries; ReferenceDataError naming the line (never a
    document id or grade of the gold)."""
    qrels, raw_query, judged = {}, None, None
    for number, line in enumerate(stream_lines(path, label, ReferenceDataError), 1):
        parts = line.split()
        if len(parts) != 4:
            if not parts:
                continue
            raise ReferenceDataError("%s, line %d: a qrels line has 4 columns, %s (found %d)"
                                     % (label, number, QRELS_LINE, len(parts)))
        if parts[0] != raw_query:
            raw_query = parts[0]
            query = _key(raw_query)
            judged = qrels.get(query)
            if judged is None:
                judged = qrels[query] = {}
        grade = parts[3]
        if not (grade.isdigit() and len(grade) <= _MAX_GRADE_DIGITS) and not _signed(grade):
            raise ReferenceDataError("%s, line %d: the grade (4th column) must be an integer of at most %d digits"
                                     % (label, number, _MAX_GRADE_DIGITS))
        document = parts[2]
        if document[0] in _SIGNS:
            document = _key(document)
        if document in judged:
            raise ReferenceDataError("%s, line %d: query %s judges the same document a second time"
                                     % (label, number, quote(raw_query)))
        judged[document] = int(grade)
    if not qrels:
        raise ReferenceDataError("%s holds no judgments (lines %s)" % (label, QRELS_LINE))
    return qrels


def _signed(grade):
    digits = grade[1:]
    return grade[:1] in ("+", "-") and digits.isdigit() and len(digits) <= _MAX_GRADE_DIGITS


def summarize(ranked, judged):
    """(documents ranked, [(rank, grade) of the ranked documents with a grade above 0]) of one query."""
    hits = []
    if judged:
        get = judged.get
        for rank, document in enumerate(ranked, 1):
            grade = get(document)
            if grade is not None and grade > 0:
                hits.append((rank, grade))
    return len(ranked), hits


class _Ungrouped(Exception):
    """A query's lines are not all together: read again, holding every query until the end."""


def read_run(path, label, gold, strict):
    """({gold query: summary}, [ids of the run's queries that the gold lacks]) from a TREC or MS MARCO run.
    ``gold``: {query: {document: grade}}. With ``strict``, a query the gold lacks is an error."""
    try:
        return _scan(path, label, gold, strict, True)
    except _Ungrouped:  # a query given in several blocks (rare): keep every query's lines until the end
        return _scan(path, label, gold, strict, False)


def _scan(path, label, gold, strict, grouped):
    """One pass over the run. ``grouped``: finish each query when the next begins (memory: one query at a time),
    and raise _Ungrouped when a finished query comes back."""
    width, summaries, unknown, finished, buffers = None, {}, [], set(), {}
    raw_query = query = docs = values = None
    for number, line in enumerate(stream_lines(path, label), 1):
        parts = line.split()
        if len(parts) != width:
            if not parts:
                continue
            if width is not None or len(parts) not in (6, 3):
                raise SubmissionError("%s, line %d: a run line has %s columns: %s (found %d)"
                                      % (label, number, width or "6 or 3", RUN_LINES if width is None else
                                         RUN_LINES.split(" or ")[width == 3], len(parts)))
            width = len(parts)
        if parts[0] != raw_query:
            if grouped and query is not None:
                _finish(path, label, width, query, buffers.pop(query), gold, summaries, unknown)
                finished.add(query)
            raw_query = parts[0]
            query = _key(raw_query)
            entry = buffers.get(query)
            if entry is None:
                if query in finished:
                    raise _Ungrouped()
                if strict and query not in gold:
                    raise SubmissionError("%s, line %d: %s is not a query id of this phase"
                                          % (label, number, quote(raw_query)))
                entry = buffers[query] = (number, raw_query, [], [])
            docs, values = entry[2], entry[3]
        if width == 6:
            document, text = parts[2], parts[4]
            try:
                value = float(text)
            except ValueError:
                value = None
            if value is None or value - value != 0.0:  # not a number, or nan or infinite
                raise SubmissionError("%s, line %d: the score (5th column) must be a finite number, found %s"
                                      % (label, number, quote(text)))
        else:
            document, text = parts[1], parts[2]
            value = int(text) if text.isdigit() and len(text) < 10 else 0
            if value < 1:
                raise SubmissionError("%s, line %d: the rank (3rd column) must be an integer from 1, found %s"
                                      % (label, number, quote(text)))
        docs.append(document if document[0] not in _SIGNS else _key(document))
        values.append(value)
    if width is None:
        raise SubmissionError("%s holds no run lines (%s)" % (label, RUN_LINES))
    for query in list(buffers):
        _finish(path, label, width, query, buffers.pop(query), gold, summaries, unknown)
    return summaries, unknown


def _finish(path, label, width, query, entry, gold, summaries, unknown):
    first_line, raw_query, docs, values = entry
    where = "%s, line %d (query %s)" % (label, first_line, quote(raw_query))
    if width == 6:  # trec_eval: score descending, then document id descending
        order = sorted(zip(values, docs), reverse=True)
    else:
        order = sorted(zip(values, docs))
        for position, (rank, _) in enumerate(order, 1):
            if rank != position:
                raise SubmissionError("%s: the ranks must be 1, 2, 3, ... once each; rank %d is %s"
                                      % (where, position, "given twice" if rank < position else "missing"))
    ranked = [document for _, document in order]
    if len(set(ranked)) != len(ranked):
        seen = set()
        for document in docs:
            if document in seen:
                raise SubmissionError("%s, line %d: query %s ranks document %s a second time"
                                      % (label, _line_of(path, width, query, document), quote(raw_query),
                                         quote(document)))
            seen.add(document)
    if query in gold:
        summaries[query] = summarize(ranked, gold[query])
    else:
        unknown.append(raw_query)


def _line_of(path, width, query, document):
    """The line where ``query`` ranks ``document`` the second time (only to word an error)."""
    count = 0
    for number, line in enumerate(stream_lines(path), 1):
        parts = line.split()
        if len(parts) == width and _key(parts[0]) == query and _key(parts[2 if width == 6 else 1]) == document:
            count += 1
            if count == 2:
                return number
    return 0
