"""Two-file scoring (score_files.py), intervals and paired tests (resampling.py) and the signature (signature.py),
on a toy program whose figures are worked out by hand, and against numpy doing the same resampling independently."""
import hashlib
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from conftest import ROOT

COMMON = ROOT / "scoring_programs" / "common"

# Accuracy over "<id> <label>" lines; the items are the gold's rows.
TOY = '''
import os, sys
from scoring_runtime import Items, Result, SubmissionError, main, find_reference_file, find_submission_file, read_text
from report_html import page, section, paragraph

def read(path):
    rows = {}
    for number, line in enumerate(read_text(path).splitlines(), 1):
        parts = line.split()
        if len(parts) != 2:
            raise SubmissionError("%s, line %d: expected <id> <label>" % (os.path.basename(path), number))
        rows[parts[0]] = parts[1]
    return rows

def score(ref_dir, res_dir):
    gold = read(find_reference_file(ref_dir, "gold.txt"))
    pred = read(find_submission_file(res_dir, "pred.txt"))
    if len(pred) != len(gold):
        raise SubmissionError("pred.txt gives %d of %d rows" % (len(pred), len(gold)))

    def items():
        found = Items("row", "accuracy", lambda t: t.get("hits", 0) / t["rows"])
        for key, label in gold.items():
            hit = pred.get(key) == label
            found.add(key, {"rows": 1, "hits": int(hit)}, "right" if hit else "wrong",
                      "" if hit else "predicted %s, gold %s" % (pred.get(key), label))
        return found
    hits = sum(pred.get(k) == v for k, v in gold.items())
    return Result([("accuracy", hits / float(len(gold))), ("hits", hits)],
                  page("Toy", section("Hits", paragraph(str(hits)))), notes=["scored %d rows" % len(gold)],
                  items=items)

if __name__ == "__main__":
    sys.exit(main(score, "Toy", program="toy"))
'''

GOLD = "a x\nb y\nc x\nd y\ne x\n"
RUN1 = "a x\nb y\nc y\nd y\ne y\n"    # 3 of 5 right: c and e wrong
RUN2 = "a x\nb y\nc x\nd x\ne x\n"    # 4 of 5 right: d wrong


@pytest.fixture
def toy(tmp_path):
    program = tmp_path / "program"
    program.mkdir()
    (program / "evaluate.py").write_text(TOY)
    files = tmp_path / "files"
    files.mkdir()
    for name, text in (("gold.txt", GOLD), ("run1.txt", RUN1), ("run2.txt", RUN2)):
        (files / name).write_text(text)

    def run(*args):
        proc = subprocess.run([sys.executable, str(program / "evaluate.py")] + [str(a) for a in args],
                              cwd=str(files), capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(COMMON)))
        return proc
    run.files = files
    return run


GOLD_SHA = hashlib.sha256(GOLD.encode()).hexdigest()


def test_two_files_print_the_scores_as_a_table(toy):
    proc = toy("--gold", "gold.txt", "--pred", "run1.txt")
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == (
        "accuracy  0.600000000000000\n"
        "hits      3.000000000000000\n"
        "scored 5 rows\n"
        "\n"
        "signature: toy|version:0.4.0|gold_sha256:%s\n" % GOLD_SHA)


def test_json_carries_scores_notes_and_the_signature(toy):
    report = json.loads(toy("--gold", "gold.txt", "--pred", "run1.txt", "--json").stdout)
    assert report["scores"] == {"accuracy": 0.6, "hits": 3.0}
    assert report["signature"] == {"program": "toy", "version": "0.4.0", "gold_sha256": GOLD_SHA}
    assert report["notes"] == ["scored 5 rows"] and report["warnings"] == []


