"""The eHealth-KD 2019 scoring program run as CodaLab runs it: scores, layouts, bad submissions, detailed results."""
import re

import pytest

from test_ehealth_kd_metric import GOLD_A, GOLD_B, SENTENCE, SUB_A, SUB_B

TASK = "ehealth-kd"
KEYS = ["main_score", "m_prec", "m_rec", "a_f1", "a_prec", "a_rec", "b_f1", "b_prec", "b_rec"]
FOLDERS = {1: "scenario1-main", 2: "scenario2-taskA", 3: "scenario3-taskB"}
DISTRACTOR = "Esta frase no tiene anotaciones."
# The worked example's sentence after an unannotated one: all its offsets move by len(DISTRACTOR) + 1.
SHIFT = len(DISTRACTOR) + 1


def shifted(a_text, by):
    def move(match):
        return "%d %d" % (int(match.group(1)) + by, int(match.group(2)) + by)
    return "\n".join(re.sub(r"(\d+) (\d+)", move, line) if line else line for line in a_text.split("\n"))


def gold_files(number, sentences=(DISTRACTOR, SENTENCE), a=None, b=GOLD_B):
    folder = FOLDERS[number]
    return {"%s/input_scenario%d.txt" % (folder, number): "".join(s + "\n" for s in sentences),
            "%s/output_a_scenario%d.txt" % (folder, number): shifted(GOLD_A, SHIFT) if a is None else a,
            "%s/output_b_scenario%d.txt" % (folder, number): b}


def sub_files(number, sentences=(DISTRACTOR, SENTENCE), a=None, b=SUB_B, folder=None, sentence_name="output"):
    folder = FOLDERS[number] + "/" if folder is None else folder
    return {"%s%s_scenario%d.txt" % (folder, sentence_name, number): "".join(s + "\n" for s in sentences),
            "%soutput_a_scenario%d.txt" % (folder, number): shifted(SUB_A, SHIFT) if a is None else a,
            "%soutput_b_scenario%d.txt" % (folder, number): b}


def all_gold():
    ref = {}
    for number in (1, 2, 3):
        ref.update(gold_files(number))
    return ref


def all_submitted():
    res = {}
    for number in (1, 2, 3):
        res.update(sub_files(number))
    return res


EXPECTED = {
    "main_score": 0.55 / 1.05, "m_prec": 0.55, "m_rec": 0.5,
    "a_f1": 3.5 / 6, "a_prec": 3.5 / 6, "a_rec": 3.5 / 6,
    "b_f1": 0.4 / 0.9, "b_prec": 0.5, "b_rec": 0.4,
}


def assert_scores(run, expected):
    assert run.returncode == 0, run.stderr
    assert list(run.scores) == KEYS
    for key in KEYS:
        assert run.scores[key] == pytest.approx(expected.get(key, 0.0), abs=1e-12), key


def test_three_scenarios_hand_computed(score_submission):
    run = score_submission(TASK, all_gold(), all_submitted())
    assert_scores(run, EXPECTED)
    assert run.scores_txt.splitlines()[0] == "main_score: 0.523809523809524"
    assert "Scenario 1: 1 annotated sentences scored; C=5 I=1 P=1 M=4 S=3" in run.stdout
    assert "Scenario 2: 1 annotated sentences scored; C=3 I=1 P=1 M=1 S=1" in run.stdout
    assert "Scenario 3: 1 annotated sentences scored; C=2 I=0 P=0 M=3 S=2" in run.stdout


def test_perfect_submission(score_submission):
    res = {}
    for number in (1, 2, 3):
        gold = gold_files(number)
        res.update((name.replace("input_", "output_"), text) for name, text in gold.items())
    run = score_submission(TASK, all_gold(), res)
    assert_scores(run, dict((key, 1.0) for key in KEYS))


@pytest.mark.parametrize("submitted, expected", [
    ([1], dict((k, EXPECTED[k]) for k in ("main_score", "m_prec", "m_rec"))),
    ([2, 3], dict((k, EXPECTED[k]) for k in KEYS[3:])),
    ([3], dict((k, EXPECTED[k]) for k in KEYS[6:])),
])
def test_absent_scenarios_score_zero(score_submission, submitted, expected):
    res = {}
    for number in submitted:
        res.update(sub_files(number))
    run = score_submission(TASK, all_gold(), res)
    assert_scores(run, expected)
    for number in set((1, 2, 3)) - set(submitted):
        assert "Scenario %d: not submitted, scored 0" % number in run.stdout


