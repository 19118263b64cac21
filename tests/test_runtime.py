"""The shared scoring runtime: finding files, reading text and CSV, writing scores, turning errors into messages."""
import io
import json
import os
import sys
from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

import scoring_main
import scoring_run
import scoring_base as rt


def make(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(tmp_path)


@pytest.mark.parametrize("files, found", [
    ({"pred.txt": "x"}, "pred.txt"),
    ({"run1/pred.txt": "x"}, "run1/pred.txt"),                      # one wrapper folder
    ({"metadata": "", "tmpab12cd.zip": "", "pred.txt": "x"}, "pred.txt"),  # worker leftovers
    ({"__MACOSX/._pred.txt": "", "run/pred.txt": "x"}, "run/pred.txt"),    # macOS zip noise
    ({"pred.txt": "x", "other/pred.txt": "y"}, "pred.txt"),          # the root wins
])
def test_find_file_tolerates_wrapper_and_strays(tmp_path, files, found):
    directory = make(tmp_path, files)
    assert rt.find_submission_file(directory, "pred.txt") == os.path.join(directory, found)


@pytest.mark.parametrize("files, fragment", [
    ({"predictions.txt": "x"}, "no pred.txt in the submission: expected pred.txt; found predictions.txt"),
    ({"a/b/pred.txt": "x"}, "found a/b/pred.txt"),                  # two folders deep is not tolerated
    ({"a/pred.txt": "x", "b/pred.txt": "y"}, "no pred.txt"),
    ({}, "found nothing"),
])
def test_find_file_explains_what_it_found(tmp_path, files, fragment):
    directory = make(tmp_path, files)
    with pytest.raises(rt.SubmissionError) as info:
        rt.find_submission_file(directory, "pred.txt")
    assert fragment in str(info.value)


def test_find_by_suffix_wants_exactly_one(tmp_path):
    directory = make(tmp_path, {"a.csv": "x", "b.CSV": "y"})
    with pytest.raises(rt.SubmissionError) as info:
        rt.find_submission_file(directory, suffix=".csv")
    assert "holds 2 files where one was expected (one .csv file): a.csv, b.CSV" in str(info.value)
    with pytest.raises(rt.ReferenceDataError):
        rt.find_reference_file(str(tmp_path / "missing"), "gold.txt")


def test_read_text_removes_bom_and_reports_bad_bytes(tmp_path):
    path = tmp_path / "p.txt"
    path.write_bytes(b"\xef\xbb\xbfa\r\nb\n")
    assert rt.read_text(str(path)) == "a\r\nb\n"
    assert list(rt.iter_lines(rt.read_text(str(path)))) == [(1, "a"), (2, "b")]
    path.write_bytes(b"ok\nline two \xff\n")
    with pytest.raises(rt.SubmissionError) as info:
        rt.read_text(str(path))
    assert str(info.value) == "p.txt, line 2: the file is not UTF-8 text (byte 0xff at offset 12)"


def test_read_csv_reports_the_line_where_a_record_starts(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text('spans,text\n"[1]","two\nlines"\n\n"[]",three\n', encoding="utf-8")
    header, rows = rt.read_csv(str(path))
    assert header == ["spans", "text"]
    assert rows == [(2, ["[1]", "two\nlines"]), (5, ["[]", "three"])]
    path.write_text("a, b\n1, 2\n")
    assert rt.read_csv(str(path), strip_spaces=True) == (["a", "b"], [(2, ["1", "2"])])
    path.write_text("")
    with pytest.raises(rt.SubmissionError) as info:
        rt.read_csv(str(path))
    assert "x.csv is empty" in str(info.value)


@pytest.mark.parametrize("value, text", [
    (0.5, "0.500000000000000"), (1, "1.000000000000000"), (1e-7, "0.000000100000000"),
    (2.0 / 3, "0.666666666666667"), (-0.0, "0.000000000000000"), (123.25, "123.250000000000000"),
])
def test_scores_are_plain_decimals_with_15_digits(value, text):
    assert rt.format_score(value) == text


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1e10])
def test_unstorable_scores_are_refused(value):
    with pytest.raises(ValueError):
        rt.format_score(value)


def test_mean_is_exact_and_order_free():
    values = [0.1] * 10 + [1e-17] * 1000
    assert rt.mean(values) == rt.mean(list(reversed(values)))
    assert rt.mean([]) == 0.0
    assert rt.mean([1, 2]) == 1.5