def test_per_item_lists_each_row_or_only_the_wrong_ones(toy):
    table = toy("--gold", "gold.txt", "--pred", "run1.txt", "--per-item", "wrong").stdout
    assert "row\tverdict\tstatistics\twhat was wrong\n" \
           "c\twrong\thits=0 rows=1\tpredicted y, gold x\n" \
           "e\twrong\thits=0 rows=1\tpredicted y, gold x\n" in table
    items = json.loads(toy("--gold", "gold.txt", "--pred", "run1.txt", "--per-item", "--json").stdout)["items"]
    assert [(i["id"], i["verdict"], i["stats"]) for i in items] == [
        ("a", "right", {"rows": 1, "hits": 1}), ("b", "right", {"rows": 1, "hits": 1}),
        ("c", "wrong", {"rows": 1, "hits": 0}), ("d", "right", {"rows": 1, "hits": 1}),
        ("e", "wrong", {"rows": 1, "hits": 0})]
    # The per-item statistics sum to the aggregate: 3 hits of 5 rows.
    assert sum(i["stats"]["hits"] for i in items) / float(sum(i["stats"]["rows"] for i in items)) == 0.6


def test_a_file_of_another_name_stands_for_the_expected_one_and_messages_name_it(toy):
    (toy.files / "broken.txt").write_text("a x\nb\n")
    proc = toy("--gold", "gold.txt", "--pred", "broken.txt")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == "Submission error: broken.txt, line 2: expected <id> <label>\n"
    # A message written with the expected name names the file given.
    (toy.files / "short.txt").write_text("a x\n")
    proc = toy("--gold", "gold.txt", "--pred", "short.txt")
    assert proc.returncode == 1 and proc.stderr == "Submission error: short.txt gives 1 of 5 rows\n"
    # Another extension is not taken for pred.txt: the folder is listed instead.
    (toy.files / "run1.csv").write_text(RUN1)
    proc = toy("--gold", "gold.txt", "--pred", "run1.csv")
    assert proc.returncode == 1 and "no pred.txt in the submission" in proc.stderr and "run1.csv" in proc.stderr


def test_zips_and_folders_are_read_as_the_platform_lays_them_out(toy, tmp_path):
    with zipfile.ZipFile(str(toy.files / "sub.zip"), "w") as archive:
        archive.writestr("pred.txt", RUN2)
    (toy.files / "ref").mkdir()
    (toy.files / "ref" / "gold.txt").write_text(GOLD)
    (toy.files / "ref" / "gold_is_public.txt").write_text("public\n")  # not part of the gold's hash
    report = json.loads(toy("--gold", "ref", "--pred", "sub.zip", "--json").stdout)
    assert report["scores"]["accuracy"] == 0.8 and report["signature"]["gold_sha256"] == GOLD_SHA


def test_a_gold_of_several_files_hashes_their_sha256sum_listing(toy):
    (toy.files / "ref" / "sub").mkdir(parents=True)
    (toy.files / "ref" / "gold.txt").write_text(GOLD)
    (toy.files / "ref" / "sub" / "notes.txt").write_bytes(b"abc")
    listing = "%s  gold.txt\n%s  sub/notes.txt\n" % (GOLD_SHA, hashlib.sha256(b"abc").hexdigest())
    report = json.loads(toy("--gold", "ref", "--pred", "run1.txt", "--json").stdout)
    assert report["signature"]["gold_sha256"] == hashlib.sha256(listing.encode()).hexdigest()


def test_the_platform_layout_writes_the_same_signature_and_lists_items_only_for_a_public_gold(toy, tmp_path):
    for public in (True, False):
        run = tmp_path / ("run-%s" % public)
        (run / "input" / "ref").mkdir(parents=True)
        (run / "input" / "res").mkdir(parents=True)
        (run / "input" / "ref" / "gold.txt").write_text(GOLD)
        if public:
            (run / "input" / "ref" / "gold_is_public.txt").write_text("public\n")
        (run / "input" / "res" / "pred.txt").write_text(RUN1)
        proc = toy(run / "input", run / "output")
        assert proc.returncode == 0, proc.stderr
        scores = json.loads((run / "output" / "scores.json").read_text())
        assert scores == {"accuracy": 0.6, "hits": 3.0,
                          "signature": {"program": "toy", "version": "0.4.0", "gold_sha256": GOLD_SHA}}
        assert (run / "output" / "scores.txt").read_text() == "accuracy: 0.600000000000000\nhits: 3.000000000000000\n"
        page = (run / "output" / "detailed_results.html").read_text()
        assert "gold SHA-256 %s" % GOLD_SHA in page
        assert ("predicted y, gold x" in page) is public and ("5 rows: 3 right, 0 partly right, 2 wrong." in page) \
            is public


