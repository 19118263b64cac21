"""CHEERS scoring program, run as CodaLab runs it: hand-computed scores, accepted variants, rejected run files."""
import csv
import io
import json
import random
import re

import pandas as pd
import pytest
from sklearn.metrics import f1_score

from conftest import public_gold

TASK = "cheers"
MAPPING = {"Agriculture": 1, "Cross": 2, "Education": 3, "Food Security": 4, "Health": 5, "Livelihoods": 6,
           "Logistics": 7, "Nutrition": 8, "Protection": 9, "Shelter": 10, "WASH": 11}
# Gold texts carry a marker, so that a leak of gold text into any output is easy to spot.
MARK = "QZXGOLD"

# The metric card's example: (doc_id, sentence_id, is_relevant, sector_ids).
EXAMPLE_GOLD = [
    (0, 0, 1, [1, 7]),   # a
    (0, 1, 1, [4]),      # b
    (0, 2, 1, []),       # c: relevant without sector
    (1, 0, 0, []),       # d
    (1, 1, 1, [5]),      # e
    (1, 2, 0, []),       # f
]
EXAMPLE_RUN = [(0, 0, 1, 7), (0, 1, 1, 2), (0, 2, 1, -1), (1, 0, 1, 3), (1, 1, 0, -1), (1, 2, 0, -1)]


def gold_files(rows=EXAMPLE_GOLD, mapping=MAPPING, name="sentences_val_en.csv"):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["doc_id", "sentence_id", "sentence_text", "is_relevant", "sector_ids"])
    for doc_id, sentence_id, relevant, sectors in rows:
        writer.writerow([doc_id, sentence_id, "%s text of %d/%d, with a comma" % (MARK, doc_id, sentence_id),
                         relevant, "[%s]" % ", ".join(str(s) for s in sectors)])
    files = {name: out.getvalue()}
    if mapping is not None:
        files["immap_sector_name_to_id.json"] = json.dumps(mapping)
    return files


def run_csv(rows, header="doc_id,sentence_id,is_relevant,sector_id", sep=","):
    return header + "\n" + "".join(sep.join(str(v) for v in row) + "\n" for row in rows)


def scores_of(run):
    assert run.returncode == 0, run.stderr
    return run.scores


def assert_scores(run, relevance, sectors):
    scores = scores_of(run)
    assert list(scores) == ["relevance_f1_score_macro", "sectorids_accuracy", "HumImpact"]
    assert scores["relevance_f1_score_macro"] == pytest.approx(relevance, abs=1e-12)
    assert scores["sectorids_accuracy"] == pytest.approx(sectors, abs=1e-12)
    assert scores["HumImpact"] == pytest.approx(0.5 * relevance + 0.5 * sectors, abs=1e-12)


def replace(rows, key, relevant, sector):
    return [(d, s, relevant, sector) if (d, s) == key else (d, s, r, z) for d, s, r, z in rows]


# ---------------------------------------------------------------------------------------------------------------
# Scores


def test_worked_example_of_the_metric_card(score_submission):
    run = score_submission(TASK, gold_files(), {"run.csv": run_csv(EXAMPLE_RUN)})
    assert_scores(run, 0.625, 1 / 6)
    assert run.scores_txt == ("relevance_f1_score_macro: 0.625000000000000\n"
                              "sectorids_accuracy: 0.166666666666667\n"
                              "HumImpact: 0.395833333333333\n")


def test_stdout_carries_the_organizers_three_line_summary(score_submission):
    run = score_submission(TASK, gold_files(), {"run.csv": run_csv(EXAMPLE_RUN)})
    lines = run.stdout.splitlines()
    assert lines[-4:-1] == ["Macro-averaged F1 score for is_relevant variable is: 62.50",
                            "Accuracy for sector_ids variable is: 16.67",
                            "HumImpact Score is: 39.58"]
    assert lines[-1].startswith("signature: cheers|version:%s|gold_sha256:" % run.signature["version"])


