"""eHealth-KD 2019 loading, matching and metrics, against hand-computed expectations."""
import sys
from fractions import Fraction

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scoring_programs" / "ehealth-kd"))

from ehealth_kd_format import FormatProblem, load_scenario, text_lines, word_spans  # noqa: E402
from ehealth_kd_matching import match_sentence, overlaps  # noqa: E402
from ehealth_kd_metric import Counts, keyphrase_counts, label_table, relation_counts  # noqa: E402

# The worked example of the metric card (scoring_programs/ehealth-kd/README.md).
SENTENCE = "La gripe, también llamada influenza, es una enfermedad que afecta las vías respiratorias y causa fiebre."
GOLD_A = ("1\t3 8\tConcept\tgripe\n2\t26 35\tConcept\tinfluenza\n3\t44 54\tConcept\tenfermedad\n"
          "4\t59 65\tAction\tafecta\n5\t70 74;75 88\tConcept\tvías respiratorias\n6\t97 103\tConcept\tfiebre\n")
GOLD_B = "same-as\t1\t2\nis-a\t1\t3\nsubject\t4\t3\ntarget\t4\t5\ncauses\t3\t6\n"
SUB_A = ("1\t3 8\tConcept\tgripe\n2\t26 35\tConcept\tinfluenza\n3\t44 54\tConcept\tenfermedad\n"
         "4\t59 65\tConcept\tafecta\n5\t75 88\tConcept\trespiratorias\n6\t18 25\tAction\tllamada\n")
SUB_B = "is-a\t2\t3\nsubject\t4\t3\nsame-as\t2\t1\ntarget\t6\t5\n"


def load(text, a, b="", wanted=None):
    return load_scenario(text_lines(text), text_lines(a), text_lines(b), "a.txt", "b.txt", wanted)


def match_one(text, gold_a, gold_b, sub_a, sub_b):
    gold, sub = load(text, gold_a, gold_b), load(text, sub_a, sub_b)
    return match_sentence(gold.sentences[0], sub.sentences[0])


def f1(precision, recall):
    return 2 * precision * recall / (precision + recall)


def test_worked_example_counts_and_scores():
    match = match_one(SENTENCE + "\n", GOLD_A, GOLD_B, SUB_A, SUB_B)
    a, b = keyphrase_counts(match), relation_counts(match)
    assert a.as_tuple() == (3, 1, 1, 1, 1)          # C, I, P, M, S
    assert b.as_tuple() == (2, 0, 0, 3, 2)
    main = a + b
    assert main.as_tuple() == (5, 1, 1, 4, 3)
    assert main.recall() == 0.5 and main.precision() == 0.55
    assert main.f1() == pytest.approx(0.55 / 1.05, abs=1e-15)
    assert a.precision() == a.recall() == pytest.approx(3.5 / 6, abs=1e-15)
    assert b.recall() == 0.4 and b.precision() == 0.5 and b.f1() == pytest.approx(0.4 / 0.9, abs=1e-15)
    # Which items went where (submitted key phrases are identified by their text).
    text = match.gold.text
    assert [text[k.spans[0][0]:k.spans[-1][1]] for k, _ in match.correct] == ["gripe", "influenza", "enfermedad"]
    assert [(k.label, g.label) for k, g in match.incorrect] == [("Concept", "Action")]
    assert [g.id for _, g in match.partial] == [5]
    assert [k.id for k in match.spurious] == [6] and [g.id for g in match.missing] == [6]
    assert [(r.label, r.source.id, r.target.id) for r, _ in match.relations_correct] == [("is-a", 2, 3),
                                                                                            ("same-as", 2, 1)]
    assert [(r.label, r.source.id, r.target.id) for r in match.relations_missing] == [
        ("subject", 4, 3), ("target", 4, 5), ("causes", 3, 6)]


