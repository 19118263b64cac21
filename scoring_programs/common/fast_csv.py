"""A fast reader for plain CSV (the csv module's default dialect), used before the csv module itself.

Scoring programs read a few label columns from gold files whose text columns run to hundreds of megabytes.
Splitting such a file into lines and feeding the csv module one character at a time is most of the work; here
regular expressions take whole quoted cells at once from large chunks of the file. Only text that the csv module
would read the same way is accepted: quoted cells closed right before a comma or a line end, unquoted cells with no
quote or lone carriage return, no NUL. Anything else raises ``NotPlain`` and the caller reads with the csv module,
which also gives the exact error messages.

The file is read as bytes: the characters that shape CSV are ASCII, and in UTF-8 an ASCII byte is never part of
another character, so records and cells split the same way as in the decoded text; a cell is decoded when it is
returned, which checks it is UTF-8 (or raises NotPlain). Cells the caller does not choose are skipped: long texts
it never reads are not built, and not checked to be UTF-8.

Two readers:
- ``records`` takes any text, record by record with its line number: NotPlain is raised before the record it
  concerns is returned, so the caller reads on from there with the csv module.
- ``columns`` takes only files in the usual shape (a header, then rows as wide, no blank lines but at the end) and
  returns the chosen cells column by column, a chunk of the file at a time, with no per-record work in Python and
  no line numbers; on NotPlain the caller reads the whole file again (with ``records``), which names the lines.
"""
import re
from operator import methodcaller

_CHUNK = 1 << 20
_MAX_RECORD = 64 << 20  # a record still open after this much text is not plain CSV
_MAX_WIDTH = 256  # wider headers: records cell by cell, columns refused (a pattern per width is slow to compile)

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


def _opens_unclosed_quote(text, pos):
    """Whether the record at ``pos`` opens a quoted cell on its first line that nothing after closes: it goes on
    in the next chunk (or is not plain). Found with two byte searches, where a failed regular expression match
    backtracks one byte at a time over the whole cell."""
    quote = text.find(b'"', pos)
    if quote < 0 or text.rfind(b'"') != quote:
        return False
    return text.find(b"\n", pos, quote) < 0 and text.find(b"\r", pos, quote) < 0


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
                # A record still open after this chunk is matched again from its start with the next one: read at
                # least as much as is carried over, so the text matched in all is at most twice the record (a 64 MB
                # quoted cell read 1 MB at a time was matched 64 times over: quadratic).
                chunk = handle.read(max(_CHUNK, len(text)))
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
                    if not eof and _opens_unclosed_quote(text, pos):
                        break  # read on: matching would backtrack over the whole open cell for nothing
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
_LINE_ENDS_SO_FAR = re.compile(b"(?:\r\n|\n)*\r?\\Z")


class _Buffer(object):
    """The file read into one bytearray, reused from chunk to chunk: touching fresh memory for every chunk costs
    more than matching it. The file's bytes are ``data[:end]``."""

    def __init__(self, handle):
        self.handle = handle
        self.data = bytearray(max(_CHUNK, len(_BOM)))
        self.end = 0
        self.eof = False
        self.more(0)

    def more(self, pos):
        """Move data[pos:end] (the start of a record) to the front and read on; twice the room if it fills half."""
        rest = self.end - pos
        if rest > _MAX_RECORD:
            raise NotPlain()
        if pos:
            self.data[:rest] = self.data[pos:self.end]
        if 2 * rest > len(self.data):
            self.data.extend(bytes(len(self.data)))
        with memoryview(self.data) as view:
            read = self.handle.readinto(view[rest:])
        self.end, self.eof = rest + read, not read
        if self.data.find(b"\0", rest, self.end) >= 0:
            raise NotPlain()


def _cut(data, pos, end):
    """Whether data[pos:end] may be the start of a record that goes on in the next chunk, or of the line ends that
    may close the file."""
    if _LINE_ENDS_SO_FAR.match(data, pos, end):
        return True
    match = _RECORD.match(data, pos, end)
    return not match.group(1) if match is not None else _PARTIAL.match(data, pos, end) is not None


def _header(buffer):
    """(the cells of the first record, where the next one starts)."""
    start = len(_BOM) if buffer.data.startswith(_BOM) else 0
    while True:
        match = _RECORD.match(buffer.data, start, buffer.end)
        if match is not None and (buffer.eof or match.group(1)):
            return _decoded_cells(bytes(buffer.data[start:match.end()]), 0, match.end() - start), match.end()
        if buffer.eof or not (match or _PARTIAL.match(buffer.data, start, buffer.end)):
            raise NotPlain()
        buffer.more(0)


