"""Toxic spans scoring program, run as CodaLab runs it: scores, accepted variants, rejected submissions, real data."""
import ast
import csv
import io
import random
import re

import numpy as np
import pandas as pd
import pytest

from conftest import public_gold, run_scoring_program, shared_path
from test_toxic_spans_metric import official_f1

TASK = "toxic-spans"

# Eight posts; ids 1, 3 and 6 have no gold span. Gold offsets are all in 600-699 so that a leak is easy to spot.
GOLD = {
    0: list(range(612, 618)),
    1: [],
    2: list(range(640, 646)) + list(range(688, 693)),
    3: [],
    4: list(range(655, 661)),
    5: list(range(603, 610)),
    6: [],
    7: list(range(671, 680)),
}
PRED = {
    0: list(range(612, 618)),      # exact: 1
    1: [],                         # no gold span, nothing predicted: 1
    2: list(range(640, 646)),      # 6 of 11: F1 12/17, P 1, R 6/11
    3: [5, 6],                     # no gold span, something predicted: 0
    4: [],                         # gold spans, nothing predicted: 0
    5: list(range(605, 613)),      # 5 common of 8 and 7: F1 10/15, P 5/8, R 5/7
    6: [],                         # 1
    7: list(range(671, 680)),      # 1
}
EXPECTED_F1 = (4 + 12 / 17 + 2 / 3) / 8
EXPECTED_PRECISION = (5 + 5 / 8) / 8
EXPECTED_RECALL = (4 + 6 / 11 + 5 / 7) / 8
GOLD_OFFSET_TEXTS = sorted(set("%d" % o for offsets in GOLD.values() for o in offsets))


def spans_lines(spans, ids=None, eol="\n"):
    return "".join("%d\t%s%s" % (i, spans[i], eol) for i in (sorted(spans) if ids is None else ids))


GOLD_TXT = {"spans-gold.txt": spans_lines(GOLD)}
GOOD = spans_lines(PRED)


def gold_csv(gold):
    """The released CSV layout, with texts written for these tests (quotes, commas and line breaks included)."""
    texts = [
        'What a "brilliant" plan, said nobody.\nSeriously?',
        "Thanks for the update, very helpful.",
        "You clowns, again, with this nonsense",
        "I disagree with the article,\nbut it is well written.",
        "Only an idiot would believe that.",
        "Pathetic excuse for journalism",
        "Good point about the budget.",
        "Shut up and go away, loser",
    ]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["spans", "text"])
    for post_id in sorted(gold):
        writer.writerow([str(gold[post_id]), texts[post_id % len(texts)]])
    return out.getvalue()


def assert_expected_scores(run):
    assert run.returncode == 0, run.stderr
    assert list(run.scores) == ["spans_F1", "spans_precision", "spans_recall"]
    assert run.scores["spans_F1"] == pytest.approx(EXPECTED_F1, abs=1e-15)
    assert run.scores["spans_precision"] == pytest.approx(EXPECTED_PRECISION, abs=1e-15)
    assert run.scores["spans_recall"] == pytest.approx(EXPECTED_RECALL, abs=1e-15)


# ---------------------------------------------------------------------------------------------------------------
# A good submission

def test_scores_hand_computed(score_submission):
    run = score_submission(TASK, GOLD_TXT, {"spans-pred.txt": GOOD})
    assert_expected_scores(run)
    assert run.scores_txt == ("spans_F1: %.15f\nspans_precision: %.15f\nspans_recall: %.15f\n"
                              % (EXPECTED_F1, EXPECTED_PRECISION, EXPECTED_RECALL))
    assert "scored 8 posts" in run.stdout
    assert run.stderr == ""


def test_csv_reference_layout_gives_the_same_scores(score_submission):
    run = score_submission(TASK, {"tsd_test.csv": gold_csv(GOLD)}, {"spans-pred.txt": GOOD})
    assert_expected_scores(run)


