"""A fast reader for plain CSV (the csv module's default dialect), used before the csv module itself.

Scoring programs read a few label columns from gold files whose text columns run to hundreds of megabytes.
Splitting such a file into lines and feeding the csv module one character at a time is most of the work; here
regular expressions take whole quoted cells at once from large chunks of the file. Only text that the csv module
would read the same way is accepted: quoted cells closed right before a comma or a line end, unquoted cells with no
quote or lone carriage return, no NUL. Anything else raises ``NotPlain`` (before that record is returned) and the
caller reads on with the csv module, which also gives the exact error messages.

The file is read as bytes: the characters that shape CSV are ASCII, and in UTF-8 an ASCII byte is never part of
another character, so records and cells split the same way as in the decoded text; each cell is decoded when it is
returned, which checks it is UTF-8 (or raises NotPlain). Records with as many cells as the header are taken in one
match of a pattern made for that width. With ``columns``, only the chosen cells of such records are decoded (the
others are returned as ''): long texts that the caller never reads are skipped, and not checked to be UTF-8.
"""
import re

_CHUNK = 1 << 20
_MAX_RECORD = 64 << 20  # a record still open after this much text is not plain CSV
_MAX_WIDTH = 256  # wider headers: rows cell by cell (a pattern per width would take long to compile)

_QUOTED = b'"[^"]*(?:""[^"]*)*"'
_PLAIN = b'[^,"\r\n]*'
_CELL = b"(?:" + _QUOTED + b"|" + _PLAIN + b")"
# A whole record and the line end that closes it (none at the end of the text read so far); then its cells.
_RECORD = re.compile(_CELL + b"(?:," + _CELL + b")*(\r\n|\n|\\Z)")
_CELLS = re.compile(b"(" + _QUOTED + b")?(" + _PLAIN + b")(,|\r\n|\n|\\Z)")
# What may precede the end of the text read so far when a record goes on in the next chunk: whole cells, then an
# open quoted cell, or a cell and the \r of a \r\n.
_PARTIAL = re.compile(b'(?:' + _CELL + b',)*(?:"[^"]*(?:""[^"]*)*"?|' + _CELL + b'\r)?\\Z')

_BOM = b"\xef\xbb\xbf"


class NotPlain(Exception):
    """The rest of the file needs the csv module."""


def _line_breaks(text, start, end, has_cr):
    # As a text file with newline="" splits lines: at \r\n, \n and a lone \r.
    if has_cr:
        return text.count(b"\n", start, end) + text.count(b"\r", start, end) - text.count(b"\r\n", start, end)
    return text.count(b"\n", start, end)


def _is_blank(record):
    return len(record) == 1 and not record[0].strip()


def _decoded_cells(text, start, stop):
    """The cells of the record text[start:stop] (one that _RECORD matched), decoded."""
    found = _CELLS.findall(text, start, stop)
    if len(found) > 1 and found[-2][2] != b",":
        found.pop()  # the empty match after the line end
    return [(quoted[1:-1].replace(b'""', b'"') if quoted else plain).decode("utf-8") for quoted, plain, _ in found]


def _sparse_record(count, chosen):
    """A regular expression for a record of ``count`` cells that captures the cells at positions ``chosen``."""
    parts = [(b"(" + _CELL + b")") if i in chosen else _CELL for i in range(count)]
    return re.compile(b",".join(parts) + b"(\r\n|\n|\\Z)")


def records(path, columns=None):
    """(line number where the record starts, list of cells) for every record, blank lines included as [''].

    ``columns``, if given, is called with the header (the first record that is not blank) and returns the positions
    of the cells the caller reads, or None for all; later records with as many cells as the header then have ''
    in every other position, unread. Decoding is UTF-8 with an optional byte-order mark; a cell that is not UTF-8
    raises NotPlain.
    """
    record_at, partial = _RECORD.match, _PARTIAL.match
    sparse_at, chosen, blank, every = None, (), None, False
    line = 1
    text = b""
    first = True
    try:
        with open(path, "rb") as handle:
            eof = False
            while not eof:
                chunk = handle.read(_CHUNK)
                eof = not chunk
                if first:
                    while len(chunk) < len(_BOM) and not eof:  # the byte-order mark in one piece
                        more = handle.read(_CHUNK)
                        eof = not more
                        chunk += more
                    if chunk.startswith(_BOM):
                        chunk = chunk[len(_BOM):]
                    first = False
                if b"\0" in chunk:
                    raise NotPlain()
                text += chunk
                find = text.find
                has_cr = b"\r" in text
                pos, size = 0, len(text)
                while pos < size:
                    while sparse_at is not None and pos < size:  # rows as wide as the header
                        match = sparse_at(text, pos)
                        if match is None:
                            break
                        cells = match.groups()
                        if not (cells[-1] or eof):
                            break  # the record may go on in the next chunk
                        stop = match.end()
                        if every and find(b'"', pos, stop) < 0:  # no quoted cell: the cells are the parts
                            record = text[pos:stop - len(cells[-1])].decode("utf-8").split(",")
                        elif every:
                            record = [(raw[1:-1].replace(b'""', b'"') if raw[:1] == b'"' else raw).decode("utf-8")
                                      for raw in cells[:-1]]
                        else:
                            record = list(blank)
                            for position, raw in zip(chosen, cells):
                                record[position] = (raw[1:-1].replace(b'""', b'"') if raw[:1] == b'"'
                                                    else raw).decode("utf-8")
                        yield line, record
                        line += _line_breaks(text, pos, stop, True) if has_cr else text.count(b"\n", pos, stop)
                        pos = stop
                    if pos >= size:
                        break
                    match = record_at(text, pos)
                    if match is None or not (eof or match.group(1)):
                        if eof or not (match or partial(text, pos)):
                            raise NotPlain()
                        break  # the record may go on in the next chunk
                    stop = match.end()
                    record = _decoded_cells(text, pos, stop)
                    if blank is None and not _is_blank(record):  # the header: later rows as wide in one match
                        width, blank = len(record), [""] * len(record)
                        chosen = columns(record) if columns is not None else None
                        chosen = range(width) if chosen is None else sorted(set(i for i in chosen if 0 <= i < width))
                        every = len(chosen) == width
                        if 1 < width <= _MAX_WIDTH:  # one cell left '' would read as a blank line
                            sparse_at = _sparse_record(width, chosen).match
                    yield line, record
                    line += _line_breaks(text, pos, stop, has_cr)
                    pos = stop
                text = text[pos:]
                if len(text) > _MAX_RECORD:
                    raise NotPlain()
    except UnicodeDecodeError:
        raise NotPlain()