def run_main(tmp_path, score, capsys, gold_public=True):
    (tmp_path / "in" / "ref").mkdir(parents=True, exist_ok=True)
    if gold_public:
        (tmp_path / "in" / "ref" / rt.GOLD_PUBLIC_MARKER).write_text("public\n")
    (tmp_path / "in" / "res").mkdir(parents=True)
    code = scoring_main.main(score, "T", [str(tmp_path / "in"), str(tmp_path / "out")])
    out, err = capsys.readouterr()
    return code, out, err, tmp_path / "out"


ABC_SHA256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # FIPS 180-2's example "abc"


def test_main_writes_scores_txt_json_and_page(tmp_path, capsys):
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "ref" / "gold.txt").write_bytes(b"abc")
    code, out, err, output = run_main(
        tmp_path, lambda ref, res: rt.Result([("f1", 0.25), ("n", 3)], "<body>x</body>", ["3 posts"]), capsys)
    assert code == 0 and err == ""
    assert (output / "scores.txt").read_text() == "f1: 0.250000000000000\nn: 3.000000000000000\n"
    signature = {"program": "scoring", "version": rt.VERSION, "gold_sha256": ABC_SHA256}
    assert json.loads((output / "scores.json").read_text()) == {"f1": 0.25, "n": 3.0, "signature": signature}
    assert (output / "detailed_results.html").read_text() == (
        '<body>x<p class="note">Scored by scoring %s; gold SHA-256 %s.</p>\n</body>' % (rt.VERSION, ABC_SHA256))
    assert out == ("f1: 0.250000000000000\nn: 3.000000000000000\n3 posts\nsignature: scoring|version:%s|gold_sha256:%s\n"
                   % (rt.VERSION, ABC_SHA256))
    assert not (output / "metadata").exists()


def test_main_reports_submission_errors_without_scores(tmp_path, capsys):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "scores.txt").write_text("f1: 1\n")  # from an earlier run in the same folder

    def score(ref, res):
        raise rt.SubmissionError("pred.txt, line 3: no tab")
    code, out, err, output = run_main(tmp_path, score, capsys)
    assert code == 1
    assert err == "Submission error: pred.txt, line 3: no tab\n"
    assert not (output / "scores.txt").exists() and not (output / "scores.json").exists()
    assert "pred.txt, line 3: no tab" in (output / "detailed_results.html").read_text()


