"""Parsing of toxic-span lists (``[10, 11, 12]``) and of ``<id><TAB><list>`` lines.

Lists come from participants, so they are parsed strictly (brackets, commas, plain digits) instead of with
``ast.literal_eval``, which accepts any Python literal and is slow on large files. When a list is rejected,
``describe_list_problem`` says what is wrong in words a participant can act on.
"""
import re

from scoring_runtime import MAX_INTEGER_DIGITS, parse_integer, quote

_OFFSET_RE = re.compile(r"[0-9]+\Z")  # [0-9], not \d: \d accepts other scripts' digits, which int() converts
_SPACED_RE = re.compile(r"[0-9]+(?:\s+[0-9]+)+\Z")
_ID_RE = re.compile(r"-?[0-9]+\Z")
_PLAIN_ID_RE = re.compile(r"-?[0-9]{1,%d}\Z" % MAX_INTEGER_DIGITS)
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


def describe_list_problem(text):
    """Why ``text`` is not a list of non-negative integer offsets (for a text that parse_offsets rejected)."""
    text = text.strip()
    if not text:
        return "the list of offsets is missing (write [] for a post without toxic spans)"
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


def split_line(line):
    """(id, list text) of an ``<id><TAB><list>`` line, or raise ValueError saying what is wrong.

    Spaces around either field and trailing whitespace are tolerated; the separator must be one tab.
    """
    parts = line.split("\t")
    if len(parts) == 2 and _PLAIN_ID_RE.match(parts[0]):  # no spaces, at most 30 digits: parse_integer's int
        return int(parts[0]), parts[1]
    while len(parts) > 2 and not parts[-1].strip():
        parts.pop()  # trailing tabs
    if len(parts) != 2:
        if len(parts) == 1:
            hint = (" (the id and the list must be separated by a tab, not spaces)"
                    if re.match(r"\s*-?[0-9]+ +\[", line) else "")
            raise ValueError("expected <id><TAB><list of offsets>, found no tab%s" % hint)
        raise ValueError("expected <id><TAB><list of offsets>, found %d tabs" % (len(parts) - 1))
    post_id = parts[0].strip()
    if not _ID_RE.match(post_id):
        raise ValueError("the id %s is not an integer" % quote(post_id))
    return parse_integer(post_id, "the id"), parts[1]
