"""CHEERS sample data, random baseline, derived participant files, Python 3.6 compatibility, build and replay."""
import csv
from codalab_bundles.loading import load_file
import io
import json
import subprocess
import sys
import types
import zipfile

import pytest
import yaml

from conftest import ROOT, run_scoring_program

SAMPLE = ROOT / "reference_data" / "cheers"
SPLITS = ("train", "val", "test")


def load(path, name):
    return load_file(path, name)


generator = load(ROOT / "bundles" / "cheers" / "sample_data.py", "cheers_sample_generator")
baseline = load(ROOT / "bundles" / "cheers" / "baseline.py", "cheers_baseline_under_test")
derive = load(ROOT / "bundles" / "cheers" / "derive.py", "cheers_derive_under_test")


def read(path):
    with io.open(str(path), encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def sector_list(text):
    return json.loads(text)


# ---------------------------------------------------------------------------------------------------------------
# Sample data


def test_another_seed_gives_other_data(tmp_path):
    generator.generate(str(tmp_path), seed=7)
    assert (tmp_path / "val" / "sentences_val_en.csv").read_bytes() != (SAMPLE / "val" / "sentences_val_en.csv").read_bytes()


@pytest.mark.parametrize("split", SPLITS)
def test_sample_split_looks_like_the_real_data(split):
    folder = SAMPLE / split
    sentences = read(folder / ("sentences_%s_en.csv" % split))
    documents = read(folder / ("documents_%s_en.csv" % split))
    mapping = json.loads((folder / "immap_sector_name_to_id.json").read_text(encoding="utf-8"))
    assert list(sentences[0]) == ["doc_id", "sentence_id", "sentence_text", "is_relevant", "sector_ids"]
    assert list(documents[0]) == ["project_name", "country_code", "doc_id", "doc_text", "doc_url"]
    assert {d["country_code"] for d in documents} == {"SYR", "BGD", "NGA", "BFA", "COD", "COL"}
    assert len({d["project_name"] for d in documents}) == 6

    relevant = [s for s in sentences if s["is_relevant"] == "1"]
    assert 0.4 <= len(relevant) / len(sentences) <= 0.6
    sizes = [len(sector_list(s["sector_ids"])) for s in relevant]
    assert sizes.count(0) >= 5 and sizes.count(1) >= 20 and sizes.count(2) >= 3 and sizes.count(3) >= 1
    assert all(s["sector_ids"] == "[]" for s in sentences if s["is_relevant"] == "0")
    assert {i for s in sentences for i in sector_list(s["sector_ids"])} <= set(mapping.values())

    # Documents of several sentences, numbered 0..n-1, whose text is the sentences joined.
    by_doc = {}
    for s in sentences:
        by_doc.setdefault(s["doc_id"], []).append(s)
    assert set(by_doc) == {d["doc_id"] for d in documents}
    for document in documents:
        rows = by_doc[document["doc_id"]]
        assert len(rows) >= 4 and [int(s["sentence_id"]) for s in rows] == list(range(len(rows)))
        assert document["doc_text"] == " ".join(s["sentence_text"] for s in rows)


def test_document_ids_are_unique_across_splits():
    ids = [d["doc_id"] for split in SPLITS for d in read(SAMPLE / split / ("documents_%s_en.csv" % split))]
    assert len(ids) == len(set(ids))


def test_mapping_is_the_same_in_every_split():
    texts = {(SAMPLE / split / "immap_sector_name_to_id.json").read_bytes() for split in SPLITS}
    assert len(texts) == 1


@pytest.mark.parametrize("split", ["val", "test"])
def test_a_run_equal_to_the_gold_scores_full_relevance(tmp_path, split):
    sentences = read(SAMPLE / split / ("sentences_%s_en.csv" % split))
    rows = [[s["doc_id"], s["sentence_id"], s["is_relevant"], (sector_list(s["sector_ids"]) or [-1])[0]]
            for s in sentences]
    text = "doc_id,sentence_id,is_relevant,sector_id\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)
    run = run_scoring_program("cheers", SAMPLE / split, {"run.csv": text}, tmp_path)
    assert run.returncode == 0, run.stderr
    counted = [len(sector_list(s["sector_ids"])) for s in sentences if s["sector_ids"] != "[]"]
    assert run.scores["relevance_f1_score_macro"] == 1.0
    assert run.scores["sectorids_accuracy"] == pytest.approx(sum(1 / n for n in counted) / len(counted), abs=1e-12)


# ---------------------------------------------------------------------------------------------------------------
# Random baseline


def test_training_statistics_by_hand():
    rows = [{"is_relevant": "1", "sector_ids": "[1, 7]"}, {"is_relevant": "0", "sector_ids": "[]"},
            {"is_relevant": "1", "sector_ids": "[]"}, {"is_relevant": "1", "sector_ids": "[7]"}]
    assert baseline.training_statistics(rows) == (0.75, {1: 1, 7: 2})


SENTENCES = [{"doc_id": str(d), "sentence_id": str(s)} for d in range(50) for s in range(40)]


def test_random_run_follows_the_prior_and_the_sector_frequencies():
    rows = baseline.random_run(SENTENCES, 0.3, {2: 1, 9: 3}, seed=5)
    assert [r[:2] for r in rows] == [[s["doc_id"], s["sentence_id"]] for s in SENTENCES]
    relevant = [r for r in rows if r[2] == 1]
    assert all(r[3] == -1 for r in rows if r[2] == 0)
    assert {r[3] for r in relevant} == {2, 9}
    # 2,000 draws: the shares are within a few points of 0.3 and 3/4 (the draw is seeded, so this is fixed).
    assert abs(len(relevant) / len(rows) - 0.3) < 0.03
    assert abs(sum(r[3] == 9 for r in relevant) / len(relevant) - 0.75) < 0.05


def test_random_run_is_seeded():
    first = baseline.random_run(SENTENCES, 0.5, {1: 1, 2: 1}, seed=1)
    assert baseline.random_run(SENTENCES, 0.5, {1: 1, 2: 1}, seed=1) == first
    assert baseline.random_run(SENTENCES, 0.5, {1: 1, 2: 1}, seed=2) != first


@pytest.mark.parametrize("prior, expected", [(0.0, {(0, -1)}), (1.0, {(1, 4)})])
def test_random_run_extreme_priors(prior, expected):
    rows = baseline.random_run(SENTENCES[:100], prior, {4: 2}, seed=0)
    assert {(r[2], r[3]) for r in rows} == expected


# ---------------------------------------------------------------------------------------------------------------
# Derived participant files


@pytest.fixture(params=["val", "test"])
def derived(request, tmp_path):
    split = request.param
    ctx = types.SimpleNamespace(task="cheers", split=split, reference_dir=SAMPLE / split, seed=1234)
    ctx.out_dir = ctx.public_dir = tmp_path / "public"
    ctx.out_dir.mkdir()
    derive.public_data(ctx)
    ctx.out_dir, ctx.submission_dir = tmp_path / "kit", tmp_path / "submission"
    ctx.out_dir.mkdir()
    ctx.submission_dir.mkdir()
    derive.starting_kit(ctx)
    return ctx


def test_public_data_has_no_labels_of_the_split_but_the_labelled_train_split(derived):
    split = derived.split
    names = sorted(p.name for p in derived.public_dir.iterdir())
    assert names == sorted(["sentences_%s_en.csv" % split, "documents_%s_en.csv" % split, "sentences_train_en.csv",
                            "documents_train_en.csv", "immap_sector_name_to_id.json"])
    public = read(derived.public_dir / ("sentences_%s_en.csv" % split))
    gold = read(SAMPLE / split / ("sentences_%s_en.csv" % split))
    assert list(public[0]) == ["doc_id", "sentence_id", "sentence_text"]
    assert [(p["doc_id"], p["sentence_id"], p["sentence_text"]) for p in public] == \
        [(g["doc_id"], g["sentence_id"], g["sentence_text"]) for g in gold]
    for name in ("sentences_train_en.csv", "documents_train_en.csv"):
        assert (derived.public_dir / name).read_bytes() == (SAMPLE / "train" / name).read_bytes()


def test_sample_submission_is_scored_and_the_kit_readme_command_rebuilds_it(derived, tmp_path):
    split = derived.split
    [sample] = list(derived.submission_dir.iterdir())
    assert sample.name == "en_%s_baseline_random.csv" % split
    run = run_scoring_program("cheers", SAMPLE / split, {sample.name: sample}, tmp_path / "score")
    assert run.returncode == 0, run.stderr
    assert 0.3 < run.scores["relevance_f1_score_macro"] < 0.7

    readme = (derived.out_dir / "README.md").read_text(encoding="utf-8")
    [command] = [line.strip() for line in readme.splitlines() if line.strip().startswith("python3 baseline.py")]
    assert "--seed 1234" in command and "--train data/sentences_train_en.csv" in command
    work = tmp_path / "participant"
    (work / "data").mkdir(parents=True)
    for path in derived.public_dir.iterdir():
        (work / "data" / path.name).write_bytes(path.read_bytes())
    (work / "baseline.py").write_bytes((derived.out_dir / "baseline.py").read_bytes())
    subprocess.run([sys.executable] + command.split()[1:], cwd=str(work), check=True)
    assert (work / "run.csv").read_bytes() == sample.read_bytes()


def test_without_training_data_the_baseline_is_uniform_not_drawn_from_gold(tmp_path):
    ref = tmp_path / "solo" / "val"
    ref.mkdir(parents=True)
    for path in (SAMPLE / "val").iterdir():
        (ref / path.name).write_bytes(path.read_bytes())
    ctx = types.SimpleNamespace(task="cheers", split="val", reference_dir=ref, seed=3)
    ctx.out_dir = ctx.public_dir = tmp_path / "public"
    ctx.out_dir.mkdir()
    derive.public_data(ctx)
    assert not list(ctx.public_dir.glob("*train*"))
    ctx.out_dir, ctx.submission_dir = tmp_path / "kit", tmp_path / "sub"
    ctx.out_dir.mkdir()
    ctx.submission_dir.mkdir()
    derive.starting_kit(ctx)
    assert "--mapping data/immap_sector_name_to_id.json" in (ctx.out_dir / "README.md").read_text()
    rows = read(ctx.submission_dir / "en_val_baseline_random.csv")
    assert {r["sector_id"] for r in rows if r["is_relevant"] == "1"} <= {str(i) for i in range(1, 12)}


# ---------------------------------------------------------------------------------------------------------------
# Python 3.6 and the built bundle


def _zip(path, files):
    with zipfile.ZipFile(str(path), "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    dist = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "build_bundle.py", "--task", "cheers", "--dist", str(dist)],
                          cwd=str(ROOT), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return dist / "cheers.zip"


def replay(bundle, *args):
    proc = subprocess.run([sys.executable, "build_bundle.py", "replay", str(bundle)] + list(args) + ["--json"],
                          cwd=str(ROOT), capture_output=True, text=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("phase", ["1", "2"])
def test_built_bundle_replays_its_sample_submission(built, phase):
    report = replay(built, "--phase", phase)
    assert report["status"] == "Finished", report
    assert sorted(report["scores"]) == ["HumImpact", "relevance_f1_score_macro", "sectorids_accuracy"]
    assert report["columns_without_score"] == [] and report["keys_without_column"] == []


def test_built_bundle_fails_a_bad_submission_with_the_message(built, tmp_path):
    bad = _zip(tmp_path / "bad.zip", {"run.csv": "doc_id,sentence_id,is_relevant\n"})
    report = replay(built, str(bad))
    assert report["status"] == "Failed"
    assert report["stderr"].strip() == ("Submission error: run.csv, line 1: the column(s) sector_id are missing; "
                                        "the header must be doc_id, sentence_id, is_relevant, sector_id")


def test_built_bundle_ranks_by_humimpact_and_ships_the_metric_card(built):
    with zipfile.ZipFile(str(built.with_name("cheers-v1.5.zip"))) as bundle:
        yaml_text = bundle.read("competition.yaml").decode("utf-8")
    columns = yaml_text.split("columns:")[1]
    assert columns.index("HumImpact:") < columns.index("relevance_f1_score_macro:")
    assert "selection_default: 1" in columns.split("relevance_f1_score_macro:")[0]
    with zipfile.ZipFile(str(built)) as bundle:  # Codabench: the column with index 0 orders the leaderboard
        spec = yaml.safe_load(bundle.read("competition.yaml").decode("utf-8"))
        program = zipfile.ZipFile(io.BytesIO(bundle.read("scoring_program.zip")))
    first = [c for c in spec["leaderboards"][0]["columns"] if c["index"] == 0]
    assert [c["key"] for c in first] == ["HumImpact"]
    assert spec["competition_type"] == "benchmark" and "end" not in spec["phases"][-1]
    assert "README.md" in program.namelist() and "evaluate.py" in program.namelist()
