"""toxic-spans competition folder: sample data generator, derive.py hooks, starting-kit baseline, pages, task.yaml."""
import ast
import csv
from codalab_bundles.loading import load_file
import re
import subprocess
import sys
import types
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, shared_path

TASK_DIR = ROOT / "bundles" / "toxic-spans"
SAMPLE = ROOT / "reference_data" / "toxic-spans"
SPLIT_FILES = {"trial": "tsd_trial_sample.csv", "test": "tsd_test_sample.csv"}


def _load(name, path):
    return load_file(path, name)


generator = _load("toxic_spans_sample", ROOT / "bundles" / "toxic-spans" / "sample_data.py")
derive = _load("toxic_spans_derive", TASK_DIR / "derive.py")
baseline = derive.load_baseline()


def read_gold(path):
    """[(offsets, text)] of a spans,text CSV, read with pandas and ast.literal_eval as the task's README suggests."""
    frame = pd.read_csv(path, keep_default_na=False, dtype=str)
    assert list(frame.columns) == ["spans", "text"]
    return [(ast.literal_eval(spans), text) for spans, text in zip(frame.spans, frame.text)]


def make_ctx(tmp_path, reference_dir, split="trial"):
    ctx = types.SimpleNamespace(task="toxic-spans", split=split, reference_dir=Path(reference_dir), seed=7)
    for name in ("public", "kit", "submission"):
        (tmp_path / name).mkdir()
    ctx.public_dir = ctx.out_dir = tmp_path / "public"
    return ctx


def run_hooks(tmp_path, reference_dir, split="trial"):
    ctx = make_ctx(tmp_path, reference_dir, split)
    derive.public_data(ctx)
    ctx.out_dir, ctx.submission_dir = tmp_path / "kit", tmp_path / "submission"
    derive.starting_kit(ctx)
    return ctx


def prediction_lines(path):
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n") and "\r" not in text
    lines = text.splitlines()
    for line in lines:
        assert re.match(r"[0-9]+\t\[([0-9]+(, [0-9]+)*)?\]\Z", line), line
    return [(int(a), ast.literal_eval(b)) for a, b in (line.split("\t") for line in lines)]


# ---------------------------------------------------------------------------------------------------------------
# Sample data


@pytest.mark.parametrize("split,posts,empty", [("trial", 60, 12), ("test", 120, 24)])
def test_sample_data_layout_and_empty_share(split, posts, empty):
    path = SAMPLE / split / SPLIT_FILES[split]
    raw = path.read_bytes()
    assert raw.startswith(b"spans,text\n") and b"\r" not in raw
    rows = read_gold(path)
    assert len(rows) == posts
    assert sum(1 for offsets, _ in rows if not offsets) == empty  # a fifth of the posts have no span
    # The released layout: a Python list literal as str(list) writes it, quoted only when it has commas.
    with open(str(path), encoding="utf-8", newline="") as handle:
        records = list(csv.reader(handle))[1:]
    assert [r[0] for r in records] == [str(offsets) for offsets, _ in rows]
    assert raw.count(b"\n[],") >= 1 and raw.count(b'\n"[') >= 1
    # Multi-line texts and non-ASCII characters (offsets count characters, not bytes) are both present.
    assert any("\n" in text for _, text in rows)
    assert any(ord(c) > 127 for _, text in rows for c in text)
    assert len(set(text for _, text in rows)) == posts


@pytest.mark.parametrize("split", sorted(SPLIT_FILES))
def test_every_span_is_inside_its_text_and_covers_whole_words(split):
    for offsets, text in read_gold(SAMPLE / split / SPLIT_FILES[split]):
        assert offsets == sorted(set(offsets))
        assert all(0 <= i < len(text) for i in offsets)
        # Contiguous runs of offsets are whole words or phrases: letters inside, no letter just outside.
        runs, start = [], None
        for k, i in enumerate(offsets):
            if start is None:
                start = i
            if k + 1 == len(offsets) or offsets[k + 1] != i + 1:
                runs.append((start, i + 1))
                start = None
        for a, b in runs:
            assert re.match(r"[A-Za-z][A-Za-z ]*[A-Za-z]\Z", text[a:b]), text[a:b]
            assert a == 0 or not text[a - 1].isalpha()
            assert b == len(text) or not text[b].isalpha()


