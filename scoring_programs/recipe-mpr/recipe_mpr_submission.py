"""Reading ``predictions.json`` in either accepted form into one ranked list of option ids per query.

Form 1 (ids):   {"q000": "08cb462fdf", "q001": ["a1...", "b2...", ...], ...}  an option id, or ids ranked best first.
Form 2 (texts): [{"query": "...", "pred": "<description of the chosen option>", ...}, ...]  the dataset's own form,
                as the authors' published prediction files use it; matched to the gold by query text.

Messages quote only what the participant wrote or was given (ids, query texts), never an answer.
"""
from collections import OrderedDict

from json_stream import JsonStream
from scoring_runtime import SubmissionError, find_submission_file, load_json, shorten

FILE_NAME = "predictions.json"
FORM_IDS = "query id -> option id(s)"
FORM_TEXTS = "query objects with pred texts"
_MAX_QUOTE = 60


class Predictions(object):
    def __init__(self, rankings, form, notes=()):
        self.rankings = rankings  # query id -> list of option ids, best first (empty: no usable prediction)
        self.form = form
        self.notes = list(notes)


class _Object(dict):
    """A JSON object that remembers keys given more than once (json keeps only the last silently)."""
    duplicates = ()


def _object_hook(pairs):
    obj = _Object(pairs)
    if len(obj) < len(pairs):  # some key came twice: find which, in file order
        seen, repeated = set(), []
        for key, _ in pairs:
            if key in seen and key not in repeated:
                repeated.append(key)
            seen.add(key)
        obj.duplicates = repeated
    return obj


def _kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def quote(text):
    """A participant-visible value on one line, shortened."""
    return u'"%s"' % shorten(text, _MAX_QUOTE)


def _others(count):
    return " (and %d other quer%s)" % (count, "y" if count == 1 else "ies") if count else ""


def _parse(text):
    if not text.strip():
        raise SubmissionError("%s is empty" % FILE_NAME)
    return load_json(text, FILE_NAME, object_pairs_hook=_object_hook)


def _ranking_from_ids(qid, value, options):
    """The ranking ``value`` gives query ``qid`` whose option ids are ``options`` (a set or a dict's keys)."""
    ranked = [value] if type(value) is str else value
    if type(ranked) is list and ranked:
        try:
            distinct = set(ranked)
        except TypeError:  # an unhashable item: the checks below say which
            distinct = ()
        # Every item one of the query's option ids (so a string), none twice: nothing to report.
        if len(distinct) == len(ranked) and distinct <= options:
            return ranked
    where = "%s, query %s" % (FILE_NAME, quote(qid))
    ranked = [value] if isinstance(value, str) else value
    if not isinstance(ranked, list):
        raise SubmissionError("%s: expected an option id (a string) or a list of option ids ranked best first, "
                              "found %s" % (where, _kind(value)))
    if not ranked:
        raise SubmissionError("%s: the list of option ids is empty; rank at least one option" % where)
    seen = set()
    for position, option in enumerate(ranked, 1):
        if not isinstance(option, str):
            raise SubmissionError("%s: item %d of the list must be an option id (a string), found %s"
                                  % (where, position, _kind(option)))
        if option not in options:
            raise SubmissionError("%s: %s is not one of this query's option ids" % (where, quote(option)))
        if option in seen:
            raise SubmissionError("%s: the option %s is ranked twice" % (where, quote(option)))
        seen.add(option)
    return list(ranked)


def _repeated_query(qid):
    return SubmissionError("%s: query %s is given more than once; give one prediction per query"
                           % (FILE_NAME, quote(qid)))


def _query_ranking(qid, value, options_by_id):
    """The ranking of the member ``qid: value`` of a form-1 file, or the message of what is wrong with it."""
    options = options_by_id.get(qid)
    if options is None:
        raise SubmissionError("%s: %s is not a query id of this phase (the ids are in the public data)"
                              % (FILE_NAME, quote(qid)))
    return _ranking_from_ids(qid, value, options)


def _from_ids(data, gold):
    by_id = dict((q.id, q) for q in gold)
    if data.duplicates:
        raise _repeated_query(data.duplicates[0])
    rankings = {}
    options_by_id = dict((qid, query.options.keys()) for qid, query in by_id.items())
    for qid, value in data.items():
        rankings[qid] = _query_ranking(qid, value, options_by_id)
    missing = [qid for qid in by_id if qid not in rankings] if len(rankings) < len(by_id) else None
    if missing:
        raise SubmissionError("%s has no prediction for query %s%s; every query of the phase needs one"
                              % (FILE_NAME, quote(missing[0]), _others(len(missing) - 1)))
    return Predictions(rankings, FORM_IDS)


def text_key(text):
    """Query texts are matched with runs of white space collapsed and the ends trimmed."""
    return u" ".join(text.split())


def _queries_by_text(gold):
    by_text = OrderedDict()
    for query in gold:
        if text_key(query.text) in by_text:
            raise SubmissionError("%s: this phase has several queries with the same text, so predictions cannot be "
                                  "matched by query text; submit the form query id -> option id instead" % FILE_NAME)
        by_text[text_key(query.text)] = query
    return by_text


