"""What a new organizer fell into (issue 29, section 3), each as the user's command and what it prints: what `new`
accepts `build` builds (or `new` refuses it at once), help that says what the command does, one line for a task.yaml
that is not YAML, a folder README that lists every task, and no stale bundle left by a failed build."""
import io
import json
import re
import subprocess
import sys
import zipfile

import pytest

from codalab_bundles.authoring import taskdef
from conftest import ROOT


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py")] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=str(cwd) if cwd else None, timeout=600)


def _sample_task(folder, name="senti", kind="classification"):
    made = cli("new", name, "--kind", kind, "--dir", folder)
    assert made.returncode == 0, made.stderr
    return folder / "bundles" / name / "task.yaml"


# 3 and 5. A task.yaml that is not YAML: one line with its line and column; a failed build leaves no old bundle.

def test_a_task_yaml_that_is_not_yaml_is_one_line_and_removes_the_old_bundles(tmp_path):
    folder = tmp_path / "c"
    definition = _sample_task(folder)
    assert cli("build", folder, "--no-check").returncode == 0
    assert sorted(p.name for p in (folder / "dist").iterdir()) == ["senti-v1.5.zip", "senti.zip"]
    lines = definition.read_text().splitlines(True)
    number = [i for i, line in enumerate(lines) if line.startswith("title: ")][0]
    lines[number] = "title: Senti: the sentiment task\n"  # an unquoted ': ' in a value; the colon is the 13th character
    definition.write_text("".join(lines))
    proc = cli("build", ".", cwd=folder)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        "senti: not built: bundles/senti/task.yaml, line %d, column 13: not valid YAML (mapping values are not "
        "allowed here): check the indentation, and put in quotes a value that holds ': ' or ' #' or starts with one "
        "of [ ] { } & * ! | > ' \" %% @ `; the previous dist/senti.zip and dist/senti-v1.5.zip removed (built from "
        "older files)" % (number + 1)]
    assert list((folder / "dist").iterdir()) == []  # nothing left for `publish` to upload
    lines[number] = 'title: "Senti: the sentiment task\n'  # a quote never closed: the fix names where it opened
    definition.write_text("".join(lines))
    proc = cli("build", ".", cwd=folder)
    assert proc.returncode == 2 and "close the quote opened on line %d, column 8" % (number + 1) in proc.stderr
    assert "removed" not in proc.stderr  # there was nothing left to remove


def test_every_failed_build_removes_the_bundles_of_the_build_before(tmp_path):
    folder = tmp_path / "c"
    definition = _sample_task(folder)
    good = definition.read_text()
    for edit, message, status in [
            # task.yaml parses but is wrong
            (good.replace("max_submissions: 100", "max_submissions: 0"),
             "senti: not built: bundles/senti/task.yaml: phase 1: max_submissions must be a positive integer", 1),
            # task.yaml is right, the build fails: a column the scoring program does not write
            (re.sub(r"  columns:.*\n", "  columns:\n    - key: kappa\n      label: Kappa\n", good),
             "senti: not built: leaderboard column(s) kappa get no score: the scoring program writes macro_f1, "
             "accuracy, weighted_f1", 1)]:
        definition.write_text(good)
        assert cli("build", ".", "--no-check", cwd=folder).returncode == 0
        definition.write_text(edit)
        proc = cli("build", ".", cwd=folder)
        assert proc.returncode == status and "Traceback" not in proc.stderr
        assert proc.stderr.strip() == message + "; the previous dist/senti.zip and dist/senti-v1.5.zip removed " \
                                                "(built from older files)"
        assert list((folder / "dist").iterdir()) == []


# 1. What new accepts, build builds: the spans card's own format, a ranking gold with its options; the rest refused.

def _green(folder, name, phases):
    """build, validate and replay of every phase, from the folder as its README says; returns each phase's scores."""
    built = cli("build", ".", cwd=folder)
    assert built.returncode == 0, built.stdout + built.stderr
    assert built.stdout.count("sample submission on Codabench: Finished") == phases
    checked = cli("validate", "dist/%s.zip" % name, cwd=folder)
    assert checked.returncode == 0 and checked.stdout.strip().endswith("OK: nothing to change"), checked.stdout
    scores = []
    for phase in range(1, phases + 1):
        replayed = cli("replay", "dist/%s.zip" % name, "--phase", phase, "--json", cwd=folder)
        report = json.loads(replayed.stdout.strip().splitlines()[-1])
        assert replayed.returncode == 0 and report["status"] == "Finished" and report["columns_without_score"] == []
        scores.append(report["scores"])
    return scores


def _member(bundle, inner, name):
    with zipfile.ZipFile(str(bundle)) as archive:
        with zipfile.ZipFile(io.BytesIO(archive.read(inner))) as member:
            return member.read(name).decode()