# The formulas on a table of counts (C, I, P, M, S) -> (precision, recall), computed by hand as fractions.
FORMULA_TABLE = [
    ((5, 1, 1, 4, 3), Fraction(11, 20), Fraction(1, 2)),
    ((425, 32, 42, 714, 358), Fraction(446, 857), Fraction(446, 1213)),   # the official baseline, scenario 1
    ((0, 0, 2, 0, 0), Fraction(1, 2), Fraction(1, 2)),
    ((0, 3, 0, 0, 0), Fraction(0), Fraction(0)),
    ((4, 0, 0, 0, 0), Fraction(1), Fraction(1)),
    ((0, 0, 0, 7, 0), Fraction(0), Fraction(0)),                           # nothing submitted
    ((0, 0, 0, 0, 7), Fraction(0), Fraction(0)),                           # nothing in the gold
    ((0, 0, 0, 0, 0), Fraction(0), Fraction(0)),
]


@pytest.mark.parametrize("counts, precision, recall", FORMULA_TABLE)
def test_formulas(counts, precision, recall):
    c = Counts(*counts)
    assert c.precision() == float(precision)
    assert c.recall() == float(recall)
    expected_f1 = f1(float(precision), float(recall)) if precision + recall else 0.0
    assert c.f1() == pytest.approx(expected_f1, abs=1e-15)


def test_baseline_counts_give_the_published_leaderboard():
    c = Counts(425, 32, 42, 714, 358)
    assert (round(c.f1(), 4), round(c.precision(), 4), round(c.recall(), 4)) == (0.4309, 0.5204, 0.3677)


# --- loading ------------------------------------------------------------------------------------------------


def test_offsets_cover_every_sentence_plus_one_newline():
    text = "Uno dos.\n  Tres  \ncuatro cinco.\n"
    # Sentence 2 is stored stripped ("Tres", 4 chars) and starts at 9; sentence 3 starts at 9 + 4 + 1 = 14.
    col = load(text, "1\t9 13\tConcept\tTres\n2\t14 20\tConcept\tcuatro\n3\t0 3\tAction\tUno\n")
    sentences = col.sentences
    assert [s.text for s in sentences] == ["Uno dos.", "Tres", "cuatro cinco."]
    assert [(k.id, k.spans) for k in sentences[1].keyphrases] == [(1, ((0, 4),))]
    assert [(k.id, k.spans) for k in sentences[2].keyphrases] == [(2, ((0, 6),))]
    assert [(k.id, k.spans) for k in sentences[0].keyphrases] == [(3, ((0, 3),))]


def test_crlf_and_blank_lines_are_sentences_like_readlines():
    col = load("a b\r\n\r\nc d\r\n", "1\t5 6\tConcept\tc\n")
    assert [s.text for s in col.sentences] == ["a b", "", "c d"]
    assert col.sentences[2].keyphrases[0].spans == ((0, 1),)


@pytest.mark.parametrize("start, end, spans", [
    (19, 37, ((19, 23), (24, 37))),     # "vías respiratorias"
    (19, 23, ((19, 23),)),
    (0, 16, ((0, 7), (8, 10), (11, 16))),   # "mensaje de texto"
    (8, 11, ((8, 10),)),                    # ends on the space after "de": no empty word
    (8, 12, ((8, 10), (11, 12))),           # a cut word is kept as cut
])
def test_single_spans_are_cut_into_words(start, end, spans):
    text = "mensaje de texto y vías respiratorias"
    assert word_spans(text, start, end) == spans


def test_single_span_and_word_spans_load_the_same():
    text = "Las vías respiratorias.\n"
    one = load(text, "1\t4 22\tConcept\tx\n").sentences[0].keyphrases[0]
    two = load(text, "1\t4 8;9 22\tConcept\tx\n").sentences[0].keyphrases[0]
    assert one.spans == two.spans == ((4, 8), (9, 22))


def test_discontinuous_spans_are_sorted_and_kept():
    text = "cáncer de mama y de útero\n"
    kp = load(text, "1\t17 25;0 6\tConcept\tx\n").sentences[0].keyphrases[0]
    assert kp.spans == ((0, 6), (17, 25))


def test_keyphrase_belongs_to_the_sentence_of_its_first_written_span():
    # As the official scorer: the sentence of the first span's start; spans kept as written (relative to it).
    text = "aa bb\ncc dd\n"
    col = load(text, "1\t6 8;0 2\tConcept\tx\n")       # first span in sentence 2, second in sentence 1
    assert col.sentences[0].keyphrases == []
    assert col.sentences[1].keyphrases[0].spans == ((-6, -4), (0, 2))
    assert col.cross_sentence_keyphrases == [1]


