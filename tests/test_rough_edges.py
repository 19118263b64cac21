"""What a newcomer met (issue 24), each as the user's command and what it prints: no false go-ahead, blame on the
right side, nothing half-made, the argument habits of other tools, and participant messages that say what is wrong."""
import csv
import io
import os
import subprocess
import sys
import zipfile

import pytest

from codalab_bundles.zips import pack
from conftest import ROOT
from docker_support import docker_image  # noqa: F401 (fixture)
from old_codalab_bundle import PROGRAM, write_old_bundle


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py")] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=str(cwd) if cwd else None)


# 1. Where the check ran; migrate and validate in the platform's image.

def _old_bundle_needing_a_module(path):
    program = dict(PROGRAM)
    del program["py2_report.py"]
    program["evaluate.py"] = "import psutil\n" + program["evaluate.py"]
    return write_old_bundle(path, program=program)


def test_migrate_says_which_python_ran_the_check(tmp_path):
    old = _old_bundle_needing_a_module(tmp_path / "old.zip")
    proc = cli("migrate", old, "-o", tmp_path / "new.zip")
    assert proc.returncode == 1
    assert "the sample submission fails under the Codabench worker, run with this machine's python3 (Python %s), " \
           "not the platform's image" % ".".join(map(str, sys.version_info[:3])) in proc.stdout
    assert "(check it in the platform's image: rerun migrate with --docker)" in proc.stdout


def test_migrate_and_validate_run_the_check_in_an_image(tmp_path, docker_image):  # noqa: F811
    old = _old_bundle_needing_a_module(tmp_path / "old.zip")
    proc = cli("migrate", old, "-o", tmp_path / "new.zip", "--docker", "--image", docker_image)
    assert "Scoring program under the Codabench worker, run with the Docker image %s:" % docker_image in proc.stdout
    assert "run with the Docker image %s: the scoring program exited with status 1; stderr ends: " \
           "ModuleNotFoundError: No module named 'psutil'" % docker_image in proc.stdout
    assert "rerun migrate with --docker" not in proc.stdout
    fine = write_old_bundle(tmp_path / "fine.zip")
    migrated = tmp_path / "fine-new.zip"
    cli("migrate", fine, "-o", migrated, "--wrap-scores")
    proc = cli("validate", migrated, "--docker", "--image", docker_image)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("OK: nothing to change"), proc.stdout


# 2. A missing image is Docker's failure, not the program's.

def test_replay_with_an_image_that_cannot_be_pulled(built_bundles, docker_image):  # noqa: F811
    proc = cli("replay", built_bundles["toxic-spans"].codabench, "--docker", "--image", "no-such/image:1")
    assert proc.returncode == 2 and "exited with status 125" not in proc.stdout + proc.stderr
    assert "replay: the image no-such/image:1 is not on this machine and could not be pulled (docker: Error " \
           "response from daemon:" in proc.stderr
    assert "give another image with --image (for example the offline stand-in codalab-replay/standin:bullseye)" \
        in proc.stderr


# 4. new checks the gold it copies, with the scoring program's own messages.

@pytest.mark.parametrize("gold, message", [
    ("id,text,sentiment\n1,a,pos\n2,b,neg\n3,c,pos\n4,d,neu\n5,e,pos\n6,f,neg\n",
     "new: the gold: reference file gold.csv: no 'label' column in the header line (found 'id,text,sentiment')"),
    ("id,text,label\n1,a,pos\n2,b,neg\n3,c,pos\n2,d,neu\n5,e,pos\n6,f,neg\n",
     "new: the gold: reference file gold.csv, line 5: id '2' is given twice, on lines 3 and 5"),
])
def test_new_refuses_a_gold_the_scorer_cannot_read(tmp_path, gold, message):
    (tmp_path / "gold.csv").write_text(gold)
    proc = cli("new", "sentiment", "--kind", "classification", "--gold-dir", tmp_path / "gold.csv", "--dir",
               tmp_path / "competition")
    assert proc.returncode == 2 and proc.stderr.strip() == message and "next:" not in proc.stdout
    assert not (tmp_path / "competition").exists()  # nothing written


