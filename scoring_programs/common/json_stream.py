"""A JSON document whose top level is an object or an array, read member by member (item by item) from the file,
so that a caller checking each one stops at the first bad one having read the file only up to it, and holds only
what it keeps.

What it yields, and every message, are those of ``load_json(read_text(path))`` (scoring_base): the same values,
the same "line L, column C: not valid JSON (...)" for a syntax error at the same place, the same refusals of a text
nested deeper than MAX_JSON_DEPTH or of an integer longer than MAX_INTEGER_DIGITS. Only their order can differ: a
caller that refuses a member stops before a syntax error further on, which the whole-document parse found first.

The file is read in chunks; each member is decoded by the json module (its C scanner) from the chunk, and a member
cut by the end of a chunk is decoded again once more text has been read (reads grow with what is carried over, so
the text decoded in all is at most about twice the file; a member cut inside a string is not decoded again until
a quote has been read after it). The depth and long-number guards of load_json run on the skeleton of the text, in
C, made once per character: the skeleton of what is left of the text is kept and the next chunk's is added to it
(_grown); the depth guard takes the part of the members given out. Anything unusual (a text nested too deep) is
handed to load_json on the whole text, which gives its message.

Python 3.6+ and the standard library only, as the rest of the runtime.
"""
import io
import json
import re

from scoring_base import (MAX_JSON_DEPTH, SubmissionError, _bounded_int, _has_long_number, _json_shallow,
                          _json_skeleton, _LongNumber, load_json, read_text)

_CHUNK = 1 << 20
_WHITESPACE = re.compile(r"[ \t\n\r]*")
# An error this close to the end of the text read so far may only mean that the text goes on: read more first.
_NEAR_END = 8
# The characters of a JSON number: one may go on past the end of the text read so far when that ends with them.
_NUMBER_CHARS = frozenset("0123456789.eE+-")


class _NeedMore(Exception):
    """The member at hand goes on past the text read so far."""


