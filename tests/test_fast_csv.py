"""fast_csv returns exactly what the csv module reads, or hands over to it (checked on random text)."""
import csv
import io
import sys

import pytest
from hypothesis import given, settings, strategies as st

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scoring_programs" / "common"))
import fast_csv  # noqa: E402
import scoring_base  # noqa: E402

PIECES = st.sampled_from(["a", "b", ",", '"', '""', "\n", "\r", "\r\n", " ", "\u00e9", "\u2028", "\0"])


def _csv_module(path):
    csv.field_size_limit(2 ** 31 - 1)
    found = []
    with io.open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        start = 1
        try:
            for record in reader:
                line, start = start, reader.line_num + 1
                if record and not (len(record) == 1 and not record[0].strip()):
                    found.append((line, record))
        except csv.Error:
            found.append(("error", start))
    return found


def _ours(path):
    found = []
    try:
        found.extend(scoring_base._csv_records(path, "f.csv", ValueError, False))
    except ValueError as exc:
        found.append(("error", int(str(exc).split("line ")[1].split(":")[0])))
    return found


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=40), st.sampled_from([1, 2, 5, 1 << 20]))
def test_same_records_and_lines_as_the_csv_module(tmp_path_factory, pieces, chunk):
    path = str(tmp_path_factory.mktemp("csv") / "f.csv")
    with io.open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("".join(pieces))
    saved, fast_csv._CHUNK = fast_csv._CHUNK, chunk
    try:
        assert _ours(path) == _csv_module(path)
    finally:
        fast_csv._CHUNK = saved


def _only(found, chosen, width):
    return [(line, [c if i in chosen else "" for i, c in enumerate(record)])
            if line != "error" and len(record) == width else (line, record) for line, record in found]


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=40), st.sampled_from([1, 2, 5, 1 << 20]), st.sampled_from([(0,), (1,), (0, 2)]))
def test_chosen_columns_are_the_csv_modules_cells(tmp_path_factory, pieces, chunk, chosen):
    # Rows as wide as the header have '' outside the chosen cells; every other row is read in full.
    path = str(tmp_path_factory.mktemp("csv") / "f.csv")
    with io.open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("".join(pieces))
    expected = _csv_module(path)
    headers = [record for line, record in expected if line != "error"]
    width = len(headers[0]) if headers else 0
    saved, fast_csv._CHUNK = fast_csv._CHUNK, chunk
    try:
        found = []
        try:
            found.extend(scoring_base._csv_records(path, "f.csv", ValueError, False, lambda header: chosen))
        except ValueError as exc:
            found.append(("error", int(str(exc).split("line ")[1].split(":")[0])))
        assert found[:1] == expected[:1]
        assert _only(found[1:], chosen, width) == _only(expected[1:], chosen, width)
    finally:
        fast_csv._CHUNK = saved


BYTES = st.sampled_from([b"a", b",", b'"', b"\n", b"\xc3\xa9", b"\xc3", b"\xa9", b"\xe2\x80\xa8", b"\xef\xbb\xbf"])


@settings(max_examples=300, deadline=None)
@given(st.lists(BYTES, max_size=30), st.sampled_from([1, 2, 3, 1 << 20]))
def test_bytes_that_are_not_utf8_are_refused(tmp_path_factory, pieces, chunk):
    path = str(tmp_path_factory.mktemp("csv") / "f.csv")
    data = b"".join(pieces)
    with open(path, "wb") as handle:
        handle.write(data)
    saved, fast_csv._CHUNK = fast_csv._CHUNK, chunk
    try:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            try:
                list(scoring_base._csv_records(path, "f.csv", ValueError, False))
            except ValueError as exc:
                assert "not UTF-8" in str(exc)
            else:
                raise AssertionError("not refused")
        else:
            assert _ours(path) == _csv_module(path)
    finally:
        fast_csv._CHUNK = saved


# fast_csv.columns: whole columns of files in the usual shape, or NotPlain

def _columns(path, chosen):
    """The cells at ``chosen`` as one list per position, all chunks together."""
    found = [[] for _ in chosen]
    for part in fast_csv.columns(path, lambda header: chosen):
        for cells, more in zip(found, part):
            cells.extend(more)
    return found