# ---------------------------------------------------------------------------------------------------------------
# Whole columns at once, for files in the usual shape

_GROUPS = type(re.match("", "")).groups  # re.Match.groups (the class has no public name on Python 3.6)
_LINE_ENDS = re.compile(b"(?:\r\n|\n)*\\Z")


def _more(handle, text, pos):
    """(text[pos:] and the next chunk, end of file reached); a record longer than a chunk doubles the read."""
    rest = text[pos:]
    if len(rest) > _MAX_RECORD:
        raise NotPlain()
    chunk = handle.read(max(_CHUNK, len(rest)))
    if b"\0" in chunk:
        raise NotPlain()
    return rest + chunk, not chunk


def _cut(text, pos):
    """Whether text[pos:] may be the start of a record that goes on in the next chunk."""
    match = _RECORD.match(text, pos)
    return not match.group(1) if match is not None else _PARTIAL.match(text, pos) is not None


def _header(handle):
    """(the cells of the first record, the text read so far, where the next record starts, end of file reached)."""
    text = handle.read(max(_CHUNK, len(_BOM)))
    if text.startswith(_BOM):
        text = text[len(_BOM):]
    if b"\0" in text:
        raise NotPlain()
    eof = False
    while True:
        match = _RECORD.match(text)
        if match is not None and (eof or match.group(1)):
            return _decoded_cells(text, 0, match.end()), text, match.end(), eof
        if eof or not (match or _PARTIAL.match(text)):
            raise NotPlain()
        text, eof = _more(handle, text, 0)


def _decoded(cells):
    """The cells (bytes, quoted or not) as str: joined by NUL, which plain CSV never holds, to decode and unquote
    them in a few C calls."""
    text = b"\0".join(cells).decode("utf-8")
    if '"' in text:
        # Only quoted cells hold quotes: the opening one right after a NUL (or the start), the closing one right
        # before a NUL (or the end), and pairs in between, each standing for one quote.
        text = ("\0" + text + "\0").replace('\0"', "\0").replace('"\0', "\0")[1:-1].replace('""', '"')
    return text.split("\0")


def _collect(stores, matches):
    """Append the captured cells of the matched records to one list per captured position."""
    for store, cells in zip(stores, zip(*map(_GROUPS, matches))):
        store.extend(_decoded(cells))


def columns(path, choose):
    """(header, [the cells of every later record at each position ``choose(header)`` returns]), for files in the
    usual shape only: the header first (after an optional byte-order mark), then records all as wide as the
    header (two to _MAX_WIDTH cells), each closed by \\r\\n or \\n except perhaps the last, then at most line ends.

    Records are matched in C calls a chunk at a time and the chosen cells of a chunk decoded in one go, so nothing
    is done in Python per record; there are no line numbers. Anything else (blank lines, a row of another width,
    a lone \\r, a chosen cell that is not UTF-8, what ``records`` would refuse) raises NotPlain, as ``choose`` may
    to decline the file: the caller then reads it with ``records``, which takes every shape and numbers the lines
    for its messages.
    """
    try:
        with open(path, "rb") as handle:
            header, text, pos, eof = _header(handle)
            positions = list(choose(header))
            width = len(header)
            chosen = sorted(set(positions))
            if not (1 < width <= _MAX_WIDTH and chosen and 0 <= chosen[0] and chosen[-1] < width):
                raise NotPlain()
            cells = b",".join((b"(" + _CELL + b")") if i in chosen else _CELL for i in range(width))
            record = re.compile(cells + b"(?:\r\n|\n)")
            found = dict((position, []) for position in chosen)
            stores = [found[position] for position in chosen]
            while True:
                matches = list(iter(record.scanner(text, pos).match, None))
                if matches:
                    _collect(stores, matches)
                    pos = matches[-1].end()
                if eof:
                    break
                if pos < len(text) and not _cut(text, pos):
                    raise NotPlain()
                text, eof = _more(handle, text, pos)
                pos = 0
            if not _LINE_ENDS.match(text, pos):  # the last record has no line end
                last = re.compile(cells + b"\\Z").match(text, pos)
                if last is None:
                    raise NotPlain()
                _collect(stores, [last])
    except UnicodeDecodeError:
        raise NotPlain()
    return header, [found[position] for position in positions]