def test_csv_reference_with_columns_swapped(score_submission):
    rows = list(csv.reader(io.StringIO(gold_csv(GOLD))))
    out = io.StringIO()
    csv.writer(out).writerows([[text, spans] for spans, text in rows])
    run = score_submission(TASK, {"gold.csv": out.getvalue()}, {"spans-pred.txt": GOOD})
    assert_expected_scores(run)


def test_perfect_and_empty_submissions(score_submission):
    perfect = score_submission(TASK, GOLD_TXT, {"spans-pred.txt": spans_lines(GOLD)})
    assert perfect.scores == {"spans_F1": 1.0, "spans_precision": 1.0, "spans_recall": 1.0}
    empty = score_submission(TASK, GOLD_TXT, {"spans-pred.txt": "".join("%d\t[]\n" % i for i in GOLD)})
    assert empty.scores == {"spans_F1": 3 / 8, "spans_precision": 3 / 8, "spans_recall": 3 / 8}


@pytest.mark.parametrize("name, res", [
    ("wrapper folder", {"my_submission/spans-pred.txt": GOOD}),
    ("stray files", {"spans-pred.txt": GOOD, "metadata": "description: x\n", "tmpab12cd.zip": b"PK\x05\x06"}),
    ("CRLF", {"spans-pred.txt": GOOD.replace("\n", "\r\n")}),
    ("CR only", {"spans-pred.txt": GOOD.replace("\n", "\r")}),
    ("BOM", {"spans-pred.txt": b"\xef\xbb\xbf" + GOOD.encode("utf-8")}),
    ("BOM and CRLF", {"spans-pred.txt": b"\xef\xbb\xbf" + GOOD.replace("\n", "\r\n").encode("utf-8")}),
    ("empty lines", {"spans-pred.txt": "\n\n" + GOOD.replace("\n", "\n\n", 3) + "\n  \n\n"}),
    ("no final newline", {"spans-pred.txt": GOOD.rstrip("\n")}),
    ("any order", {"spans-pred.txt": spans_lines(PRED, ids=[7, 3, 0, 5, 1, 6, 2, 4])}),
    ("spacing and trailing commas", {"spans-pred.txt": "".join(
        " %d \t [ %s , ] \t\n" % (i, " ,".join("%d" % o for o in PRED[i])) if PRED[i] else "%d\t[ ]\n" % i
        for i in PRED)}),
    ("duplicate offsets", {"spans-pred.txt": spans_lines(dict((i, p + p[:3]) for i, p in PRED.items()))}),
])
def test_accepted_variants_score_the_same(score_submission, name, res):
    assert_expected_scores(score_submission(TASK, GOLD_TXT, res))


def test_detailed_results_page(score_submission):
    run = score_submission(TASK, public_gold(GOLD_TXT), {"spans-pred.txt": GOOD})
    html = run.html
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html
    assert "<script" not in html and "src=" not in html and "<link" not in html
    cells = lambda label: re.search(r"<td>%s</td><td class=\"n\">(\d+)</td>" % re.escape(label), html).group(1)  # noqa: E731
    assert cells("gold has spans, spans predicted") == "4"
    assert cells("gold has spans, nothing predicted") == "1"
    assert cells("gold has no span, nothing predicted") == "2"
    assert cells("gold has no span, spans predicted") == "1"
    assert cells("posts scored") == "8"
    assert "%.4f" % EXPECTED_F1 in html
    # F1 per post: 1, 1, 12/17, 0, 0, 2/3, 1, 1 -> bars 0: 2, 0.6-0.8: 2, 1: 4
    for title in ("0: 2", "0\u20130.2: 0", "0.6\u20130.8: 2", "1: 4"):
        assert "<title>%s</title>" % title in html
    # no post's gold: no list of offsets, no run of gold offsets
    assert "[" not in html
    assert "612, 613" not in html and "640" not in html


# ---------------------------------------------------------------------------------------------------------------
# Bad submissions: one clear line, exit 1, no scores, never a gold offset

