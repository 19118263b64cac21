"""Character offsets of spans in a text: the lists participants write (``[4, 5, 6]``) and the per-post scores of
SemEval-2021 Task 5, shared by the toxic-spans program and the generic ``spans`` kind so both score and refuse alike.

Lists come from participants, so they are parsed strictly (brackets, commas, plain digits) instead of with
``ast.literal_eval``, which accepts any Python literal and is slow on large files. When a list is rejected,
``describe_list_problem`` says what is wrong in words a participant can act on.

Per post, with P the predicted and G the gold offsets (as sets):
  G empty          -> 1 if P is empty, else 0
  P empty (G not)  -> 0
  otherwise        -> 2|P & G| / (|P| + |G|)
Precision |P & G| / |P| and recall |P & G| / |G| follow the same rule whenever P or G is empty.
"""
import re

from scoring_base import MAX_INTEGER_DIGITS, parse_integer, quote

_OFFSET_RE = re.compile(r"[0-9]+\Z")  # [0-9], not \d: \d accepts other scripts' digits, which int() converts
_SPACED_RE = re.compile(r"[0-9]+(?:\s+[0-9]+)+\Z")
_NEGATIVE_RE = re.compile(r"-\s*[0-9]+\Z")
_SIGNED_RE = re.compile(r"\+\s*[0-9]+\Z")
_NUMBER_RE = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")


class _OffsetCache(dict):
    """List item text (spaces included, e.g. ' 12') -> int offset; a miss validates the item.

    Items repeat across posts, so a lookup replaces a regular expression and an int() per offset (three times
    faster on a large file), and every post shares one int object per offset value (less memory).
    """

    def __missing__(self, item):
        digits = item.strip()
        if not _OFFSET_RE.match(digits) or len(digits) > MAX_INTEGER_DIGITS:
            raise ValueError(item)
        value = self[item] = int(digits)
        return value


_OFFSETS = _OffsetCache()
_OFFSET_OF = _OFFSETS.__getitem__


def parse_offsets(text):
    """The offsets of a list such as ``[1, 2, 3]`` as a tuple of distinct ints, or None if ``text`` is not one.

    Accepted: ``[]``, spaces anywhere between the tokens, one trailing comma. Items must be plain digits.
    """
    text = text.strip()
    if text[:1] != "[" or text[-1:] != "]":
        return None
    items = text[1:-1].split(",")
    if len(items) > 1 and not items[-1].strip():
        items.pop()  # [1, 2,]
    elif len(items) == 1 and not items[0].strip():
        return ()
    try:
        return tuple(set(map(_OFFSET_OF, items)))
    except ValueError:
        return None


def describe_list_problem(text, missing_hint="write [] for a post without spans"):
    """Why ``text`` is not a list of non-negative integer offsets (for a text that parse_offsets rejected)."""
    text = text.strip()
    if not text:
        return "the list of offsets is missing (%s)" % missing_hint
    if not (text.startswith("[") and text.endswith("]")):
        return ("the offsets must be a list in square brackets such as [] or [4, 5, 6], found %s"
                % quote(text))
    items = text[1:-1].split(",")
    for position, item in enumerate(items):
        item = item.strip()
        if not item:
            if position == len(items) - 1 and position > 0:
                continue  # one trailing comma is fine: [1, 2,]
            return "the list has an empty item (two commas in a row, or a comma first)"
        if _OFFSET_RE.match(item):
            try:
                parse_integer(item, "offset")
            except ValueError as exc:
                return str(exc)
            continue
        if _SPACED_RE.match(item):
            return "%s is not an offset (separate offsets with commas)" % quote(item)
        if _NEGATIVE_RE.match(item):
            return "offset %s is negative (offsets count characters from 0)" % quote(item)
        if _SIGNED_RE.match(item):
            return "offset %s has a sign: write plain integers such as 4" % quote(item)
        if _NUMBER_RE.match(item):
            return "offset %s is not an integer" % quote(item)
        return "%s is not an offset (offsets are integers 0, 1, 2, ...)" % quote(item)
    return "the list is not well formed: %s" % quote(text)


def post_scores(predicted, gold):
    """(F1, precision, recall) of one post; both arguments are collections of DISTINCT offsets."""
    if not gold or not predicted:
        value = 1.0 if not gold and not predicted else 0.0
        return value, value, value
    common = len(set(predicted).intersection(gold))
    # 2 * common / (|P| + |G|) with ints: the same correctly rounded float as the official float(nom) / float(denom).
    return 2 * common / float(len(predicted) + len(gold)), common / float(len(predicted)), common / float(len(gold))


# Posts by (gold empty, prediction empty), in the order the reports show them.
POST_GROUPS = (
    ("gold has spans, spans predicted", False, False),
    ("gold has spans, nothing predicted", False, True),
    ("gold has no span, nothing predicted", True, True),
    ("gold has no span, spans predicted", True, False),
)