def test_new_takes_one_gold_file_as_its_help_says(tmp_path):
    rows = "".join("%d,text %d,%s\n" % (i, i, "pos neg neu".split()[i % 3]) for i in range(30))
    (tmp_path / "all.csv").write_text("id,text,label\n" + rows)
    proc = cli("new", "sentiment", "--kind", "classification", "--gold-dir", tmp_path / "all.csv", "--dir",
               tmp_path / "competition")
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "competition" / "reference_data" / "sentiment"
    counted = sum(len(list(csv.reader(open(str(folder / split / "all.csv"))))) - 1 for split in ("dev", "test"))
    assert counted == 30
    # the folder is named: build_bundle.py run from there would build this repository's own folder
    assert "next: python3 build_bundle.py build %s && python3 build_bundle.py validate %s" % (
        tmp_path / "competition", tmp_path / "competition" / "dist" / "sentiment.zip") in proc.stdout
    built = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "build", str(tmp_path / "competition"),
                            "--no-check"], capture_output=True, text=True)
    assert built.returncode == 0 and (tmp_path / "competition" / "dist" / "sentiment.zip").exists(), built.stdout


# 5. Argument habits.

def test_replay_takes_options_before_the_submission_and_a_folder(built_bundles, tmp_path):
    bundle = built_bundles["toxic-spans"].codabench
    with zipfile.ZipFile(str(bundle)) as archive:
        kit = zipfile.ZipFile(io.BytesIO(archive.read("starting_kit_test.zip")))
        sample = kit.read("sample_submission.zip")
    (tmp_path / "sample.zip").write_bytes(sample)
    proc = cli("replay", bundle, "--phase", 2, tmp_path / "sample.zip")
    assert proc.returncode == 0 and "phase 2 (Evaluation), submission %s" % (tmp_path / "sample.zip") in proc.stdout
    folder = tmp_path / "unzipped"
    folder.mkdir()
    with zipfile.ZipFile(io.BytesIO(sample)) as archive:
        archive.extractall(str(folder))
    proc = cli("replay", bundle, str(folder) + "/", "--phase", 2)
    assert proc.returncode == 0 and "status: Finished" in proc.stdout
    assert "(the folder's files, zipped)" in proc.stdout


def test_rescore_checks_its_output_first_and_names_what_it_skips(built_bundles, tmp_path):
    bundle = built_bundles["toxic-spans"].codabench
    runs = tmp_path / "runs"
    (runs / "nested").mkdir(parents=True)
    with zipfile.ZipFile(str(bundle)) as archive:
        kit = zipfile.ZipFile(io.BytesIO(archive.read("starting_kit_trial.zip")))
        (runs / "sample.zip").write_bytes(kit.read("sample_submission.zip"))
    proc = cli("rescore", bundle, runs, "-o", tmp_path / "missing" / "board.csv")
    assert proc.returncode == 2 and "-o %s: the folder %s does not exist" % (
        tmp_path / "missing" / "board.csv", tmp_path / "missing") in proc.stderr
    assert "submission(s) scored" not in proc.stdout  # said before any scoring
    proc = cli("rescore", bundle, runs, "-o", tmp_path / "board.csv")
    assert proc.returncode == 0
    assert "skipped %s/: not a zip" % (runs / "nested") in proc.stdout


# 6. Participant messages.

def _generic_task(tmp_path, extra_config=None):
    gold = "".join("%d,text,%s\n" % (i, "pos neg neu".split()[i % 3]) for i in range(20))
    for split in ("dev", "test"):
        (tmp_path / "G" / split).mkdir(parents=True, exist_ok=True)
        (tmp_path / "G" / split / "gold.csv").write_text("id,text,label\n" + gold)
    assert cli("new", "senti", "--kind", "classification", "--gold-dir", tmp_path / "G", "--dir",
               tmp_path / "c").returncode == 0
    if extra_config:
        import json
        path = tmp_path / "c" / "scoring_programs" / "senti" / "scoring.json"
        config = json.loads(path.read_text())
        config.update(extra_config)
        path.write_text(json.dumps(config))
    assert cli("build", tmp_path / "c", "--no-check").returncode == 0
    return tmp_path / "c" / "dist" / "senti.zip"


