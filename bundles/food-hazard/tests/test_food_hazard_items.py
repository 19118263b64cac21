"""food-hazard per-item statistics: one item per gold row, the two-step score recombined exactly from per-row class
counts; resamples and paired tests against the organizers' compute_score on scikit-learn (the oracle)."""
import io

import pandas as pd
import pytest

from conftest import ROOT, run_scoring_program, score_in_process, shared_path
from items_oracle import check_bootstrap, check_paired
from test_food_hazard_bundle import run_hooks
from test_food_hazard_metric import official_compute_score
from test_food_hazard_program import ST1, ST2, TASK, perturbed

SAMPLE = ROOT / "reference_data" / TASK
SAMPLE_FILES = {"valid": "incidents_valid_sample.csv", "test": "incidents_test_sample.csv"}

HEADER = ",year,month,day,country,title,text,hazard-category,product-category,hazard,product\n"
GOLD = HEADER + "".join("%d,2020,1,6,uk,Recall %d,Text.,%s\n" % (i, i, labels) for i, labels in enumerate([
    "allergens,cakes,eggs,cakes",
    "allergens,ham,milk,ham",
    "biological,cheese,listeria,cheese",
    "fraud,salmon,mislabelled,salmon",
    "fraud,salmon,mislabelled,salmon",
]))
# Ids padded or signed as participants may write them; items keep the gold's ids and order.
SUBMISSION = (",hazard-category,product-category,hazard,product\n"
              "04,allergens,cakes,mislabelled,salmon\n"
              "+0,allergens,cakes,eggs,cakes\n"
              "1,biological,ham,milk,ham\n"
              "2,biological,cheese,salmonella,cheese\n"
              "3,fraud,tuna,mislabelled,salmon\n")


def stats(hazard, hazard_guess, product=None, product_guess=None):
    """A row's statistics written out by hand."""
    out = {"hazard:support:" + hazard: 1, "hazard:predicted:" + hazard_guess: 1}
    if hazard == hazard_guess:
        out.update({"hazard:correct:" + hazard: 1, "product:support:" + product: 1,
                    "product:predicted:" + product_guess: 1})
        if product == product_guess:
            out["product:correct:" + product] = 1
    return out


ST1_EXPECTED = [
    ("0", stats("allergens", "allergens", "cakes", "cakes"), "right", ""),
    ("1", stats("allergens", "biological"), "wrong",
     "hazard-category: predicted 'biological', gold 'allergens'; product-category right, but not counted without "
     "the right hazard-category"),
    ("2", stats("biological", "biological", "cheese", "cheese"), "right", ""),
    ("3", stats("fraud", "fraud", "salmon", "tuna"), "partly", "product-category: predicted 'tuna', gold 'salmon'"),
    ("4", stats("fraud", "allergens"), "wrong",
     "hazard-category: predicted 'allergens', gold 'fraud'; product-category: predicted 'cakes', gold 'salmon'"),
]


def score(tmp_path, ref, res):
    return score_in_process(TASK, tmp_path, ref, res)


def test_hand_made_rows_rank_by_st1(tmp_path):
    result = score(tmp_path, {"incidents.csv": GOLD}, {"submission.csv": SUBMISSION})
    items = result.items
    assert (items.unit, items.key) == ("row", "st1_score") and result.scores[0][0] == "st1_score"
    assert list(zip(items.ids, items.stats, items.verdicts, items.details)) == ST1_EXPECTED
    # Hazard: allergens 2*1/(2+2), biological 2*1/(1+2), fraud 2*1/(2+1) -> 11/18. Products of rows 0, 2, 3:
    # cakes 1, cheese 1, salmon 0, tuna 0 -> 1/2. Score (11/18 + 1/2) / 2 = 5/9.
    assert items.score() == result.scores[0][1] == pytest.approx(5 / 9, abs=1e-15)
    assert items.totals()["hazard:support:fraud"] == 2 and "product:support:ham" not in items.totals()


def test_st2_alone_ranks_by_st2(tmp_path):
    frame = pd.read_csv(io.StringIO(SUBMISSION), index_col=0, keep_default_na=False, dtype=str)
    result = score(tmp_path, {"incidents.csv": GOLD}, {"submission.csv": frame[ST2].to_csv()})
    items = result.items
    assert items.key == "st2_score" and [k for k, _ in result.scores][0] == "st2_score"
    assert items.verdicts == ["right", "right", "wrong", "right", "right"]
    assert items.details[2] == "hazard: predicted 'salmonella', gold 'listeria'; product right, but not counted " \
                               "without the right hazard"
    # Hazard: eggs 1, milk 1, listeria 0, salmonella 0, mislabelled 1 -> 3/5; products of the other rows all right.
    assert items.score() == result.scores[0][1] == pytest.approx(0.8, abs=1e-15)


def test_no_right_hazard_leaves_the_product_step_at_zero(tmp_path):
    wrong = SUBMISSION.replace("allergens,", "migration,").replace("biological,", "migration,").replace(
        "fraud,", "migration,")
    items = score(tmp_path, {"incidents.csv": GOLD}, {"submission.csv": wrong}).items
    assert items.verdicts == ["wrong"] * 5 and items.score() == 0.0
    assert not any(name.startswith("product:") for name in items.totals())


def platform_score(tmp_path, ref, res, key):
    run = run_scoring_program(TASK, ref, res, tmp_path / ("platform-" + key))
    assert run.returncode == 0, run.stderr
    return run.scores[key]


def st2_only(path):
    return pd.read_csv(path, index_col=0, keep_default_na=False)[ST2].to_csv()


