"""``new NAME --kind custom`` (issue 39, when no kind fits): a task scored by a skeleton evaluate.py of its own, on
the shared runtime, that builds, replays and scores its sample as written; a task folder holding both scoring.json
and evaluate.py refused at build; and a Result of the wrong type from a task's score() given one line naming the
scoring program's fault, never a traceback or a score.

The sample's scores are counted by hand from its gold (bundles/NAME/sample_data.py) and the kit's baseline, which
calls an item positive when its text has one of the words good, great, friendly, clean:
- dev, 8 items: 1 great/positive, 2 negative, 3 friendly/positive, 4 "not good at all" (gold negative: wrong),
  5 clean/positive, 6 negative, 7 "would come back" (gold positive, no word: wrong), 8 negative: 6/8 = 0.75;
- test, 12 items: wrong are 4 "not clean" (negative), 5 "we loved it" (positive), 9 "great view but rude staff"
  (negative), 12 "clean but tiny" (negative): 8/12.
"""
import csv
import io
import json
import os
import subprocess
import sys
import zipfile

import pytest

from codalab_bundles.authoring import custom_task, generic_kits, new_task
from conftest import ROOT, run_vermin

DEV, TEST = 6.0 / 8, 8.0 / 12
BUILD_OUTPUT = {}  # {the folder: what its build printed}
PROGRAM_ERROR = "Scoring program error (a problem for the organizers, not your submission): "


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py")] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=str(cwd) if cwd else None, timeout=600)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A competition folder outside this repository with one custom task, as `new` wrote it, built."""
    folder = tmp_path_factory.mktemp("competition")
    made = cli("new", "grading", "--kind", "custom", "--title", "Essay grading", "--dir", folder)
    assert made.returncode == 0, made.stderr
    built = cli("build", ".", cwd=folder)
    assert built.returncode == 0, built.stdout + built.stderr
    BUILD_OUTPUT[folder] = built.stdout
    return folder


def _kit(folder, split, target):
    """The built starting kit of ``split``, unpacked into ``target`` (its scoring_program/ and sample)."""
    with zipfile.ZipFile(str(folder / "dist" / "grading.zip")) as bundle:
        zipfile.ZipFile(io.BytesIO(bundle.read("starting_kit_%s.zip" % split))).extractall(str(target))
    zipfile.ZipFile(str(target / "sample_submission.zip")).extractall(str(target / "sample"))
    return target


def _evaluate(program, *args, cwd=None):
    return subprocess.run([sys.executable, str(program / "evaluate.py")] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=str(cwd) if cwd else None, timeout=120)


# ---------------------------------------------------------------------------------------------------------------
# new --kind custom: what it writes builds, replays Finished with the sample's hand-computed scores


def test_new_custom_writes_a_skeleton_and_its_sample_not_a_generic_task(folder):
    program = folder / "scoring_programs" / "grading"
    assert sorted(p.name for p in program.iterdir()) == ["README.md", "evaluate.py", "metadata", "score_keys.txt"]
    assert (program / "score_keys.txt").read_text() == "accuracy\n"
    assert (program / "metadata").read_text() == "command: python3 $program/evaluate.py $input $output\n"
    skeleton = (program / "evaluate.py").read_text()
    assert skeleton.count("\n") < 100 and skeleton.count("# CHANGE") >= 4  # short, and says what to change
    assert "TITLE = 'Essay grading'" in skeleton and "program='grading'" in skeleton
    bundle = folder / "bundles" / "grading"
    assert sorted(p.name for p in (bundle / "pages").iterdir()) == [
        "data.html.j2", "evaluation.html.j2", "format.html.j2", "metric.html.j2", "overview.html.j2", "terms.html.j2"]
    assert "scoring_programs/grading/evaluate.py, a skeleton to edit" in (bundle / "task.yaml").read_text()
    assert "generic" not in (bundle / "derive.py").read_text()  # its own hooks, standard library only
    for split, count in (("dev", 8), ("test", 12)):
        rows = list(csv.reader(open(str(folder / "reference_data" / "grading" / split / "gold.csv"))))
        assert rows[0] == ["id", "text", "label"] and len(rows) == count + 1
    assert "`grading` (its own scoring program, `scoring_programs/grading/evaluate.py`)" in \
        (folder / "README.md").read_text()
    # custom is new's own path, not a generic kind
    assert "custom" not in generic_kits.KINDS and new_task.CUSTOM == "custom"