def _submission(tmp_path, text, name="predictions.csv"):
    path = tmp_path / ("%s.zip" % len(list(tmp_path.glob("*.zip"))))
    path.write_bytes(pack.zip_entries([(name, text.encode())]))
    return path


def test_participant_messages_of_the_generic_classification(tmp_path):
    bundle = _generic_task(tmp_path)
    rows = ["%d,%s" % (i, "pos neg neu".split()[i % 3]) for i in range(20)]
    tabbed = _submission(tmp_path, "id\tlabel\n" + "\n".join(r.replace(",", "\t") for r in rows) + "\n")
    proc = cli("replay", bundle, tabbed)
    assert "predictions.csv: the header line is separated by tabs, not commas (found 'id<TAB>label'): write the " \
           "file as CSV, with commas" in proc.stdout
    extra = _submission(tmp_path, "id,label\n" + "\n".join(rows[:3] + ["3,neu,extra"] + rows[4:]) + "\n")
    proc = cli("replay", bundle, extra)
    assert proc.returncode == 1
    assert "predictions.csv, line 5: the row has 3 cells, the header 2 (quote a cell that holds a comma)" \
        in proc.stdout
    unknown = _submission(tmp_path, "id,label\n" + "\n".join(rows[:2] + ["2,positive"] + rows[3:]) + "\n")
    proc = cli("replay", bundle, unknown, "--keep")
    assert proc.returncode == 0
    warning = ("Warning: predictions.csv: 1 label(s) no gold item has, first on line 4: 'positive'; each counts as a "
               "class of its own in the macro averages")
    assert warning in proc.stdout  # the stderr the participant sees, as the replay shows it
    page = [line for line in proc.stdout.splitlines() if line.startswith("detailed results: ")][0].split(": ", 1)[1]
    assert "Warnings" in open(page).read() and "first on line 4" in open(page).read()
    refusing = _generic_task(tmp_path / "refusing", {"unknown_labels": "refuse"})
    proc = cli("replay", refusing, unknown)
    assert proc.returncode == 1 and "(this task accepts only the gold's labels)" in proc.stdout


# 7. Small ones.

def test_replay_without_keep_names_no_removed_file(built_bundles):
    proc = cli("replay", built_bundles["toxic-spans"].codabench)
    assert proc.returncode == 0 and "detailed results:" not in proc.stdout
    proc = cli("replay", built_bundles["toxic-spans"].codabench, "--keep")
    shown = [line for line in proc.stdout.splitlines() if line.startswith("detailed results: ")]
    assert shown and os.path.isfile(shown[0].split(": ", 1)[1])


def test_migrate_names_a_missing_dataset_key_once_and_the_command_in_full(tmp_path):
    from old_codalab_bundle import COMPETITION
    old = write_old_bundle(tmp_path / "old.zip", competition=COMPETITION.replace(
        "    reference_data: reference.zip\n    starting_kit: starting_kit.zip\n  2:",
        "    reference_data: 1234-old-site-key\n    starting_kit: starting_kit.zip\n  2:", 1))
    proc = cli("migrate", old, "-o", tmp_path / "new.zip")
    assert proc.stdout.count("1234-old-site-key") == 1, proc.stdout
    assert "then 'python3 build_bundle.py validate %s'" % (tmp_path / "new.zip") in proc.stdout


def test_validate_many_bundles_ends_with_a_summary_and_can_be_quiet(built_bundles, tmp_path):
    good = built_bundles["toxic-spans"].codabench
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    proc = cli("validate", good, bad, "--no-replay")
    assert proc.returncode == 1
    assert proc.stdout.strip().endswith("2 bundle(s): 1 with nothing to change, 1 with findings to fix")
    quiet = cli("validate", good, bad, "--no-replay", "--quiet")
    assert str(good) not in quiet.stdout and str(bad) in quiet.stdout
    assert quiet.stdout.strip().endswith("2 bundle(s): 1 with nothing to change, 1 with findings to fix")


def test_pytest_shows_why_tests_were_skipped():
    import tomllib
    with open(str(ROOT / "pyproject.toml"), "rb") as handle:
        options = tomllib.load(handle)["tool"]["pytest"]["ini_options"]
    assert "-rs" in options["addopts"].split()