class JsonStream(object):
    """``kind`` is "object" or "array" (iterate: (key, value) or (item number from 1, value)), "empty" (the file
    holds only white space) or "value" (another JSON value, parsed whole into ``value``)."""

    def __init__(self, path, label, error=SubmissionError, object_pairs_hook=None):
        self.path, self.label, self.error = path, label, error
        self.hook = object_pairs_hook
        self._fast = json.JSONDecoder(object_pairs_hook=object_pairs_hook)
        self._bounded = json.JSONDecoder(object_pairs_hook=object_pairs_hook, parse_int=_bounded_int)
        self.value = None
        self._open_string = False  # the last member tried was cut inside a string
        self._handle = io.open(path, encoding="utf-8-sig", newline="")
        self._text, self._base, self._newlines, self._line_start, self._eof = "", 0, 0, 0, False
        try:
            pos = self._skip(0)
            first = self._text[pos:pos + 1]
        except UnicodeDecodeError:
            self._undecodable()
        if not first:
            self.kind = "empty"
        elif first in "{[":
            self.kind = "object" if first == "{" else "array"
            self._start = pos + 1
        else:
            self.kind = "value"
            self._handle.close()
            self.value = self.whole()

    # -- reading -------------------------------------------------------------------------------------------------

    def _more(self, keep):
        """Drop the text before ``keep`` and read on: at least as much as is kept (see the module's note)."""
        newline = self._text.rfind("\n", 0, keep)
        if newline >= 0:
            self._newlines += self._text.count("\n", 0, newline + 1)
            self._line_start = self._base + newline + 1
        self._base += keep
        chunk = self._handle.read(max(_CHUNK, len(self._text) - keep))
        self._eof = not chunk
        self._read_at = len(self._text) - keep  # where the chunk just read starts in the new text
        self._text = self._text[keep:] + chunk
        return self._eof

    def _skip(self, pos):
        """The position of the next character that is not JSON white space, reading on as needed (the text before
        ``pos`` may then be dropped: positions are relative to self._text)."""
        while True:
            pos = _WHITESPACE.match(self._text, pos).end()
            if pos < len(self._text) or self._eof:
                return pos
            self._more(pos)
            pos = 0

    def _place(self, pos):
        """(line, column) of self._text[pos], counted in the whole text as json counts them."""
        newline = self._text.rfind("\n", 0, pos)
        line = self._newlines + self._text.count("\n", 0, pos) + 1
        start = self._base + newline + 1 if newline >= 0 else self._line_start
        return line, self._base + pos - start + 1

    def _syntax(self, message, pos):
        if not self._eof and (pos >= len(self._text) - _NEAR_END or message.startswith("Unterminated string")):
            self._open_string = message.startswith("Unterminated string")
            raise _NeedMore()
        line, column = self._place(pos)
        raise self.error("%s, line %d, column %d: not valid JSON (%s)" % (self.label, line, column, message))

    def whole(self):
        """The value load_json reads from the whole file (or its error)."""
        return load_json(read_text(self.path, self.label, self.error), self.label, self.error,
                         **({"object_pairs_hook": self.hook} if self.hook else {}))

    def _undecodable(self):
        self._handle.close()
        read_text(self.path, self.label, self.error)  # raises read_text's message, naming the line and byte
        raise self.error("%s is not UTF-8 text" % self.label)

    # -- members -------------------------------------------------------------------------------------------------

    def _member(self, pos, decoder, first):
        """(key or None, value, end, closed) of the member at ``pos`` (after the '{' or '[' or a ','): ``end`` is
        after the ',' that follows it, or after the closing bracket (``closed``). None at the closing bracket of an
        empty object or array."""
        text, is_object = self._text, self.kind == "object"
        closing = "}" if is_object else "]"
        self._open_string = False
        pos = _WHITESPACE.match(text, pos).end()
        if first and text[pos:pos + 1] == closing:
            return None
        key = None
        if is_object:
            if text[pos:pos + 1] != '"':
                self._syntax("Expecting property name enclosed in double quotes", pos)
            try:
                key, pos = json.decoder.scanstring(text, pos + 1, True)
            except json.JSONDecodeError as exc:
                self._syntax(exc.msg, exc.pos)
            pos = _WHITESPACE.match(text, pos).end()
            if text[pos:pos + 1] != ":":
                self._syntax("Expecting ':' delimiter", pos)
            pos = _WHITESPACE.match(text, pos + 1).end()
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            self._syntax(exc.msg, exc.pos)
        if pos >= len(text) and not self._eof:
            raise _NeedMore()  # a number may go on
        pos = _WHITESPACE.match(text, pos).end()
        char = text[pos:pos + 1]
        if char != "," and char != closing:
            self._syntax("Expecting ',' delimiter", pos)
        return key, value, pos + 1, char == closing

    def __iter__(self):
        if self.kind not in ("object", "array"):
            return
        try:
            for member in self._members():
                yield member
        except UnicodeDecodeError:
            self._undecodable()
        finally:
            self._handle.close()

    def _members(self):
        """The members, a chunk's worth at a time: each batch is checked against the depth limit before any of it
        is given out."""
        pos, number, closed, skeleton = self._start, 0, False, None
        while not closed:
            # json's own int, unless a run of digits too long for a number may stand outside strings (the end of
            # the text may cut a string: then the bounded parser, which is only slower, is used for this chunk).
            # After the first chunk, the text is what was left of the one before (its skeleton kept) and the chunk
            # read after it: only the chunk's skeleton is new (_grown).
            skeleton = self._grown(skeleton) if skeleton is not None else _json_skeleton(self._text[pos:])
            decoder = self._bounded if _has_long_number(skeleton) else self._fast
            batch = []
            while not closed:
                try:
                    member = self._member(pos, decoder, number == 0 and not batch)
                except _NeedMore:
                    break
                except RecursionError:
                    self._too_deep()
                except _LongNumber as exc:
                    if not self._eof and self._text[-1:] in _NUMBER_CHARS:
                        break  # the number may go on in the next chunk: its digits are counted then
                    raise self.error("%s: %s" % (self.label, exc))
                if member is None:  # {} or []
                    pos = _WHITESPACE.match(self._text, pos).end() + 1
                    closed = True
                    break
                key, value, pos, closed = member
                batch.append((key, value))
            if batch:  # the depth guard over the members taken: the skeleton above less that of the text after them
                rest = self._text[pos - 1 if closed else pos:]  # (which begins outside strings, after a ',', '}' or
                rest = _json_skeleton(rest) if rest else b""  # ']': the two skeletons join there)
                if not _json_shallow(skeleton[:len(skeleton) - len(rest)], MAX_JSON_DEPTH - 1):
                    self._too_deep()
                skeleton = rest
            for key, value in batch:
                number += 1
                yield (key if self.kind == "object" else number), value
            if not closed:
                self._more(pos)
                pos = 0
                # A member cut inside a string: while what is read after it holds no quote, the string cannot end
                # there (decoding it again would stop at the same place, or at the same error further on): read on.
                while self._open_string and self._text.find('"', self._read_at) < 0 and not self._eof:
                    if skeleton is not None:
                        skeleton = self._grown(skeleton)
                    self._more(0)
        end = self._skip(pos)
        if end < len(self._text):
            line, column = self._place(end)
            raise self.error("%s, line %d, column %d: not valid JSON (Extra data)" % (self.label, line, column))

    def _grown(self, skeleton):
        """The skeleton of the whole text, from ``skeleton``, that of the text before the chunk last read (_more).

        A skeleton is made bytewise but for the escapes, paired from the left: the text before the chunk ending in an
        odd run of backslashes, its last one pairs with what follows. That one adds nothing to the skeleton before
        (a lone backslash is deleted): it goes with the chunk."""
        text, start = self._text, self._read_at
        run = 0
        while run < start and text[start - 1 - run] == "\\":
            run += 1
        return skeleton + _json_skeleton(text[start - run % 2:])

    def _too_deep(self):
        """load_json's message for the whole text, which nests deeper than allowed (the check above is exact for
        whole members, so it refuses; the last line is only a guard)."""
        self._handle.close()
        self.whole()
        raise self.error("%s: the JSON is nested too deeply" % self.label)