# Spec edge cases on the example gold; expectations worked out by hand in the comments.
EDGE_CASES = {
    # Nothing predicted relevant: F1(0) = 2*2/(2+6) = 0.5, F1(1) = 0; no sentence counted for sectors: 0.
    "no sentence predicted relevant": ([(d, s, 0, -1) for d, s, _, _ in EXAMPLE_GOLD], 0.25, 0.0),
    # All predicted relevant: F1(1) = 2*4/(4+6) = 0.8, F1(0) = 0. Counted a, b, d, e, f (c is left out):
    # a 1 in {1,7} 1/2, b 4 = {4} 1, d false alarm 0, e 5 = {5} 1, f -1 on a false alarm 0 -> 2.5/5.
    "all predicted relevant": ([(0, 0, 1, 1), (0, 1, 1, 4), (0, 2, 1, 9), (1, 0, 1, 3), (1, 1, 1, 5), (1, 2, 1, -1)],
                               0.4, 0.5),
    # Relevance exactly right; the best possible sectors still give a 1/2 on the two-sector sentence.
    "perfect run, multi-sector ceiling": ([(0, 0, 1, 7), (0, 1, 1, 4), (0, 2, 1, -1), (1, 0, 0, -1), (1, 1, 1, 5),
                                           (1, 2, 0, -1)], 1.0, 2.5 / 3),
    # -1 on sentences predicted relevant: counted (except c), each 0.
    "sector -1 on relevant predictions": ([(0, 0, 1, -1), (0, 1, 1, -1), (0, 2, 1, -1), (1, 0, 0, -1),
                                           (1, 1, 1, -1), (1, 2, 0, -1)], 1.0, 0.0),
    # Only d, a false alarm, predicted relevant: F1(0) = 2*1/(2+5), F1(1) = 0; d alone is counted, earning 0.
    "only a false alarm predicted relevant": ([(0, 0, 0, -1), (0, 1, 0, -1), (0, 2, 0, -1), (1, 0, 1, 4),
                                               (1, 1, 0, -1), (1, 2, 0, -1)], (2 / 7 + 0) / 2, 0.0),
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_spec_edge_cases(score_submission, case):
    rows, relevance, sectors = EDGE_CASES[case]
    run = score_submission(TASK, gold_files(), {"run.csv": run_csv(rows)})
    assert_scores(run, relevance, sectors)


def test_gold_relevant_sentence_without_sector_is_left_out_whatever_is_predicted(score_submission):
    # c (0, 2) is relevant without sector: any valid sector on it changes nothing.
    results = set()
    for sector in (-1, 1, 4, 11):
        run = score_submission(TASK, gold_files(), {"run.csv": run_csv(replace(EXAMPLE_RUN, (0, 2), 1, sector))})
        results.add(tuple(sorted(scores_of(run).items())))
    assert len(results) == 1


@pytest.mark.parametrize("sector, credit_of_a", [(1, 1 / 2), (7, 1 / 2), (4, 0.0), (-1, 0.0)])
def test_multi_sector_gold_earns_one_over_its_size(score_submission, sector, credit_of_a):
    # Counted: a, b (wrong: 0), d (false alarm: 0).
    run = score_submission(TASK, gold_files(), {"run.csv": run_csv(replace(EXAMPLE_RUN, (0, 0), 1, sector))})
    assert_scores(run, 0.625, credit_of_a / 3)


def test_three_sector_gold(score_submission):
    gold = [(5, 0, 1, [2, 4, 9]), (5, 1, 1, [6]), (5, 2, 0, [])]
    run = score_submission(TASK, gold_files(gold), {"run.csv": run_csv([(5, 0, 1, 9), (5, 1, 1, 6), (5, 2, 0, -1)])})
    assert_scores(run, 1.0, (1 / 3 + 1) / 2)


def test_single_class_everywhere_scores_relevance_one(score_submission):
    gold = [(0, 0, 0, []), (0, 1, 0, [])]
    run = score_submission(TASK, gold_files(gold), {"run.csv": run_csv([(0, 0, 0, -1), (0, 1, 0, -1)])})
    assert_scores(run, 1.0, 0.0)


def test_the_seeds_own_run_file_example_is_accepted(score_submission):
    # The run file printed on the task page, verbatim, spaces and alignment included.
    seed_run = ("doc_id, sentence_id, is_relevant, sector_id\n"
                "0, 0, 0, -1\n0, 1, 1,  1\n0, 2, 0, -1\n1, 0, 1,  4\n2, 0, 1,  2\n"
                "2, 1, 1,  7\n2, 2, 1, -1\n2, 3, 1,  3\n2, 4, 0, -1\n")
    gold = [(0, 0, 0, []), (0, 1, 1, [1, 7]), (0, 2, 0, []), (1, 0, 1, [4]), (2, 0, 1, [2, 3]), (2, 1, 0, []),
            (2, 2, 1, []), (2, 3, 1, [3]), (2, 4, 1, [5])]
    run = score_submission(TASK, gold_files(gold), {"example.csv": seed_run})
    # F1(1) = 2*5/(6+6), F1(0) = 2*2/(3+3); sectors: 1/2, 1, 1/2, 0 (false alarm), 1 over 5 counted.
    assert_scores(run, (10 / 12 + 4 / 6) / 2, 3.0 / 5)


def test_row_order_and_padded_integer_ids_do_not_matter(score_submission):
    rows = list(EXAMPLE_RUN)
    random.Random(3).shuffle(rows)
    text = run_csv(rows).replace("\n0,0,", "\n00,0,").replace("\n1,2,", "\n1,002,")
    assert "00,0," in text and "1,002," in text
    assert_scores(score_submission(TASK, gold_files(), {"run.csv": text}), 0.625, 1 / 6)


@pytest.mark.parametrize("layout", ["wrapper folder", "bom and crlf", "stray metadata", "spaces around cells"])
def test_accepted_variants(score_submission, layout):
    text = run_csv(EXAMPLE_RUN)
    res = {"run.csv": text}
    if layout == "wrapper folder":
        res = {"my-team-run/run.csv": text}
    elif layout == "bom and crlf":
        res = {"run.csv": ("\ufeff" + text.replace("\n", "\r\n")).encode("utf-8")}
    elif layout == "stray metadata":
        res = {"run.csv": text, "metadata": "elapsedTime: 1.0\n"}
    elif layout == "spaces around cells":
        res = {"run.csv": run_csv(EXAMPLE_RUN, header="doc_id , sentence_id , is_relevant , sector_id", sep=" , ")}
    assert_scores(score_submission(TASK, gold_files(), res), 0.625, 1 / 6)


def test_documents_csv_beside_the_gold_is_ignored(score_submission):
    ref = gold_files()
    ref["documents_val_en.csv"] = "project_name,country_code,doc_id,doc_text,doc_url\nX,SYR,0,text,u\n"
    assert_scores(score_submission(TASK, ref, {"run.csv": run_csv(EXAMPLE_RUN)}), 0.625, 1 / 6)


def test_random_runs_agree_with_a_pandas_and_scikit_learn_oracle(score_submission):
    rng = random.Random(11)
    gold = []
    for doc_id in range(40):
        for sentence_id in range(rng.randint(1, 9)):
            kind = rng.random()
            sectors = [] if kind < 0.6 else rng.sample(range(1, 12), rng.choice([1, 1, 1, 2, 3]))
            gold.append((doc_id, sentence_id, int(kind >= 0.5), sectors))
    run = []
    for doc_id, sentence_id, _, _ in gold:
        relevant = int(rng.random() < 0.5)
        run.append((doc_id, sentence_id, relevant, rng.choice(list(range(1, 12)) + [-1]) if relevant else -1))
    rng.shuffle(run)
    result = score_submission(TASK, gold_files(gold), {"run.csv": run_csv(run)})

    g = pd.DataFrame(gold, columns=["doc_id", "sentence_id", "is_relevant", "sector_ids"])
    r = pd.DataFrame(run, columns=["doc_id", "sentence_id", "pred_relevant", "sector_id"])
    m = g.merge(r, on=["doc_id", "sentence_id"], validate="one_to_one")
    assert len(m) == len(g)
    counted = m[(m.pred_relevant == 1) & ~((m.is_relevant == 1) & (m.sector_ids.str.len() == 0))]
    credit = counted.apply(lambda row: (row.sector_id in row.sector_ids) / max(1, len(row.sector_ids)), axis=1)
    assert_scores(result, f1_score(m.is_relevant, m.pred_relevant, average="macro"), credit.mean())


# ---------------------------------------------------------------------------------------------------------------
# Detailed results


def test_detailed_results_show_the_confusion_matrix_and_per_sector_accuracy(score_submission):
    run = score_submission(TASK, public_gold(gold_files()), {"run.csv": run_csv(EXAMPLE_RUN)})
    html = re.sub(r"\s+", " ", run.html)
    # gold 0: d predicted 1, f predicted 0; gold 1: e predicted 0, a b c predicted 1.
    assert '<tr><td>gold not relevant (0)</td><td class="n">1</td><td class="n">1</td></tr>' in html
    assert '<tr><td>gold relevant (1)</td><td class="n">1</td><td class="n">3</td></tr>' in html
    # Per gold sector over counted sentences: Agriculture (a): 1 sentence, 0 exact, mean 1/2; Food Security (b): 0.
    assert ('<tr><td>Agriculture (1)</td><td class="n">1</td><td class="n">0</td><td class="n">0</td>'
            '<td class="n">0.5000</td></tr>') in html
    assert ('<tr><td>Logistics (7)</td><td class="n">1</td><td class="n">1</td><td class="n">1</td>'
            '<td class="n">0.5000</td></tr>') in html
    assert ('<tr><td>Food Security (4)</td><td class="n">1</td><td class="n">0</td><td class="n">0</td>'
            '<td class="n">0.0000</td></tr>') in html
    assert "<svg" in html and "<script" not in html.lower() and "http" not in html.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")


def test_no_gold_text_or_label_list_reaches_any_output(score_submission):
    run = score_submission(TASK, gold_files(), {"run.csv": run_csv(EXAMPLE_RUN)})
    for output in (run.html, run.stdout, run.stderr):
        assert MARK not in output and "[1, 7]" not in output


# ---------------------------------------------------------------------------------------------------------------
# Rejected run files: one line on stderr, exit 1, no scores, no gold


def bad(rows_or_text):
    return {"run.csv": rows_or_text if isinstance(rows_or_text, str) else run_csv(rows_or_text)}


REJECTED = {
    "no csv": ({"run.txt": run_csv(EXAMPLE_RUN)}, ["run.txt", ".csv"]),
    "two csv files": ({"a.csv": run_csv(EXAMPLE_RUN), "b.csv": run_csv(EXAMPLE_RUN)}, ["a.csv", "b.csv"]),
    "empty file": (bad(""), ["run.csv is empty"]),
    "missing column": (bad("doc_id,sentence_id,is_relevant\n0,0,1\n"), ["run.csv, line 1", "sector_id", "missing"]),
    "unknown column": (bad(run_csv([r + (0.9,) for r in EXAMPLE_RUN],
                                   header="doc_id,sentence_id,is_relevant,sector_id,confidence")),
                       ["line 1", "unknown column 'confidence'"]),
    "index column": (bad(run_csv([(i,) + r for i, r in enumerate(EXAMPLE_RUN)],
                                 header=",doc_id,sentence_id,is_relevant,sector_id")), ["line 1", "index=False"]),
    "repeated column": (bad("doc_id,sentence_id,is_relevant,sector_id,sector_id\n"), ["column sector_id", "more than once"]),
    "wrong number of values": (bad(run_csv(EXAMPLE_RUN).replace("\n1,0,1,3\n", "\n1,0,1\n")),
                               ["run.csv, line 5", "3 values", "4 columns"]),
    "repeated sentence": (bad(EXAMPLE_RUN + [(0, 1, 0, -1)]), ["line 8", "doc_id 0, sentence_id 1",
                                                                "already has a row at line 3"]),
    "unknown sentence": (bad(EXAMPLE_RUN + [(9, 0, 0, -1)]), ["line 8", "doc_id 9, sentence_id 0",
                                                              "no such sentence"]),
    "missing sentence": (bad(EXAMPLE_RUN[:4] + EXAMPLE_RUN[5:]), ["no row for 1 of the 6 sentences",
                                                                 "doc_id 1, sentence_id 1"]),
    "header only": (bad([]), ["no row for 6 of the 6 sentences"]),
    "is_relevant 2": (bad(replace(EXAMPLE_RUN, (1, 2), 2, -1)), ["line 7", "is_relevant must be 0 or 1, not '2'"]),
    "is_relevant text": (bad(replace(EXAMPLE_RUN, (1, 2), "yes", -1)), ["is_relevant must be 0 or 1, not 'yes'"]),
    "is_relevant empty": (bad(replace(EXAMPLE_RUN, (1, 2), "", -1)), ["is_relevant must be 0 or 1, not ''"]),
    "sector_id decimal": (bad(replace(EXAMPLE_RUN, (0, 0), 1, "7.0")), ["line 2", "sector_id must be an integer, not '7.0'"]),
    "sector_id text": (bad(replace(EXAMPLE_RUN, (0, 0), 1, "Health")), ["sector_id must be an integer, not 'Health'"]),
    "sector_id list": (bad(run_csv(EXAMPLE_RUN).replace("0,0,1,7", '0,0,1,"[1, 7]"')),
                       ["sector_id must be an integer, not '[1, 7]'"]),
    "sector on a non-relevant row": (bad(replace(EXAMPLE_RUN, (1, 2), 0, 4)),
                                     ["line 7", "sector_id must be -1 when is_relevant is 0, not 4"]),
    "unknown sector": (bad(replace(EXAMPLE_RUN, (0, 0), 1, 99)),
                       ["line 2", "sector_id 99 is not a sector", "known ids: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11"]),
    "sector -2": (bad(replace(EXAMPLE_RUN, (0, 0), 1, -2)), ["sector_id -2 is not a sector"]),
    "not utf-8": ({"run.csv": run_csv(EXAMPLE_RUN).encode("utf-8") + b"\xff\n"}, ["not UTF-8", "line 8"]),
    "unclosed quote": (bad(run_csv(EXAMPLE_RUN) + '1,"3,0,-1\n'), ["run.csv, line 8", "2 values"]),
}


@pytest.mark.parametrize("case", sorted(REJECTED))
def test_rejected_run_files(score_submission, case):
    res, fragments = REJECTED[case]
    run = score_submission(TASK, gold_files(), res)
    message = run.assert_rejected("Submission error", *fragments)
    assert MARK not in message and "[4]" not in message and "[5]" not in message
    assert "The submission was not scored" in run.html


def test_without_mapping_known_sectors_are_the_golds_and_are_not_listed(score_submission):
    # Gold sectors are 1, 4, 5, 7; the example run predicts 2 for b, an id the gold never uses.
    run = score_submission(TASK, gold_files(mapping=None), bad(EXAMPLE_RUN))
    message = run.assert_rejected("line 3", "sector_id 2 is not a sector")
    assert "known ids" not in message and "4" not in message
    # With gold ids only (b -> 4, d -> 5): a 1/2, b 1, d false alarm 0.
    rows = replace(replace(EXAMPLE_RUN, (0, 1), 1, 4), (1, 0), 1, 5)
    assert_scores(score_submission(TASK, gold_files(mapping=None), bad(rows)), 0.625, 1.5 / 3)


# ---------------------------------------------------------------------------------------------------------------
# Bad gold: the organizers' problem, said so


@pytest.mark.parametrize("ref, fragment", [
    (gold_files([(0, 0, 0, [3])]), "line 2: a non-relevant sentence has sector ids"),
    (gold_files([(0, 0, 1, [12])]), "line 2: a sector id is not in immap_sector_name_to_id.json"),
    (gold_files([(0, 0, 1, [1]), (0, 0, 0, [])]), "line 3: doc_id 0, sentence_id 0 appears twice"),
    ({"sentences_val_en.csv": "doc_id,sentence_id,is_relevant\n0,0,1\n"}, "lacks the column(s) sector_ids"),
    ({"sentences_val_en.csv": "doc_id,sentence_id,is_relevant,sector_ids\n0,0,1,{1}\n"}, "must be a list"),
    (dict(gold_files(), **{"immap_sector_name_to_id.json": "{not json"}), "immap_sector_name_to_id.json, line 1, column 2: not valid JSON"),
])
def test_bad_gold_is_reported_as_reference_data_error(score_submission, ref, fragment):
    run = score_submission(TASK, ref, bad([(0, 0, 0, -1)]))
    run.assert_rejected("Reference data error", fragment)


def test_the_first_bad_row_ends_the_run_before_the_rest_is_read(score_submission):
    """Rows are checked as they are read: an unknown sentence at line 4 is what the participant is told, although
    2 MB further on the file stops being UTF-8 (read whole first, that would be the message)."""
    rows = run_csv(EXAMPLE_RUN[:2] + [(9, 9, 1, -1)] + EXAMPLE_RUN[2:]).encode("utf-8")
    padding = b"".join(b"%d,%d,0,-1\n" % (100 + i, i) for i in range(200000))
    run = score_submission(TASK, gold_files(), {"run.csv": rows + padding + b"1,\xff\xfe,0,-1\n"})
    run.assert_rejected()
    assert run.stderr.strip() == ("Submission error: run.csv, line 4 (doc_id 9, sentence_id 9): no such sentence in "
                                  "this phase's data")


def test_a_line_longer_than_any_row_needs_is_refused_at_its_number(score_submission):
    long_id = "7" * 70000
    run = score_submission(TASK, gold_files(), {"run.csv": run_csv([(0, long_id, 1, -1)] + EXAMPLE_RUN)})
    run.assert_rejected()
    assert run.stderr.strip() == ("Submission error: run.csv, line 2: the line is longer than 65536 characters; no "
                                  "line of this file needs that many")
