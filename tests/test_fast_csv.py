"""fast_csv returns exactly what the csv module reads, or hands over to it (checked on random text)."""
import csv
import io
import sys

from hypothesis import given, settings, strategies as st

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scoring_programs" / "common"))
import fast_csv  # noqa: E402
import scoring_runtime  # noqa: E402

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
        found.extend(scoring_runtime._csv_records(path, "f.csv", ValueError, False))
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
            found.extend(scoring_runtime._csv_records(path, "f.csv", ValueError, False, lambda header: chosen))
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
                list(scoring_runtime._csv_records(path, "f.csv", ValueError, False))
            except ValueError as exc:
                assert "not UTF-8" in str(exc)
            else:
                raise AssertionError("not refused")
        else:
            assert _ours(path) == _csv_module(path)
    finally:
        fast_csv._CHUNK = saved
