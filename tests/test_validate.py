"""The bundle validator: our bundles pass; each deliberately broken bundle produces its finding."""
import io
import subprocess
import sys
import zipfile

import pytest
import yaml

from codalab_bundles import validate
from codalab_bundles.authoring import build, taskdef
from codalab_bundles.zips import pack
from conftest import ROOT
from toy_task import make_toy


@pytest.fixture(scope="module")
def toy_bundles(tmp_path_factory):
    root = tmp_path_factory.mktemp("toy")
    task = make_toy(root)
    # the toy's third column is deliberately never written; drop it here so the toy bundle is clean
    path = root / "bundles" / "toy" / "task.yaml"
    path.write_text(path.read_text().replace("    - {key: never_written, label: Unused}\n", ""))
    task = taskdef.load_task("toy", task.split_dirs, bundles_dir=root / "bundles")
    return build.build_task(task, root / "dist")


def findings_of(path, **kwargs):
    version, findings = validate.validate(str(path), **kwargs)
    return version, [f for f in findings if f.severity != "note"]


def rewrite(source, target, edit_yaml=None, edit_files=None):
    """Copy a bundle, changing its competition.yaml text and/or its files ({name: bytes or None to delete})."""
    src = zipfile.ZipFile(str(source))
    entries = [(n, src.read(n)) for n in src.namelist()]
    if edit_yaml:
        entries = [(n, edit_yaml(d.decode()).encode() if n == "competition.yaml" else d) for n, d in entries]
    if edit_files:
        entries = [(n, d) for n, d in entries if edit_files.get(n, d) is not None]
        names = [n for n, _ in entries]
        entries = [(n, edit_files.get(n, d)) for n, d in entries]
        entries += [(n, d) for n, d in edit_files.items() if d is not None and n not in names]
    target.write_bytes(pack.zip_entries(entries))
    return target


def program_zip(files):
    return pack.zip_entries(sorted((k, v.encode()) for k, v in files.items()))


def test_clean_toy_bundles_pass(toy_bundles):
    assert findings_of(toy_bundles.codalab) == ("1", [])
    assert findings_of(toy_bundles.codabench) == ("2", [])


def test_every_built_bundle_passes(built_bundles):
    for name, paths in built_bundles.items():
        for path in paths:
            version, findings = findings_of(path)
            assert findings == [], (path.name, findings)