def _runs(chosen):
    """The chosen positions (sorted) as runs of consecutive ones."""
    runs = []
    for position in chosen:
        if runs and runs[-1][-1] == position - 1:
            runs[-1].append(position)
        else:
            runs.append([position])
    return runs


def _record_pattern(width, runs):
    """A record of ``width`` cells and its line end, with one group per run of chosen cells."""
    starts = dict((run[0], run) for run in runs)
    parts, position = [], 0
    while position < width:
        run = starts.get(position)
        if run is None:
            parts.append(_CELL)
            position += 1
        else:
            parts.append(b"(" + b",".join([_CELL] * len(run)) + b")")
            position += len(run)
    return b",".join(parts)


_SEPARATOR = methodcaller("replace", ",", "\0")
_PAIR = {"": '"'}


def _cells_of_runs(spans, width):
    """The cells of runs of ``width`` cells (bytes matched by a _RECORD pattern), decoded and unquoted in a few C
    calls: the runs are joined by NUL, which plain CSV never holds, the commas between cells become NULs too, and
    one split gives the cells."""
    text = b"\0".join(spans).decode("utf-8")
    if '"' in text:
        # Between quotes, every other piece is outside quoted cells: there commas part cells. Inside a quoted cell
        # the outside piece between the two quotes of a pair is empty (elsewhere it holds a comma or NUL at least):
        # that is the quote the pair stands for. The quotes themselves go.
        pieces = text.split('"')
        outside = list(map(_SEPARATOR, pieces[::2]))
        outside[1:-1] = map(_PAIR.get, outside[1:-1], outside[1:-1])
        pieces[::2] = outside
        text = "".join(pieces)
    elif width > 1:
        text = text.replace(",", "\0")
    cells = text.split("\0")
    if len(cells) != width * len(spans):
        raise NotPlain()  # cannot happen: the runs were matched as cells
    return cells


def _chosen_cells(runs, matches):
    """The cells of the matched records at each chosen position, one list per position."""
    found = []
    for run, spans in zip(runs, zip(*map(_GROUPS, matches))):
        cells = _cells_of_runs(spans, len(run))
        found.extend(cells[offset::len(run)] for offset in range(len(run)))
    return found


def columns(path, choose):
    """For each chunk of the file, a list with the cells of its records at each position ``choose(header)``
    returns (the header is not among them). For files in the usual shape only: the header first (after an optional
    byte-order mark), then records all as wide as the header (two to _MAX_WIDTH cells), each closed by \\r\\n or
    \\n except perhaps the last, then at most line ends.

    Records are matched by C calls a chunk at a time and the chosen cells of a chunk decoded and split in a few
    more, so nothing is done in Python per record; there are no line numbers. Anything else (blank lines, a row of
    another width, a lone \\r, a chosen cell that is not UTF-8, what ``records`` would refuse) raises NotPlain, as
    ``choose`` may to decline the file, and the caller reads the file again with ``records``, which takes every
    shape and numbers the lines for its messages (so it must not use the chunks before the end).
    """
    try:
        with open(path, "rb") as handle:
            buffer = _Buffer(handle)
            header, pos = _header(buffer)
            positions = list(choose(header))
            width, chosen = len(header), sorted(set(positions))
            if not (1 < width <= _MAX_WIDTH and chosen and 0 <= chosen[0] and chosen[-1] < width):
                raise NotPlain()
            runs = _runs(chosen)
            order = [chosen.index(position) for position in positions]
            cells = _record_pattern(width, runs)
            record = re.compile(cells + b"(?:\r\n|\n)")
            while True:
                matches = list(iter(record.scanner(buffer.data, pos, buffer.end).match, None))
                if matches:
                    found = _chosen_cells(runs, matches)
                    pos = matches[-1].end()
                    yield [found[i] for i in order]
                if buffer.eof:
                    break
                if pos < buffer.end and not _cut(buffer.data, pos, buffer.end):
                    raise NotPlain()
                buffer.more(pos)
                pos = 0
            if not _LINE_ENDS.match(buffer.data, pos, buffer.end):  # the last record has no line end
                last = re.compile(cells + b"\\Z").match(buffer.data, pos, buffer.end)
                if last is None:
                    raise NotPlain()
                found = _chosen_cells(runs, [last])
                yield [found[i] for i in order]
    except UnicodeDecodeError:
        raise NotPlain()