def test_scenario_missing_from_the_reference_is_not_scored(score_submission):
    run = score_submission(TASK, gold_files(2), all_submitted())
    assert_scores(run, dict((k, EXPECTED[k]) for k in ("a_f1", "a_prec", "a_rec")))
    assert "Scenario 1: not in this phase, scored 0" in run.stdout


@pytest.mark.parametrize("folder, sentence_name", [
    ("wrapper/scenario1-main/", "output"),     # a zip made from a folder
    ("", "output"),                            # files at the root of the zip
    ("results/s1/", "input"),                  # other folder names, the input file returned as it is
])
def test_accepted_layouts(score_submission, folder, sentence_name):
    run = score_submission(TASK, gold_files(1), sub_files(1, folder=folder, sentence_name=sentence_name))
    assert_scores(run, dict((k, EXPECTED[k]) for k in ("main_score", "m_prec", "m_rec")))


def test_both_sentence_file_names_prefer_output(score_submission):
    res = sub_files(1)
    res["scenario1-main/input_scenario1.txt"] = "something else\n"
    run = score_submission(TASK, gold_files(1), res)
    assert run.scores["main_score"] == pytest.approx(EXPECTED["main_score"], abs=1e-12)


def test_changed_unannotated_sentence_is_a_warning(score_submission):
    res = sub_files(1, sentences=("Esta frase no tiene anotacioness.", SENTENCE), a=shifted(SUB_A, SHIFT + 1))
    run = score_submission(TASK, gold_files(1), res)
    assert run.scores["main_score"] == pytest.approx(EXPECTED["main_score"], abs=1e-12)
    assert ("Warning: scenario1-main/output_scenario1.txt, line 1: the sentence differs from line 1 of the given "
            "sentence file (1 line differ or are missing in all)") in run.stdout


def test_extra_lines_are_ignored_with_a_note(score_submission):
    res = sub_files(1, sentences=(DISTRACTOR, SENTENCE, "Una frase de más."))
    run = score_submission(TASK, gold_files(1), res)
    assert run.scores["main_score"] == pytest.approx(EXPECTED["main_score"], abs=1e-12)
    assert "has 1 more lines than the given sentence file" in run.stdout


def test_predictions_in_unannotated_sentences_cost_nothing(score_submission):
    a = "9\t0 4\tConcept\tEsta\n" + shifted(SUB_A, SHIFT)
    run = score_submission(TASK, gold_files(1), sub_files(1, a=a, b=SUB_B + "is-a\t9\t9\n"))
    assert run.scores["main_score"] == pytest.approx(EXPECTED["main_score"], abs=1e-12)


def test_relations_across_sentences_are_dropped_with_a_note(score_submission):
    a = "9\t0 4\tConcept\tEsta\n" + shifted(SUB_A, SHIFT)
    run = score_submission(TASK, gold_files(1), sub_files(1, a=a, b=SUB_B + "is-a\t9\t1\n"))
    assert run.scores["main_score"] == pytest.approx(EXPECTED["main_score"], abs=1e-12)
    assert "relations between key phrases of different sentences are ignored (1 in" in run.stdout


A1 = "scenario1-main/output_a_scenario1.txt"
B1 = "scenario1-main/output_b_scenario1.txt"
S1 = "scenario1-main/output_scenario1.txt"


def edited(**changes):
    res = sub_files(1)
    for name, text in changes.items():
        path = {"a": A1, "b": B1, "s": S1}[name]
        if text is None:
            del res[path]
        else:
            res[path] = text
    return res


BAD = [
    ("malformed key phrase", edited(a="1\t36 41\tConcept\n2\t36-41\tConcept\n"),
     [A1 + ", line 2:", "'36-41' are not START END pairs"]),
    ("unknown id", edited(b="is-a\t2\t3\ntarget\t6\t77\n"), [B1 + ", line 2:", "ID 77 is not defined"]),
    ("span after the file", edited(a="1\t500 503\tConcept\tx\n"), [A1 + ", line 1:", "after the end of the sentence"]),
    ("duplicate id", edited(a="1\t36 41\tConcept\tx\n1\t42 44\tConcept\tx\n"),
     [A1 + ", line 2:", "ID 1 is used twice"]),
    ("missing output_b", edited(b=None), ["scenario1-main/: scenario 1 needs output_b_scenario1.txt as well"]),
    ("missing output_a and b", edited(a=None, b=None),
     ["scenario 1 needs output_a_scenario1.txt and output_b_scenario1.txt as well"]),
    ("missing sentence file", edited(s=None), ["scenario 1 needs output_scenario1.txt as well"]),
    ("annotated sentence changed", edited(s=DISTRACTOR + "\n" + SENTENCE.replace("gripe", "Gripe") + "\n"),
     [S1 + ", line 2: the sentence differs from line 2 of the given sentence file",
      "return every sentence unchanged, one per line, in the given order"]),
    ("annotated sentence missing", edited(s=DISTRACTOR + "\n", a="", b=""),
     [S1 + " has 1 sentences where the given sentence file has 2"]),
    ("not UTF-8", edited(a=b"1\t36 41\tConcept\tgr\xefpe\n"), [A1 + ", line 1: the file is not UTF-8"]),
    ("no scenario files", {"predictions.txt": "x\n"}, ["the submission holds no scenario files",
                                                         "scenario1-main/{output_scenario1.txt"]),
    ("files of one scenario in two folders", dict(sub_files(1, folder="a/"), **{"b/output_a_scenario1.txt": ""}),
     ["files of scenario 1 in two folders, a/ and b/"]),
]


