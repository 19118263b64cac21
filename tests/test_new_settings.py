"""``new --set FIELD=VALUE`` and ``new`` without --kind (issue 39): an organizer's gold with its own column names
and options stands up in one command, and a gold that says its kind gets that kind, named in a note."""
import json
import subprocess
import sys

import pytest

from codalab_bundles.authoring import new_task
from conftest import ROOT


def run(*args, cwd=None):
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py")] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=600, cwd=cwd)


@pytest.mark.parametrize("text, expected", [
    ("label_column=Stance", ("label_column", "Stance")),
    ("label_range=[0, 3]", ("label_range", [0, 3])),
    ('subset_labels=["FAVOR", "AGAINST"]', ("subset_labels", ["FAVOR", "AGAINST"])),
    ("zero_division=1", ("zero_division", 1)),
    ("docstart=token", ("docstart", "token")),
    (" id_column = ID", ("id_column", " ID")),
])
def test_a_setting_is_json_when_it_reads_as_json_else_text(text, expected):
    assert new_task.parse_setting(text) == expected


@pytest.mark.parametrize("text", ["label_column", "=x", ""])
def test_a_setting_without_a_field_is_refused_with_the_form(text):
    with pytest.raises(new_task.NewTaskError, match="write FIELD=VALUE"):
        new_task.parse_setting(text)


def _stance_gold(folder):
    """SemEval-2016 Task 6's layout: a TSV with its own ID and Stance columns (tweets hold unbalanced quotes)."""
    folder.mkdir()
    rows = ["ID\tTarget\tTweet\tStance"]
    stances = ("FAVOR", "AGAINST", "NONE")
    rows += ["%d\tAtheism\tsays \"why %d\t%s" % (i, i, stances[i % 3]) for i in range(1, 91)]
    (folder / "gold.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


def test_own_columns_and_options_in_one_command(tmp_path):
    gold = _stance_gold(tmp_path / "gold")
    made = run("new", "stance", "--kind", "classification", "--gold-dir", gold, "--dir", tmp_path / "comp",
               "--set", "id_column=ID", "--set", "label_column=Stance", "--set", 'subset_labels=["FAVOR","AGAINST"]',
               "--keys", "subset_macro_f1,macro_f1")
    assert made.returncode == 0, made.stderr
    config = json.loads((tmp_path / "comp" / "scoring_programs" / "stance" / "scoring.json").read_text())
    assert config == {"kind": "classification", "keys": ["subset_macro_f1", "macro_f1"], "title": "Stance",
                      "id_column": "ID", "label_column": "Stance", "subset_labels": ["FAVOR", "AGAINST"],
                      "reference": "gold.tsv"}
    built = run("build", tmp_path / "comp")
    assert built.returncode == 0, built.stdout + built.stderr
    assert built.stdout.count("sample submission on Codabench: Finished subset_macro_f1=") == 2


def test_a_tsv_submission_gets_a_tsv_sample_from_the_kit(tmp_path):
    gold = _stance_gold(tmp_path / "gold")
    made = run("new", "stance", "--kind", "classification", "--gold-dir", gold, "--dir", tmp_path / "comp",
               "--set", "id_column=ID", "--set", "label_column=Stance", "--set", "submission=predictions.tsv")
    assert made.returncode == 0, made.stderr
    built = run("build", tmp_path / "comp")
    assert built.returncode == 0, built.stdout + built.stderr
    import io
    import zipfile
    with zipfile.ZipFile(str(tmp_path / "comp" / "dist" / "stance.zip")) as bundle:
        kit = zipfile.ZipFile(io.BytesIO(bundle.read("starting_kit_test.zip")))
    sample = zipfile.ZipFile(io.BytesIO(kit.read("sample_submission.zip")))
    assert sample.read("predictions.tsv").decode().splitlines()[0] == "ID\tStance"


def test_without_the_settings_the_gold_is_refused_in_words_about_its_columns(tmp_path):
    gold = _stance_gold(tmp_path / "gold")
    made = run("new", "stance", "--kind", "classification", "--gold-dir", gold, "--dir", tmp_path / "comp")
    assert made.returncode == 2 and not (tmp_path / "comp").exists()
    assert "no 'label' column" in made.stderr and "Traceback" not in made.stderr


def test_a_setting_the_kind_does_not_have_is_refused_before_anything_is_written(tmp_path):
    made = run("new", "x", "--kind", "regression", "--dir", tmp_path / "comp", "--set", "label_column=y")
    assert made.returncode == 2 and 'unknown field "label_column" for kind regression' in made.stderr
    assert not (tmp_path / "comp").exists()
    made = run("new", "x", "--kind", "regression", "--dir", tmp_path / "comp", "--set", "keys=[\"mae\"]")
    assert made.returncode == 2 and "--set keys: give it as --keys" in made.stderr


def test_the_gold_names_its_kind_when_none_is_given(tmp_path):
    numbers = tmp_path / "sts"
    numbers.mkdir()
    (numbers / "gold.csv").write_text("id,text,score\n" + "".join(
        "%d,pair %d,%.2f\n" % (i, i, (i * 37 % 50) / 10.0) for i in range(1, 61)))
    made = run("new", "sts", "--gold-dir", numbers, "--dir", tmp_path / "comp")
    assert made.returncode == 0, made.stderr
    assert "kind regression chosen from it (give --kind to choose another)" in made.stdout
    assert json.loads((tmp_path / "comp" / "scoring_programs" / "sts" / "scoring.json").read_text())["kind"] == \
        "regression"
    tags = tmp_path / "ner"
    tags.mkdir()
    (tags / "gold.conll").write_text("".join("Ann B-PER\nsaw O\nRome B-LOC\n. O\n\n" for _ in range(40)))
    made = run("new", "ner", "--gold-dir", tags, "--dir", tmp_path / "comp")
    assert made.returncode == 0, made.stderr
    assert "CoNLL columns" in made.stdout and "kind sequence chosen" in made.stdout


def test_a_gold_that_does_not_say_its_kind_needs_one(tmp_path):
    gold = tmp_path / "gold"
    gold.mkdir()
    (gold / "gold.csv").write_text("id,y\n" + "".join("%d,%s\n" % (i, "ab"[i % 2]) for i in range(40)))
    made = run("new", "x", "--gold-dir", gold, "--dir", tmp_path / "comp")
    assert made.returncode == 2 and "--kind is needed" in made.stderr and not (tmp_path / "comp").exists()
    (gold / "gold.csv").write_text("id,label\n" + "".join("%d,%s\n" % (i, "ab"[i % 2]) for i in range(40)))
    made = run("new", "x", "--gold-dir", gold, "--dir", tmp_path / "comp")
    assert made.returncode == 0 and "kind classification chosen" in made.stdout, made.stderr
    made = run("new", "x", "--dir", tmp_path / "comp")
    assert made.returncode == 2 and "--kind is needed without --gold-dir" in made.stderr
