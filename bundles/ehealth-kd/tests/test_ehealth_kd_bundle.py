"""eHealth-KD 2019 bundle parts: the sample-data generator, derive.py (public data, starting kit), the kit's
baseline, task.yaml and the benchmark input."""
import subprocess
import sys
import types

import pytest

from codalab_bundles.loading import load_file
import yaml

from conftest import ROOT, run_scoring_program

TASK = "ehealth-kd"
BUNDLE = ROOT / "bundles" / TASK
REFERENCE = ROOT / "reference_data" / TASK
SPLITS = ("trial", "development", "test")
FOLDERS = {1: "scenario1-main", 2: "scenario2-taskA", 3: "scenario3-taskB"}
KEYS = ["main_score", "m_prec", "m_rec", "a_f1", "a_prec", "a_rec", "b_f1", "b_prec", "b_rec"]

sys.path.insert(0, str(ROOT / "scoring_programs" / TASK))
from ehealth_kd_format import load_scenario  # noqa: E402


def module(path, name):
    return load_file(path, name)


def gold(split, number):
    folder = REFERENCE / split / FOLDERS[number]
    files = [open(str(folder / ("%s_scenario%d.txt" % (kind, number))), encoding="utf-8")
             for kind in ("input", "output_a", "output_b")]
    try:
        return load_scenario(files[0], files[1], files[2], "a", "b")
    finally:
        for handle in files:
            handle.close()


# --- sample data ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("split", SPLITS)
def test_sample_data_has_what_the_task_needs(split):
    annotated, distractors = {"trial": (8, 16), "development": (15, 30), "test": (20, 60)}[split]
    for number in (1, 2, 3):
        scenario = gold(split, number)
        assert len(scenario.annotated()) == annotated
        assert len(scenario.texts) == annotated + (distractors if number == 1 else 0)
        keyphrases = [k for s in scenario.kept.values() for k in s.keyphrases]
        relations = [r for s in scenario.kept.values() for r in s.relations]
        # Discontinuous key phrases (a gap between two spans that is more than the space between words).
        assert any(b[0] - a[1] > 1 for k in keyphrases for a, b in zip(k.spans, k.spans[1:]))
        assert any(r.label == "same-as" for r in relations)
        assert set(k.label for k in keyphrases) == {"Concept", "Action", "Predicate", "Reference"}
        assert all(scenario.texts) and all("  " not in t for t in scenario.texts)
    assert (REFERENCE / split / "gold_is_public.txt").exists() is (split != "test")


def test_sample_gold_scores_one_against_itself(tmp_path):
    res = dict((str(p.relative_to(REFERENCE / "development")), p) for p in (REFERENCE / "development").rglob("*.txt")
               if p.name != "gold_is_public.txt")
    run = run_scoring_program(TASK, REFERENCE / "development", res, tmp_path)
    assert run.scores == dict((key, 1.0) for key in KEYS), run.stderr


# --- derive.py and the kit ------------------------------------------------------------------------------------


def make_ctx(tmp_path, split, reference_dir):
    ctx = types.SimpleNamespace(task=TASK, split=split, reference_dir=reference_dir, seed=0)
    for name in ("out_dir", "public_dir", "submission_dir", "kit_dir"):
        setattr(ctx, name, tmp_path / name)
        getattr(ctx, name).mkdir(parents=True)
    return ctx


@pytest.fixture
def derive():
    return module(BUNDLE / "derive.py", "ehealth_kd_derive")


@pytest.mark.parametrize("split", SPLITS)
def test_public_data_is_the_sentences_plus_scenario3_keyphrases(tmp_path, derive, split):
    ctx = make_ctx(tmp_path, split, REFERENCE / split)
    derive.public_data(ctx)
    files = sorted(str(p.relative_to(ctx.out_dir)) for p in ctx.out_dir.rglob("*") if p.is_file())
    assert files == ["scenario1-main/input_scenario1.txt", "scenario2-taskA/input_scenario2.txt",
                     "scenario3-taskB/input_scenario3.txt", "scenario3-taskB/output_a_scenario3.txt"]
    for name in files:
        assert (ctx.out_dir / name).read_bytes() == (REFERENCE / split / name).read_bytes()