def test_span_crossing_into_the_next_sentence_is_kept_and_matches_nothing():
    # "cc" + "dd" of "aa bb cc\ndd": the second span starts in the next sentence (offset 9 = "dd").
    text = "aa bb cc\ndd\n"
    gold = load(text, "1\t6 8\tConcept\tx\n")
    col = load(text, "1\t6 8;9 11\tConcept\tx\n2\t3 10\tAction\tx\n")
    assert [k.spans for k in col.sentences[0].keyphrases] == [((6, 8), (9, 11)), ((3, 5), (6, 10))]
    assert col.cross_sentence_keyphrases == [1, 2]
    match = match_sentence(gold.sentences[0], col.sentences[0])
    assert (len(match.correct), len(match.missing)) == (0, 0) and len(match.partial) == 1


def test_relation_labels_lower_cased_duplicates_once_and_cross_sentence_dropped():
    text = "aa bb\ncc dd\n"
    col = load(text, "1\t0 2\tConcept\tx\n2\t3 5\tAction\tx\n3\t6 8\tConcept\tx\n",
               "Target\t2\t1\ntarget\t2\t1\nTARGET\t2\t1\nsubject\t2\t1\ntarget\t2\t3\n")
    assert [(r.label, r.source.id, r.target.id) for r in col.sentences[0].relations] == [("target", 2, 1),
                                                                                            ("subject", 2, 1)]
    assert col.sentences[1].relations == [] and col.cross_sentence_relations == 1


def test_keyphrase_labels_are_case_sensitive():
    text = "aa bb\n"
    match = match_one(text, "1\t0 2\tConcept\tx\n", "", "1\t0 2\tconcept\tx\n", "")
    assert keyphrase_counts(match).as_tuple() == (0, 1, 0, 0, 0)


def test_empty_span_is_accepted():
    col = load("aa bb cc\n", "1\t0 2;3 5;6 6\tConcept\tx\n")
    assert col.sentences[0].keyphrases[0].spans == ((0, 2), (3, 5), (6, 6))


@pytest.mark.parametrize("a, b, fragments", [
    ("1\t0 2\n", "", ["a.txt, line 1", "found 2 tab-separated fields"]),
    ("1\t0 2\tConcept\tx\textra\n", "", ["a.txt, line 1", "found 5"]),
    ("x1\t0 2\tConcept\n", "", ["a.txt, line 1", "'x1' is not a whole number"]),
    ("1\t0 2\tConcept\n\n2\t0-2\tConcept\n", "", ["a.txt, line 3", "'0-2' are not START END pairs"]),
    ("1\t0 2;3\tConcept\n", "", ["a.txt, line 1", "not START END pairs"]),
    ("1\t5 2\tConcept\n", "", ["a.txt, line 1", "the span 5 2 is reversed"]),
    ("1\t-1 2\tConcept\n", "", ["a.txt, line 1", "the span -1 2 has a negative offset"]),
    ("1\t0 2\t\n", "", ["a.txt, line 1", "the label is empty"]),
    ("1\t0 2\tConcept\n1\t3 5\tAction\n", "", ["a.txt, line 2", "ID 1 is used twice"]),
    ("1\t40 42\tConcept\n", "", ["a.txt, line 1", "starts after the end of the sentence file (12 characters)"]),
    ("1\t0 2\tConcept\n", "target\t1\t2\n", ["b.txt, line 1", "ID 2 is not defined"]),
    ("1\t0 2\tConcept\n", "target\t1\n", ["b.txt, line 1", "found 2 tab-separated fields"]),
    ("1\t0 2\tConcept\n", "target\t1\ta\n", ["b.txt, line 1", "'a' is not a whole number"]),
    ("1\t0 2\tConcept\n", "\t1\t1\n", ["b.txt, line 1", "relation label is empty"]),
])
def test_malformed_lines(a, b, fragments):
    with pytest.raises(FormatProblem) as info:
        load("aa bb\ncc dd\n", a, b)
    for fragment in fragments:
        assert fragment in str(info.value)
    assert info.value.summary and info.value.summary not in ("", str(info.value))