# (description, which bundle, yaml edit, file edits, platform, rule, fragment of the message)
BROKEN = [
    ("unknown top-level key", 0, lambda y: "version: 1.5\ndocker_image: x\n" + y, None, "codalab", "schema",
     "'docker_image', 'version' were unexpected"),
    ("phase end_date", 0, lambda y: y.replace("    phasenumber: 1\n", "    phasenumber: 1\n    end_date: 2025-02-01\n"),
     None, "codalab", "schema", "'end_date' was unexpected"),
    ("missing data page", 0, lambda y: y.replace("  data: data.html\n", ""), None, "codalab", "schema",
     "'data' is a required property"),
    ("quoted date-only string", 0, lambda y: y.replace('start_date: "2025-01-15 00:00:00"', 'start_date: "2025-01-15"'),
     None, "codalab", "schema", "does not match"),
    ("non-consecutive phase numbers", 0, lambda y: y.replace("phasenumber: 2", "phasenumber: 3"), None, "codalab",
     "phases", "phase numbers are [1, 3]"),
    ("missing file", 0, None, {"reference_test.zip": None}, "codalab", "files", "reference_test.zip is not in the bundle"),
    ("leaderboard without rank", 0, lambda y: y.replace("      rank: 1\n  columns:", "  columns:"), None, "codalab",
     "schema", "'rank' is a required property"),
    ("column anchored to no leaderboard", 0,
     lambda y: y.replace("    hits:\n      leaderboard: *RESULTS", "    hits:\n      leaderboard: {label: Other}"),
     None, "codalab", "leaderboard", "matches no leaderboard"),
    ("computed column on Codabench", 0, lambda y: y + "    rank_avg:\n      leaderboard: *RESULTS\n      label: Rank\n"
     "      rank: 9\n      computed: {operation: Avg, fields: 'accuracy, hits'}\n", None, "codabench", "leaderboard",
     "dropped by Codabench"),
    ("two leaderboards", 0, lambda y: y.replace("  columns:", "    OTHER:\n      label: Other\n      rank: 2\n  columns:"),
     None, "codabench", "leaderboard", "only the first"),
    ("has_registration absent", 0, lambda y: y.replace("has_registration: false\n", ""), None, "codabench",
     "codabench-import", "defaults to requiring the organizer's approval"),
    ("phases less than a day apart", 0, lambda y: y.replace('start_date: "2025-02-01 00:00:00"',
                                                            'start_date: "2025-01-15 12:00:00"'),
     None, "codabench", "stored-dates", "nobody can ever submit"),
    ("column label over 36 characters", 0, lambda y: y.replace('label: "Hits"', 'label: "' + "H" * 40 + '"'), None,
     "codabench", "leaderboard", "longer than 36"),
    ("missing image", 0, lambda y: y.replace("image: logo.png\n", ""), None, "codabench", "codabench-import",
     "requires a logo"),
    ("metadata in a wrapper folder", 0, None, {"scoring_program.zip": program_zip(
        {"prog/metadata": "command: python3 $program/evaluate.py $input $output\n", "prog/evaluate.py": "x"})},
     "codabench", "program", "Codabench does not"),
    ("metadata with extra keys", 0, None, {"scoring_program.zip": program_zip(
        {"metadata": "command: python3 $program/evaluate.py $input $output\nhelper: http://x/y.zip\n",
         "evaluate.py": "x"})}, "codalab", "program", "downloads every other string value as a URL"),
    ("shell syntax in the command", 0, None, {"scoring_program.zip": program_zip(
        {"metadata": "command: python3 $program/evaluate.py $input $output | tee log\n", "evaluate.py": "x"})},
     "codalab", "program", "needs a shell"),
    ("command names a missing file", 0, None, {"scoring_program.zip": program_zip(
        {"metadata": "command: python3 $program/score.py $input $output\n", "evaluate.py": "x"})}, "codalab",
     "program", "runs $program/score.py, which is not in"),
    ("no metadata", 0, None, {"scoring_program.zip": program_zip({"evaluate.py": "x"})}, "codalab", "program",
     "has no metadata file"),
    ("sample submission fails", 0, None, {"reference_dev.zip": pack.zip_entries([("gold.txt", b"a b\n")])},
     "codalab", "replay", "sample submission fails"),
    ("v2 phases touch", 1, lambda y: y.replace('end: "2025-01-31 23:59:59"', 'end: "2025-02-01 00:00:00"'), None,
     "codabench", "phases", "Phases dates conflict"),
    ("v2 phases overlap", 1, lambda y: y.replace('end: "2025-01-31 23:59:59"', 'end: "2025-02-02 00:00:00"'), None,
     "codabench", "phases", "Phases must be sequential"),
    ("v2 phase without end", 1, lambda y: y.replace('    end: "2025-01-31 23:59:59"\n', ""), None, "codabench",
     "phases", "must have an end time"),
    ("v2 version 2.0", 1, lambda y: y.replace("version: 2\n", "version: 2.0\n"), None, "codabench", "schema",
     "neither 1, 1.5 nor 2"),
    ("v2 missing terms", 1, lambda y: y.replace("terms: terms.html\n", ""), None, "codabench", "schema",
     "'terms' is a required property"),
    ("v2 unknown task", 1, lambda y: y.replace("tasks: [1]", "tasks: [7]"), None, "codabench", "tasks",
     "task 7 does not exist"),
    ("v2 long column key", 1, lambda y: y.replace("key: hits", "key: " + "h" * 40), None, "codabench", "schema",
     "is too long"),
    ("v2 empty page", 1, None, {"overview.html": b""}, "codabench", "files", "empty (0 bytes)"),
    # Codabench refuses only a 0-byte page (checked with its import): white space is stored as an empty tab
    ("v2 blank page", 1, None, {"overview.html": b"  \n"}, "codabench", "files", "only white space"),
    ("v2 bundle sent to CodaLab", 1, None, None, "codalab", "schema", "cannot be uploaded to CodaLab"),
]


@pytest.mark.parametrize("case", BROKEN, ids=[c[0] for c in BROKEN])
def test_broken_bundle_gives_its_finding(toy_bundles, tmp_path, case):
    _, which, edit_yaml, edit_files, platform, rule, fragment = case
    path = rewrite((toy_bundles.codalab, toy_bundles.codabench)[which], tmp_path / "broken.zip", edit_yaml,
                   edit_files)
    platforms = ("codalab", "codabench") if platform == "codalab" else None
    _, findings = findings_of(path, platforms=platforms)
    matching = [f for f in findings if f.platform == platform and f.rule == rule and fragment in f.message]
    assert matching, findings
    assert all(f.fix for f in matching if f.rule != "replay")


def test_wrapper_folder_around_the_bundle(toy_bundles, tmp_path):
    src = zipfile.ZipFile(str(toy_bundles.codalab))
    path = tmp_path / "wrapped.zip"
    path.write_bytes(pack.zip_entries([("comp/" + n, src.read(n)) for n in src.namelist()]))
    _, findings = findings_of(path, platforms=("codabench", "codalab"))
    messages = dict((f.platform, f.message) for f in findings if f.rule == "zip")
    assert "There is no item named" in messages["codalab"]
    assert "competition.yaml is missing from zip" in messages["codabench"]


