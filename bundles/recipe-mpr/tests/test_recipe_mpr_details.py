"""recipe-mpr's detailed results, hand-computed: accuracy by number of type flags, the histogram of the answer's
rank (its last bar the queries whose answer was not ranked), and the words of a query's detail."""
import re
import sys
from collections import Counter

import pytest

from conftest import ROOT, public_gold
from test_recipe_mpr_scoring import TASK, WORKED_GOLD, WORKED_SUBMISSION, gold_query, ref_files, res_files

sys.path.insert(0, str(ROOT / "scoring_programs" / TASK))

from recipe_mpr_metric import Evaluation, accuracy_of_totals, ordinal, query_items  # noqa: E402


def rows(html, heading):
    """The table rows of the section titled ``heading``: the cells' text."""
    part = html.split("<h2>%s</h2>" % heading, 1)[1].split("<h2>", 1)[0]
    body = part.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)]


def test_the_worked_example_by_flags_and_by_rank(score_submission):
    # q0: Specific + Negated (2 flags), answer first; q1: Commonsense (1 flag), answer second; q2: Commonsense +
    # Temporal (2 flags), one wrong choice, so the answer is not ranked; q3: no flag, answer third.
    run = score_submission(TASK, public_gold(ref_files(WORKED_GOLD)), res_files(WORKED_SUBMISSION))
    assert run.returncode == 0, run.stderr
    html = run.html
    assert rows(html, "Accuracy by number of type flags") == [
        ["0", "1", "0", "0.0000", "0.3333"],      # q3: MRR 1/3
        ["1", "1", "0", "0.0000", "0.5000"],      # q1: MRR 1/2
        ["2", "2", "1", "0.5000", "0.5000"],      # q0 and q2: (1 + 0) / 2
    ]
    assert rows(html, "Rank of the correct option") == [
        ["rank 1", "1"], ["rank 2", "1"], ["rank 3", "1"], ["rank 4", "0"], ["rank 5", "0"], ["not ranked", "1"]]
    # The bar charts: one bar per number of flags ("1 flag", "2 flags"), one per rank.
    flags = html.split("<h2>Accuracy by number of type flags</h2>", 1)[1].split("<h2>", 1)[0]
    assert ">0 flags<" in flags and ">1 flag<" in flags and ">2 flags<" in flags
    ranks = html.split("<h2>Rank of the correct option</h2>", 1)[1].split("<h2>", 1)[0]
    assert ">not ranked<" in ranks and ">rank 5<" in ranks


def test_groups_and_rank_counts_from_counts():
    # (rank of the answer or None, flagged types, options): queries
    counts = Counter({(1, ("Specific",), 5): 3, (2, ("Specific", "Negated"), 7): 2, (None, (), 5): 4,
                      (7, ("Temporal", "Negated", "Analogical"), 7): 1, (None, ("Negated",), 7): 2,
                      (1, ("Temporal",), 7): 2})
    evaluation = Evaluation(counts=counts)
    assert evaluation.max_options == 7
    assert evaluation.rank_counts == [5, 2, 0, 0, 0, 0, 1, 6]
    # one flag: 3 + 2 first (Specific, Temporal), 2 not ranked (Negated)
    assert [(g.label, g.count, g.correct) for g in evaluation.by_flag_count] == [(0, 4, 0), (1, 7, 5), (2, 2, 0),
                                                                                   (3, 1, 0)]
    one_flag = evaluation.by_flag_count[1]
    assert one_flag.accuracy == 5 / 7 and one_flag.mrr == pytest.approx(5 / 7, abs=1e-15)
    assert evaluation.by_flag_count[3].mrr == pytest.approx(1 / 7, abs=1e-15)
    assert evaluation.overall.mrr == pytest.approx((5 + 2 / 2 + 1 / 7) / 14, abs=1e-15)
    by_type = dict((g.label, (g.count, g.correct)) for g in evaluation.by_type)
    assert by_type["Negated"] == (5, 0) and by_type["Specific"] == (5, 3) and by_type["Commonsense"] == (0, 0)
    assert by_type["Temporal"] == (3, 2)
    assert evaluation.omitted_notes() == ["acc_commonsense omitted: the reference has no Commonsense query"]


@pytest.mark.parametrize("number, text", [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"),
                                          (12, "12th"), (13, "13th"), (21, "21st"), (22, "22nd"), (23, "23rd"),
                                          (101, "101st"), (111, "111th"), (112, "112th")])
def test_ordinal(number, text):
    assert ordinal(number) == text


def test_query_details_and_verdicts():
    items = query_items([("a", 1, 5, 5), ("b", 2, 5, 5), ("c", None, 5, 0), ("d", None, 5, 1), ("e", None, 5, 3)])
    assert items.verdicts == ["right", "partly", "wrong", "wrong", "wrong"]
    assert items.details == ["", "answer ranked 2nd of 5 options",
                             "no option chosen (the pred text is none of the options)",
                             "another of the 5 options chosen", "answer not in the ranking (3 of 5 options ranked)"]
    assert items.stats[1] == {"queries": 1, "hits": 0, "rr": 0.5} and items.stats[2]["rr"] == 0.0
    assert items.score() == 0.2 and accuracy_of_totals({}) == 0.0


def test_a_query_with_more_options_widens_the_rank_histogram(score_submission):
    gold = [gold_query("q0", ["a", "b", "c", "d", "e", "f"], "f"), gold_query("q1", ["g", "h", "i", "j", "k"], "g")]
    submission = {"q0": ["a", "b", "c", "d", "e", "f"], "q1": "h"}
    run = score_submission(TASK, public_gold(ref_files(gold)), res_files(submission))
    assert run.returncode == 0, run.stderr
    assert rows(run.html, "Rank of the correct option") == [
        ["rank 1", "0"], ["rank 2", "0"], ["rank 3", "0"], ["rank 4", "0"], ["rank 5", "0"], ["rank 6", "1"],
        ["not ranked", "1"]]