def with_line(line_number, text):
    """GOOD with its line ``line_number`` (1-based) replaced by ``text``."""
    lines = GOOD.splitlines()
    lines[line_number - 1] = text
    return "\n".join(lines) + "\n"


BAD = [
    ("missing posts", spans_lines(PRED, ids=[0, 1, 3, 4, 6, 7]),
     ["spans-pred.txt has no line for 2 of the 8 posts (ids 2, 5); write [] for a post without toxic spans"]),
    ("many missing posts", spans_lines(PRED, ids=[0]),
     ["no line for 7 of the 8 posts (ids 1, 2, 3, 4, 5, ...)"]),
    ("duplicate id", spans_lines(PRED, ids=[0, 1, 2, 3, 1, 4, 5, 6, 7]),
     ["spans-pred.txt, line 5: id 1 is given twice, on lines 2 and 5"]),
    ("unknown id", GOOD + "8\t[]\n", ["spans-pred.txt, line 9: id 8 is not a post of this phase (the ids run from 0 to 7)"]),
    ("negative id", with_line(2, "-1\t[]"), ["line 2: id -1 is not a post of this phase"]),
    ("space instead of tab", with_line(3, "2 [1, 2]"),
     ["spans-pred.txt, line 3: expected <id><TAB><list of offsets>, found no tab (the id and the list must be "
      "separated by a tab, not spaces)"]),
    ("list only", with_line(1, "[1, 2]"), ["line 1: expected <id><TAB><list of offsets>, found no tab"]),
    ("two tabs", with_line(4, "3\t[5]\t[6]"), ["spans-pred.txt, line 4: expected <id><TAB><list of offsets>, found 2 tabs"]),
    ("id not an integer", with_line(1, "post0\t[]"), ["spans-pred.txt, line 1: the id 'post0' is not an integer"]),
    ("not a list", with_line(4, "3\t5, 6"),
     ["spans-pred.txt, line 4: the offsets must be a list in square brackets such as [] or [4, 5, 6], found '5, 6'"]),
    ("a tuple", with_line(4, "3\t(5, 6)"), ["line 4: the offsets must be a list in square brackets"]),
    ("negative offset", with_line(4, "3\t[5, -3]"), ["spans-pred.txt, line 4: offset '-3' is negative"]),
    ("float offset", with_line(4, "3\t[2.5]"), ["spans-pred.txt, line 4: offset '2.5' is not an integer"]),
    ("string offset", with_line(4, "3\t['a']"), ["spans-pred.txt, line 4: ''a'' is not an offset"]),
    ("nested list", with_line(4, "3\t[[5, 6]]"), ["spans-pred.txt, line 4: '[5' is not an offset"]),
    ("missing list", with_line(4, "3\t"), ["spans-pred.txt, line 4: the list of offsets is missing"]),
    ("empty file", "", ["spans-pred.txt is empty: expected one line <id><TAB><list of offsets> for each of the 8 posts"]),
    ("blank lines only", "\n \r\n\n", ["spans-pred.txt is empty"]),
    ("not UTF-8", with_line(3, "2\t[1]").encode("utf-8").replace(b"[1]", b"[1] \xe9"),
     ["spans-pred.txt, line 3: the file is not UTF-8 text"]),
]


@pytest.mark.parametrize("name, content, fragments", BAD, ids=[case[0] for case in BAD])
def test_bad_submission_rejected(score_submission, name, content, fragments):
    run = score_submission(TASK, GOLD_TXT, {"spans-pred.txt": content})
    message = run.assert_rejected("Submission error: ", *fragments)
    for offset in GOLD_OFFSET_TEXTS:
        assert offset not in message and offset not in run.html


def test_bad_submission_in_csv_layout_is_rejected_the_same_way(score_submission):
    run = score_submission(TASK, {"tsd_test.csv": gold_csv(GOLD)}, {"spans-pred.txt": with_line(4, "3\t[5, -3]")})
    run.assert_rejected("spans-pred.txt, line 4: offset '-3' is negative")