def test_output_writes_the_platform_files_too(toy):
    proc = toy("--gold", "gold.txt", "--pred", "run1.txt", "--output", "out")
    assert proc.returncode == 0
    assert (toy.files / "out" / "scores.txt").read_text() == "accuracy: 0.600000000000000\nhits: 3.000000000000000\n"
    assert "predicted y, gold x" in (toy.files / "out" / "detailed_results.html").read_text()


def _draws(seed, rounds, n):
    """The uniform numbers resampling.py documents: numpy's MT19937 seeded as Python's random.Random(seed)."""
    return np.random.RandomState([seed]).random_sample((rounds, n))


def _hits(text):
    gold = dict(line.split() for line in GOLD.splitlines())
    return np.array([float(dict(line.split() for line in text.splitlines())[k] == v) for k, v in gold.items()])


@pytest.mark.parametrize("seed, samples, level", [(12345, 1000, 0.95), (7, 300, 0.9)])
def test_the_interval_is_numpys_percentile_bootstrap(toy, seed, samples, level):
    report = json.loads(toy("--gold", "gold.txt", "--pred", "run1.txt", "--ci", "--json", "--seed", seed,
                            "--samples", samples, "--level", level).stdout)
    hits = _hits(RUN1)
    indices = (_draws(seed, samples, len(hits)) * len(hits)).astype(int)
    low, high = np.percentile(hits[indices].mean(axis=1), [50 * (1 - level), 50 * (1 + level)])
    interval = report["interval"]
    assert interval["key"] == "accuracy" and interval["unit"] == "row" and interval["items"] == 5
    assert interval["low"] == pytest.approx(low, abs=1e-12) and interval["high"] == pytest.approx(high, abs=1e-12)
    assert report["signature_text"].endswith("|bootstrap,unit:row,items:5,samples:%d,seed:%d,level:%s"
                                             % (samples, seed, level))


def test_the_paired_tests_are_numpys(toy):
    report = json.loads(toy("--gold", "gold.txt", "--pred", "run1.txt", "--compare", "run2.txt", "--json",
                            "--samples", 500, "--seed", 99).stdout)
    a, b = _hits(RUN1), _hits(RUN2)
    n = len(a)
    indices = (_draws(99, 500, n) * n).astype(int)
    deltas = a[indices].mean(axis=1) - b[indices].mean(axis=1)
    observed = a.mean() - b.mean()
    swapped = _draws(99, 500, n) < 0.5
    randomized = np.where(swapped, b, a).mean(axis=1) - np.where(swapped, a, b).mean(axis=1)
    comparison = report["comparison"]
    assert comparison["delta"] == observed == 0.6 - 0.8
    assert (comparison["score_a"], comparison["score_b"]) == (0.6, 0.8)
    low, high = np.percentile(deltas, [2.5, 97.5])
    assert comparison["low"] == pytest.approx(low, abs=1e-12) and comparison["high"] == pytest.approx(high, abs=1e-12)
    assert comparison["p_paired_bootstrap"] == (1 + np.sum(np.abs(deltas - deltas.mean()) >= abs(observed))) / 501.0
    assert comparison["p_approximate_randomization"] == (1 + np.sum(np.abs(randomized) >= abs(observed))) / 501.0
    assert report["comparison_scores"] == {"accuracy": 0.8, "hits": 4.0}
    # By hand: the runs differ on c, d, e only, by -1, +1, -1 hits; a round flips each sign with probability 1/2, so
    # the sum is odd and every round's difference is at least 1/5 in size: p = (1 + 500) / 501.
    assert comparison["p_approximate_randomization"] == 1.0