def test_the_sample_builds_and_replays_finished_with_its_hand_computed_scores(folder):
    out = BUILD_OUTPUT[folder]
    for phase, label, value in ((1, "Development", "0.7500"), (2, "Test", "0.6667")):
        for worker in ("Codabench", "CodaLab v1.5"):
            assert "phase %d (%s), sample submission on %s: Finished accuracy=%s" % (phase, label, worker, value) in out
    for phase, expected in ((1, DEV), (2, TEST)):
        replayed = cli("replay", "dist/grading.zip", "--phase", phase, "--json", cwd=folder)
        report = json.loads(replayed.stdout.strip().splitlines()[-1])
        assert report["status"] == "Finished" and report["columns_without_score"] == []
        assert report["scores"] == {"accuracy": pytest.approx(expected, abs=1e-12)}
    checked = cli("validate", "dist/grading.zip", cwd=folder)
    assert checked.returncode == 0 and "OK: nothing to change" in checked.stdout


def test_the_bundle_packs_the_skeleton_beside_the_runtime_and_pages_need_no_generic_kind(folder):
    with zipfile.ZipFile(str(folder / "dist" / "grading.zip")) as bundle:
        program = zipfile.ZipFile(io.BytesIO(bundle.read("scoring_program.zip"))).namelist()
        public = zipfile.ZipFile(io.BytesIO(bundle.read("public_data_dev.zip")))
        pages = dict((name, bundle.read(name).decode()) for name in ("overview.html", "data.html", "evaluation.html"))
    assert "evaluate.py" in program and "scoring_runtime.py" in program and "score_files.py" in program
    assert "scoring.json" not in program and "generic_config.py" not in program and "score_keys.txt" not in program
    assert public.namelist() == ["items.csv"]
    assert public.read("items.csv").decode().splitlines()[:2] == ["id,text", "1,the food was great"]
    assert "<code>predictions.csv</code>, with the columns <code>id,label</code>" in pages["data.html"]
    assert "<code>accuracy</code> is the share of items" in pages["evaluation.html"]
    assert "<td>Accuracy</td><td><code>accuracy</code></td>" in pages["evaluation.html"]
    assert "upload a zip holding your predictions (the Data page gives their format)" in pages["overview.html"]


def test_the_skeleton_scores_two_files_with_items_intervals_and_comparison(folder, tmp_path):
    kit = _kit(folder, "dev", tmp_path / "kit")
    gold = folder / "reference_data" / "grading" / "dev" / "gold.csv"
    run = kit / "sample" / "predictions.csv"
    proc = _evaluate(kit / "scoring_program", "--gold", gold, "--pred", run, "--per-item", "wrong", "--ci", "--json")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    report = json.loads(proc.stdout)
    assert report["scores"] == {"accuracy": DEV} and report["signature"]["program"] == "grading"
    assert [(item["id"], item["verdict"], item["detail"]) for item in report["items"]] == [
        ("4", "wrong", "predicted 'positive', gold 'negative'"),
        ("7", "wrong", "predicted 'negative', gold 'positive'")]
    assert report["interval"]["key"] == "accuracy" and report["interval"]["items"] == 8
    assert 0 < report["interval"]["low"] < DEV <= report["interval"]["high"] <= 1
    # a run of another name stands for predictions.csv; a comparison with a run right everywhere
    perfect = tmp_path / "perfect.csv"
    rows = list(csv.DictReader(open(str(gold))))
    perfect.write_text("id,label\n" + "".join("%s,%s\n" % (row["id"], row["label"]) for row in rows))
    proc = _evaluate(kit / "scoring_program", "--gold", gold, "--pred", run, "--compare", perfect, "--json")
    comparison = json.loads(proc.stdout)["comparison"]
    assert (comparison["score_a"], comparison["score_b"], comparison["delta"]) == (DEV, 1.0, DEV - 1.0)
    # the platform's layout, the page with the wrong items when the gold is public
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "ref" / "gold.csv").write_bytes(gold.read_bytes())
    (tmp_path / "in" / "ref" / "gold_is_public.txt").write_text("public\n")
    (tmp_path / "in" / "res").mkdir()
    (tmp_path / "in" / "res" / "predictions.csv").write_bytes(run.read_bytes())
    proc = _evaluate(kit / "scoring_program", tmp_path / "in", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "scores.txt").read_text() == "accuracy: 0.750000000000000\n"
    assert json.loads((tmp_path / "out" / "scores.json").read_text())["accuracy"] == DEV
    page = (tmp_path / "out" / "detailed_results.html").read_text()
    assert "8 items: 6 right, 0 partly right, 2 wrong." in page and "gold &#x27;negative&#x27;" in page