def _write(tmp_path, data):
    path = tmp_path / "f.csv"
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(path)


@pytest.fixture(params=[1, 3, 1 << 20], ids=["chunk 1", "chunk 3", "chunk 1 MiB"])
def chunk(request, monkeypatch):
    monkeypatch.setattr(fast_csv, "_CHUNK", request.param)
    return request.param


@pytest.mark.parametrize("text,chosen,expected", [
    ('id,a,b\n1,x,y\n2,"p, ""q""\nr",z\n', [0, 1, 2], [["1", "2"], ["x", 'p, "q"\nr'], ["y", "z"]]),
    ('id,a,b\r\n1,x,y\r\n2,"",z', [2, 0], [["y", "z"], ["1", "2"]]),  # CRLF, no line end at the end
    ("\ufeffid,a\n1,\u00e9\n\n\n", [0, 1], [["1"], ["\u00e9"]]),  # byte-order mark, blank lines at the end
    ('h,t,l\n0,"""a"" ""b""",x\n1,"""",y\n2,""",""",z\n', [1, 2], [['"a" "b"', '"', '","'], ["x", "y", "z"]]),
    ('h,t,l\n0,"' + "long text, \"\"quoted\"\"\n" * 40 + '",x\n', [0, 2], [["0"], ["x"]]),  # longer than a chunk
    ("h,l\n", [1], [[]]),  # a header alone
    ('a,b\n,\n"",""\r\n', [1, 0], [["", ""], ["", ""]]),
])
def test_columns_reads_plain_csv(tmp_path, chunk, text, chosen, expected):
    assert _columns(_write(tmp_path, text), chosen) == expected


@pytest.mark.parametrize("data,chosen", [
    ("id,a\n1,x,extra\n2,y\n", [0, 1]),  # a row wider than the header
    ("id,a,b\n1,x\n", [0, 1]),  # narrower
    ("id,a\n1,x\n\n2,y\n", [0, 1]),  # a blank line between rows
    ("id,a\n1,x\r2,y\n", [0, 1]),  # a lone carriage return
    ('id,a\n1,x"y\n', [0, 1]),  # a quote in an unquoted cell
    ('id,a\n1,"x"y\n', [0, 1]),  # text after a closing quote
    ('id,a\n1,"x\n', [0, 1]),  # a quoted cell never closed
    ("id,a\n1,x\x00\n", [0, 1]),  # NUL
    (b"id,a\n1,caf\xe9\n", [0, 1]),  # a chosen cell that is not UTF-8
    ("\nid,a\n1,x\n", [0, 1]),  # a blank line before the header
    ("id\n1\n", [0]),  # one column: a row could not be told from a blank line
    ("id,a\n1,x\n", [0, 2]),  # no such column
    ("", [0]),
])
def test_columns_refuses_other_shapes(tmp_path, chunk, data, chosen):
    with pytest.raises(fast_csv.NotPlain):
        _columns(_write(tmp_path, data), chosen)


def test_columns_leaves_cells_it_does_not_read_undecoded(tmp_path, chunk):
    path = _write(tmp_path, b"id,text,l\n1,caf\xe9,x\n2,\"\xff\",y\n")
    assert _columns(path, [0, 2]) == [["1", "2"], ["x", "y"]]
    with pytest.raises(fast_csv.NotPlain):
        _columns(path, [1])


def test_columns_gives_the_header_to_choose_which_may_decline(tmp_path):
    path = _write(tmp_path, " id ,a\n1,x\n")
    seen = []

    def choose(header):
        seen.append(header)
        raise fast_csv.NotPlain()
    with pytest.raises(fast_csv.NotPlain):
        list(fast_csv.columns(path, choose))
    assert seen == [[" id ", "a"]]


def test_a_record_longer_than_the_largest_allowed_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(fast_csv, "_CHUNK", 4)
    monkeypatch.setattr(fast_csv, "_MAX_RECORD", 64)
    path = _write(tmp_path, 'id,a\n1,"' + "x" * 300 + '"\n')
    with pytest.raises(fast_csv.NotPlain):
        _columns(path, [0])
    monkeypatch.setattr(fast_csv, "_MAX_RECORD", 1024)
    assert _columns(path, [0, 1]) == [["1"], ["x" * 300]]