# A bundle written by hand in the style of the official CodaLab examples (hello_world / Iris era).
OFFICIAL_STYLE_YAML = """\
title: Hello World
description: An example competition where submissions should output "Hello World!"
image: logo.jpg
has_registration: False
html:
    overview: overview.html
    evaluation: evaluation.html
    terms: terms_and_conditions.html
    data: data.html
phases:
    1:
        phasenumber: 1
        label: "First phase"
        start_date: 2015-9-1
        max_submissions: 100
        scoring_program: scoring_program.zip
        reference_data: reference_data.zip
    2:
        phasenumber: 2
        label: "Second phase"
        start_date: 2015-09-01 12:00:00
        max_submissions: 100
        scoring_program: scoring_program.zip
        reference_data: reference_data.zip
leaderboard:
    leaderboards:
        RESULTS: &RESULTS
            label: RESULTS
            rank: 1
    columns:
        correct:
            leaderboard: *RESULTS
            label: Correct
            rank: 2
            numeric_format: 1
        ave_rank:
            leaderboard: *RESULTS
            label: <Rank>
            rank: 1
            computed:
                operation: Avg
                fields: correct
"""

OFFICIAL_STYLE_SCORE = """\
import sys, os
input_dir = sys.argv[1]
output_dir = sys.argv[2]
truth = open(os.path.join(input_dir, 'ref', 'truth.txt')).read()
answer = open(os.path.join(input_dir, 'res', 'answer.txt')).read()
output_file = open(os.path.join(output_dir, 'scores.txt'), 'wb')
output_file.write("correct:" + str(float(truth == answer)))
"""


def test_official_style_bundle_gets_useful_findings(tmp_path):
    program = program_zip({"program/metadata": "command: python $program/evaluate.py $input $output\n"
                                               "description: Example competition evaluation program.\n",
                           "program/evaluate.py": OFFICIAL_STYLE_SCORE})
    entries = [("competition.yaml", OFFICIAL_STYLE_YAML.encode()), ("logo.jpg", b"\xff\xd8jpeg"),
               ("overview.html", b"<p>Hello</p>"), ("evaluation.html", b"<p>Exact match</p>"),
               ("terms_and_conditions.html", b"<p>Terms</p>"), ("data.html", b"<p>Data</p>"),
               ("scoring_program.zip", program),
               ("reference_data.zip", pack.zip_entries([("truth.txt", b"Hello World!")]))]
    path = tmp_path / "hello_world.zip"
    path.write_bytes(pack.zip_entries(entries))
    version, findings = validate.validate(str(path), platforms=("codabench", "codalab"))
    got = [(f.platform, f.rule, f.where) for f in findings if f.severity != "note"]
    # start_date 2015-9-1 stays a string in YAML 1.1 and fails on CodaLab
    assert ("codalab", "schema", "phases.1.start_date") in got
    # the lone folder in the program zip: promoted by CodaLab, not by Codabench
    assert ("codabench", "program", "phases.1.scoring_program") in got
    # Codabench: computed column dropped, and it has the lowest rank, so it would order the leaderboard
    assert ("codabench", "leaderboard", "leaderboard.columns.ave_rank") in got
    messages = " ".join(f.message for f in findings)
    assert "max_submissions_per_day absent" in messages and "execution_time_limit absent" in messages
    assert "competition_docker_image" in messages
    assert not validate.passed(findings)


def test_cli_exit_status(toy_bundles, tmp_path):
    ok = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "validate", str(toy_bundles.codalab),
                         str(toy_bundles.codabench)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout
    assert ok.stdout.count("OK: nothing to change") == 2
    broken = rewrite(toy_bundles.codalab, tmp_path / "b.zip", lambda y: "tasks: []\n" + y)
    bad = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "validate", str(broken),
                          "--platform", "codalab"], capture_output=True, text=True)
    assert bad.returncode == 1
    assert "'tasks' was unexpected" in bad.stdout and "what to change:" in bad.stdout


# What Codabench accepts and scores gets no error (issue 20, class 7); what it refuses or cannot use does.
ACCEPTED = [
    # scores are matched to columns by exact key: a hyphen is fine (renaming the key would lose every score)
    ("v2 hyphen in a column key", 1, lambda y: y.replace("key: hits", "key: hits-f1"), "codabench"),
    ("v1 hyphen in a column key", 0, lambda y: y.replace("    hits:\n", "    hits-f1:\n"), "codabench"),
    # Phase.name holds 256 characters, not 36
    ("v2 phase name of 200 characters", 1, lambda y: y.replace('name: "Test"', 'name: "%s"' % ("T" * 200)),
     "codabench"),
    ("v1 phase label of 200 characters", 0, lambda y: y.replace('label: "Test"', 'label: "%s"' % ("T" * 200)),
     "codabench"),
    # CodaLab stored any colour (the field's choices are not enforced) and phase number 0
    ("v1 colour red on CodaLab", 0, lambda y: y.replace('    label: "Test"\n', '    label: "Test"\n    color: red\n'),
     "codalab"),
    ("v1 phases numbered from 0", 0, lambda y: y.replace("phasenumber: 1", "phasenumber: 0").replace(
        "phasenumber: 2", "phasenumber: 1").replace("  1:\n    phasenumber: 0", "  0:\n    phasenumber: 0"),
     "codalab"),
]