def test_hand_checked_sample_post():
    rows = read_gold(SAMPLE / "trial" / "tsd_trial_sample.csv")
    assert ([8, 9, 10, 11, 12], "Only an idiot would believe a word of this.") in rows


@pytest.mark.parametrize("marked,text,offsets", [
    ("a [[b]] c", "a b c", [2]),
    ("you [[dumb clown]].", "you dumb clown.", list(range(4, 14))),
    ("[[Shut up]], [[fool]]", "Shut up, fool", [0, 1, 2, 3, 4, 5, 6, 9, 10, 11, 12]),
    ("caf\u00e9 [[idiot]]", "caf\u00e9 idiot", [5, 6, 7, 8, 9]),
    ("no span here", "no span here", []),
])
def test_span_markers_become_character_offsets(marked, text, offsets):
    assert generator._strip_marks(marked) == (text, offsets)


# ---------------------------------------------------------------------------------------------------------------
# derive.py and the starting kit


def test_public_data_has_ids_and_texts_but_no_spans(tmp_path):
    ctx = run_hooks(tmp_path, SAMPLE / "trial")
    gold = read_gold(SAMPLE / "trial" / "tsd_trial_sample.csv")
    frame = pd.read_csv(ctx.public_dir / "trial_texts.csv", keep_default_na=False, dtype={"id": int, "text": str})
    assert list(frame.columns) == ["id", "text"]
    assert list(frame.id) == list(range(len(gold)))
    assert list(frame.text) == [text for _, text in gold]  # byte-exact texts, so the offsets still apply
    assert sorted(p.name for p in ctx.public_dir.iterdir()) == ["trial_texts.csv"]


