"""Key-phrase IDs: however a submission numbers them (dense from 1, sparse, huge, negative, mixed), it loads the same,
and duplicates and unknown IDs are found wherever the reader keeps them (the array by ID or the dict beside it)."""
import sys

import pytest

from conftest import ROOT
from test_ehealth_kd_metric import load

sys.path.insert(0, str(ROOT / "scoring_programs" / "ehealth-kd"))

from ehealth_kd_format import FormatProblem, _Ids  # noqa: E402

TEXT = "aa bb cc\ndd ee\nff gg hh\n"  # sentences at offsets 0, 9 and 15
# Key phrases by their position in the file (1-based line), with the relations between them by line.
KEYPHRASES = ["0 2\tConcept", "3 5;6 8\tAction", "9 11\tConcept", "12 14\tPredicate", "15 17\tConcept",
              "18 20\tConcept", "21 23\tAction", "12 17\tConcept", "0 2;9 11\tConcept"]  # the last two cross
RELATIONS = [("subject", 2, 1), ("target", 2, 2), ("is-a", 1, 3), ("Target", 5, 6), ("target", 5, 6),
             ("same-as", 4, 3), ("in-place", 7, 5)]

NUMBERINGS = {
    "dense": lambda line: line,
    "from zero": lambda line: line - 1,
    "sparse": lambda line: line * 10 ** 12,
    "negative": lambda line: -line,
    "mixed": lambda line: line if line % 3 else 10 ** 15 + line,
    "descending": lambda line: 10 - line,
}

# Each way of reading a line: the short one (an ID inside the array, a sentence not kept), and the others.
WAYS = {"short": (1, set()), "kept": (1, None), "ID beyond the array": (10 ** 12, set())}


def files(number):
    a = "".join("%d\t%s\tx\n" % (number(line), kp) for line, kp in enumerate(KEYPHRASES, 1))
    b = "".join("%s\t%d\t%d\n" % (label, number(s), number(t)) for label, s, t in RELATIONS)
    return a, b


def signature(scenario):
    """What the scorer uses, without the IDs: key phrases and relations by line, per kept sentence."""
    return {index: ([(k.line, k.label, k.spans) for k in s.keyphrases],
                    [(r.line, r.label, r.source.line, r.target.line) for r in s.relations])
            for index, s in scenario.kept.items()}


EXPECTED = {
    0: ([(1, "Concept", ((0, 2),)), (2, "Action", ((3, 5), (6, 8))), (9, "Concept", ((0, 2), (9, 11)))],
        [(1, "subject", 2, 1), (2, "target", 2, 2)]),
    1: ([(3, "Concept", ((0, 2),)), (4, "Predicate", ((3, 5),)), (8, "Concept", ((3, 8),))],
        [(6, "same-as", 4, 3)]),
    2: ([(5, "Concept", ((0, 2),)), (6, "Concept", ((3, 5),)), (7, "Action", ((6, 8),))],
        [(4, "target", 5, 6), (7, "in-place", 7, 5)]),
}


@pytest.mark.parametrize("numbering", sorted(NUMBERINGS))
def test_every_numbering_loads_the_same(numbering):
    a, b = files(NUMBERINGS[numbering])
    everything = load(TEXT, a, b)
    # Line 8 starts in sentence 2 (offset 12) and ends in sentence 3 (17 > 14), its end kept as written; line 9 has
    # its second span in sentence 2; relation 3 joins sentences 1 and 2; relation 5 repeats relation 4 once its label
    # is lower-cased.
    assert signature(everything) == EXPECTED
    assert everything.cross_sentence_keyphrases == [8, 9] and everything.cross_sentence_relations == 1
    some = load(TEXT, a, b, wanted={2})
    assert signature(some) == {2: EXPECTED[2]}
    assert some.cross_sentence_keyphrases == [8, 9] and some.cross_sentence_relations == 1