class _TextItems(object):
    """The items of a form-2 file checked one by one (``add``), as they are read or from the parsed list."""

    def __init__(self, gold):
        self.by_text = _queries_by_text(gold)
        self.rankings, self.first_item, self.unmatched = {}, {}, 0

    def add(self, number, item):
        by_text, rankings, first_item = self.by_text, self.rankings, self.first_item
        where = "%s, item %d" % (FILE_NAME, number)
        if not isinstance(item, dict):
            raise SubmissionError('%s: expected an object with "query" and "pred" fields, found %s'
                                  % (where, _kind(item)))
        if "query" not in item:
            raise SubmissionError('%s: the "query" field is missing' % where)
        if not isinstance(item["query"], str):
            raise SubmissionError('%s: "query" must be the query text (a string), found %s'
                                  % (where, _kind(item["query"])))
        query = by_text.get(text_key(item["query"]))
        if query is None:
            raise SubmissionError("%s: the query %s is not a query of this phase" % (where, quote(item["query"])))
        if query.id in rankings:
            raise SubmissionError("%s: the query %s appears twice (first in item %d); give one prediction per query"
                                  % (where, quote(item["query"]), first_item[query.id]))
        if "pred" not in item:
            raise SubmissionError('%s (query %s): the "pred" field is missing' % (where, quote(item["query"])))
        pred = item["pred"]
        if not isinstance(pred, str):
            raise SubmissionError('%s (query %s): "pred" must be the chosen option\'s description (a string), '
                                  'found %s' % (where, quote(item["query"]), _kind(pred)))
        # Correct exactly when pred is the answer's description, as in the authors' evaluation.
        if pred == query.options[query.answer]:
            chosen = [query.answer]
        else:
            chosen = [oid for oid, text in query.options.items() if text == pred][:1]
        if not chosen:
            self.unmatched += 1
        rankings[query.id] = chosen
        first_item[query.id] = number


def _from_texts(data, gold):
    items = _TextItems(gold)
    for number, item in enumerate(data, 1):
        items.add(number, item)
    rankings, unmatched = items.rankings, items.unmatched
    missing = [q for q in gold if q.id not in rankings]
    if missing:
        raise SubmissionError("%s has no prediction for the query %s%s; every query of the phase needs one"
                              % (FILE_NAME, quote(missing[0].text), _others(len(missing) - 1)))
    notes = []
    if unmatched:
        notes.append("%d of %d pred texts match none of their query's option descriptions exactly; they count as "
                     "wrong" % (unmatched, len(gold)))
    return Predictions(rankings, FORM_TEXTS, notes)


def read_predictions(res_dir, options_by_id=None, gold=None):
    """The parsed ``predictions.json`` (either form), read as a stream: with ``options_by_id()`` (query id -> its
    option ids) each member of a form-1 file, and with ``gold()`` (the GoldQuery list) each item of a form-2 file,
    is checked as it is read, so the first bad one ends the reading (with predictions_of's message for it)."""
    path = find_submission_file(res_dir, names=FILE_NAME)
    stream = JsonStream(path, FILE_NAME, object_pairs_hook=_object_hook)
    if stream.kind == "empty":
        raise SubmissionError("%s is empty" % FILE_NAME)
    if stream.kind == "value":
        return stream.value
    if stream.kind == "array":
        items = _TextItems(gold()) if gold is not None else None
        data = []
        for number, item in stream:
            if items is not None:
                items.add(number, item)
            data.append(item)
        return data
    options = options_by_id() if options_by_id is not None else None
    pairs, seen = [], set()
    for qid, value in stream:
        if options is not None:
            if qid in seen:
                raise _repeated_query(qid)
            seen.add(qid)
            _query_ranking(qid, value, options)
        pairs.append((qid, value))
    return _object_hook(pairs)


def predictions_of(data, gold):
    """Predictions from parsed ``predictions.json`` and the gold (a GoldQuery list); every check, every message."""
    if isinstance(data, dict):
        return _from_ids(data, gold)
    if isinstance(data, list):
        return _from_texts(data, gold)
    raise SubmissionError("%s must hold a JSON object (query id -> option id, or a list of option ids ranked best "
                          "first) or a JSON list of objects with \"query\" and \"pred\" fields; found %s"
                          % (FILE_NAME, _kind(data)))


def ranks_by_index(data, index):
    """The answer's rank in each query's ranking (None when absent), in gold order, for a form-1 submission that
    needs no message: one option id per query, or a full ranking of every query's options. None otherwise (the
    caller then reads the gold and goes through predictions_of, which finds what is wrong, or takes the rest).

    Done a column at a time (map over the queries, in C) rather than query by query: at a scale of 50,000 queries
    the loop of _from_ids is a good part of the run.
    """
    if type(data) is not _Object or data.duplicates or len(data) != len(index.ids):
        return None
    chosen = list(map(data.get, index.ids))  # None where a query is missing
    kinds = set(map(type, chosen))
    if kinds == {str}:  # one option id per query
        if not all(map(list.__contains__, index.options, chosen)):
            return None
        return [1 if hit else None for hit in map(str.__eq__, chosen, index.answers)]
    if kinds == {list}:  # full rankings: each one, sorted, is the query's options sorted
        try:
            complete = list(map(sorted, chosen)) == index.options
        except TypeError:  # items that cannot be ordered (not all strings)
            return None
        if not complete:
            return None
        return [position + 1 for position in map(list.index, chosen, index.answers)]
    return None