# --- matching -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("a, b, expected", [
    (((0, 5),), ((0, 5),), True),
    (((0, 5),), ((4, 9),), True),       # b starts inside a
    (((4, 9),), ((0, 5),), True),       # a starts inside b
    (((0, 5),), ((5, 9),), False),      # touching: END is exclusive
    (((0, 2), (10, 12)), ((5, 11),), True),
    (((0, 2), (10, 12)), ((3, 9),), False),
    (((3, 3),), ((0, 5),), True),       # an empty span starting inside
    (((0, 5),), ((3, 3),), True),
])
def test_overlaps(a, b, expected):
    assert overlaps(a, b) is expected


SEVEN = "tipo de cáncer de piel en adultos\n"   # tipo 0-4, de 5-7, cáncer 8-14, de 15-17, piel 18-22, en 23-25 ...


def test_one_partial_per_gold_and_first_in_gold_order():
    # One long prediction overlapping two gold phrases is partial with the first in gold order; the other is missing.
    match = match_one(SEVEN, "1\t8 14\tConcept\tc\n2\t0 4\tConcept\tt\n", "", "1\t0 14\tConcept\tx\n", "")
    assert [(k.id, g.id) for k, g in match.partial] == [(1, 1)]
    assert [g.id for g in match.missing] == [2]


def test_partial_is_label_blind():
    match = match_one(SEVEN, "1\t0 14\tConcept\tx\n", "", "1\t8 14\tAction\tc\n", "")
    assert keyphrase_counts(match).as_tuple() == (0, 0, 1, 0, 0)


def test_passes_run_in_order_correct_before_incorrect_before_partial():
    # The first submitted phrase would take gold 1 as partial, but the correct pass runs first over all lines.
    gold = "1\t0 4\tConcept\tt\n"
    sub = "1\t0 14\tConcept\tx\n2\t0 4\tConcept\tt\n"
    match = match_one(SEVEN, gold, "", sub, "")
    assert keyphrase_counts(match).as_tuple() == (1, 0, 0, 0, 1)
    assert [k.id for k in match.spurious] == [1]


def test_duplicate_prediction_is_spurious():
    match = match_one(SEVEN, "1\t0 4\tConcept\tt\n", "", "1\t0 4\tConcept\tt\n2\t0 4\tConcept\tt\n", "")
    assert keyphrase_counts(match).as_tuple() == (1, 0, 0, 0, 1)


def test_same_spans_with_two_gold_labels_take_the_matching_label():
    gold = "1\t0 4\tAction\tt\n2\t0 4\tConcept\tt\n"
    match = match_one(SEVEN, gold, "", "1\t0 4\tConcept\tt\n", "")
    assert [(k.id, g.id) for k, g in match.correct] == [(1, 2)]
    assert [g.id for g in match.missing] == [1]


def test_greedy_order_of_the_submission_matters():
    # Gold: "cáncer de piel" (8-22) and "piel" (18-22). Prediction "de piel" (15-22) overlaps both.
    gold = "1\t8 22\tConcept\tc\n2\t18 22\tConcept\tp\n"
    first = match_one(SEVEN, gold, "", "1\t15 22\tConcept\tx\n2\t18 22\tConcept\tp\n", "")
    second = match_one(SEVEN, gold, "", "2\t18 22\tConcept\tp\n1\t15 22\tConcept\tx\n", "")
    # Correct runs first, so both orders give the same result here: piel correct, "de piel" partial with 1.
    assert keyphrase_counts(first).as_tuple() == keyphrase_counts(second).as_tuple() == (1, 0, 1, 0, 0)
    # With a wrong label on "piel" the incorrect pass still runs before the partial one.
    third = match_one(SEVEN, gold, "", "1\t15 22\tConcept\tx\n2\t18 22\tAction\tp\n", "")
    assert keyphrase_counts(third).as_tuple() == (0, 1, 1, 0, 0)


GRAPH = "aa bb cc dd ee\n"   # aa 0-2, bb 3-5, cc 6-8, dd 9-11, ee 12-14
GRAPH_A = "1\t0 2\tConcept\ta\n2\t3 5\tConcept\tb\n3\t6 8\tConcept\tc\n4\t9 11\tAction\td\n"