def test_a_spans_gold_of_the_cards_own_lines_builds_and_replays(tmp_path):
    gold = tmp_path / "G"
    for split, lines in (("dev", "0\t[0, 1, 2]\n1\t[]\n2\t[]\n"), ("test", "a\t[5, 6]\nb\t[]\nc\t[1]\nd\t[2,3]\n")):
        (gold / split).mkdir(parents=True)
        (gold / split / "spans-gold.txt").write_text(lines)
    folder = tmp_path / "c"
    made = cli("new", "tox", "--kind", "spans", "--gold-dir", gold, "--dir", folder)
    assert made.returncode == 0, made.stderr
    assert "note: the gold's <id><TAB>[offsets] lines carry no text: participants get only the ids (public data " \
           "texts.csv); to publish the texts, give the gold as a CSV with columns id,spans,text" in made.stdout
    dev, test = _green(folder, "tox", 2)
    # the kit's baseline predicts no span: a post scores 1 when its gold has none, 0 otherwise
    assert dev == {"spans_f1": 2 / 3, "spans_precision": 2 / 3, "spans_recall": 2 / 3}
    assert test == {"spans_f1": 0.25, "spans_precision": 0.25, "spans_recall": 0.25}
    bundle = folder / "dist" / "tox.zip"
    assert _member(bundle, "public_data_test.zip", "texts.csv") == "id\na\nb\nc\nd\n"
    assert _member(bundle, "reference_test.zip", "spans-gold.txt") == "a\t[5, 6]\nb\t[]\nc\t[1]\nd\t[2,3]\n"


def test_one_spans_gold_file_of_lines_is_split_without_losing_a_line(tmp_path):
    lines = ["%d\t[%d]\n" % (i, i) if i % 3 else "%d\t[]\n" % i for i in range(40)]
    (tmp_path / "spans-gold.txt").write_text("".join(lines))
    folder = tmp_path / "c"
    assert cli("new", "tox", "--kind", "spans", "--gold-dir", tmp_path / "spans-gold.txt", "--dir",
               folder).returncode == 0
    split = [(folder / "reference_data" / "tox" / s / "spans-gold.txt").read_text().splitlines(True)
             for s in ("dev", "test")]
    assert sorted(split[0] + split[1], key=lambda line: int(line.split("\t")[0])) == lines  # each line once
    assert split[0] and split[1]
    assert cli("build", ".", cwd=folder).returncode == 0


def test_a_spans_csv_with_an_id_column_names_its_posts_by_it(tmp_path):
    gold = tmp_path / "G"
    for split, rows in (("dev", ["17,[0],a b", "23,[],c d"]), ("test", ["5,[],e", "9,\"[1, 2]\",fgh", "12,[],i"])):
        (gold / split).mkdir(parents=True)
        (gold / split / "gold.csv").write_text("id,spans,text\n" + "\n".join(rows) + "\n")
    folder = tmp_path / "c"
    assert cli("new", "tox", "--kind", "spans", "--gold-dir", gold, "--dir", folder).returncode == 0
    assert json.loads((folder / "scoring_programs" / "tox" / "scoring.json").read_text())["id_column"] == "id"
    dev, test = _green(folder, "tox", 2)
    assert dev["spans_f1"] == 0.5 and test["spans_f1"] == 2 / 3
    assert _member(folder / "dist" / "tox.zip", "public_data_dev.zip", "texts.csv") == "id,text\n17,a b\n23,c d\n"


def test_a_ranking_gold_with_its_options_builds_and_replays(tmp_path):
    gold = tmp_path / "G"
    for split, answers, options in (
            ("dev", {"q1": "a", "q2": "b"}, {"q1": ["a", "b"], "q2": ["a", "b", "c"]}),
            ("test", {"q3": "c", "q4": "a", "q5": "z"}, {"q3": ["a", "b", "c"], "q4": ["a"], "q5": ["x", "y"]})):
        (gold / split).mkdir(parents=True)
        (gold / split / "gold.json").write_text(json.dumps(answers))
        (gold / split / "options.json").write_text(json.dumps(options))
    folder = tmp_path / "c"
    made = cli("new", "quiz", "--kind", "ranking", "--gold-dir", gold, "--dir", folder)
    assert made.returncode == 0, made.stderr
    dev, test = _green(folder, "quiz", 2)
    # the kit's baseline ranks the options as given: dev ranks 1 and 2; test 3, 1 and none
    assert dev == {"accuracy": 0.5, "mrr": 0.75}
    assert test == {"accuracy": 1 / 3, "mrr": (1 / 3 + 1) / 3}


def test_one_ranking_gold_file_is_split_with_its_options(tmp_path):
    queries = ["q%d" % i for i in range(30)]
    (tmp_path / "gold.json").write_text(json.dumps(dict((q, "b") for q in queries)))
    (tmp_path / "options.json").write_text(json.dumps(dict((q, ["a", "b"]) for q in queries)))
    folder = tmp_path / "c"
    assert cli("new", "quiz", "--kind", "ranking", "--gold-dir", tmp_path, "--dir", folder).returncode == 0
    for split in ("dev", "test"):
        here = folder / "reference_data" / "quiz" / split
        assert sorted(json.loads((here / "gold.json").read_text())) == \
            sorted(json.loads((here / "options.json").read_text()))
    dev, test = _green(folder, "quiz", 2)
    assert dev == test == {"accuracy": 0.0, "mrr": 0.5}  # every answer is ranked second