def test_starting_kit_sample_submission_is_valid_and_made_without_gold(tmp_path, derive):
    ctx = make_ctx(tmp_path, "test", REFERENCE / "test")
    derive.public_data(ctx)
    kit = types.SimpleNamespace(**vars(ctx))
    kit.public_dir, kit.out_dir = ctx.out_dir, ctx.kit_dir
    derive.starting_kit(kit)
    assert sorted(p.name for p in ctx.kit_dir.iterdir()) == ["README.md", "baseline.py"]
    readme = (ctx.kit_dir / "README.md").read_text(encoding="utf-8")
    assert "scenario1-main/output_a_scenario1.txt" in readme and "scenarios 1, 2, 3" in readme
    written = sorted(str(p.relative_to(ctx.submission_dir)) for p in ctx.submission_dir.rglob("*"))
    assert written == ["%s%s" % (FOLDERS[n], suffix) for n in (1, 2, 3)
                       for suffix in ("", "/output_a_scenario%d.txt" % n, "/output_b_scenario%d.txt" % n,
                                      "/output_scenario%d.txt" % n)]
    # The same kit from public data alone (no gold at all) gives the same submission.
    again = make_ctx(tmp_path / "again", "test", tmp_path / "does-not-exist")
    again.public_dir, again.out_dir = ctx.out_dir, again.kit_dir
    derive.starting_kit(again)
    for name in written:
        if (ctx.submission_dir / name).is_file():
            assert (ctx.submission_dir / name).read_bytes() == (again.submission_dir / name).read_bytes()
    run = run_scoring_program(TASK, REFERENCE / "test", ctx.submission_dir, tmp_path / "score")
    assert run.returncode == 0, run.stderr
    assert 0.2 < run.scores["main_score"] < 0.8 and all(run.scores[k] > 0 for k in KEYS)


def test_baseline_learns_its_word_list_from_annotated_folders(tmp_path):
    baseline = module(BUNDLE / "kit" / "baseline.py", "ehealth_kd_baseline")
    lexicon = baseline.train_lexicon([str(REFERENCE / "trial" / folder) for folder in FOLDERS.values()])
    assert lexicon["fumar"] == "Action" and lexicon["riesgo"] == "Predicate" and lexicon["estas"] == "Reference"
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(BUNDLE / "kit" / "baseline.py"), str(REFERENCE / "development"),
                           str(out), "--train", str(REFERENCE / "trial" / FOLDERS[1])],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "wrote scenarios 1, 2, 3" in proc.stdout, proc.stderr
    # Trained on trial, the baseline finds more key phrases of the development sentences than the built-in list.
    built_in = tmp_path / "built_in"
    baseline.run(str(REFERENCE / "development"), str(built_in), baseline.built_in_lexicon())
    ref = REFERENCE / "development"
    trained_run = run_scoring_program(TASK, ref, out, tmp_path / "trained")
    built_in_run = run_scoring_program(TASK, ref, built_in, tmp_path / "plain")
    assert trained_run.scores["a_rec"] > built_in_run.scores["a_rec"]


def test_task_definition():
    spec = yaml.safe_load((BUNDLE / "task.yaml").read_text(encoding="utf-8"))
    phases = [(p["label"], str(p["start"]), p["split"]) for p in spec["phases"]]
    assert phases == [("Trial", "2019-02-11 00:00:00", "trial"),
                      ("Development", "2019-04-01 00:00:00", "development"),
                      ("Evaluation", "2019-04-30 00:00:00", "test"),
                      ("Post-Evaluation", "2019-05-20 00:00:00", "test")]
    assert [c["key"] for c in spec["leaderboard"]["columns"]] == KEYS
    assert all(c["sort"] == "desc" and len(c["label"]) <= 36 for c in spec["leaderboard"]["columns"])
    for page in spec["pages"].values():
        html = (BUNDLE / "pages" / page).read_text(encoding="utf-8")
        assert "<script" not in html and html.strip().startswith("<h2>")


# --- benchmark input ------------------------------------------------------------------------------------------


def test_benchmark_input_at_1x(tmp_path):
    bench = module(ROOT / "bundles" / "ehealth-kd" / "bench.py", "ehealth_kd_bench")
    assert bench.REAL_SIZE == "8,800 sentences (scenario 1)"
    bench.make_input(tmp_path / "input", 1)
    sentences = (tmp_path / "input" / "ref" / "scenario1-main" / "input_scenario1.txt").read_text(encoding="utf-8")
    assert sentences.count("\n") == 8800
    run = run_scoring_program(TASK, tmp_path / "input" / "ref", tmp_path / "input" / "res", tmp_path / "run")
    assert run.returncode == 0, run.stderr
    assert "Scenario 1: 100 annotated sentences scored" in run.stdout
    assert "Scenario 2: 100 annotated sentences scored" in run.stdout
    # The noisy copy produces every kind of outcome.
    counts = [line for line in run.stdout.splitlines() if line.startswith("Scenario 1:")][0]
    assert all(" %s=0" % kind not in counts for kind in "CIPMS")
    assert 0.5 < run.scores["main_score"] < 0.95