@pytest.mark.parametrize("split", sorted(SAMPLE_FILES))
def test_sample_submission_items_give_the_platform_score(tmp_path, split):
    ctx = run_hooks(tmp_path, SAMPLE / split, split)
    items = score(tmp_path / "in", SAMPLE / split, ctx.submission_dir).items
    assert items.ids == ["%d" % i for i in range(len(pd.read_csv(SAMPLE / split / SAMPLE_FILES[split])))]
    assert items.score() == platform_score(tmp_path, SAMPLE / split, ctx.submission_dir, "st1_score")
    assert set(items.verdicts) == {"right", "partly", "wrong"}
    res = {"submission.csv": st2_only(ctx.submission_dir / "submission.csv")}
    items = score(tmp_path / "st2", SAMPLE / split, res).items
    assert items.score() == platform_score(tmp_path, SAMPLE / split, res, "st2_score")


def real_test():
    path = shared_path("food-hazard", "incidents_test.csv")
    return path, pd.read_csv(path, index_col=0, keep_default_na=False)


def published():
    return shared_path("food-hazard", "published-predictions", "test_predictions_participant.csv")


def test_published_predictions_items_give_the_platform_score(tmp_path):
    path, gold = real_test()
    ref = {path.name: path}
    items = score(tmp_path / "in", ref, {"submission.csv": published()}).items
    assert len(items) == 997 and items.ids[:2] == ["0", "1"]
    assert items.score() == platform_score(tmp_path, ref, {"submission.csv": published()}, "st1_score")
    assert items.score() == pytest.approx(0.7895462724330213, abs=1e-12)  # the regression value of the real-data tests
    assert 997 - items.verdicts.count("wrong") >= 955  # rows with the right hazard-category
    frame = pd.read_csv(published(), keep_default_na=False)
    res = {"submission.csv": frame[ST2].to_csv(index=False)}
    items = score(tmp_path / "st2", ref, res).items
    assert items.score() == platform_score(tmp_path, ref, res, "st2_score")
    assert items.score() == pytest.approx(0.45305407333132586, abs=1e-12)


def official_st1(gold, predicted):
    """The organizers' score of rows given as (hazard-category, product-category) pairs."""
    return official_compute_score([g[0] for g in gold], [g[1] for g in gold],
                                  [p[0] for p in predicted], [p[1] for p in predicted])[0]


def pairs(frame):
    return list(zip(frame[ST1[0]], frame[ST1[1]]))


def test_bootstrap_and_paired_tests_match_the_oracle(tmp_path):
    ctx = run_hooks(tmp_path, SAMPLE / "test", "test")
    gold = pd.read_csv(SAMPLE / "test" / SAMPLE_FILES["test"], index_col=0, keep_default_na=False)
    baseline = pd.read_csv(ctx.submission_dir / "submission.csv", index_col=0, keep_default_na=False)
    noisy = perturbed(gold, seed=4, rate=0.2)
    items_baseline = score(tmp_path / "a", SAMPLE / "test", ctx.submission_dir).items
    items_noisy = score(tmp_path / "b", SAMPLE / "test", {"submission.csv": noisy.to_csv()}).items
    low, high = check_bootstrap(items_baseline, official_st1, pairs(gold), pairs(baseline), samples=200, seed=5)
    assert low < items_baseline.score() < high
    figures = check_paired(items_noisy, items_baseline, official_st1, pairs(gold), pairs(noisy), pairs(baseline),
                           samples=200, seed=8)
    assert figures["delta"] > 0.3 and figures["low"] > 0.1 and figures["p_randomization"] == 1 / 201.0
    # Two noisy runs of the same quality: no clear difference.
    other = perturbed(gold, seed=9, rate=0.2)
    items_other = score(tmp_path / "c", SAMPLE / "test", {"submission.csv": other.to_csv()}).items
    figures = check_paired(items_noisy, items_other, official_st1, pairs(gold), pairs(noisy), pairs(other),
                           samples=100, seed=8)
    assert figures["low"] < 0 < figures["high"] and 0.2 < figures["p_randomization"] < figures["p_bootstrap"] < 0.8


def test_paired_tests_on_the_real_test_set_match_the_oracle(tmp_path):
    path, gold = real_test()
    work = tmp_path / "hooks"
    (work / "ref").mkdir(parents=True)
    (work / "ref" / path.name).symlink_to(path)
    ctx = run_hooks(work, work / "ref", "test")
    baseline = pd.read_csv(ctx.submission_dir / "submission.csv", index_col=0, keep_default_na=False)
    participant = pd.read_csv(published(), keep_default_na=False).set_axis(gold.index)
    ref = {path.name: path}
    items_participant = score(tmp_path / "a", ref, {"submission.csv": published()}).items
    items_baseline = score(tmp_path / "b", ref, ctx.submission_dir).items
    figures = check_paired(items_participant, items_baseline, official_st1, pairs(gold), pairs(participant),
                           pairs(baseline), samples=100, seed=12)
    assert figures["delta"] > 0.2 and figures["low"] > 0
    check_bootstrap(items_participant, official_st1, pairs(gold), pairs(participant), samples=100, seed=13)


def test_labels_of_the_submission_are_read_as_given(tmp_path):
    """Class names in the statistics are the labels as written, so a label with a colon or a comma stays one
    class (the names only gain a prefix)."""
    gold = GOLD.replace("fraud,salmon", 'fraud,"fish: salmon, smoked"')
    sub = SUBMISSION.replace("fraud,tuna", 'fraud,"fish: salmon, smoked"')
    result = score(tmp_path, {"incidents.csv": gold}, {"submission.csv": sub})
    items = result.items
    assert items.stats[3]["product:correct:fish: salmon, smoked"] == 1 and items.verdicts[3] == "right"
    assert items.score() == result.scores[0][1] == pytest.approx((11 / 18 + 1.0) / 2, abs=1e-15)