@pytest.mark.parametrize("gold_b, sub_b, counts", [
    ("is-a\t1\t3\n", "is-a\t1\t3\n", (1, 0, 0)),
    ("is-a\t1\t3\n", "is-a\t3\t1\n", (0, 1, 1)),                     # direction matters
    ("same-as\t1\t2\n", "same-as\t2\t1\n", (1, 0, 0)),               # except for same-as
    ("is-a\t1\t3\n", "IS-A\t1\t3\n", (1, 0, 0)),
    ("is-a\t1\t3\n", "part-of\t1\t3\n", (0, 1, 1)),
    ("same-as\t1\t2\nis-a\t1\t3\n", "is-a\t2\t3\n", (1, 1, 0)),      # through the same-as class of 1 and 2
    ("same-as\t1\t2\nis-a\t3\t1\n", "is-a\t3\t2\n", (1, 1, 0)),
    ("same-as\t1\t2\nis-a\t1\t3\n", "is-a\t3\t2\n", (0, 2, 1)),      # classes, but still directed
    ("same-as\t1\t2\nsame-as\t2\t3\nis-a\t1\t4\n", "is-a\t3\t4\n", (1, 2, 0)),   # transitive class {1, 2, 3}
    ("same-as\t1\t2\nsame-as\t2\t3\n", "same-as\t3\t1\n", (1, 1, 0)),  # 1 and 3 are in one class
    ("is-a\t1\t3\nis-a\t1\t3\n", "is-a\t1\t3\nis-a\t1\t3\n", (1, 0, 0)),       # duplicates count once
    ("is-a\t1\t3\n", "is-a\t1\t3\nis-a\t2\t3\n", (1, 0, 1)),          # each gold relation used once
    ("target\t4\t1\nsubject\t4\t2\n", "target\t4\t1\nsubject\t4\t1\n", (1, 1, 1)),
])
def test_relations(gold_b, sub_b, counts):
    match = match_one(GRAPH, GRAPH_A, gold_b, GRAPH_A, sub_b)
    c = relation_counts(match)
    assert (c.correct, c.missing, c.spurious) == counts


def test_relation_ends_map_through_partial_but_not_incorrect():
    # Submitted "aa bb" overlaps gold 1 (partial) and "cc" has the wrong label (incorrect).
    sub_a = "1\t0 5\tConcept\tab\n3\t6 8\tAction\tc\n5\t12 14\tConcept\te\n"
    gold_b = "is-a\t1\t3\nis-a\t3\t1\n"
    match = match_one(GRAPH, GRAPH_A, gold_b, sub_a, "is-a\t1\t5\nis-a\t3\t1\n")
    assert relation_counts(match).as_tuple() == (0, 0, 0, 2, 2)
    match = match_one(GRAPH, GRAPH_A, "is-a\t1\t4\n", "1\t0 5\tConcept\tab\n4\t9 11\tAction\td\n", "is-a\t1\t4\n")
    assert relation_counts(match).as_tuple() == (1, 0, 0, 0, 0)


def test_label_table():
    match = match_one(SENTENCE + "\n", GOLD_A, GOLD_B, SUB_A, SUB_B)
    table = label_table([match])
    # gold Concepts: gripe C, influenza C, enfermedad C, vías respiratorias P, fiebre M -> 3.5 / 5
    # submitted Concepts: gripe, influenza, enfermedad C; afecta I; respiratorias P -> 3.5 / 5
    assert table["Concept"][:4] == (5, 5, 0.7, 0.7)
    # gold Action: afecta (I) -> 0 / 1; submitted Action: llamada (S) -> 0 / 1
    assert table["Action"] == (1, 1, 0.0, 0.0, 0.0)
    relations = label_table([match], relations=True)
    assert relations["is-a"] == (1, 1, 1.0, 1.0, 1.0)
    assert relations["same-as"] == (1, 1, 1.0, 1.0, 1.0)
    assert relations["subject"] == (1, 1, 0.0, 0.0, 0.0)
    assert relations["causes"] == (1, 0, 0.0, 0.0, 0.0)
    assert relations["target"] == (1, 1, 0.0, 0.0, 0.0)