@pytest.mark.parametrize("name, res, fragments", BAD, ids=[b[0] for b in BAD])
def test_bad_submissions_are_rejected(score_submission, name, res, fragments):
    score_submission(TASK, gold_files(1), res).assert_rejected(*fragments)


def test_first_difference_is_named_whether_or_not_it_is_annotated(score_submission):
    """The message must not tell which sentences are the annotated ones."""
    sentences = DISTRACTOR.replace("frase", "oración") + "\n" + SENTENCE.replace("gripe", "Gripe") + "\n"
    res = edited(s=sentences, a=shifted(SUB_A, SHIFT + 2))
    message = score_submission(TASK, gold_files(1), res).assert_rejected(S1 + ", line 1:", "(2 lines differ")
    assert "gripe" not in message and "line 2" not in message


@pytest.mark.parametrize("ref_a, fragments", [
    ("1\t3 8\tConcept\tgripe\n2\t26-35\tConcept\tinfluenza\n", ["output_a_scenario1.txt, line 2: malformed spans"]),
    ("1\t3 8\tConcept\tgripe\n1\t26 35\tConcept\tinfluenza\n", ["line 2: a duplicate key-phrase ID"]),
])
def test_reference_errors_do_not_quote_gold(score_submission, ref_a, fragments):
    ref = gold_files(1, sentences=(SENTENCE,), a=ref_a, b="")
    message = score_submission(TASK, ref, edited()).assert_rejected("Reference data error", *fragments)
    assert "26" not in message and "influenza" not in message


def test_reference_without_scenarios(score_submission):
    score_submission(TASK, {"readme.txt": "x"}, edited()).assert_rejected(
        "Reference data error", "the reference data holds no scenario files")


def test_detailed_results_without_public_gold_show_aggregates_only(score_submission):
    run = score_submission(TASK, all_gold(), all_submitted())
    html = run.html
    assert "<script" not in html and "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    # The scores table: scenario 1 row with C I P M S and the three figures.
    assert re.search(r"1 \(scenario1-main\)</td><td>1 sentences</td>" + "".join(
        r'<td class="n">%s</td>' % v for v in ("5", "1", "1", "4", "3", "0.5500", "0.5000", "0.5238")), html)
    assert "Key phrases by label" in html and "Relations by label" in html
    # Hidden gold: the labels submitted, with the submission's count and precision, no gold count.
    assert '<td>Concept</td><td class="n">5</td><td class="n">0.7000</td></tr>' in html
    assert "<th>label</th><th>submitted</th><th>precision</th></tr>" in html and "<th>label</th><th>gold</th>" not in html
    assert "<mark" not in html.split("</style>")[1] and "Examples" not in html
    assert "shown only for phases whose gold annotations are public" in html


def test_detailed_results_with_public_gold_show_examples(score_submission):
    ref = dict(gold_files(1), **{"gold_is_public.txt": "public\n"})
    html = score_submission(TASK, ref, sub_files(1)).html
    body = html.split("</style>")[1]
    assert "Examples" in body
    assert "Line 2: " in body
    assert "<mark>llamada</mark>" in body                       # spurious key phrase
    assert '<mark class="miss">fiebre</mark>' in body           # missing key phrase
    assert "missing relations: subject(afecta \u2192 enfermedad); target(afecta \u2192 vías respiratorias); " \
           "causes(enfermedad \u2192 fiebre)" in body
    assert "spurious relations: subject(afecta \u2192 enfermedad); target(llamada \u2192 respiratorias)" in body


def test_failed_submission_gets_an_error_page(score_submission):
    run = score_submission(TASK, gold_files(1), edited(b=None))
    assert run.returncode == 1 and "scenario 1 needs output_b_scenario1.txt" in run.html
