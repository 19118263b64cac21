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
summary: how many documents it ranks and the (rank, grade) of the ranked documents whose grade is above 0. A run
is read one query at a time; a query of more than _BATCH documents is held compactly (_Compact: about 17 bytes a
document and its id's characters, instead of a sorted list), with the same summary and the same errors.
"""
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from functools import partial
from itertools import compress

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
        if not (grade.isdecimal() and len(grade) <= _MAX_GRADE_DIGITS) and not _signed(grade):
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
    return grade[:1] in ("+", "-") and digits.isdecimal() and len(digits) <= _MAX_GRADE_DIGITS


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


_BATCH = 1 << 16  # a query's documents held as plain lists; past that many, in its compact form (_Compact)
_PARTS = 256  # the compact form keeps its documents' hashes in this many arrays, by their low bits
_RANK_CODE = "i" if array("i").itemsize >= 4 else "l"


class _Compact(object):
    """The ranking of a query of more than _BATCH documents, held as the measures and checks need it: per document
    its score (a TREC run) or rank (MS MARCO) in an array, its id in a text of _BATCH ids joined by newlines, and its
    hash (a fixed-size integer) in one of _PARTS arrays; and (score or rank, id, grade) of the documents graded
    above 0 (``hits``).

    A graded document's rank in trec_eval's order is 1 + the documents before it: those of a higher score (a binary
    search when the run lists its scores from the highest, else one count over them) and, of its score, those of a
    larger id (read back from the texts). A repeated id: equal hashes in one array, confirmed on the ids read back."""
    __slots__ = ("trec", "graded", "keys", "texts", "hashes", "hits", "ordered")

    def __init__(self, trec, judged):
        self.trec = trec
        self.graded = dict((document, grade) for document, grade in judged.items() if grade > 0) if judged else {}
        self.keys = array("d" if trec else _RANK_CODE)
        self.texts, self.hits, self.ordered = [], [], True
        self.hashes = [array("q") for _ in range(_PARTS)]

    def add(self, docs, values):
        """Add a block of documents (every block but the last has _BATCH of them) and their scores or ranks."""
        keys, count = self.keys, len(self.keys)
        if self.ordered:  # TREC: scores from the highest; MS MARCO: ranks 1, 2, 3, ...
            self.ordered = values == (sorted(values, reverse=True) if self.trec else
                                      list(range(count + 1, count + len(values) + 1))) \
                and not (count and self.trec and keys[-1] < values[0])
        keys.extend(values)
        self.texts.append("\n".join(docs))
        graded, hits = self.graded, self.hits
        if graded:
            for i in compress(range(len(docs)), map(graded.__contains__, docs)):
                hits.append((values[i], docs[i], graded[docs[i]]))
        hashes, mask = self.hashes, _PARTS - 1
        for value in map(hash, docs):
            hashes[value & mask].append(value)

    def ids(self, block):
        return self.texts[block].split("\n")

    def bad_ranks(self):
        """MS MARCO: (rank, "given twice" or "missing") where the ranks in order first differ from 1, 2, 3, ...
        (the first rank counted other than once: missing, or the next one is its second time), else None."""
        if self.trec or self.ordered:
            return None
        total = len(self.keys)
        seen = bytearray(total + 1)
        for rank in self.keys:
            if rank <= total and seen[rank] < 2:
                seen[rank] += 1
        missing, twice = seen.find(b"\0", 1), seen.find(b"\2", 1)
        if missing < 0 and twice < 0:
            return None
        if twice < 0 or 0 <= missing < twice:
            return missing, "missing"
        return twice + 1, "given twice"

    def repeated(self):
        """The first document (in the run's order) given a second time, or None."""
        suspects = set()
        for part in self.hashes:
            if len(set(part)) != len(part):
                suspects.update(value for value, times in Counter(part).items() if times > 1)
        if suspects:
            seen = set()
            for block in range(len(self.texts)):
                ids = self.ids(block)
                for document in compress(ids, map(suspects.__contains__, map(hash, ids))):
                    if document in seen:
                        return document
                    seen.add(document)
        return None

    def summary(self):
        """summarize's (documents ranked, [(rank, grade)] of the documents graded above 0, by rank)."""
        total, hits = len(self.keys), self.hits
        if not self.trec:
            return total, sorted((rank, grade) for rank, _, grade in hits)
        scores = sorted(set(score for score, _, _ in hits))
        if self.ordered:  # above: the documents of a higher score; upto: of a higher or the same score
            above = dict((score, _higher(self.keys, score, False)) for score in scores)
            upto = dict((score, _higher(self.keys, score, True)) for score in scores)
        else:
            above, upto = self._counts(scores, bisect_left), self._counts(scores, bisect_right)
        larger = self._larger_ids(dict((score, [document for value, document, _ in hits if value == score])
                                       for score in scores if upto[score] - above[score] > 1), above, upto)
        return total, sorted((1 + above[score] + larger[document], grade) for score, document, grade in hits)

    def _counts(self, scores, search):
        """{score: documents of a higher score} (search bisect_left) or {score: of a higher or the same score}
        (bisect_right), for ``scores`` in increasing order, in one pass over the keys."""
        counts, total, result = Counter(map(partial(search, scores), self.keys)), 0, {}
        for position in range(len(scores), 0, -1):
            total += counts.get(position, 0)
            result[scores[position - 1]] = total
        return result

    def _larger_ids(self, tied, above, upto):
        """{graded document: documents of its score with a larger id} for ``tied`` {score: [graded documents]}."""
        larger = Counter()
        if not tied:
            return larger
        blocks = range(len(self.texts))
        if self.ordered:
            blocks = range(min(above[score] for score in tied) // _BATCH,
                           (max(upto[score] for score in tied) - 1) // _BATCH + 1)
        for block in blocks:
            ids, base = self.ids(block), block * _BATCH
            if self.ordered:
                groups = dict((score, ids[max(above[score] - base, 0):max(upto[score] - base, 0)]) for score in tied)
            else:
                keys, groups = self.keys[base:base + len(ids)], {}
                for i in compress(range(len(ids)), map(tied.__contains__, keys)):
                    groups.setdefault(keys[i], []).append(ids[i])
            for score, group in groups.items():
                documents = tied[score]
                if len(documents) > 8:  # many graded documents share this score: one sort, then a search each
                    group = sorted(group)
                    for document in documents:
                        larger[document] += len(group) - bisect_right(group, document)
                else:
                    for document in documents:
                        larger[document] += sum(map(document.__lt__, group))
        return larger


def _higher(scores, score, same):
    """How many of ``scores`` (an array from the highest) are above ``score`` (with ``same``, or equal to it)."""
    low, high = 0, len(scores)
    while low < high:
        middle = (low + high) // 2
        if scores[middle] > score or same and scores[middle] == score:
            low = middle + 1
        else:
            high = middle
    return low


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
                entry = buffers[query] = [number, raw_query, [], [], None]
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
            value = int(text) if text.isdecimal() and len(text) < 10 else 0
            if value < 1:
                raise SubmissionError("%s, line %d: the rank (3rd column) must be an integer from 1, found %s"
                                      % (label, number, quote(text)))
        docs.append(document if document[0] not in _SIGNS else _key(document))
        values.append(value)
        if len(values) == _BATCH:
            _hold(entry, width, query, gold)
    if width is None:
        raise SubmissionError("%s holds no run lines (%s)" % (label, RUN_LINES))
    for query in list(buffers):
        _finish(path, label, width, query, buffers.pop(query), gold, summaries, unknown)
    return summaries, unknown


def _hold(entry, width, query, gold):
    """Move a query's plain lists (a full _BATCH, or the rest at its end) into its compact form."""
    held = entry[4]
    if held is None:
        held = entry[4] = _Compact(width == 6, gold.get(query))
    held.add(entry[2], entry[3])
    del entry[2][:], entry[3][:]


def _finish(path, label, width, query, entry, gold, summaries, unknown):
    first_line, raw_query, docs, values, held = entry
    if held is not None:  # more than _BATCH documents: kept compactly
        if values:
            _hold(entry, width, query, gold)
        problem = held.bad_ranks()
        if problem:
            raise _bad_ranks(label, first_line, raw_query, *problem)
        document = held.repeated()
        if document is not None:
            raise _twice(path, label, width, query, raw_query, document)
        if query in gold:
            summaries[query] = held.summary()
        else:
            unknown.append(raw_query)
        return
    if width == 6:  # trec_eval: score descending, then document id descending
        order = sorted(zip(values, docs), reverse=True)
    else:
        order = sorted(zip(values, docs))
        for position, (rank, _) in enumerate(order, 1):
            if rank != position:
                raise _bad_ranks(label, first_line, raw_query, position, "given twice" if rank < position else
                                 "missing")
    ranked = [document for _, document in order]
    if len(set(ranked)) != len(ranked):
        seen = set()
        for document in docs:
            if document in seen:
                raise _twice(path, label, width, query, raw_query, document)
            seen.add(document)
    if query in gold:
        summaries[query] = summarize(ranked, gold[query])
    else:
        unknown.append(raw_query)


def _bad_ranks(label, first_line, raw_query, rank, problem):
    return SubmissionError("%s, line %d (query %s): the ranks must be 1, 2, 3, ... once each; rank %d is %s"
                           % (label, first_line, quote(raw_query), rank, problem))


def _twice(path, label, width, query, raw_query, document):
    return SubmissionError("%s, line %d: query %s ranks document %s a second time"
                           % (label, _line_of(path, width, query, document), quote(raw_query), quote(document)))


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