@pytest.mark.parametrize("case", ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_what_the_platform_accepts_gets_no_error(toy_bundles, tmp_path, case):
    _, which, edit_yaml, platform = case
    path = rewrite((toy_bundles.codalab, toy_bundles.codabench)[which], tmp_path / "ok.zip", edit_yaml)
    platforms = ("codalab",) if platform == "codalab" else None
    _, findings = findings_of(path, platforms=platforms, replay=False)
    assert [f for f in findings if f.severity == "error"] == [], findings


REFUSED = [
    ("v2 phase name of 257 characters", 1, lambda y: y.replace('name: "Test"', 'name: "%s"' % ("T" * 257)), None,
     "error", "is too long"),
    ("v2 task name of 257 characters", 1, lambda y: y.replace('name: "test split"', 'name: "%s"' % ("t" * 257)),
     None, "error", "is too long"),
    ("v1 label too long for its task name", 0, lambda y: y.replace('label: "Test"', 'label: "%s"' % ("T" * 252)),
     None, "error", "'<label> Task'"),
    ("v2 phase with no task", 1, lambda y: y.replace("    tasks: [1]\n", "    tasks: []\n"), None, "error",
     "stays 'Submitting'"),
    # Codabench skips a falsy limit: 0 (CodaLab's closed phase) opens the phase without limit
    ("v2 submission limit 0", 1, lambda y: y.replace("max_submissions: 3", "max_submissions: 0"), None, "warning",
     "max_submissions: 0 means no limit at all"),
    ("v1 daily limit 0", 0, lambda y: y.replace("max_submissions_per_day: 1", "max_submissions_per_day: 0"), None,
     "warning", "max_submissions_per_day: 0 means no limit at all"),
    ("v2 phase that never opens", 1, lambda y: y.replace('end: "2025-03-01 12:00:00"', 'end: "2025-02-01 00:00:00"'),
     None, "error", "nobody can ever submit"),
]


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
def test_what_the_platform_refuses_or_cannot_use(toy_bundles, tmp_path, case):
    _, which, edit_yaml, edit_files, severity, fragment = case
    path = rewrite((toy_bundles.codalab, toy_bundles.codabench)[which], tmp_path / "bad.zip", edit_yaml, edit_files)
    _, findings = findings_of(path, replay=False)
    assert [f for f in findings if f.severity == severity and fragment in f.message], findings


def test_a_phase_that_only_receives_migrated_submissions_is_no_error(toy_bundles, tmp_path):
    def closed(y):
        return y.replace('end: "2025-03-01 12:00:00"', 'end: "2025-02-01 00:00:00"').replace(
            "    hide_output: true\n", "    hide_output: true\n    auto_migrate_to_this_phase: true\n").replace(
            "max_submissions: 3", "max_submissions: 0")
    # Force_Last: with Add, Codabench leaves the migrated submissions off the leaderboard (checked live)
    path = rewrite(toy_bundles.codabench, tmp_path / "closed.zip",
                   lambda y: closed(y).replace("submission_rule: Add", "submission_rule: Force_Last"))
    _, findings = validate.validate(str(path), replay=False)
    assert [f for f in findings if f.severity != "note"] == [], findings
    assert [f for f in findings if "takes no submission of its own" in f.message]
    _, findings = validate.validate(str(rewrite(toy_bundles.codabench, tmp_path / "add.zip", closed)), replay=False)
    assert [(f.severity, f.where, f.message) for f in findings if f.severity != "note"] == [
        ("warning", "phases.1", "submissions migrated into this phase are scored but not put on its leaderboard: with "
                                "submission_rule Add each participant must add them")]


def test_bundle_file_name_over_64_characters(toy_bundles, tmp_path):
    name = "a-competition-migrated-from-codalab-with-a-long-descriptive-name.zip"  # 68 characters
    path = rewrite(toy_bundles.codabench, tmp_path / name)
    _, findings = findings_of(path, replay=False)
    assert [f.message for f in findings] == ["the file name %s has 68 characters: Codabench's upload refuses a name "
                                             "longer than 64 ('file_name: Ensure this field has no more than 64 "
                                             "characters.')" % name]
    _, findings = findings_of(rewrite(toy_bundles.codabench, tmp_path / ("b" * 60 + ".zip")), replay=False)
    assert findings == []
