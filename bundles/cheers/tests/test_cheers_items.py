"""CHEERS per-item statistics: one item per gold sentence, HumImpact recombined exactly from relevance class counts
and sector credits; resamples and paired tests against scikit-learn and the page's sector formula (the oracle)."""
import ast
import random
import types

import pandas as pd
import pytest
from sklearn.metrics import f1_score

from conftest import ROOT, run_scoring_program, score_in_process
from items_oracle import check_bootstrap, check_paired
from test_cheers_program import EXAMPLE_GOLD, EXAMPLE_RUN, gold_files, run_csv

from codalab_bundles.loading import load_file

TASK = "cheers"
SAMPLE = ROOT / "reference_data" / TASK
derive = load_file(ROOT / "bundles" / TASK / "derive.py", "cheers_derive_for_items")

# The metric card's six sentences, then four more: a single-sector hit, a missed relevant sentence without sector,
# a false alarm without sector and a relevant sentence given no sector.
GOLD = EXAMPLE_GOLD + [(2, 0, 1, [4]), (2, 1, 1, []), (2, 2, 0, []), (2, 3, 1, [2, 4, 9])]
RUN = EXAMPLE_RUN + [(2, 0, 1, 4), (2, 1, 0, -1), ("002", 2, 1, -1), (2, 3, 1, -1)]


def relevance(gold, predicted):
    stats = {"relevance:support:%d" % gold: 1, "relevance:predicted:%d" % predicted: 1}
    if gold == predicted:
        stats["relevance:correct:%d" % gold] = 1
    return stats


def counted(stats, credit=0.0):
    stats = dict(stats, counted=1)
    if credit:
        stats["credit"] = credit
    return stats


EXPECTED = [
    ("0:0", counted(relevance(1, 1), 0.5), "partly",
     "sector: predicted Logistics (7), one of 2 gold sectors (Agriculture (1), Logistics (7)): credit 1/2"),
    ("0:1", counted(relevance(1, 1)), "partly", "sector: predicted Cross (2), gold Food Security (4)"),
    ("0:2", relevance(1, 1), "right", ""),  # gold relevant without sector: not counted in the sector mean
    ("1:0", counted(relevance(0, 1)), "wrong", "predicted relevant with Education (3), gold not relevant"),
    ("1:1", relevance(1, 0), "wrong", "predicted not relevant, gold relevant"),
    ("1:2", relevance(0, 0), "right", ""),
    ("2:0", counted(relevance(1, 1), 1.0), "right", ""),
    ("2:1", relevance(1, 0), "wrong", "predicted not relevant, gold relevant"),
    ("2:2", counted(relevance(0, 1)), "wrong", "predicted relevant with no sector, gold not relevant"),
    ("2:3", counted(relevance(1, 1)), "partly",
     "sector: predicted no sector, gold Cross (2), Food Security (4), Protection (9)"),
]


def score(tmp_path, ref, res):
    return score_in_process(TASK, tmp_path, ref, res)


def test_hand_made_sentences(tmp_path):
    result = score(tmp_path, gold_files(GOLD), {"run.csv": run_csv(RUN)})
    items = result.items
    assert (items.unit, items.key) == ("sentence", "HumImpact")
    assert list(zip(items.ids, items.stats, items.verdicts, items.details)) == EXPECTED
    # Relevance: class 1 TP 5 of 7 gold and 7 predicted -> 5/7; class 0 TP 1 of 3 and 3 -> 1/3; macro 11/21.
    # Sectors: six counted sentences earn 1/2 + 1 -> 1/4. HumImpact = 11/42 + 1/8 = 65/168.
    assert items.totals()["counted"] == 6 and items.totals()["credit"] == 1.5
    assert items.score() == dict(result.scores)["HumImpact"] == pytest.approx(65 / 168, abs=1e-15)


def test_without_mapping_sectors_are_named_by_id(tmp_path):
    known = [(d, s, r, 5 if z == 3 else z) for d, s, r, z in RUN]  # without a mapping only the gold's are known
    result = score(tmp_path, gold_files(GOLD, mapping=None), {"run.csv": run_csv(known)})
    assert result.items.details[1] == "sector: predicted sector 2, gold sector 4"
    assert result.items.details[3] == "predicted relevant with sector 5, gold not relevant"


def test_no_counted_sentence_leaves_the_sector_part_at_zero(tmp_path):
    nothing = [(d, s, 0, -1) for d, s, _, _ in RUN]
    result = score(tmp_path, gold_files(GOLD), {"run.csv": run_csv(nothing)})
    # Relevance: class 1 never predicted -> 0; class 0 TP 3 of 3 gold and 10 predicted -> 6/13.
    assert "counted" not in result.items.totals()
    assert result.items.score() == dict(result.scores)["HumImpact"] == pytest.approx(0.5 * (6 / 13) / 2, abs=1e-15)


