"""Parsing of ``<id><TAB><list>`` lines; the lists themselves (``[10, 11, 12]``) are parsed by the shared
common/char_offsets.py, as in the generic spans kind."""
import re

from char_offsets import describe_list_problem, parse_offsets  # noqa: F401 (the task's names for them)
from scoring_runtime import MAX_INTEGER_DIGITS, parse_integer, quote

_ID_RE = re.compile(r"-?[0-9]+\Z")
_PLAIN_ID_RE = re.compile(r"-?[0-9]{1,%d}\Z" % MAX_INTEGER_DIGITS)

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
