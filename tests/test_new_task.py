"""``build_bundle.py new``: an organizer's own competition with no code written, as from a fresh clone.

The commands run in a copy of the repository (the files git knows), so nothing is added to this checkout.
"""
import csv
import io
import json
import shutil
import subprocess
import sys
import zipfile

import pytest

from codalab_bundles.authoring import generic_kits
from conftest import ROOT


def _copy_repository(target):
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=str(ROOT), check=True,
                            stdout=subprocess.PIPE).stdout.decode().splitlines()
    for name in listed:
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(str(source), str(target / name))
    return target


def run(repo, *args):
    return subprocess.run([sys.executable, "build_bundle.py"] + list(args), cwd=str(repo), capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return _copy_repository(tmp_path_factory.mktemp("clone"))


@pytest.fixture(scope="module")
def sentiment(repo, tmp_path_factory):
    """The issue's example: 3-class sentiment, a gold CSV id,label, macro-F1, Development and Test phases."""
    gold = tmp_path_factory.mktemp("gold")
    rows = ["id,label"] + ["%d,%s" % (i, ("positive", "negative", "neutral")[i * 7 % 3]) for i in range(1, 121)]
    (gold / "sentiment.csv").write_text("\n".join(rows) + "\n")
    made = run(repo, "new", "sentiment", "--kind", "classification", "--gold-dir", str(gold), "--title",
               "Three-way sentiment")
    assert made.returncode == 0, made.stderr
    return repo


def test_new_task_builds_validates_and_replays_with_no_code_written(sentiment):
    built = run(sentiment, "--task", "sentiment")
    assert built.returncode == 0, built.stdout + built.stderr
    assert built.stdout.count("sample submission on Codabench: Finished") == 2
    checked = run(sentiment, "validate", "dist/sentiment.zip")
    assert checked.returncode == 0 and "OK: nothing to change" in checked.stdout, checked.stdout
    legacy = run(sentiment, "validate", "dist/sentiment-v1.5.zip", "--platform", "both")
    assert legacy.returncode == 0 and "OK: nothing to change" in legacy.stdout, legacy.stdout
    for phase in ("1", "2"):
        replayed = run(sentiment, "replay", "dist/sentiment.zip", "--phase", phase, "--json")
        report = json.loads(replayed.stdout.strip().splitlines()[-1])
        assert report["status"] == "Finished" and report["columns_without_score"] == []
        assert sorted(report["scores"]) == ["accuracy", "macro_f1", "weighted_f1"]


def test_new_task_keeps_every_gold_item_once_split_by_id(sentiment):
    splits = {}
    for split in ("dev", "test"):
        with open(str(sentiment / "reference_data" / "sentiment" / split / "sentiment.csv")) as handle:
            splits[split] = [row["id"] for row in csv.DictReader(handle)]
    assert sorted(splits["dev"] + splits["test"], key=int) == [str(i) for i in range(1, 121)]
    assert 10 <= len(splits["dev"]) <= 40  # about one in five, by a hash of the id
    assert splits["dev"] == [i for i in (str(n) for n in range(1, 121)) if generic_kits._in_dev(i)]


def test_the_generic_suite_covers_the_new_task(sentiment):
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_every_task.py",
                           "-k", "sentiment"], cwd=str(sentiment), capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert " passed" in proc.stdout and "sentiment" not in proc.stdout.split("passed")[-1]  # none skipped


def test_pages_and_card_render_from_the_definition(sentiment):
    with zipfile.ZipFile(str(sentiment / "dist" / "sentiment.zip")) as bundle:
        evaluation = bundle.read("evaluation.html").decode()
        overview = bundle.read("overview.html").decode()
        terms = bundle.read("terms.html").decode()
    assert "<code>macro_f1</code>" in evaluation and "Macro-F1" in evaluation
    assert "<td>Development</td>" in overview and "Three-way sentiment" in overview
    assert "at most 10 submissions, 3 a day" in terms
    card = (sentiment / "scoring_programs" / "sentiment" / "README.md").read_text()
    assert "`macro_f1` = 1.8/4 = 0.45" in card


@pytest.mark.parametrize("kind", generic_kits.KINDS)
def test_every_kind_starts_from_sample_data(repo, kind):
    name = "demo-%s" % kind
    made = run(repo, "new", name, "--kind", kind)
    assert made.returncode == 0, made.stderr
    built = run(repo, "--task", name)
    assert built.returncode == 0, built.stdout + built.stderr
    assert built.stdout.count("sample submission on Codabench: Finished") == 2
    assert run(repo, "validate", "dist/%s.zip" % name).returncode == 0
    # the sample-data generator reproduces the committed data
    regenerated = repo / "regenerated" / name
    assert subprocess.run([sys.executable, "bundles/%s/sample_data.py" % name, "--out", str(regenerated)],
                          cwd=str(repo), capture_output=True).returncode == 0
    for split in ("dev", "test"):
        for path in (repo / "reference_data" / name / split).iterdir():
            assert (regenerated / split / path.name).read_bytes() == path.read_bytes()


@pytest.mark.parametrize("args, message", [
    (["Sentiment", "--kind", "classification"], "must be lower-case"),
    (["toxic-spans", "--kind", "spans"], "already exists"),
    (["generic", "--kind", "spans"], "already exists"),
    (["rank", "--kind", "ranking", "--keys", "accuracy,ndcg_at_0"], "scoring.json would be wrong"),
])
def test_new_refuses_what_would_not_work(repo, args, message):
    proc = run(repo, "new", *args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_ranking_gold_needs_the_options_participants_rank(repo, tmp_path):
    (tmp_path / "gold.json").write_text('{"q1": "a", "q2": "b"}')
    proc = run(repo, "new", "quiz", "--kind", "ranking", "--gold-dir", str(tmp_path))
    assert proc.returncode == 2 and "options.json" in proc.stderr
    assert not (repo / "bundles" / "quiz").exists()


def test_sample_gold_is_the_same_at_every_run():
    for kind in generic_kits.KINDS:
        first = generic_kits.sample_gold(kind, "dev", 7)
        assert first == generic_kits.sample_gold(kind, "dev", 7) != generic_kits.sample_gold(kind, "dev", 8)
    rows = list(csv.reader(io.StringIO(generic_kits.sample_gold("spans", "test", 3)["gold.csv"])))
    assert rows[0] == ["spans", "text"]
    marked_posts = 0
    for spans, text in rows[1:]:  # the offsets are exactly the characters of the marked words
        expected, position = [], 0
        for word in text.split(" "):
            if word in ("awful", "bad", "slow", "noisy"):
                expected.extend(range(position, position + len(word)))
            position += len(word) + 1
        assert json.loads(spans) == expected
        marked_posts += bool(expected)
    assert 0 < marked_posts < len(rows) - 1