@pytest.mark.parametrize("res, fragments", [
    ({"predictions.txt": GOOD}, ["no spans-pred.txt in the submission", "found predictions.txt",
                                 "The zip must hold spans-pred.txt at its root"]),
    ({}, ["no spans-pred.txt in the submission", "found nothing"]),
    ({"a/spans-pred.txt": GOOD, "b/spans-pred.txt": GOOD}, ["no spans-pred.txt in the submission", "found a/spans-pred.txt"]),
])
def test_missing_submission_file(score_submission, res, fragments):
    score_submission(TASK, GOLD_TXT, res).assert_rejected(*fragments)


@pytest.mark.parametrize("ref, fragments", [
    ({}, ["Reference data error", "expected spans-gold.txt or one CSV file with columns spans,text"]),
    ({"spans-gold.txt": "0\t[1, 2]\n1\t[613, -614]\n"},
     ["Reference data error", "reference file spans-gold.txt, line 2: the spans are not a list"]),
    ({"spans-gold.txt": "0\t[]\n0\t[]\n"}, ["reference file spans-gold.txt, line 2: id 0 appears twice"]),
    ({"gold.csv": "id,text\n0,hello\n"}, ["reference file gold.csv: no 'spans' column"]),
    ({"gold.csv": "spans,text\n[],fine\n\"[6, x13]\",bad\n"}, ["reference file gold.csv, line 3: the spans are not a list"]),
    ({"spans-gold.txt": "\n"}, ["reference file spans-gold.txt holds no posts"]),
])
def test_reference_data_errors(score_submission, ref, fragments):
    message = score_submission(TASK, ref, {"spans-pred.txt": "0\t[]\n"}).assert_rejected(*fragments)
    assert "613" not in message and "614" not in message and "x13" not in message


# ---------------------------------------------------------------------------------------------------------------
# The official definition (numpy mean of per-post F1 on python sets) on random submissions

def test_program_equals_official_on_random_submissions(score_submission):
    rng = random.Random(2021)
    gold = {}
    for post_id in range(300):
        start = rng.randrange(200)
        gold[post_id] = [] if rng.random() < 0.2 else list(range(start, start + rng.randint(1, 25)))
    for trial in range(3):
        pred = {}
        for post_id, offsets in gold.items():
            kept = [o for o in offsets if rng.random() < 0.8]
            extra = [rng.randrange(250) for _ in range(rng.choice((0, 0, 1, 5)))]
            pred[post_id] = kept + extra + kept[:2]
        run = score_submission(TASK, {"spans-gold.txt": spans_lines(gold)}, {"spans-pred.txt": spans_lines(pred)})
        expected = np.mean([official_f1(pred[i], gold[i]) for i in gold])
        assert abs(run.scores["spans_F1"] - expected) <= 1e-12, trial


# ---------------------------------------------------------------------------------------------------------------
# The real test set (skipped without ../shared)

@pytest.fixture(scope="module")
def real_test():
    path = shared_path("toxic-spans", "tsd_test.csv")
    frame = pd.read_csv(path)
    return path, [ast.literal_eval(s) for s in frame["spans"]], list(frame["text"])


def trial_lexicon_predictions(texts):
    """A plausible baseline: words fully inside a gold span of the trial set are toxic wherever they appear."""
    trial = pd.read_csv(shared_path("toxic-spans", "tsd_trial.csv"))
    lexicon = set()
    for spans, text in zip(trial["spans"].map(ast.literal_eval), trial["text"]):
        toxic = set(spans)
        for match in re.finditer(r"\w+", text):
            if all(o in toxic for o in range(match.start(), match.end())):
                lexicon.add(match.group().lower())
    return [[o for m in re.finditer(r"\w+", text) if m.group().lower() in lexicon for o in range(m.start(), m.end())]
            for text in texts]


