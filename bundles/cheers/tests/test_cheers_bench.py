"""The CHEERS benchmark input is a valid run of the advertised size, scored as the task defines."""
from codalab_bundles.loading import load_file

import pandas as pd
import pytest
from sklearn.metrics import f1_score

from conftest import ROOT

bench = load_file(ROOT / "bundles" / "cheers" / "bench.py")


def test_bench_input_is_a_scorable_run_of_the_real_size(tmp_path, score_submission):
    assert bench.REAL_SIZE == "3,000 sentences"
    bench.make_input(tmp_path, 1, seed=4)
    gold = pd.read_csv(tmp_path / "ref" / "sentences_test_en.csv")
    run = pd.read_csv(tmp_path / "res" / "run.csv")
    assert len(gold) == len(run) == 3000
    merged = gold.merge(run, on=["doc_id", "sentence_id"], validate="one_to_one")
    assert len(merged) == 3000
    sectors = merged.sector_ids.map(lambda text: [int(x) for x in text.strip("[]").split(",") if x.strip()])
    # Every path of the measure occurs: left out, false alarm, -1 on a relevant prediction, multi-sector gold.
    predicted = merged.is_relevant_y == 1
    assert (predicted & (merged.is_relevant_x == 1) & (sectors.str.len() == 0)).sum() > 50
    assert (predicted & (merged.is_relevant_x == 0)).sum() > 50
    assert (predicted & (merged.sector_id == -1)).sum() > 20
    assert (sectors.str.len() >= 2).sum() > 100

    result = score_submission("cheers", tmp_path / "ref", tmp_path / "res")
    assert result.returncode == 0, result.stderr
    counted = predicted & ~((merged.is_relevant_x == 1) & (sectors.str.len() == 0))
    credit = [(z in y) / len(y) if y else 0.0 for y, z in zip(sectors[counted], merged.sector_id[counted])]
    assert result.scores["relevance_f1_score_macro"] == pytest.approx(
        f1_score(merged.is_relevant_x, merged.is_relevant_y, average="macro"), abs=1e-12)
    assert result.scores["sectorids_accuracy"] == pytest.approx(sum(credit) / len(credit), abs=1e-12)


def test_bench_input_scales_and_is_seeded(tmp_path):
    bench.make_input(tmp_path / "a", 10, seed=1)
    bench.make_input(tmp_path / "b", 10, seed=1)
    for name in ("ref/sentences_test_en.csv", "res/run.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert (tmp_path / "a" / "res" / "run.csv").read_text().count("\n") == 1 + 30000
