"""The real eHealth-KD 2019 collections (../shared/datasets, skipped when absent): the organizers' baseline gets the
published leaderboard figures, and every gold collection scores 1.0 against itself."""
import zipfile
from fractions import Fraction

import pytest

from conftest import shared_path

TASK = "ehealth-kd"
KEYS = ["main_score", "m_prec", "m_rec", "a_f1", "a_prec", "a_rec", "b_f1", "b_prec", "b_rec"]


def figures(c, i, p, m, s):
    """(F1, precision, recall) as exact fractions from the counts."""
    hits = Fraction(2 * c + p, 2)
    precision, recall = hits / (c + p + i + s), hits / (c + p + i + m)
    return 2 * precision * recall / (precision + recall), precision, recall


# Counts of the baseline submission (scenario: C, I, P, M, S); the figures they give are the published ones.
BASELINE_COUNTS = {1: (425, 32, 42, 714, 358), 2: (355, 35, 46, 210, 301), 3: (40, 0, 0, 528, 42)}
PUBLISHED = {"main_score": 0.4309, "m_prec": 0.5204, "m_rec": 0.3677, "a_f1": 0.5466, "b_f1": 0.1231}


@pytest.fixture
def baseline(tmp_path):
    folder = tmp_path / "baseline"
    with zipfile.ZipFile(str(shared_path("ehealth-kd-2019", "published-submissions", "baseline_test.zip"))) as z:
        z.extractall(str(folder))
    return folder


def test_baseline_gets_the_published_leaderboard(score_submission, baseline):
    run = score_submission(TASK, shared_path("ehealth-kd-2019", "testing"), baseline)
    assert run.returncode == 0, run.stderr
    assert list(run.scores) == KEYS
    for key, value in PUBLISHED.items():
        assert round(run.scores[key], 4) == value, key
    for number, counts in BASELINE_COUNTS.items():
        assert "Scenario %d: 100 annotated sentences scored; C=%d I=%d P=%d M=%d S=%d" % ((number,) + counts) \
            in run.stdout
        for key, exact in zip(KEYS[3 * (number - 1):3 * number], figures(*counts)):
            assert run.scores[key] == pytest.approx(float(exact), abs=1e-14), key
    assert "Warning" not in run.stdout


def test_test_gold_against_itself(score_submission):
    testing = shared_path("ehealth-kd-2019", "testing")
    run = score_submission(TASK, testing, testing)
    assert run.returncode == 0, run.stderr
    assert run.scores == dict((key, 1.0) for key in KEYS)
    # Scenario 1 has 8,800 sentences of which 100 are annotated; 13 duplicate gold relations count once.
    assert "Scenario 1: 100 annotated sentences scored; C=1213 I=0 P=0 M=0 S=0" in run.stdout


@pytest.mark.parametrize("collection, suffix", [("trial", "trial"), ("development", "develop")])
def test_trial_and_development_gold_against_themselves(score_submission, collection, suffix):
    folder = shared_path("ehealth-kd-2019", collection)
    files = {}
    for number, name in ((1, "scenario1-main"), (2, "scenario2-taskA"), (3, "scenario3-taskB")):
        for kind in ("input", "output_a", "output_b"):
            files["%s/%s_scenario%d.txt" % (name, kind, number)] = folder / ("%s_%s.txt" % (kind, suffix))
    run = score_submission(TASK, files, files)
    assert run.returncode == 0, run.stderr
    assert run.scores == dict((key, 1.0) for key in KEYS)


def _official_scores():
    import csv
    path = shared_path("ehealth-kd-2019", "published-submissions", "participant-runs", "official_scores.csv")
    with open(str(path), newline="") as handle:
        return dict((row.pop("run"), dict((k, float(v)) for k, v in row.items())) for row in csv.DictReader(handle))


@pytest.mark.parametrize("run_name", ["lsi2_uned_574805.zip", "talp_576639.zip", "abravo_576683.zip",
                                      "vsp_576661.zip"])
def test_participant_runs_score_as_the_official_leaderboard(score_submission, tmp_path, run_name):
    # lsi2_uned_574805 has a discontinuous key phrase whose second span crosses into the next sentence: it was
    # rejected ("does not lie inside the sentence"); the official scorer keeps it in its first span's sentence.
    official = _official_scores()[run_name]
    folder = tmp_path / "run"
    with zipfile.ZipFile(str(shared_path("ehealth-kd-2019", "published-submissions", "participant-runs",
                                         run_name))) as z:
        z.extractall(str(folder))
    run = score_submission(TASK, shared_path("ehealth-kd-2019", "testing"), folder)
    assert run.returncode == 0, run.stderr
    for key in KEYS:
        assert run.scores[key] == pytest.approx(official[key], abs=1e-12), key
    if run_name == "lsi2_uned_574805.zip":
        assert "reach past the sentence where" in run.stdout
        assert "Notes on the submission" in run.html and "reach" in run.html