def perturbed(gold, seed):
    rng = random.Random(seed)
    out = []
    for offsets in gold:
        shift = rng.choice((-3, 0, 0, 2))
        kept = [o + shift for o in offsets if rng.random() < 0.7 and o + shift >= 0]
        if rng.random() < 0.1:
            start = rng.randrange(300)
            kept += list(range(start, start + rng.randint(1, 10)))
        out.append(kept)
    return out


def oracle_means(pred, gold):
    def prf(p, g):
        if not g or not p:
            value = 1.0 if not g and not p else 0.0
            return value, value, value
        common = len(set(p) & set(g))
        return official_f1(p, g), common / len(set(p)), common / len(set(g))
    return np.mean([prf(p, g) for p, g in zip(pred, gold)], axis=0)


@pytest.mark.parametrize("layout", ["csv", "spans-gold.txt"])
@pytest.mark.parametrize("prediction", ["gold", "empty", "perturbed-1", "perturbed-2", "trial-lexicon"])
def test_real_test_set_matches_official(score_submission, real_test, layout, prediction):
    path, gold, texts = real_test
    pred = {
        "gold": lambda: gold,
        "empty": lambda: [[] for _ in gold],
        "perturbed-1": lambda: perturbed(gold, 1),
        "perturbed-2": lambda: perturbed(gold, 2),
        "trial-lexicon": lambda: trial_lexicon_predictions(texts),
    }[prediction]()
    ref = {"tsd_test.csv": path} if layout == "csv" else {"spans-gold.txt": spans_lines(dict(enumerate(gold)))}
    lines = spans_lines(dict(enumerate(pred)), ids=random.Random(3).sample(range(len(pred)), len(pred)))
    run = score_submission(TASK, ref, {"spans-pred.txt": lines})
    assert run.returncode == 0, run.stderr
    assert "scored 2000 posts" in run.stdout
    f1, precision, recall = oracle_means(pred, gold)
    assert abs(run.scores["spans_F1"] - np.mean([official_f1(p, g) for p, g in zip(pred, gold)])) <= 1e-12
    assert abs(run.scores["spans_precision"] - precision) <= 1e-12
    assert abs(run.scores["spans_recall"] - recall) <= 1e-12
    if prediction == "gold":
        assert run.scores_txt.startswith("spans_F1: 1.000000000000000\n")
    elif prediction == "empty":
        assert run.scores["spans_F1"] == 394 / 2000 == 0.197
        assert run.scores_txt.startswith("spans_F1: 0.197000000000000\n")
    else:
        assert 0.05 < run.scores["spans_F1"] < 0.95  # a real mix of right and wrong posts


def test_the_first_bad_line_ends_the_run_before_the_rest_is_read(tmp_path):
    """Lines are read as a stream: an unknown id at line 3 is the message, although 2 MB further on the file stops
    being UTF-8; a line longer than any prediction needs is refused at its number."""
    gold = {"spans-gold.txt": "0\t[1, 2]\n1\t[]\n"}
    padding = "".join("%d\t[1, 2]\n" % (100 + i) for i in range(200000)).encode("utf-8")
    run = run_scoring_program("toxic-spans", gold, {"spans-pred.txt": b"0\t[1]\n1\t[]\n7\t[]\n" + padding + b"\xff"},
                              tmp_path / "a")
    run.assert_rejected()
    assert run.stderr.strip() == ("Submission error: spans-pred.txt, line 3: id 7 is not a post of this phase (the "
                                  "ids run from 0 to 1)")
    long_line = b"1\t[" + b"1, " * 6000000 + b"2]\n"
    run = run_scoring_program("toxic-spans", gold, {"spans-pred.txt": b"0\t[1]\n" + long_line}, tmp_path / "b")
    run.assert_rejected()
    assert run.stderr.strip() == ("Submission error: spans-pred.txt, line 2: the line is longer than 16777216 bytes; "
                                  "no line of this file needs that many")
