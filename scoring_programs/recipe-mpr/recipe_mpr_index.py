"""The gold index: what scoring by option ids needs from the gold, written beside it by the builder.

Parsing the gold JSON is most of a run at scale, though scoring a submission of option ids reads none of the texts,
flags objects and explanations that make up most of the file. So the builder writes ``<gold file>.index`` beside
the gold (bundles/recipe-mpr/derive.py): one JSON object holding the gold's SHA-256 and, per query in gold order,
its id, answer, option ids (sorted) and flagged types (as a bit mask). The scorer uses the index only when that
digest is the gold file's; a missing, stale or unreadable index is passed over (a note on standard output says why
when it is there) and the gold is read as usual, its parsed queries made into the same index by columns (index_of)
when they are well formed. Scores and messages are the same either way.
"""
import hashlib
import io
import json
import os
from itertools import chain, repeat

from recipe_mpr_gold import QUERY_TYPES, default_id, flagged_types, queries_of, read_items

SUFFIX = ".index"
FORMAT = "recipe-mpr gold index, version 1"

# Bit mask of flagged types -> the tuple of their names in QUERY_TYPES order (GoldQuery.types).
_TYPES_OF_MASK = [tuple(t for bit, t in enumerate(QUERY_TYPES) if mask >> bit & 1)
                  for mask in range(1 << len(QUERY_TYPES))]


class GoldIndex(object):
    """The gold's queries as parallel lists, in gold order."""
    __slots__ = ("ids", "answers", "options", "types")

    def __init__(self, ids, answers, options, types):
        self.ids = ids  # query ids
        self.answers = answers  # the answer's option id
        self.options = options  # the option ids, sorted (were they not, ranks_by_index would only decline)
        self.types = types  # tuple of flagged types, as GoldQuery.types


def _digest(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:  # a megabyte at a time: quicker than the whole file in one bytes object
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def index_of(items):
    """The GoldIndex of the gold's items (recipe_mpr_gold.parse_items) when every query is well formed, checked as
    the gold reader checks a query but a column at a time (map over the queries, in C); None otherwise, for
    queries_of to say what is wrong. At 50,000 queries, making a GoldQuery of each took longer than parsing them."""
    if set(map(type, items)) != {dict}:
        return None
    ids, texts, options, answers, flags = (list(map(dict.get, items, repeat(key)))
                                           for key in ("id", "query", "options", "answer", "query_type"))
    if None in ids:  # no id (or null): named by position, as the reader names it
        ids = [default_id(position) if qid is None else qid for position, qid in enumerate(ids)]
    try:
        if not (set(map(type, ids)) == {str} and all(ids) and len(set(ids)) == len(ids)
                and set(map(type, texts)) == {str} and all(texts) and not any(map(str.isspace, texts))
                and set(map(type, options)) == {dict} and all(options)
                and set(map(type, chain.from_iterable(map(dict.values, options)))) == {str}
                and all(map(dict.__contains__, options, answers))):
            return None
        # A few combinations of flags recur: each is read once.
        flags = [() if value is None else tuple(value.items()) for value in flags]
        types = dict((key, flagged_types(dict(key))) for key in set(flags))
    except (TypeError, AttributeError):  # an answer or flag that cannot be hashed, a query_type not an object
        return None
    if None in types.values():
        return None
    return GoldIndex(ids, answers, list(map(sorted, options)), list(map(types.__getitem__, flags)))


def index_text(gold_path):
    """The index of a gold file, as text; the gold is read and checked as the scorer reads it."""
    items = read_items(gold_path)
    index = index_of(items)
    if index is None:
        queries = queries_of(items, os.path.basename(gold_path))
        index = GoldIndex([q.id for q in queries], [q.answer for q in queries], [sorted(q.options) for q in queries],
                          [q.types for q in queries])
    masks = dict((types, mask) for mask, types in enumerate(_TYPES_OF_MASK))
    data = {"format": FORMAT, "gold_sha256": _digest(gold_path), "ids": index.ids, "answers": index.answers,
            "options": index.options, "types": [masks[types] for types in index.types]}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_index(gold_path):
    """Write ``<gold_path>.index``; returns its path."""
    path = gold_path + SUFFIX
    with io.open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(index_text(gold_path))
    return path


def _check(data):
    """GoldIndex of a parsed index (its format checked), or ValueError saying what is wrong with it."""
    ids, answers, options, masks = (data.get(key) for key in ("ids", "answers", "options", "types"))
    lists = (ids, answers, options, masks)
    if not all(type(v) is list for v in lists) or len(set(map(len, lists))) != 1 or not ids:
        raise ValueError("its lists are missing or differ in length")
    if set(map(type, ids)) != {str} or len(set(ids)) != len(ids) or set(map(type, options)) != {list} \
            or not all(map(list.__contains__, options, answers)):
        raise ValueError("its queries are not well formed")
    if set(map(type, masks)) != {int} or min(masks) < 0 or max(masks) >= len(_TYPES_OF_MASK):
        raise ValueError("its type masks are out of range")
    return GoldIndex(ids, answers, options, list(map(_TYPES_OF_MASK.__getitem__, masks)))


def load_index(gold_path):
    """(GoldIndex or None, note or None): the index of ``gold_path`` when it is there and current."""
    path = gold_path + SUFFIX
    if not os.path.isfile(path):
        return None, None
    name, gold = os.path.basename(path), os.path.basename(gold_path)
    try:
        with io.open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a %s" % FORMAT)
        if data.get("gold_sha256") != _digest(gold_path):
            return None, "%s is not the index of this %s (made from another version of it); read %s instead" \
                % (name, gold, gold)
        return _check(data), None
    except (OSError, ValueError, RecursionError) as exc:  # UnicodeDecodeError and json's errors are ValueErrors
        return None, "%s cannot be used (%s); read %s instead" % (name, exc, gold)