@pytest.mark.parametrize("files, message", [
    ({"dev/gold.json": '{"q1": "a"}', "test/gold.json": '{"q2": "b"}'},
     "new: the dev gold: no options.json: a ranking task publishes each query's options; put options.json beside "
     "gold.json: {\"q1\": [\"a\", \"b\", \"c\"], ...}, the options of every query, which participants rank"),
    ({"gold.json": '{"q1": "a", "q2": "b", "q3": "c"}', "options.json": '{"q1": ["a"], "q3": ["c", "d"]}'},
     "new: the gold: options.json gives no options for 1 of the gold's queries (first: q2): add them"),
    ({"gold.json": '{"q1": "a", "q2": "b"}', "options.json": '{"q1": ["a"], "q2": ["b"], "q9": ["c"]}'},
     "new: the gold: options.json gives options for 1 queries the gold does not have (first: q9): remove them"),
    ({"gold.json": '{"q1": "a", "q2": "b"}', "options.json": '{"q1": ["a", "a"], "q2": ["b"]}'},
     "new: the gold: options.json: the options of query \"q1\" must be a list of distinct option ids (strings or "
     "integers), found [\"a\", \"a\"]"),
])
def test_new_refuses_a_ranking_gold_without_its_options(tmp_path, files, message):
    for name, text in files.items():
        (tmp_path / "G" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "G" / name).write_text(text)
    proc = cli("new", "quiz", "--kind", "ranking", "--gold-dir", tmp_path / "G", "--dir", tmp_path / "c")
    assert proc.returncode == 2 and proc.stderr.strip() == message and proc.stdout == ""
    assert not (tmp_path / "c").exists()  # nothing written


def test_new_refuses_any_other_gold_it_cannot_build(tmp_path):
    # a spans CSV with two id columns: posts are then named by row number, and the public ids are the gold's own
    rows = ["%d,[],%d,text" % (100 + i, i) for i in range(10)]
    (tmp_path / "gold.csv").write_text("id,spans,ID,text\n" + "\n".join(rows) + "\n")
    proc = cli("new", "tox", "--kind", "spans", "--gold-dir", tmp_path / "gold.csv", "--dir", tmp_path / "c")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stdout == ""
    assert proc.stderr.startswith("new: the dev gold would not build: the starting kit's sample submission would "
                                  "fail: spans-pred.txt, line 1: id '10")
    assert proc.stderr.strip().endswith("give the gold of a spans task in a layout that 'python3 build_bundle.py new "
                                        "--help' lists")
    assert not (tmp_path / "c").exists()


# 2. new --help says what new does.

def test_new_help_says_it_writes_files_and_that_build_builds():
    proc = cli("new", "--help")
    text = " ".join(proc.stdout.split())
    assert proc.returncode == 0 and "builds, validates and replays at once" not in text
    assert "It writes files only, after checking that your gold builds" in text
    assert "Then build the bundles with 'build' (which replays each starting kit's sample), and check them with " \
           "'validate' and 'replay'." in text
    assert "ranking JSON {query id: correct option id} or CSV id,answer, with options.json beside it" in text


# 4. The folder's README lists every task; task.yaml documents itself.

def test_the_folder_readme_lists_every_task_and_task_yaml_explains_its_keys(tmp_path):
    folder = tmp_path / "c"
    _sample_task(folder, "senti", "classification")
    _sample_task(folder, "quiz", "ranking")
    readme = (folder / "README.md").read_text()
    listed = [line for line in readme.splitlines() if line.startswith("- `") and "builds `dist/" in line]
    assert listed == [
        "- `quiz` (ranking, scored by `scoring_programs/quiz/scoring.json`): `bundles/quiz/task.yaml`, "
        "`reference_data/quiz/`; builds `dist/quiz.zip`",
        "- `senti` (classification, scored by `scoring_programs/senti/scoring.json`): `bundles/senti/task.yaml`, "
        "`reference_data/senti/`; builds `dist/senti.zip`"]
    (folder / "README.md").write_text("# Our shared tasks\n\n" + readme)  # the organizer's own words
    _sample_task(folder, "tags", "multilabel")
    readme = (folder / "README.md").read_text()
    assert readme.startswith("# Our shared tasks\n")  # the organizer's words stay
    assert "- `tags` (multilabel, scored by `scoring_programs/tags/scoring.json`)" in readme
    definition = (folder / "bundles" / "senti" / "task.yaml").read_text()
    assert "bundles/README.md" not in definition
    assert definition.startswith("# Senti: a classification task made by `python3 build_bundle.py new senti --kind "
                                 "classification` on ")
    # every key task.yaml may hold is in the file, set or listed in a comment
    for key in taskdef.TOP_KEYS | taskdef.PHASE_KEYS | taskdef.LEADERBOARD_KEYS | taskdef.COLUMN_KEYS:
        assert re.search(r"(^|[ #-]) ?%s:" % key, definition, re.M), key