def test_only_wanted_sentences_keep_annotations_but_every_line_is_checked():
    text = "aa bb\ncc dd\n"
    col = load(text, "1\t0 2\tConcept\tx\n2\t6 8\tConcept\tx\n3\t9 11\tAction\tx\n",
               "target\t3\t2\nis-a\t1\t1\n", wanted={1})
    assert sorted(col.kept) == [1] and col.annotated() == [1]
    assert [(r.label, r.source.id, r.target.id) for r in col.sentence(1).relations] == [("target", 3, 2)]
    assert col.sentence(0).keyphrases == [] and col.sentence(0).text == "aa bb"
    with pytest.raises(FormatProblem, match="ID 9 is not defined"):
        load(text, "1\t0 2\tConcept\tx\n", "is-a\t1\t9\n", wanted=set())
    assert load(text, "1\t0 7\tConcept\tx\n", "", wanted=set()).cross_sentence_keyphrases == [1]


# --- properties on random sentences ---------------------------------------------------------------------------

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

WORDS = ["la", "gripe", "afecta", "vías", "respiratorias", "y", "causa", "fiebre", "alta", "en", "niños"]
LABELS = ["Concept", "Action", "Predicate", "Reference"]
RELATIONS = ["is-a", "same-as", "target", "subject", "causes"]


@st.composite
def sentence_and_annotations(draw):
    words = draw(st.lists(st.sampled_from(WORDS), min_size=3, max_size=9))
    text = " ".join(words)
    starts = [sum(len(w) + 1 for w in words[:i]) for i in range(len(words))]

    def keyphrases():
        out = []
        for kid in range(1, draw(st.integers(0, 5)) + 1):
            first = draw(st.integers(0, len(words) - 1))
            last = draw(st.integers(first, min(len(words) - 1, first + 2)))
            out.append((kid, starts[first], starts[last] + len(words[last]), draw(st.sampled_from(LABELS))))
        return out

    def relations(count):
        if not count:
            return []
        return [(draw(st.sampled_from(RELATIONS)), draw(st.integers(1, count)), draw(st.integers(1, count)))
                for _ in range(draw(st.integers(0, 4)))]

    gold, sub = keyphrases(), keyphrases()
    return text, gold, relations(len(gold)), sub, relations(len(sub))


def a_file(keyphrases, single_spans, text):
    lines = []
    for kid, start, end, label in keyphrases:
        if single_spans:
            spans = "%d %d" % (start, end)
        else:
            spans = ";".join("%d %d" % s for s in word_spans(text, start, end))
        lines.append("%d\t%s\t%s\n" % (kid, spans, label))
    return "".join(lines)


def b_file(relations):
    return "".join("%s\t%d\t%d\n" % r for r in relations)


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(sentence_and_annotations(), st.booleans())
def test_counts_account_for_every_item_and_span_forms_agree(case, single):
    text, gold_kp, gold_rel, sub_kp, sub_rel = case
    gold_a = a_file(gold_kp, True, text)
    match = match_one(text + "\n", gold_a, b_file(gold_rel), a_file(sub_kp, single, text), b_file(sub_rel))
    a, b = keyphrase_counts(match), relation_counts(match)
    assert a.correct + a.incorrect + a.partial + a.spurious == len(sub_kp)
    assert a.correct + a.incorrect + a.partial + a.missing == len(gold_kp)
    assert b.correct + b.spurious == len(set(sub_rel))
    assert b.correct + b.missing == len(set(gold_rel))
    # One span per key phrase or one span per word: the same key phrases, so the same counts.
    other = match_one(text + "\n", gold_a, b_file(gold_rel), a_file(sub_kp, not single, text), b_file(sub_rel))
    assert (a.as_tuple(), b.as_tuple()) == (keyphrase_counts(other).as_tuple(), relation_counts(other).as_tuple())
    # The gold against itself: everything correct.
    itself = match_one(text + "\n", gold_a, b_file(gold_rel), gold_a, b_file(gold_rel))
    assert keyphrase_counts(itself).as_tuple() == (len(gold_kp), 0, 0, 0, 0)
    assert relation_counts(itself).as_tuple() == (len(set(gold_rel)), 0, 0, 0, 0)
