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