@pytest.mark.parametrize("ids, line, repeated", [
    ([1, 2, 1], 3, 1),
    ([1, 10 ** 12, 10 ** 12], 3, 10 ** 12),
    ([1, 10 ** 12, 2, 1], 4, 1),  # in the array, after the dict has begun
    ([1, 10 ** 12, 70000, 70000], 4, 70000),  # past the array once the dict has begun: in the dict
    ([1, 100000, 65000, 65001, 100000], 5, 100000),  # the array must not grow over an ID in the dict
    ([-2, 5, -2], 3, -2),
    ([0, 0], 2, 0),
])
@pytest.mark.parametrize("wanted", [None, set()])
def test_duplicate_ids_wherever_they_are_kept(ids, line, repeated, wanted):
    a = "".join("%d\t%d %d\tConcept\tx\n" % (kid, 3 * n, 3 * n + 2) for n, kid in enumerate(ids))
    with pytest.raises(FormatProblem) as info:
        load(TEXT, a, wanted=wanted)
    assert str(info.value) == "a.txt, line %d: the key-phrase ID %d is used twice" % (line, repeated)


@pytest.mark.parametrize("b, message", [
    ("is-a\t1\t2\n", "b.txt, line 1: the key-phrase ID 2 is not defined in the output_a file"),  # inside the array
    ("is-a\t1\t3\nis-a\t99999999\t1\n", "b.txt, line 2: the key-phrase ID 99999999 is not defined"),
    ("is-a\t-3\t1\n", "b.txt, line 1: the key-phrase ID -3 is not defined"),
    ("is-a\t10000000000000\t1\n", "b.txt, line 1: the key-phrase ID 10000000000000 is not defined"),
    # The source is looked up before the target is read, as the fields come.
    ("is-a\t7\tx\n", "b.txt, line 1: the key-phrase ID 7 is not defined"),
    ("is-a\tx\t7\n", "b.txt, line 1: the key-phrase ID 'x' is not a whole number (digits 0-9)"),
])
def test_unknown_ids(b, message):
    with pytest.raises(FormatProblem) as info:
        load(TEXT, "1\t0 2\tConcept\tx\n3\t3 5\tConcept\tx\n", b)
    assert str(info.value).startswith(message)


def test_relations_beyond_one_batch_are_read_and_checked_in_order():
    # 10,000 key phrases, one per two-letter word of 5,000 sentences, and a relation between the two words of each
    # sentence: more than one batch of relation lines (4,096), read in bulk.
    text = "ab cd\n" * 5000
    a = "".join("%d\t%d %d\tConcept\tx\n" % (n + 1, 3 * n, 3 * n + 2) for n in range(10000))
    lines = ["is-a\t%d\t%d\n" % (2 * s + 1, 2 * s + 2) for s in range(5000)]
    lines.append("causes\t1\t4\n")  # between sentences 1 and 2: counted, dropped
    col = load(text, a, "".join(lines), wanted={0, 4999})
    assert [(r.label, r.source.id, r.target.id) for r in col.sentence(4999).relations] == [("is-a", 9999, 10000)]
    assert [(r.line, r.source.id) for r in col.sentence(0).relations] == [(1, 1)]
    assert col.cross_sentence_relations == 1 and col.cross_sentence_keyphrases == []
    lines[4500] = "is-a\t10001\t1\n"
    with pytest.raises(FormatProblem, match=r"^b.txt, line 4501: the key-phrase ID 10001 is not defined"):
        load(text, a, "".join(lines))


def test_the_array_grows_and_the_dict_takes_what_lies_far_beyond():
    ids = _Ids(None)
    ids.define(5, 0, 1)
    assert (ids.sentence(5), ids.sentence(4), ids.sentence(6), ids.sentence(-5)) == (0, -1, -1, -1)
    ids.define(100000, 7, 10000)  # within 4 x the lines read + 65,536: the array grows over it
    assert ids.size > 100000 and not ids.sparse and (ids.sentence(100000), ids.sentence(5)) == (7, 0)
    size = ids.size
    ids.define(10 ** 9, 8, 10000)
    ids.define(size + 1, 9, 10000)  # the array no longer grows once the dict has begun
    assert ids.size == size and ids.sparse == {10 ** 9: 8, size + 1: 9}
    ids.define(-1, 3, 10000)
    assert (ids.sentence(-1), ids.sentence(99999), ids.sentence(10 ** 9)) == (3, -1, 8)


@pytest.mark.parametrize("line, label", [("1\t0 2\t  Concept \tx\n", "Concept"), ("1\t0 2\tAc tion\n", "Ac tion")])
def test_labels_are_stripped(line, label):
    assert load(TEXT, line).sentence(0).keyphrases[0].label == label


@pytest.mark.parametrize("line", ["1\t0 2\t \tx\n", "1\t0 2\t\t\n"])
def test_blank_label_before_the_text(line):
    with pytest.raises(FormatProblem, match="the label is empty"):
        load(TEXT, line)