def test_the_score_command_runs_the_skeleton_of_the_folder(folder, tmp_path):
    gold = folder / "reference_data" / "grading" / "test" / "gold.csv"
    run = _kit(folder, "test", tmp_path / "kit") / "sample" / "predictions.csv"
    proc = cli("score", "grading", gold, run, "--dir", folder, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["scores"] == {"accuracy": TEST}


@pytest.mark.parametrize("text, message", [
    ("id,label\n1,positive\n99,negative\n", "run.csv, line 3: the id '99' is not an item of this phase"),
    ("id,label\n1,positive\n", "run.csv: 7 items have no prediction (the first: id '2')"),
    ("id,class\n1,positive\n", "run.csv, line 1: no column 'label' (the header is 'id,class')"),
    ("id,label\n1,positive\n1,negative\n", "run.csv, line 3: the id '1' is given twice"),
    ("id,label\n1,positive,extra\n", "run.csv, line 2: 3 cells where the header has 2"),
])
def test_a_bad_submission_gets_one_line_naming_file_line_and_problem(folder, tmp_path, text, message):
    kit = _kit(folder, "dev", tmp_path / "kit")
    gold = folder / "reference_data" / "grading" / "dev" / "gold.csv"
    (tmp_path / "run.csv").write_text(text)
    proc = _evaluate(kit / "scoring_program", "--gold", gold, "--pred", tmp_path / "run.csv")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == "Submission error: %s\n" % message
    assert not any(gold_text in proc.stderr for gold_text in ("negative", "the food was great"))  # no gold in it


def test_a_bad_submission_replays_failed_with_its_one_line(folder, tmp_path):
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(str(bad), "w") as archive:
        archive.writestr("predictions.csv", "id,label\n1,positive\n")
    proc = cli("replay", "dist/grading.zip", bad, "--json", cwd=folder)
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["status"] == "Failed" and report["scores"] == {}
    assert report["stderr"].strip() == \
        "Submission error: predictions.csv: 7 items have no prediction (the first: id '2')"


def test_the_card_commands_print_what_the_card_shows(folder, tmp_path):
    """The card's worked example and console blocks, written by running the skeleton, re-run as
    tests/test_every_task.py re-runs a seeded task's."""
    from test_every_task import card_commands, card_examples, run_card_command
    program = folder / "scoring_programs" / "grading"
    text = (program / "README.md").read_text()
    assert card_examples(text) == [custom_task.EXAMPLE] and custom_task.EXAMPLE["scores"] == {"accuracy": 3.0 / 5}
    commands = card_commands(text)
    assert [command for _, command, _ in commands] == list(custom_task.COMMANDS)
    # the skeleton needs the runtime beside it (the build packs it): here, a checkout's ../common
    checkout = tmp_path / "scoring_programs"
    (checkout / "grading").mkdir(parents=True)
    (checkout / "grading" / "evaluate.py").write_bytes((program / "evaluate.py").read_bytes())
    os.symlink(str(ROOT / "scoring_programs" / "common"), str(checkout / "common"))
    for n, (files, command, output) in enumerate(commands):
        (tmp_path / str(n)).mkdir()
        proc = run_card_command(files, command, tmp_path / str(n), checkout / "grading")
        assert proc.returncode == 0 and proc.stdout == output, proc.stderr
    assert "accuracy  0.600000000000000" in commands[0][2] and "2\twrong\tcorrect=0 items=1" in commands[0][2]


def test_the_skeleton_kit_and_hooks_target_python36(folder):
    bundle = folder / "bundles" / "grading"
    proc = run_vermin(folder / "scoring_programs" / "grading" / "evaluate.py", bundle / "kit" / "baseline.py",
                      bundle / "derive.py", bundle / "sample_data.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Minimum required versions: 3." in proc.stdout


def test_sample_data_py_reproduces_the_gold(folder, tmp_path):
    proc = subprocess.run([sys.executable, str(folder / "bundles" / "grading" / "sample_data.py"), "--out",
                           str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for split in ("dev", "test"):
        assert (tmp_path / split / "gold.csv").read_bytes() == \
            (folder / "reference_data" / "grading" / split / "gold.csv").read_bytes()


@pytest.mark.parametrize("args, message", [
    (["--gold-dir", "."], "--kind custom starts from its sample gold"),
    (["--keys", "f1"], "--kind custom writes the keys its skeleton evaluate.py computes (accuracy)"),
])
def test_new_custom_refuses_what_its_skeleton_would_not_score(tmp_path, args, message):
    proc = cli("new", "mine", "--kind", "custom", "--dir", tmp_path, *args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "bundles").exists()


# ---------------------------------------------------------------------------------------------------------------
# A task folder holding both scoring.json and evaluate.py: refused with the reason


def test_a_program_folder_with_scoring_json_and_evaluate_py_is_refused_at_build(folder, tmp_path):
    import shutil
    copy = tmp_path / "both"
    shutil.copytree(str(folder), str(copy), ignore=shutil.ignore_patterns("dist"))
    (copy / "scoring_programs" / "grading" / "scoring.json").write_text(
        '{"kind": "classification", "keys": ["accuracy"]}\n')
    proc = cli("build", ".", cwd=copy)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        "grading: not built: scoring_programs/grading holds both scoring.json (the generic program's configuration) "
        "and evaluate.py (a program of its own), and only one can score: remove scoring.json to score with "
        "evaluate.py, or evaluate.py to keep the generic program")
    assert not (copy / "dist").exists() or list((copy / "dist").iterdir()) == []
    # scoring two files with the task refuses it the same way
    gold = copy / "reference_data" / "grading" / "dev" / "gold.csv"
    proc = cli("score", "grading", gold, gold, "--dir", copy)
    assert proc.returncode == 2 and "holds both scoring.json" in proc.stderr and "Traceback" not in proc.stderr


# ---------------------------------------------------------------------------------------------------------------
# A Result of the wrong type: the scoring program's error, one line, exit 1, no scores


BAD_PROGRAM = '''import math, sys
sys.path.insert(0, %r)
from scoring_runtime import Items, Result, main


def items():
    made = Items("item", "accuracy", lambda totals: 1.0)
    made.add("1", {"items": 1})
    return made


def score(ref_dir, res_dir):
    return %s


if __name__ == "__main__":
    sys.exit(main(score, "Bad", program="bad"))
'''

WRONG_RESULTS = [
    ("None", "score() returned None, not a Result"),
    ("{'accuracy': 0.5}", "score() returned a dict, not a Result"),
    ("Result({'accuracy': '0.5', 'f1': '0.25'})", "the score accuracy is a str, not a number"),
    ("Result([('accuracy', None)])", "the score accuracy is None, not a number"),
    ("Result([('accuracy', float('nan'))])", "the score accuracy is NaN, not a finite number"),
    ("Result([('accuracy', -math.inf)])", "the score accuracy is infinite, not a finite number"),
    ("Result([('accuracy', True)])", "the score accuracy is a bool, not a number"),
    ("Result([('accuracy', 1e12)])", "the score accuracy is 1e+12: CodaLab stores scores below 1e10 in magnitude"),
    ("Result([('macro F1', 0.5)])", "the score key 'macro F1' is not 1-36 characters of A-Z, a-z, 0-9 and _"),
    ("Result([('a' * 37, 0.5)])", "the score key '%s' is not 1-36 characters of A-Z, a-z, 0-9 and _" % ("a" * 37)),
    ("Result([(1, 0.5)])", "the key of score 1 of the Result is a int, not a str"),
    ("Result([('f1', 0.5), ('f1', 0.25)])", "the score key 'f1' is given twice"),
    ("Result([('signature', 0.5)])", "the score key 'signature' is reserved (scores.json's signature)"),
    ("Result([('f1', 0.5), 0.25])", "score 2 of the Result is a float, not a (key, value) pair"),
    ("Result('accuracy')", "the Result's scores are a str, not a list of (key, value) pairs"),
    ("Result(0.5)", "the Result's scores are a float, not a list of (key, value) pairs"),
    ("Result([])", "the Result has no scores"),
    ("Result([('f1', 0.5)], html=b'<p>x</p>')", "the Result's html is a bytes, not a str (or None)"),
    ("Result([('f1', 0.5)], hidden_gold_html=['<p>'])", "the Result's hidden_gold_html is a list, not a str (or None)"),
    ("Result([('f1', 0.5)], program=7)", "the Result's program is a int, not a str (or None)"),
    ("Result([('f1', 0.5)], notes=['ok', 3])", "the Result's notes hold a int, not a str"),
    ("Result([('f1', 0.5)], items=[('1', {})])", "the Result's items are a list, not an Items (or None)"),
    ("Result([('f1', 0.5)], items=Items('item', 'f1', 0.5))",
     "the Result's items are an Items whose finish is a float, not a function"),
    ("Result([('f1', 0.5)], items=Items(None, 'f1', len))",
     "the Result's items are an Items whose unit is None, not a str"),
]


def _bad_program(tmp_path, expression):
    program = tmp_path / "program"
    program.mkdir()
    (program / "evaluate.py").write_text(BAD_PROGRAM % (str(ROOT / "scoring_programs" / "common"), expression))
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "ref" / "gold.csv").write_text("id,label\n1,a\n")
    (tmp_path / "in" / "res").mkdir()
    (tmp_path / "in" / "res" / "predictions.csv").write_text("id,label\n1,a\n")
    return program


def _assert_one_line(proc, message):
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == PROGRAM_ERROR + message + "\n"  # one line, no traceback


@pytest.mark.parametrize("expression, message", WRONG_RESULTS)
def test_a_result_of_the_wrong_type_is_the_programs_error_in_one_line(tmp_path, expression, message):
    program = _bad_program(tmp_path, expression)
    out = tmp_path / "out"
    _assert_one_line(_evaluate(program, tmp_path / "in", out), message)
    assert sorted(os.listdir(str(out))) == ["detailed_results.html"]  # the message's page, no scores
    assert "The submission was not scored" in (out / "detailed_results.html").read_text()
    # two files: the same line
    _assert_one_line(_evaluate(program, "--gold", tmp_path / "in" / "ref" / "gold.csv", "--pred",
                               tmp_path / "in" / "res" / "predictions.csv"), message)


@pytest.mark.parametrize("made, message", [
    ("lambda: {'1': 1}", "the Result's items function returned a dict, not an Items (or None)"),
    ("lambda: Items('item', 7, len)", "the Result's items function returned an Items whose key is a int, not a str"),
])
def test_items_given_as_a_function_are_checked_when_the_run_needs_them(tmp_path, made, message):
    program = _bad_program(tmp_path, "Result([('f1', 0.5)], html='<p>page</p>', items=%s)" % made)
    gold, pred = tmp_path / "in" / "ref" / "gold.csv", tmp_path / "in" / "res" / "predictions.csv"
    # the scores alone do not need them: scored
    proc = _evaluate(program, "--gold", gold, "--pred", pred)
    assert proc.returncode == 0 and proc.stdout.startswith("f1     0.500000000000000\n"), proc.stderr
    proc = _evaluate(program, tmp_path / "in", tmp_path / "hidden")  # the gold is not public: no items on the page
    assert proc.returncode == 0 and (tmp_path / "hidden" / "scores.txt").read_text() == "f1: 0.500000000000000\n"
    # an interval, the items listed, or the page of a public gold need them: the program's error, no scores
    for options in (["--ci"], ["--per-item"], ["--output", str(tmp_path / "two")]):
        _assert_one_line(_evaluate(program, "--gold", gold, "--pred", pred, *options), message)
    assert not (tmp_path / "two" / "scores.txt").exists()
    (tmp_path / "in" / "ref" / "gold_is_public.txt").write_text("public\n")
    _assert_one_line(_evaluate(program, tmp_path / "in", tmp_path / "public"), message)
    assert not (tmp_path / "public" / "scores.txt").exists()


def test_a_result_with_scores_as_a_dict_of_numbers_is_scored_in_its_order(tmp_path):
    program = _bad_program(tmp_path, "Result({'f1': 0.5, 'accuracy': 1, 'mae': 2.25}, items=items())")
    proc = _evaluate(program, tmp_path / "in", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "scores.txt").read_text() == \
        "f1: 0.500000000000000\naccuracy: 1.000000000000000\nmae: 2.250000000000000\n"


def test_a_custom_task_in_this_repository_passes_the_suite_every_task_passes(tmp_path):
    """`python3 build_bundle.py new NAME --kind custom` in a copy of this repository: tests/test_every_task.py (pages,
    columns and replays, the card's sections, worked example and commands, sample_data.py, the task's folders)
    covers it with no test written."""
    from test_new_task import _copy_repository
    repo = _copy_repository(tmp_path)
    made = subprocess.run([sys.executable, "build_bundle.py", "new", "demo-custom", "--kind", "custom"], cwd=str(repo),
                          capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr
    assert "next: python3 build_bundle.py --task demo-custom" in made.stdout
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_every_task.py",
                           "-k", "demo-custom"], cwd=str(repo), capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert " passed" in proc.stdout and "skipped" not in proc.stdout