def test_main_hides_internal_errors(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SCORING_DEBUG", raising=False)

    def score(ref, res):
        return {"gold-label": 1}["x"]
    code, out, err, output = run_main(tmp_path, score, capsys)
    assert code == 1
    assert err == "Scoring failed with an internal error (KeyError); please report it to the organizers\n"
    assert "gold-label" not in err


def test_main_blames_the_organizers_for_bad_gold(tmp_path, capsys):
    def score(ref, res):
        raise rt.ReferenceDataError("gold.csv has no column 'spans'")
    code, out, err, output = run_main(tmp_path, score, capsys)
    assert code == 1 and err.startswith("Reference data error (a problem for the organizers")


def test_main_usage(capsys):
    assert scoring_main.main(lambda r, s: None, "T", ["only-one"]) == 2
    assert "usage: python3 evaluate.py INPUT_DIR OUTPUT_DIR" in capsys.readouterr().err


def test_bad_score_keys_are_a_programming_error(tmp_path):
    with pytest.raises(ValueError):
        scoring_run.write_outputs(str(tmp_path), rt.Result([("spans F1", 1.0)]))
    with pytest.raises(ValueError):
        scoring_run.write_outputs(str(tmp_path), rt.Result([("a", 1.0), ("a", 2.0)]))


# ---------------------------------------------------------------------------------------------------------------
# load_json: the depth and long-number checks by bytes methods, with the same messages as the full scan


def json_message(text, **options):
    try:
        rt.load_json(text, "p.json", **options)
    except rt.SubmissionError as exc:
        return str(exc)
    return None


DEEP = "[" * 101 + "]" * 101


@pytest.mark.parametrize("text, line", [
    (DEEP, 1),
    ('{"a": "\\"[[[",\n "b": %s}' % DEEP, 2),          # an escaped quote: the brackets after it are in the string
    ('{"a\\\\": \n\n%s}' % DEEP, 3),                    # an escaped backslash: the quote after it ends the string
    ('["\\\\\\"", "\\u005b", "\\n",\n%s]' % DEEP, 2),  # three backslashes, a \u escape, a newline escape
    ('{"x": "\\"[", "y": %s' % DEEP, 1),               # deep and not valid JSON (no closing brace): too deep first
    ("\\" + DEEP, 1),                                   # a backslash outside any string (not JSON)
    ('["\\\n%s"]' % DEEP, 2),  # a backslash before a line end: no string for the full scan, so too deep first
])
def test_load_json_deep_text_with_escapes_gets_the_depth_message_and_line(text, line):
    assert json_message(text) == "p.json, line %d: the JSON is nested more than 100 levels deep" % line


@pytest.mark.parametrize("text, value", [
    ('["\\"%s"]' % ("[" * 200), ['"' + "[" * 200]),  # brackets in strings do not count, escaped quote or not
    ('{"\\\\": "%s"}' % ("{" * 200), {"\\": "{" * 200}),
    ('[' * 100 + ']' * 100, eval('[' * 100 + ']' * 100)),
    ('["1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1", 12]',
     ["1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1", 12]),
    ('[' + ", ".join(["1"] * 40) + ']', [1] * 40),     # short numbers side by side are not one long number
])
def test_load_json_reads_what_is_not_too_deep(text, value):
    assert rt.load_json(text, "p.json") == value


def test_load_json_other_messages_are_unchanged():
    assert json_message('{"a": 1,}') == ("p.json, line 1, column 9: not valid JSON (Expecting property name "
                                          "enclosed in double quotes)")
    assert json_message('{"a": "\\"", }') == ("p.json, line 1, column 13: not valid JSON (Expecting property name "
                                               "enclosed in double quotes)")
    assert json_message('[1, %s]' % ("7" * 31)) == ("p.json: the number '%s' has 31 digits, more than the 30 allowed"
                                                     % ("7" * 31))
    assert json_message('["\\u0031", %s]' % ("7" * 31)).startswith("p.json: the number '77777")


def reference_message(text):
    """What load_json says, by its definition: the full depth scan first, then json.loads with every integer
    bounded."""
    line = rt._json_too_deep(text, rt.MAX_JSON_DEPTH)
    if line is not None:
        return "p.json, line %d: the JSON is nested more than %d levels deep" % (line, rt.MAX_JSON_DEPTH)
    try:
        json.loads(text, parse_int=rt._bounded_int)
    except rt._LongNumber as exc:
        return "p.json: %s" % exc
    except RecursionError:
        return "p.json: the JSON is nested too deeply"
    except ValueError as exc:
        if hasattr(exc, "lineno"):
            return "p.json, line %d, column %d: not valid JSON (%s)" % (exc.lineno, exc.colno, exc.msg)
        return "p.json: not valid JSON (%s)" % exc
    return None


JSON_TEXT = st.text(alphabet='[]{}"\\\n ,:1a', max_size=40)
SCALAR = st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\[]{}\n/\u00e9 ', max_size=6)
JSON_VALUE = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.text(alphabet='a"\\[{', max_size=3), inner, max_size=3), max_leaves=12)


# With a depth limit of 2, so that short random texts reach it.
@given(JSON_TEXT)
@settings(max_examples=600, deadline=None)
def test_load_json_says_what_the_full_scan_says_of_any_text(text):
    with mock.patch.object(rt, "MAX_JSON_DEPTH", 2):
        assert json_message(text) == reference_message(text)


@given(JSON_VALUE, st.booleans(), st.sampled_from([None, 1]))
@settings(max_examples=400, deadline=None)
def test_the_quick_depth_check_is_exact_for_valid_json(value, ascii_only, indent):
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    skeleton = rt._json_skeleton(text.encode("utf-8"))
    for depth in range(4):
        assert rt._json_shallow(skeleton, depth) == (rt._json_too_deep(text, depth) is None)
    with mock.patch.object(rt, "MAX_JSON_DEPTH", 2):
        assert json_message(text) == reference_message(text)


