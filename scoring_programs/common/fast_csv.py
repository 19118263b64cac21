"""A fast reader for plain CSV (the csv module's default dialect), used before the csv module itself.

Scoring programs read a few label columns from gold files whose text columns run to hundreds of megabytes.
Splitting such a file into lines and feeding the csv module one character at a time is most of the work; here
regular expressions take whole quoted cells at once from large chunks of the file. Only text that the csv module
would read the same way is accepted: quoted cells closed right before a comma or a line end, unquoted cells with no
quote or lone carriage return, no NUL. Anything else raises ``NotPlain`` (before that record is returned) and the
caller reads on with the csv module, which also gives the exact error messages.
"""
import io
import re

_CHUNK = 1 << 20
_MAX_RECORD = 64 << 20  # a record still open after this much text is not plain CSV

_QUOTED = r'"[^"]*(?:""[^"]*)*"'
_PLAIN = r'[^,"\r\n]*'
# A whole record and the line end that closes it (none at the end of the text read so far); then its cells.
_RECORD = re.compile(r'(?:%s|%s)(?:,(?:%s|%s))*(\r\n|\n|\Z)' % (_QUOTED, _PLAIN, _QUOTED, _PLAIN))
_CELLS = re.compile(r'(%s)?(%s)(,|\r\n|\n|\Z)' % (_QUOTED, _PLAIN))
# What may precede the end of the text read so far when a record goes on in the next chunk: whole cells, then an
# open quoted cell, or a cell and the \r of a \r\n.
_PARTIAL = re.compile(r'(?:(?:%s|%s),)*(?:"[^"]*(?:""[^"]*)*"?|(?:%s|%s)\r)?\Z' % (_QUOTED, _PLAIN, _QUOTED, _PLAIN))


class NotPlain(Exception):
    """The rest of the file needs the csv module."""


def _line_breaks(text, start, end, has_cr):
    # As a text file with newline="" splits lines: at \r\n, \n and a lone \r.
    if has_cr:
        return text.count("\n", start, end) + text.count("\r", start, end) - text.count("\r\n", start, end)
    return text.count("\n", start, end)


def records(path):
    """(line number where the record starts, list of cells) for every record, blank lines included as [''].

    Decoding is UTF-8 with an optional byte-order mark; a decoding error raises NotPlain as well.
    """
    record_at, cells_of, partial = _RECORD.match, _CELLS.findall, _PARTIAL.match
    line = 1
    text = ""
    try:
        with io.open(path, encoding="utf-8-sig", newline="") as handle:
            eof = False
            while not eof:
                chunk = handle.read(_CHUNK)
                eof = not chunk
                if "\0" in chunk:
                    raise NotPlain()
                text += chunk
                has_cr = "\r" in text
                pos, size = 0, len(text)
                while pos < size:
                    match = record_at(text, pos)
                    if match is None or not (eof or match.group(1)):
                        if eof or not (match or partial(text, pos)):
                            raise NotPlain()
                        break  # the record may go on in the next chunk
                    stop = match.end()
                    found = cells_of(text, pos, stop)
                    if len(found) > 1 and found[-2][2] != ",":
                        found.pop()  # the empty match after the line end
                    yield line, [(quoted[1:-1].replace('""', '"') if quoted else plain) for quoted, plain, _ in found]
                    line += _line_breaks(text, pos, stop, has_cr)
                    pos = stop
                text = text[pos:]
                if len(text) > _MAX_RECORD:
                    raise NotPlain()
    except UnicodeDecodeError:
        raise NotPlain()