def sample_run(tmp_path, split, seed):
    """The starting kit's random run for ``split``, drawn with ``seed`` (the sample submission's own is 1234)."""
    ctx = types.SimpleNamespace(task=TASK, split=split, reference_dir=SAMPLE / split, seed=seed)
    ctx.out_dir = ctx.public_dir = tmp_path / "public"
    ctx.submission_dir = tmp_path / "submission"
    for folder in (ctx.public_dir, tmp_path / "kit", ctx.submission_dir):
        folder.mkdir(parents=True)
    derive.public_data(ctx)
    ctx.out_dir = tmp_path / "kit"
    derive.starting_kit(ctx)
    return ctx.submission_dir


@pytest.mark.parametrize("split", ["val", "test"])
def test_sample_submission_items_give_the_platform_score(tmp_path, split):
    submission = sample_run(tmp_path / "hooks", split, 1234)
    items = score(tmp_path / "in", SAMPLE / split, submission).items
    run = run_scoring_program(TASK, SAMPLE / split, submission, tmp_path / "platform")
    assert run.returncode == 0, run.stderr
    assert items.score() == run.scores["HumImpact"]
    gold = read_gold(split)
    assert items.ids == ["%d:%d" % (d, s) for d, s in zip(gold.doc_id, gold.sentence_id)]
    assert set(items.verdicts) == {"right", "partly", "wrong"}


def read_gold(split):
    return pd.read_csv(SAMPLE / split / ("sentences_%s_en.csv" % split), keep_default_na=False)


def read_run(folder):
    [path] = list(folder.iterdir())
    frame = pd.read_csv(path, skipinitialspace=True)
    return list(zip(frame.is_relevant, frame.sector_id))


def official_hum_impact(gold, predicted):
    """The page's definition on (is_relevant, sector set) gold and (is_relevant, sector) predictions."""
    relevance_f1 = f1_score([g for g, _ in gold], [p for p, _ in predicted], average="macro")
    credits = [len(sectors & {z}) / len(sectors | {z}) for (relevant, sectors), (flag, z) in zip(gold, predicted)
               if flag == 1 and not (relevant == 1 and not sectors)]
    sectors_accuracy = sum(credits) / len(credits) if credits else 0.0
    return 0.5 * relevance_f1 + 0.5 * sectors_accuracy


def noisy_run(gold, seed):
    """A better-than-random run: the gold's relevance kept 80% of the time, one of its sectors given mostly."""
    rng = random.Random(seed)
    rows = []
    for relevant, sectors in gold:
        flag = relevant if rng.random() < 0.8 else 1 - relevant
        sector = -1
        if flag:
            sector = rng.choice(sorted(sectors)) if sectors and rng.random() < 0.7 else rng.randint(1, 11)
        rows.append((flag, sector))
    return rows


def test_bootstrap_and_paired_tests_match_the_oracle(tmp_path):
    frame = read_gold("val")
    gold = [(r, frozenset(ast.literal_eval(s))) for r, s in zip(frame.is_relevant, frame.sector_ids)]
    keys = list(zip(frame.doc_id, frame.sentence_id))
    first, second = sample_run(tmp_path / "r1", "val", 1234), sample_run(tmp_path / "r2", "val", 99)
    random_a, random_b, noisy = read_run(first), read_run(second), noisy_run(gold, 5)
    noisy_csv = run_csv([(d, s, f, z) for (d, s), (f, z) in zip(keys, noisy)])
    items_a = score(tmp_path / "a", SAMPLE / "val", first).items
    items_b = score(tmp_path / "b", SAMPLE / "val", second).items
    items_noisy = score(tmp_path / "c", SAMPLE / "val", {"run.csv": noisy_csv}).items
    assert items_a.score() == pytest.approx(official_hum_impact(gold, random_a), abs=1e-12)
    low, high = check_bootstrap(items_a, official_hum_impact, gold, random_a, samples=200, seed=21)
    assert low < items_a.score() < high
    figures = check_paired(items_noisy, items_a, official_hum_impact, gold, noisy, random_a, samples=200, seed=22)
    assert figures["delta"] > 0.2 and figures["low"] > 0 and figures["p_randomization"] == 1 / 201.0
    # Two random runs: no clear difference.
    figures = check_paired(items_a, items_b, official_hum_impact, gold, random_a, random_b, samples=200, seed=23)
    assert figures["low"] < 0 < figures["high"] and figures["p_randomization"] > 0.1 and figures["p_bootstrap"] > 0.1