def test_sample_submission_is_the_baseline_one_line_per_post(tmp_path):
    ctx = run_hooks(tmp_path, SAMPLE / "test", split="test")
    assert sorted(p.name for p in ctx.submission_dir.iterdir()) == ["spans-pred.txt"]
    lines = prediction_lines(ctx.submission_dir / "spans-pred.txt")
    assert [post_id for post_id, _ in lines] == list(range(120))
    gold = read_gold(SAMPLE / "test" / "tsd_test_sample.csv")
    assert [offsets for _, offsets in lines] == [baseline.find_spans(text) for _, text in gold]
    # Same bytes as running the kit's baseline.py from the command line on the public texts.
    out = tmp_path / "cli-pred.txt"
    proc = subprocess.run([sys.executable, str(ctx.out_dir / "baseline.py"), str(ctx.public_dir / "test_texts.csv"),
                           "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == (ctx.submission_dir / "spans-pred.txt").read_bytes()


def test_baseline_finds_a_hand_checked_span(tmp_path):
    ctx = run_hooks(tmp_path, SAMPLE / "trial")
    texts = [text for _, text in read_gold(SAMPLE / "trial" / "tsd_trial_sample.csv")]
    post_id = texts.index("Only an idiot would believe a word of this.")
    predictions = dict(prediction_lines(ctx.submission_dir / "spans-pred.txt"))
    assert predictions[post_id] == [8, 9, 10, 11, 12]  # "idiot" is characters 8..12


def test_kit_contents(tmp_path):
    ctx = run_hooks(tmp_path, SAMPLE / "trial")
    assert sorted(p.name for p in ctx.out_dir.iterdir()) == ["README.md", "baseline.py"]
    assert (ctx.out_dir / "baseline.py").read_bytes() == derive.BASELINE.read_bytes()
    readme = (ctx.out_dir / "README.md").read_text(encoding="utf-8")
    for fragment in ("spans-pred.txt", "trial_texts.csv", "60 posts", "zip submission.zip spans-pred.txt",
                     "python3 scoring_program/evaluate.py input output", "0\t[7, 8, 9, 10, 11, 12]\n"):
        assert fragment in readme


def test_hooks_are_deterministic(tmp_path):
    runs = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        runs.append(run_hooks(tmp_path / name, SAMPLE / "trial"))
    first, second = runs
    for folder in ("public_dir", "out_dir", "submission_dir"):
        a, b = getattr(first, folder), getattr(second, folder)
        assert [(p.name, p.read_bytes()) for p in sorted(a.iterdir())] == \
            [(p.name, p.read_bytes()) for p in sorted(b.iterdir())]


def test_gold_in_spans_gold_txt_gives_ids_only(tmp_path):
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "spans-gold.txt").write_text("0\t[1, 2]\n1\t[]\n\n2\t[5]\n", encoding="utf-8")
    (ref / "metadata").write_text("stray file the platform adds\n")
    work = tmp_path / "work"
    work.mkdir()
    ctx = run_hooks(work, ref)
    assert (ctx.public_dir / "trial_texts.csv").read_text(encoding="utf-8") == "id\n0\n1\n2\n"
    # Without texts the baseline can only predict no span, which is still a valid submission.
    assert (ctx.submission_dir / "spans-pred.txt").read_text(encoding="utf-8") == "0\t[]\n1\t[]\n2\t[]\n"


def test_gold_csv_in_a_wrapper_folder_and_columns_in_any_order(tmp_path):
    ref = tmp_path / "ref" / "wrapped"
    ref.mkdir(parents=True)
    (ref / "gold.csv").write_text('\ufefftext,spans\n"a\nb, idiot",[5]\n\nfool,"[0, 1, 2, 3]"\n', encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    ctx = run_hooks(work, tmp_path / "ref")
    assert (ctx.public_dir / "trial_texts.csv").read_text(encoding="utf-8") == 'id,text\n0,"a\nb, idiot"\n1,fool\n'
    assert (ctx.submission_dir / "spans-pred.txt").read_text(encoding="utf-8") == \
        "0\t[5, 6, 7, 8, 9]\n1\t[0, 1, 2, 3]\n"


def test_ambiguous_gold_folder_is_an_error(tmp_path):
    for name in ("a.csv", "b.csv"):
        (tmp_path / name).write_text("spans,text\n[],x\n", encoding="utf-8")
    with pytest.raises(ValueError, match="exactly one CSV"):
        derive.gold_posts(tmp_path)


# Hand-computed offsets (0-based character positions, both ends of each word included).
@pytest.mark.parametrize("text,words,expected", [
    ("What a stupid idea. Only a clown would vote for this.", None, list(range(7, 13)) + list(range(27, 32))),
    ("IDIOTS!", None, [0, 1, 2, 3, 4, 5]),
    ("an idiot's take", None, [3, 4, 5, 6, 7]),
    ("idiotic, foolish", None, []),
    ("fool\nfool", None, [0, 1, 2, 3, 5, 6, 7, 8]),
    ("caf\u00e9 idiot", None, [5, 6, 7, 8, 9]),
    ("clown2 clown_ 2clown", None, [0, 1, 2, 3, 4, 7, 8, 9, 10, 11, 15, 16, 17, 18, 19]),
    ("you halfwit", ["halfwit"], [4, 5, 6, 7, 8, 9, 10]),
    ("you idiot", ["halfwit"], []),
])
def test_baseline_find_spans(text, words, expected):
    assert baseline.find_spans(text, words if words else baseline.DEFAULT_WORDS) == expected


def test_baseline_words_option(tmp_path):
    texts = tmp_path / "t.csv"
    texts.write_text("id,text\n0,Only an idiot would.\n1,What a clown!\n", encoding="utf-8")
    out = tmp_path / "p.txt"
    proc = subprocess.run([sys.executable, str(derive.BASELINE), str(texts), "--out", str(out), "--words", "clown"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8") == "0\t[]\n1\t[7, 8, 9, 10, 11]\n"


def test_sample_submission_scores_as_computed_by_hand_formula(tmp_path, score_submission):
    """The scoring program on the kit's sample submission agrees with the task formula computed here."""
    ctx = run_hooks(tmp_path, SAMPLE / "trial")
    gold = read_gold(SAMPLE / "trial" / "tsd_trial_sample.csv")
    predicted = dict(prediction_lines(ctx.submission_dir / "spans-pred.txt"))

    def f1(p, g):
        p, g = set(p), set(g)
        if not g or not p:
            return float(not g and not p)
        return 2 * len(p & g) / (len(p) + len(g))
    expected = sum(f1(predicted[i], g) for i, (g, _) in enumerate(gold)) / len(gold)
    run = score_submission("toxic-spans", SAMPLE / "trial", ctx.submission_dir)
    assert run.returncode == 0, run.stderr
    assert run.scores["spans_F1"] == pytest.approx(expected, abs=1e-12)
    assert 0.3 < expected < 0.9  # the baseline is neither useless nor perfect on the sample


def test_public_data_of_the_real_trial_set(tmp_path):
    real = shared_path("toxic-spans", "tsd_trial.csv")
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / real.name).symlink_to(real)
    work = tmp_path / "work"
    work.mkdir()
    ctx = run_hooks(work, ref)
    frame = pd.read_csv(ctx.public_dir / "trial_texts.csv", keep_default_na=False, dtype={"id": int, "text": str})
    gold = pd.read_csv(real, keep_default_na=False, dtype=str)
    assert len(frame) == len(gold) == 690
    assert list(frame.id) == list(range(690)) and list(frame.text) == list(gold.text)
    assert [i for i, _ in prediction_lines(ctx.submission_dir / "spans-pred.txt")] == list(range(690))


# ---------------------------------------------------------------------------------------------------------------
# task.yaml and pages


def test_task_definition():
    from codalab_bundles.authoring import taskdef
    task = taskdef.load_task("toxic-spans")
    assert task.title == "SemEval-2021 Task 5: Toxic Spans Detection"
    assert task.docker_image == "codalab/codalab-legacy:py37"
    assert task.has_registration is False and task.enable_detailed_results is True
    assert task.end_date is None  # re-hosted: Post-Evaluation stays open (the original closed 2021-01-31 23:00)
    assert [str(p.end) for p in task.phases] == ["2021-01-09 23:59:59", "2021-01-30 23:59:59", "None"]
    assert [(p.label, str(p.start), p.split) for p in task.phases] == [
        ("Practice", "2020-07-31 00:00:00", "trial"),
        ("Evaluation", "2021-01-10 00:00:00", "test"),
        ("Post-Evaluation", "2021-01-31 00:00:00", "test")]
    evaluation = task.phases[1].options
    assert (evaluation["max_submissions"], evaluation["max_submissions_per_day"]) == (10, 10)
    assert task.leaderboard_label == "Results"
    assert [(c.key, c.label, c.sort, c.numeric_format) for c in task.columns] == [
        ("spans_F1", "F1", "desc", 4), ("spans_precision", "Precision", "desc", 4),
        ("spans_recall", "Recall", "desc", 4)]


def _page(key):
    from codalab_bundles.authoring import render, taskdef
    return render.page_bytes(taskdef.load_task("toxic-spans"), key).decode("utf-8")


def test_pages_state_the_key_facts():
    pages = dict((p, _page(p)) for p in ("overview", "evaluation", "data", "terms"))
    assert "spans_F1" in pages["evaluation"] and "|P<sub>t</sub>| + |G<sub>t</sub>|" in pages["evaluation"]
    assert "spans-pred.txt" in pages["data"] and "CC0" in pages["data"] and "Civil Comments" in pages["terms"]
    assert "10 submissions" in pages["terms"] and "exactly one account" in pages["terms"]


def test_overview_example_offsets_match_the_marked_words():
    text = _page("overview")
    post_html, offsets_text = re.findall(r"<pre>(.*?)</pre>", text, re.S)[:2]
    post = re.sub(r"</?mark>", "", post_html)
    marked = re.sub(r"<mark>(.*?)</mark>", lambda m: "\0" * len(m.group(1)), post_html)
    assert ast.literal_eval(offsets_text) == [i for i, c in enumerate(marked) if c == "\0"]
    assert post[7:13] == "stupid" and post[27:32] == "clown"


def test_evaluation_worked_example_numbers():
    text = _page("evaluation")
    f1 = 2 * 6 / (8 + 6)
    assert "%.4f" % f1 == "0.8571" and "0.8571" in text
    assert "%.4f" % ((f1 + 1) / 2) == "0.9286" and "0.9286" in text


def test_bundle_builds_and_sample_submission_replays(tmp_path):
    if not (ROOT / "build_bundle.py").is_file():
        pytest.skip("build_bundle.py not written yet")
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "--task", "toxic-spans",
                           "--dist", str(tmp_path)], capture_output=True, text=True, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("sample submission on Codabench: Finished") == 2  # the trial and the test split
    assert proc.stdout.count("sample submission on CodaLab v1.5: Finished") == 2
    assert (tmp_path / "toxic-spans.zip").is_file()