@pytest.mark.parametrize("text, long", [
    ('{"%s": [1, 2]}' % ("9" * 40), False),              # a long digit run in a key: a string, not a number
    ('[{"id": "%s", "n": 3}]' % ("12" * 20), False),      # ... or in a value
    ('["a\\"%s", 1]' % ("7" * 31), False),               # after an escaped quote, still inside the string
    ('[%s]' % ("7" * 31), True),                          # a long integer
    ('["x", %s, "y"]' % ("7" * 31), True),                # between strings
    ('[1.%s]' % ("5" * 40), True),                        # a fraction: the check may say yes, parse_int is not called
    ('["%s' % ("7" * 31), True),                          # an open string: not cut out, so the safe way
])
def test_long_digit_runs_inside_strings_keep_the_fast_integer_parser(text, long):
    """Only a run that may be a number outside strings makes load_json parse every integer in Python."""
    assert rt._has_long_number(rt._json_skeleton(text)) is long


def test_load_json_with_long_numeric_ids_reads_integers_with_int():
    text = '{"%s": [1, 2, 30]}' % ("4" * 40)
    with mock.patch.object(rt, "_bounded_int", side_effect=AssertionError("slow path")):
        assert rt.load_json(text, "p.json") == {"4" * 40: [1, 2, 30]}


@pytest.mark.parametrize("data, lines", [
    (b"ab\ncd\n", ["ab\n", "cd\n"]),
    (b"abcd\r\nefgh\rij", ["abcd\r\n", "efgh\r", "ij"]),   # four characters and a \r\n: within the limit
    (b"\xef\xbb\xbfabcd", ["abcd"]),                        # the byte-order mark is not a character of the line
])
def test_stream_lines_within_max_line(tmp_path, data, lines):
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    assert list(rt.stream_lines(str(path), "f.csv", max_line=4)) == lines


@pytest.mark.parametrize("data, line", [(b"ab\nabcde\n", 2), (b"abcde", 1), (b"a\r\nb\rabcd\rabcdefgh\n", 4),
                                        (b"abcd\nabcdefgh", 2)])
def test_stream_lines_refuses_the_first_line_over_max_line(tmp_path, data, line):
    """Refused when the line's fifth character is read: what follows some way after (bytes that are not UTF-8,
    beyond the text reader's 8 KiB buffer) is not read."""
    path = tmp_path / "f.csv"
    path.write_bytes(data + b"\n" * 20000 + b"\xff" * 100)
    with pytest.raises(rt.SubmissionError) as caught:
        list(rt.stream_lines(str(path), "f.csv", max_line=4))
    assert str(caught.value) == "f.csv, line %d: the line is longer than 4 characters; no line of this file " \
                                "needs that many" % line


@pytest.mark.parametrize("data, expected", [
    (b"a\nb\r\nc\rd", [(1, "a"), (2, "b"), (3, "c"), (4, "d")]),
    (b"\xef\xbb\xbfa\x0cb\xe2\x80\xa8\n\n", [(1, "a"), (2, "b"), (3, ""), (4, "")]),   # str.splitlines' ends too
    (b"", []),
    (b"a\n\xc3\xa9\xff\n", "f.txt, line 2: the file is not UTF-8 text (byte 0xff at offset 4)"),
    (b"\xef\xbb\xbf\n\xff", "f.txt, line 2: the file is not UTF-8 text (byte 0xff at offset 4)"),  # BOM counted
    (b"\xef\xbb\xbf\xff", "f.txt, line 1: the file is not UTF-8 text (byte 0xff at offset 3)"),
])
def test_numbered_lines_are_iter_lines_of_read_text(tmp_path, data, expected):
    path = tmp_path / "f.txt"
    path.write_bytes(data)

    def outcome(lines):
        try:
            return list(lines())
        except rt.SubmissionError as exc:
            return str(exc)
    assert outcome(lambda: rt.numbered_lines(str(path))) == expected
    assert outcome(lambda: rt.iter_lines(rt.read_text(str(path)))) == expected


def test_numbered_lines_stop_where_the_caller_stops_and_refuse_a_long_line(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"ab\r\ncdef\n" + b"x" * 50 + b"\n\xff")
    lines = rt.numbered_lines(str(path), max_line=4)
    assert next(lines) == (1, "ab") and next(lines) == (2, "cdef")  # four bytes and a line end: within the limit
    with pytest.raises(rt.SubmissionError) as caught:
        next(lines)
    assert str(caught.value) == "f.txt, line 3: the line is longer than 4 bytes; no line of this file needs that many"
