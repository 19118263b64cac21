"""json_stream: a top-level JSON object or array read member by member gives what load_json gives for the whole
text, values and messages, whatever the chunk size; and a caller that stops at a member has read only up to it."""
import json
import random
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scoring_programs" / "common"))
import json_stream  # noqa: E402
import scoring_base  # noqa: E402


def whole(path):
    try:
        return "ok", scoring_base.load_json(scoring_base.read_text(path, "p.json"), "p.json")
    except scoring_base.SubmissionError as exc:
        return "error", str(exc)


def streamed(path):
    try:
        stream = json_stream.JsonStream(path, "p.json")
        if stream.kind == "value":
            return "ok", stream.value
        if stream.kind == "empty":
            return "empty", None
        members = list(stream)
    except scoring_base.SubmissionError as exc:
        return "error", str(exc)
    if stream.kind == "object":
        return "ok", dict(members)
    assert [number for number, _ in members] == list(range(1, len(members) + 1))
    return "ok", [value for _, value in members]


CASES = [
    '{"a": [1, 2], "b": {"c": null}}',
    '\ufeff[1, "x", [true], {}]\n',
    '{}', '[]', ' { } ', '"just a string"', '12',
    '{"a": 1,}',                       # Expecting property name enclosed in double quotes
    '{"a" 1}',                         # Expecting ':' delimiter
    '{"a": 1 "b": 2}',                 # Expecting ',' delimiter
    '[1, 2,]',                         # Expecting value
    '{"a": 1}\n{"b": 2}',              # Extra data, line 2
    '{"a": "unterminated',             # Unterminated string
    '{"a": [1, 2}',
    '[1, 2\n, 3\n, 4x]',
    '{"a": "\\q"}',                    # Invalid \\escape
    '{"n": %s}' % ("7" * 31),          # a number longer than allowed
    '{"%s": [1, 2]}' % ("7" * 40),     # a long run of digits in a key: not a number
    '{"a": 1.%s}' % ("5" * 40),        # nor in a fraction
    '[' * 101 + ']' * 101,             # nested more than 100 deep
    '{"a": %s%s}' % ("[" * 99, "]" * 99),  # 100 deep: allowed
    '{"a": %s%s}' % ("[" * 100, "]" * 100),  # 101 deep
    '{"a": 1, "a": 2}',                # a repeated key: both members, the caller decides
    '{\r\n "a"\r\n :\r\n 1\r\n}',
]


@pytest.mark.parametrize("chunk", [1, 2, 5, 1 << 20])
@pytest.mark.parametrize("text", CASES)
def test_the_members_and_messages_of_load_json(tmp_path, monkeypatch, text, chunk):
    monkeypatch.setattr(json_stream, "_CHUNK", chunk)
    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    # (a repeated key gives both members: dict() keeps the last, as load_json does)
    assert streamed(str(path)) == whole(str(path))


def test_hand_computed_places_of_errors(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"a": 1,\n "b": 2\n "c": 3}', encoding="utf-8")
    with pytest.raises(scoring_base.SubmissionError) as caught:
        list(json_stream.JsonStream(str(path), "p.json"))
    assert str(caught.value) == "p.json, line 3, column 2: not valid JSON (Expecting ',' delimiter)"