def _csv_module_rows(path):
    csv.field_size_limit(2 ** 31 - 1)
    with io.open(path, encoding="utf-8-sig", newline="") as handle:
        return list(csv.reader(handle))


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=40), st.sampled_from([1, 2, 5, 1 << 20]),
       st.sampled_from([[0], [1], [0, 1], [1, 0], [0, 2], [2, 1, 0]]))
def test_columns_are_the_csv_modules_cells_or_refused(tmp_path_factory, pieces, chunk, chosen):
    path = str(tmp_path_factory.mktemp("csv") / "f.csv")
    with io.open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write("".join(pieces))
    saved, fast_csv._CHUNK = fast_csv._CHUNK, chunk
    try:
        found = _columns(path, chosen)
    except fast_csv.NotPlain:
        return
    finally:
        fast_csv._CHUNK = saved
    rows = _csv_module_rows(path)  # no csv.Error: what columns takes is valid CSV
    while rows and not rows[-1]:
        rows.pop()  # line ends at the end
    header, rows = rows[0], rows[1:]
    assert len(header) > max(chosen) and all(len(row) == len(header) for row in rows)
    assert found == [[row[position] for row in rows] for position in chosen]


CELL_PIECES = st.sampled_from(["a", ",", '"', '""', "\n", "\r\n", " ", "\u00e9", "\u2028", "\r"])


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 4), st.lists(st.lists(st.lists(CELL_PIECES, max_size=4), min_size=4, max_size=4), max_size=5),
       st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans(), st.sampled_from([1, 2, 5, 1 << 20]))
def test_columns_takes_what_the_csv_module_writes(tmp_path_factory, width, rows, line_end, bom, last_line_end,
                                                 chunk):
    rows = [["".join(cell) for cell in row[:width]] for row in rows]
    if line_end == "\n":  # the csv module leaves a lone \r unquoted then, and reads it as a line end
        rows = [[cell.replace("\r", "") for cell in row] for row in rows]
    text = io.StringIO()
    csv.writer(text, lineterminator=line_end).writerows(rows)
    text = ("\ufeff" if bom else "") + text.getvalue()
    if not last_line_end:
        text = text[:-len(line_end)] if text.endswith(line_end) else text
    path = str(tmp_path_factory.mktemp("csv") / "f.csv")
    with io.open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    chosen = list(range(width))[::-1]
    saved, fast_csv._CHUNK = fast_csv._CHUNK, chunk
    try:
        if not rows:
            with pytest.raises(fast_csv.NotPlain):  # no header
                _columns(path, chosen)
        else:
            assert _columns(path, chosen) == [[row[position] for row in rows[1:]] for position in chosen]
    finally:
        fast_csv._CHUNK = saved


@pytest.mark.parametrize("cell", ["x" * 4096, "x\n" * 2048, 'x""' * 1365])
def test_a_long_quoted_cell_is_read_in_a_few_growing_reads(tmp_path, monkeypatch, cell):
    """A record open at the end of a chunk is matched again from its start: reads grow with what is carried over,
    so a cell of 4 KiB read 16 bytes at a time takes about log2(4096 / 16) reads, not 4096 / 16 (quadratic)."""
    monkeypatch.setattr(fast_csv, "_CHUNK", 16)
    path = _write(tmp_path, 'id,text\n1,"%s"\n2,b\n' % cell)
    sizes = []

    def counting_open(name, mode):
        handle = open(name, mode)
        read = handle.read

        def counted(size=-1):
            data = read(size)
            sizes.append(len(data))
            return data
        handle.read = counted
        return handle
    monkeypatch.setattr(fast_csv, "open", counting_open, raising=False)
    assert [cells for _, cells in fast_csv.records(path)] == [["id", "text"], ["1", cell.replace('""', '"')],
                                                               ["2", "b"]]
    assert len(sizes) <= 12, sizes
