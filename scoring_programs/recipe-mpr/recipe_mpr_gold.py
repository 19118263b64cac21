"""The gold data of one phase: a JSON list in the dataset's own schema (query, query_type, options, answer).

Also used by the bundle's derive.py, so that public data and scoring agree on query ids.
"""
import os
from itertools import repeat

from scoring_runtime import ReferenceDataError, find_reference_file, load_json, read_text

# The five query types the benchmark reports on (the released file has no others; older drafts had more).
QUERY_TYPES = ("Specific", "Commonsense", "Negated", "Analogical", "Temporal")


class GoldQuery(object):
    __slots__ = ("id", "text", "options", "answer", "types")

    def __init__(self, qid, text, options, answer, types):
        self.id = qid
        self.text = text
        self.options = options  # option id -> description, in the file's order (dicts keep it from Python 3.6)
        self.answer = answer
        self.types = types  # tuple of the QUERY_TYPES flagged 1, in QUERY_TYPES order


def default_id(position):
    """The name of a query without an ``id`` field: its 0-based position, as q000, q001, ..."""
    return "q%03d" % position


def _flags(value, where):
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ReferenceDataError("%s: query_type must be an object of 0/1 flags" % where)
    types = []
    for name in QUERY_TYPES:
        flag = value.get(name, 0)
        if flag not in (0, 1):
            raise ReferenceDataError("%s: query_type %s must be 0 or 1" % (where, name))
        if flag == 1:
            types.append(name)
    return tuple(types)


def flagged_types(value):
    """The types a query_type value flags, as the reader finds them (a tuple); None when it would refuse the value."""
    try:
        return _flags(value, "")
    except ReferenceDataError:
        return None


_TYPES_OF = {}  # query_type object as items -> the flagged types (queries share a few combinations)


def _fast_query(item, position):
    """The GoldQuery of a well-formed item, or None to let _query find what is wrong (same checks, less work)."""
    if type(item) is not dict:
        return None
    qid, text, options, answer = item.get("id", None), item.get("query"), item.get("options"), item.get("answer")
    if qid is None:
        qid = default_id(position)
    flags = item.get("query_type")
    try:
        types = _TYPES_OF[tuple(flags.items())] if flags is not None else ()
    except (KeyError, AttributeError, TypeError):
        return None
    if type(qid) is not str or not qid or type(text) is not str or not text.strip() or type(options) is not dict \
            or not options or type(answer) is not str or answer not in options \
            or not all(map(isinstance, options.values(), repeat(str))):
        return None
    return GoldQuery(qid, text, options, answer, types)


def _query(item, position, label):
    found = _fast_query(item, position)
    if found is not None:
        return found
    where = "%s, query %d" % (label, position + 1)
    if not isinstance(item, dict):
        raise ReferenceDataError("%s: expected an object" % where)
    qid = item.get("id", default_id(position))
    text, options, answer = item.get("query"), item.get("options"), item.get("answer")
    if not isinstance(qid, str) or not qid:
        raise ReferenceDataError("%s: id must be a non-empty string" % where)
    if not isinstance(text, str) or not text.strip():
        raise ReferenceDataError("%s: query must be a non-empty string" % where)
    if not isinstance(options, dict) or not options:
        raise ReferenceDataError("%s: options must be a non-empty object (option id -> description)" % where)
    if not all(isinstance(v, str) for v in options.values()):
        raise ReferenceDataError("%s: every option description must be a string" % where)
    if not isinstance(answer, str) or answer not in options:  # option ids are strings (JSON keys)
        raise ReferenceDataError("%s: the answer is not one of the query's options" % where)
    flags = item.get("query_type")
    types = _flags(flags, where)
    if isinstance(flags, dict):
        try:
            _TYPES_OF[tuple(flags.items())] = types
        except TypeError:  # unhashable flags: checked every time
            pass
    return GoldQuery(qid, text, options, answer, types)


def parse_items(text, label):
    """The items of a reference file's text (a non-empty JSON list), each to be checked by queries_of."""
    data = load_json(text, label, ReferenceDataError)
    if not isinstance(data, list) or not data:
        raise ReferenceDataError("%s must be a non-empty JSON list of queries" % label)
    return data


def queries_of(items, label):
    """GoldQuery list of the gold's items; ``label`` names the file in error messages."""
    queries = [_query(item, i, label) for i, item in enumerate(items)]
    seen = set()
    for query in queries:
        if query.id in seen:
            raise ReferenceDataError("%s: the query id %s appears twice" % (label, query.id))
        seen.add(query.id)
    return queries


def parse_reference(text, label):
    """GoldQuery list from the text of a reference file; ``label`` names the file in error messages."""
    return queries_of(parse_items(text, label), label)


def find_gold(ref_dir):
    """The path of the phase's gold: the one ``*.json`` file of the reference data."""
    return find_reference_file(ref_dir, suffix=".json")


def read_items(path):
    return parse_items(read_text(path, error=ReferenceDataError), os.path.basename(path))


def load_gold_file(path):
    return queries_of(read_items(path), os.path.basename(path))


def load_reference(ref_dir):
    return load_gold_file(find_gold(ref_dir))