# Relation lines read in bulk fall back to the line-by-line reading whenever one line is not in the usual shape:
# the same relations, or the same message, as one line at a time.
GOOD_B = "is-a\t1\t3\n" * 3


@pytest.mark.parametrize("b, message", [
    ("is-a\t1\ntarget\t1\t3\t3\n", "b.txt, line 1: expected LABEL<TAB>SOURCE_ID<TAB>TARGET_ID, found 2"),
    (GOOD_B + "is-a\t1\t3\t\n", "b.txt, line 4: expected LABEL<TAB>SOURCE_ID<TAB>TARGET_ID, found 4"),
    (GOOD_B + "is-a\t1\t" + "3" * 25 + "\n", "b.txt, line 4: the key-phrase ID " + "3" * 25 + " is not defined"),
    (GOOD_B + "is-a\t1\t" + "3" * 35 + "\n", "b.txt, line 4: the key-phrase ID '" + "3" * 35 + "' has 35 digits"),
    (GOOD_B + "is-a\t1\t\n", "b.txt, line 4: the key-phrase ID '' is not a whole number"),
    # the file's last line, empty target and no newline: the bulk reading once crashed on it (max of no IDs)
    ("is-a\t1\t", "b.txt, line 1: the key-phrase ID '' is not a whole number"),
    ("is-a\t\t3", "b.txt, line 1: the key-phrase ID '' is not a whole number"),
    (GOOD_B + "is-a\t1\t3.0\n", "b.txt, line 4: the key-phrase ID '3.0' is not a whole number"),
    (GOOD_B + "is-a\t1\t1e0\n", "b.txt, line 4: the key-phrase ID '1e0' is not a whole number"),
    (GOOD_B + " \t1\t3\n", "b.txt, line 4: the relation label is empty"),
])
def test_relation_lines_out_of_the_usual_shape(b, message):
    with pytest.raises(FormatProblem) as info:
        load(TEXT, "1\t0 2\tConcept\tx\n3\t3 5\tConcept\tx\n", b)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("b", ["is-a\t001\t03\n", "is-a\t 1\t+3\n", "is-a\t1\t3", "\nis-a\t1\t3\n\n"])
def test_relation_ids_as_the_checks_allow_them(b):
    relations = load(TEXT, "1\t0 2\tConcept\tx\n3\t3 5\tConcept\tx\n", b).sentence(0).relations
    assert [(r.line, r.label, r.source.id, r.target.id) for r in relations] == [(2 if b[0] == "\n" else 1,
                                                                                  "is-a", 1, 3)]


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("lines, message", [
    (["0 2;5 3\tConcept\tx"], "a.txt, line 1: the span 5 3 is reversed"),
    (["3 2;5 6\tConcept\tx"], "a.txt, line 1: the span 3 2 is reversed"),
    (["5 3\tConcept\tx"], "a.txt, line 1: the span 5 3 is reversed"),
    (["0 2\tConcept\tx", "3 4;6 8\tAction\tx\ty"], "a.txt, line 2: expected ID<TAB>START END"),
    (["0 2\tConcept\tx", "3 4\tAction\tx\ty"], "a.txt, line 2: expected ID<TAB>START END"),
    (["0 2\t \tx"], "a.txt, line 1: the label is empty"),
    (["0 2\tConcept\tx", "24 26\tConcept\tx"],
     "a.txt, line 2: the span 24 26 starts after the end of the sentence file (24 characters)"),
    (["16 17\tConcept\tx", "24 26;1 2\tConcept\tx"], "a.txt, line 2: the span 24 26 starts after the end"),
])
def test_lines_are_checked_whichever_way_they_are_read(way, lines, message):
    kid, wanted = WAYS[way]
    a = "".join("%d\t%s\n" % (kid + n, line) for n, line in enumerate(lines))
    with pytest.raises(FormatProblem) as info:
        load(TEXT, a, wanted=wanted)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("spans, crossing", [
    ("9 11;0 2", [1]),  # a further span before the sentence of the first
    ("9 11;12 16", [1]),  # one past the sentence's end (14)
    ("9 11;12 14", []),
    ("9 15", [1]),
    ("9 14", []),
])
def test_spans_crossing_either_way(way, spans, crossing):
    kid, wanted = WAYS[way]
    assert load(TEXT, "%d\t%s\tConcept\tx\n" % (kid, spans), wanted=wanted).cross_sentence_keyphrases == crossing