def _random_value(rng, depth=0):
    kind = rng.randint(0, 9 if depth < 4 else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randint(-10 ** 6, 10 ** 6)
    if kind == 2:
        return rng.choice([1.5, -2e10, 0.25])
    if kind <= 5:
        return "".join(rng.choice('ab"\\\n\u00e9{}[],: 0123456789') for _ in range(rng.randint(0, 8)))
    if kind <= 7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return dict(("".join(rng.choice('aq09"\\') for _ in range(rng.randint(0, 4))), _random_value(rng, depth + 1))
                for _ in range(rng.randint(0, 4)))


def test_random_documents_and_their_corruptions(tmp_path, monkeypatch):
    """Valid documents in several layouts, and the same with characters deleted or inserted (syntax errors, long
    numbers), read with chunks of 1 to 64 characters: each time what load_json gives."""
    rng = random.Random(40)
    path = tmp_path / "p.json"
    for _ in range(1500):
        value = rng.choice([dict, list])()
        for _ in range(rng.randint(0, 6)):
            if isinstance(value, dict):
                value["k%d" % rng.randint(0, 99)] = _random_value(rng)
            else:
                value.append(_random_value(rng))
        text = json.dumps(value, indent=rng.choice([None, 1]), separators=rng.choice([(",", ":"), (", ", ": ")]))
        for _ in range(rng.randint(0, 2)):
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(["", "}", "]", '"', ",", ":", "9" * 35, "\\", " x"]) + text[at + 1:]
        path.write_text(text, encoding="utf-8")
        monkeypatch.setattr(json_stream, "_CHUNK", rng.choice([1, 3, 7, 64]))
        got, expected = streamed(str(path)), whole(str(path))
        assert got == expected or (got[0] == "empty" and expected[0] == "error"), text


def test_a_caller_that_stops_has_read_only_up_to_there(tmp_path):
    """The first member of a 3 MB object, followed by bytes that are not UTF-8: reading one member does not meet
    them (a whole-document parse would refuse the file)."""
    path = tmp_path / "p.json"
    body = ", ".join('"q%d": "x"' % i for i in range(200000))
    path.write_bytes(('{"first": [1, 2], ' + body).encode("utf-8") + b', "bad": "\xff"}')
    stream = json_stream.JsonStream(str(path), "p.json")
    assert next(iter(stream)) == ("first", [1, 2])
    with pytest.raises(scoring_base.SubmissionError) as caught:
        list(json_stream.JsonStream(str(path), "p.json"))
    assert "the file is not UTF-8 text" in str(caught.value)


def test_members_come_in_file_order_with_repeated_keys(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"b": 1, "a": {"x": 2, "x": 3}, "b": [4]}', encoding="utf-8")
    assert list(json_stream.JsonStream(str(path), "p.json")) == [("b", 1), ("a", {"x": 3}), ("b", [4])]


# A member longer than the text read so far: the text grows by chunks and only each new chunk's skeleton is made
# (_grown), the escapes at the seam paired as in the whole text. Each grown skeleton must be that of the whole text.
LONG_MEMBERS = [
    '{"a": "%s", "b": [1, 2]}' % ("x\\\\" * 30),          # escaped backslashes: runs cut at every place
    '{"a": "%s", "b": 3}' % ('\\"y' * 30),                # escaped quotes
    '{"a": "%s\\\\\\"", "n": %s}' % ("z" * 40, "9" * 31),  # a long number after a long string: refused
    '{"a": ["%s", %s]}' % ("w" * 40, "8" * 31),          # inside the same member
    '[{"k": "%s"}, 12345678901234567890123456789012]' % ("\\\\\\\\" * 20),
]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 16])
@pytest.mark.parametrize("text", LONG_MEMBERS)
def test_a_member_read_across_chunks_gives_the_skeleton_of_the_whole_text(tmp_path, monkeypatch, text, chunk):
    monkeypatch.setattr(json_stream, "_CHUNK", chunk)
    grown = json_stream.JsonStream._grown
    calls = []

    def checked(self, skeleton):
        result = grown(self, skeleton)
        calls.append(result == scoring_base._json_skeleton(self._text))
        return result
    monkeypatch.setattr(json_stream.JsonStream, "_grown", checked)
    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    assert streamed(str(path)) == whole(str(path))
    assert calls and all(calls)


def test_long_members_hand_computed(tmp_path, monkeypatch):
    monkeypatch.setattr(json_stream, "_CHUNK", 4)
    path = tmp_path / "p.json"
    path.write_text(LONG_MEMBERS[0], encoding="utf-8")
    assert streamed(str(path)) == ("ok", {"a": "x\\" * 30, "b": [1, 2]})
    path.write_text(LONG_MEMBERS[2], encoding="utf-8")
    assert streamed(str(path)) == \
        ("error", "p.json: the number '%s' has 31 digits, more than the 30 allowed" % ("9" * 31))


@pytest.mark.parametrize("chunk", [1, 4, 9, 1 << 20])
def test_errors_inside_a_long_string_cut_by_chunks(tmp_path, monkeypatch, chunk):
    # the string opens at column 7 ('{"a": "'); its 41st character (column 48) is a backslash escaping nothing, or
    # a raw tab; or the string never ends. Small chunks read on past the cut string without decoding it again.
    monkeypatch.setattr(json_stream, "_CHUNK", chunk)
    path = tmp_path / "p.json"
    for text, column, message in [
            ('{"a": "%s\\q%s", "b": 1}' % ("x" * 40, "y" * 40), 48, "Invalid \\escape"),
            ('{"a": "%s\t%s", "b": 1}' % ("x" * 40, "y" * 40), 48, "Invalid control character at"),
            ('[1, "%s' % ("x" * 80), 5, "Unterminated string starting at")]:
        path.write_text(text, encoding="utf-8")
        expected = ("error", "p.json, line 1, column %d: not valid JSON (%s)" % (column, message))
        assert streamed(str(path)) == whole(str(path)) == expected