def test_usage_errors_exit_2_with_one_message(toy):
    assert toy("--gold", "gold.txt").returncode == 2
    proc = toy("--gold", "nothing.txt", "--pred", "run1.txt")
    assert proc.returncode == 2 and proc.stderr == "evaluate.py: nothing.txt: no such file or folder (--gold)\n"
    proc = toy("--gold", "gold.txt", "--pred", "run1.txt", "--ci", "--seed", "0")
    assert proc.returncode == 2 and "seed must be between 1 and 4294967295" in proc.stderr
    assert toy("--help").returncode == 0
    (toy.files / "evil.zip").write_bytes(b"not a zip")
    proc = toy("--gold", "gold.txt", "--pred", "evil.zip")
    assert proc.returncode == 2 and "evil.zip is not a valid zip file" in proc.stderr and "Traceback" not in proc.stderr


def test_the_generic_card_examples_score_and_print_as_shown(tmp_path):
    from conftest import run_scoring_program
    from test_every_task import card_commands, card_examples, run_card_command
    program = ROOT / "scoring_programs" / "generic"
    text = (program / "README.md").read_text(encoding="utf-8")
    examples = [example for example in card_examples(text) if "config" in example]
    assert examples
    for n, example in enumerate(examples):
        (tmp_path / ("config%d.json" % n)).write_text(json.dumps(example["config"]))
        run = run_scoring_program("generic", example["ref"], example["res"], tmp_path / ("run%d" % n),
                                  program_dir=program, env={"GENERIC_SCORING_CONFIG": str(tmp_path / ("config%d.json" % n))})
        assert run.scores == example["scores"]
    commands = card_commands(text)
    assert all(option in " ".join(c for _, c, _ in commands) for option in ("--per-item", "--ci", "--compare"))
    for n, (files, command, output) in enumerate(commands):
        workdir = tmp_path / ("cmd%d" % n)
        workdir.mkdir()
        proc = run_card_command(files, command, workdir, program)
        assert proc.returncode == 0 and proc.stdout == output, (command, proc.stderr)


def test_the_score_command_runs_a_tasks_program_or_a_bundles(built_bundles, tmp_path):
    gold, pred = tmp_path / "gold.txt", tmp_path / "run.txt"
    gold.write_text("0\t[0, 1, 6]\n1\t[]\n2\t[10, 11, 12, 13, 14, 15]\n")
    pred.write_text("0\t[0, 1, 4, 5]\n1\t[]\n2\t[]\n")
    command = [sys.executable, str(ROOT / "build_bundle.py"), "score"]
    by_task = subprocess.run(command + ["--samples", "50", "toxic-spans", "--json", str(gold), "--ci", str(pred)],
                             capture_output=True, text=True)
    assert by_task.returncode == 0, by_task.stderr
    report = json.loads(by_task.stdout)
    assert report["scores"]["spans_F1"] == 11 / 21.0 and report["signature"]["program"] == "toxic-spans"
    assert report["interval"]["samples"] == 50
    by_bundle = subprocess.run(command + [str(built_bundles["toxic-spans"].codabench), "--phase", "2", str(gold),
                                          str(pred), "--json", "--ci", "--samples", "50"], capture_output=True, text=True)
    assert by_bundle.returncode == 0 and json.loads(by_bundle.stdout) == report
    (tmp_path / "bad.txt").write_text("0\t[0, 1]\n")
    bad = subprocess.run(command + ["toxic-spans", str(gold), str(tmp_path / "bad.txt")], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.startswith("Submission error: bad.txt has no line for 2 of the 3 posts")
    unknown = subprocess.run(command + ["nosuch", str(gold), str(pred)], capture_output=True, text=True)
    assert unknown.returncode == 2 and "no task nosuch in" in unknown.stderr


def test_the_programs_version_is_the_tools():
    import scoring_runtime
    import codalab_bundles
    assert scoring_runtime.VERSION == codalab_bundles.__version__
