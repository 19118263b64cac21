"""migrate on what real old bundles do (issue 20): each class of problem met in real CodaLab bundles, as a minimal
hand-written bundle. Each keeps its meaning on Codabench, or the report says what changed; Codabench's rules are
the ones its code applies (cited in codalab_bundles/migrate/ and validate/, and modelled in platforms/codabench_model.py)."""
import csv
import io
import json
import subprocess
import sys
import zipfile

import yaml

from codalab_bundles import migrate, validate
from codalab_bundles.migrate import report as migration_report
from codalab_bundles.platforms import codabench_model
from codalab_bundles.zips import pack
from conftest import ROOT
from old_codalab_bundle import PROGRAM, old_bundle_bytes

HEAD = """\
title: A real old task
image: logo.png
has_registration: false
competition_docker_image: codalab/codalab-legacy:py37
html:
  overview: overview.html
  evaluation: evaluation.html
  terms: terms.html
  data: data.html
"""
COLUMNS = """\
leaderboard:
  leaderboards:
    RESULTS: &RESULTS
      label: Results
      rank: 1
  columns:
    acc:
      leaderboard: *RESULTS
      label: Accuracy
      rank: 1
"""


# A program that runs on Codabench as it is (the old-style PROGRAM's Python 2 helper and key:value scores are
# test_migrate.py's subject).
CLEAN = {"metadata": "command: python3 $program/evaluate.py $input $output\n",
         "evaluate.py": PROGRAM["evaluate.py"].replace("%s:%", "%s: %").replace("acc:", "acc: ").replace(
             "f1:", "f1: ").replace("seconds:", "seconds: ").replace(
             "open(os.path.join(output_dir, 'metadata'), 'w').write('status: done\\n')\n", "")}


def phase(number, label, start, extra=""):
    return ("  %d:\n    phasenumber: %d\n    label: %s\n    start_date: %s\n    max_submissions_per_day: 5\n"
            "    execution_time_limit: 300\n    scoring_program: program.zip\n    reference_data: reference.zip\n"
            "%s" % (number, number, label, start, "".join("    %s\n" % line for line in extra.splitlines())))


def bundle(tmp_path, phases, columns=COLUMNS, name="old.zip", pages=None, head=HEAD, program=None):
    text = head + "phases:\n" + "".join(phases) + columns
    data = old_bundle_bytes(text, program or CLEAN)
    if pages is not None:  # replace page files
        src = zipfile.ZipFile(io.BytesIO(data))
        entries = [(n, pages.get(n, src.read(n))) for n in src.namelist()]
        data = pack.zip_entries(entries)
    path = tmp_path / name
    path.write_bytes(data)
    return path


def run(path, tmp_path, **kwargs):
    target = tmp_path / "new.zip"
    report = migrate.migrate(path, target, **kwargs)
    with zipfile.ZipFile(str(target)) as archive:
        spec = yaml.safe_load(archive.read("competition.yaml").decode())
    return spec, report, target


def messages(report, kind):
    return [item["where"] + ": " + item["message"] for item in report.of(kind)]


def stored(spec):
    return [(p.name, str(p.start.stored), p.end.stored and str(p.end.stored))
            for p in codabench_model.stored_phases(spec, "2")]


def no_errors(target):
    _, findings = validate.validate(str(target), replay=False)
    assert [f for f in findings if f.severity == "error"] == [], findings
    return findings


# 1. A submission limit of 0 closed a phase on CodaLab; Codabench reads 0 as no limit.

def test_closed_phase_is_left_out_and_a_closed_phase_filled_by_migration_never_opens(tmp_path):
    path = bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00"),
                             phase(2, "Ceasefire", "2024-02-01 00:00:00", "max_submissions: 0"),
                             phase(3, "Test", "2024-02-10 00:00:00"),
                             phase(4, "Final", "2024-03-01 00:00:00",
                                   "max_submissions_per_day: 0\nauto_migration: true")])
    # (the later max_submissions_per_day of a phase wins, as in any YAML mapping read by PyYAML)
    spec, report, target = run(path, tmp_path)
    # no phase from the ceasefire's start to Test's; Final receives migrated submissions and takes none of its own
    assert stored(spec) == [("Dev", "2024-01-01 00:00:00", "2024-01-31 23:59:59"),
                            ("Test", "2024-02-10 00:00:00", "2024-02-29 23:59:59"),
                            ("Final", "2024-03-01 00:00:00", "2024-03-01 00:00:00")]
    assert spec["phases"][2]["auto_migrate_to_this_phase"] is True
    changes = messages(report, migrate.CHANGE)
    assert [m for m in changes if m.startswith("phases.2: phase 2 (Ceasefire) has max_submissions: 0") and
            "left out" in m and "until the next phase starts" in m]
    assert [m for m in changes if m.startswith("phases.4: phase 4 (Final) has max_submissions_per_day: 0") and
            "ends when it starts" in m and "still receives the migrated ones" in m]
    findings = no_errors(target)
    assert [f for f in findings if "takes no submission of its own" in f.message]
    # One thing for the organizer: on Codabench, runs migrated into a phase whose leaderboard rule is Add (what an
    # old bundle without force_submission_to_leaderboard becomes) are scored but never put on the board (seen live)
    assert [m for m in messages(report, migrate.MANUAL)] == [
        "validate: phases.2: submissions migrated into this phase are scored but not put on its leaderboard: with "
        "submission_rule Add each participant must add them (what to change: use Force_Last (or "
        "Force_Latest_Multiple) for a phase that re-scores migrated submissions)"]
    assert report.exit_status == 1


# 2. phase_never_ends on a phase that is not the last: open for good on CodaLab, beside the later phases.

def test_never_ending_phase_before_others_is_reported_truthfully(tmp_path):
    path = bundle(tmp_path, [phase(1, "Practice", "2024-01-01 00:00:00", "phase_never_ends: true"),
                             phase(2, "Evaluation", "2024-02-01 00:00:00")])
    spec, report, target = run(path, tmp_path)
    assert stored(spec)[0] == ("Practice", "2024-01-01 00:00:00", "2024-01-31 23:59:59")
    losses = messages(report, migrate.LOSS)
    loss = [m for m in losses if "phase_never_ends" in m]
    assert len(loss) == 1 and "stayed open for good, beside the phases after it" in loss[0]
    assert "Phases must be sequential" in loss[0] and "2024-01-31 23:59:59" in loss[0]
    assert not [m for m in losses if "nor did it on CodaLab" in m]
    no_errors(target)


def test_phases_open_side_by_side_become_one_phase_with_a_task_each(tmp_path):
    program_b = dict(CLEAN, **{"evaluate.py": CLEAN["evaluate.py"] + "\n# subtask B\n"})
    path = bundle(tmp_path, [phase(1, "Dev - A", "2024-01-01 00:00:00", "phase_never_ends: true"),
                             phase(2, "Dev - B", "2024-01-01 00:00:00",
                                   "phase_never_ends: true").replace("program.zip", "program_b.zip"),
                             phase(3, "Test - A", "2024-02-01 00:00:00")])
    data = zipfile.ZipFile(str(path))
    from old_codalab_bundle import _zip
    entries = [(n, data.read(n)) for n in data.namelist()] + [("program_b.zip", _zip(program_b))]
    path.write_bytes(pack.zip_entries(entries))
    spec, report, target = run(path, tmp_path)
    assert [(p["name"], p["tasks"]) for p in spec["phases"]] == [("Dev", [0, 1]), ("Test - A", [0])]
    assert stored(spec)[0] == ("Dev", "2024-01-01 00:00:00", "2024-01-31 23:59:59")
    changes = messages(report, migrate.CHANGE)
    assert [m for m in changes if "phases Dev - A, Dev - B were open at the same time on CodaLab" in m]
    assert [m for m in messages(report, migrate.LOSS) if "phases Dev - A, Dev - B have phase_never_ends" in m]
    no_errors(target)


# 3 and 4. Leaderboards: CodaLab's order, unique titles, the ranking column.

GROUPED = """\
leaderboard:
  leaderboards:
    MAIN: &MAIN
      label: Main
      rank: 1
    SECOND: &SECOND
      label: Per language
      rank: 2
  column_groups:
    EN: &EN
      label: English
      rank: 2
    ES: &ES
      label: Spanish
      rank: 1
  columns:
    en_f1:
      leaderboard: *MAIN
      column_group: *EN
      label: F1
      rank: 1
    es_f1:
      leaderboard: *MAIN
      column_group: *ES
      label: F1
      rank: 1
    es_p:
      leaderboard: *MAIN
      column_group: *ES
      label: P
      rank: 2
    macro:
      leaderboard: *MAIN
      label: Macro F1
      rank: 3
      selection_default: 1
    f1:
      leaderboard: *SECOND
      label: F1
      rank: 1
"""


def test_leaderboard_keeps_codalabs_order_with_unique_titles(tmp_path):
    spec, report, target = run(bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00")], GROUPED), tmp_path)
    board = spec["leaderboards"][0]
    # Main: groups and plain columns by rank (Spanish 1, English 2, Macro F1 3); then the second leaderboard
    assert [(c["key"], c["title"]) for c in board["columns"]] == [
        ("es_f1", "Spanish: F1"), ("es_p", "Spanish: P"), ("en_f1", "English: F1"), ("macro", "Macro F1"),
        ("f1", "Per language: F1")]
    assert board["primary_index"] == 3 and report.leaderboard["ranked_by"] == "macro"
    assert [m for m in messages(report, migrate.CHANGE) if "macro ranks, as on CodaLab" in m]
    no_errors(target)


def test_titles_too_long_for_codabench_are_abbreviated_and_stay_unique(tmp_path):
    columns = GROUPED.replace("label: English", "label: English tweets of the evaluation set").replace(
        "label: F1\n      rank: 1\n    es_f1", "label: F1\n      rank: 1\n    es_f1")
    spec, _, target = run(bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00")], columns), tmp_path)
    titles = [c["title"] for c in spec["leaderboards"][0]["columns"]]
    assert "ETOTES: F1" in titles and all(len(t) <= 36 for t in titles)
    assert len(set(t.lower() for t in titles)) == len(titles)
    no_errors(target)


# A dump: columns listed alphabetically, no selection_default; the competition showed them by rank.
DUMPED = """\
leaderboard:
  columns:
    duration:
      label: Duration
      leaderboard: &id001
        label: Results
        rank: 1
      rank: 4
      sort: asc
    f1:
      label: F1
      leaderboard: *id001
      rank: 1
      sort: desc
    precision:
      label: Precision
      leaderboard: *id001
      rank: 2
      sort: desc
  leaderboards:
    Results: *id001
"""


def test_ranking_column_chosen_by_rank_and_said_to_be_chosen(tmp_path):
    spec, report, target = run(bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00")], DUMPED), tmp_path)
    board = spec["leaderboards"][0]
    assert [c["key"] for c in board["columns"]] == ["f1", "precision", "duration"]
    assert report.leaderboard["ranked_by"] == "f1" and "primary_index" not in board
    notes = messages(report, migrate.NOTE)
    chosen = [m for m in notes if "CodaLab dump" in m]
    assert len(chosen) == 1 and "which column ranked the old leaderboard cannot be told from it" in chosen[0]
    assert "The migrated leaderboard ranks by f1, the column CodaLab showed first (lowest rank): a choice" in chosen[0]
    assert report.leaderboard["codalab_ranking"]["codalab_ranked_by"] is None
    assert not [m for m in messages(report, migrate.CHANGE) if "ranks, as on CodaLab" in m]


# 5. An empty terms page: v1 accepted it, v2 refuses the bundle.

def test_empty_terms_page_gets_a_stand_in_and_a_manual_step(tmp_path):
    path = bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00")], pages={"terms.html": b""})
    spec, report, target = run(path, tmp_path)
    assert spec["terms"] == "terms.html"
    text = zipfile.ZipFile(str(target)).read("terms.html").decode()
    assert "terms of this competition have not been written yet" in text
    manual = report.of(migrate.MANUAL)
    assert [(m["where"], m["breaks"]) for m in manual] == [("html.terms", migrate.CONTENT)]
    assert "write the competition's terms there" in manual[0]["message"]
    no_errors(target)


# 6. Codabench's field limits: a task named after many phases.

def test_task_shared_by_many_phases_gets_a_name_codabench_stores(tmp_path):
    labels = ["Evaluation round %02d of the shared task" % n for n in range(1, 13)]
    path = bundle(tmp_path, [phase(n, label, "2024-%02d-01 00:00:00" % n) for n, label in enumerate(labels, 1)])
    spec, report, target = run(path, tmp_path)
    assert len(spec["tasks"]) == 1
    name = spec["tasks"][0]["name"]
    assert len(name) <= 256 and name == "%s ... %s task (12 phases)" % (labels[0], labels[-1])
    assert [m for m in messages(report, migrate.CHANGE) if "more than Codabench's 256" in m]
    no_errors(target)


# 8. Old dumps: !!python/unicode tags; an early Codabench bundle without version 2.

def test_python2_dump_tags_are_read(tmp_path):
    tagged = (HEAD.replace("title: A real old task", "title: !!python/unicode 'A real old task'") + "phases:\n" +
              phase(1, "Dev", "2024-01-01 00:00:00").replace("label: Dev", "label: !!python/unicode 'Dev'") + COLUMNS)
    path = tmp_path / "dump.zip"
    path.write_bytes(old_bundle_bytes(tagged, CLEAN))
    spec, report, target = run(path, tmp_path)
    assert spec["title"] == "A real old task" and spec["phases"][0]["name"] == "Dev"
    assert [m for m in messages(report, migrate.CHANGE) if "!!python/unicode tags" in m]
    no_errors(target)


EARLY_CODABENCH = """\
# an early Codabench bundle
title: Early
image: logo.png
terms: terms.html
pages:
  - title: Overview
    file: overview.html
tasks:
  - index: 0
    name: Task
    scoring_program: program.zip
    reference_data: reference.zip
phases:
  - index: 0
    name: Dev
    start: "2024-01-01 00:00:00"
    tasks: [0]
leaderboards:
  - title: Results
    key: main
    columns:
      - title: Accuracy
        key: acc
        index: 0
"""


def test_early_codabench_bundle_gets_version_2(tmp_path):
    path = tmp_path / "early.zip"
    path.write_bytes(old_bundle_bytes(EARLY_CODABENCH, CLEAN))
    spec, report, target = run(path, tmp_path)
    assert spec["version"] == 2
    text = zipfile.ZipFile(str(target)).read("competition.yaml").decode()
    assert text == EARLY_CODABENCH.replace("title: Early", "version: 2\ntitle: Early")
    assert [m for m in messages(report, migrate.CHANGE) if "'version: 2' is added, nothing else" in m]
    no_errors(target)


# 9. Exit status: 0 ready to upload and score; a missing sample is a note; manual steps by what breaks most.

def test_exit_status_and_order_of_manual_steps(tmp_path):
    path = bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00"), phase(2, "Test", "2024-02-01 00:00:00")],
                  program=PROGRAM)
    # no sample submission in a kit: a note, and nothing else left to do
    plain = old_bundle_bytes(HEAD + "phases:\n" + phase(1, "Dev", "2024-01-01 00:00:00") + COLUMNS, CLEAN)
    (tmp_path / "plain.zip").write_bytes(plain)
    _, report, _ = run(tmp_path / "plain.zip", tmp_path)
    assert report.exit_status == 0 and report.of(migrate.MANUAL) == []
    assert [m for m in messages(report, migrate.NOTE) if "no starting kit holds a sample_submission.zip" in m]
    # a missing logo (content), a Python 2 program (unscored), a missing dataset key (refused): refused first
    text = path.read_bytes()
    broken = zipfile.ZipFile(str(path))
    yaml_text = broken.read("competition.yaml").decode().replace("reference_data: reference.zip",
                                                                 "reference_data: 1234-old-site-key", 1)
    entries = [(n, yaml_text.encode() if n == "competition.yaml" else broken.read(n)) for n in broken.namelist()
               if n != "logo.png"]
    path.write_bytes(pack.zip_entries(entries))
    assert text != path.read_bytes()
    _, report, _ = run(path, tmp_path)
    order = [m["breaks"] for m in report.of(migrate.MANUAL)]
    assert order == sorted(order, key=migration_report.BREAKS.index)
    assert order[0] == migrate.REFUSED and migrate.UNSCORED in order and order[-1] == migrate.CONTENT
    assert report.exit_status == 1


# 10. Many bundles at once.

def test_batch_migration_writes_a_bundle_and_report_each_and_a_summary(tmp_path):
    first = bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00")], name="first.zip")
    second = bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00")], pages={"terms.html": b""},
                    name="second.zip")
    (tmp_path / "broken.zip").write_bytes(b"not a zip")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "migrate", str(first), str(second),
                           str(tmp_path / "broken.zip"), "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr  # the highest: one input cannot be migrated
    assert "3 bundle(s): 1 ready to upload (0), 1 with manual steps (1), 1 not migrated (2)" in proc.stdout
    rows = list(csv.DictReader(open(str(out / "summary.csv"))))
    assert [(r["exit_status"], r["imports_before"], r["imports_after"], r["manual_steps"]) for r in rows] == [
        ("0", "yes", "yes", "0"), ("1", "yes", "yes", "1"), ("2", "-", "-", "0")]
    assert rows[1]["problem"].startswith("html.terms: terms.html is empty")
    assert rows[2]["problem"].startswith("cannot open")
    for stem in ("first-codabench", "second-codabench"):
        assert (out / (stem + ".zip")).exists() and (out / (stem + ".report.txt")).exists()
        assert json.load(open(str(out / (stem + ".report.json"))))["output"] == str(out / (stem + ".zip"))
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "migrate", str(first), str(second)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "give --out DIR" in proc.stderr


def test_output_names_fit_codabenchs_64_characters(tmp_path):
    source = tmp_path / ("a-very-long-name-for-an-old-codalab-competition-bundle-2019" + ".zip")
    assert len(migrate.default_output(source).rsplit("/", 1)[-1]) == 64


def test_auto_migration_after_a_closed_phase_is_not_written(tmp_path):
    path = bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00"),
                             phase(2, "Ceasefire", "2024-02-01 00:00:00", "max_submissions: 0"),
                             phase(3, "Test", "2024-02-10 00:00:00", "auto_migration: true")])
    spec, report, target = run(path, tmp_path)
    assert [p["name"] for p in spec["phases"]] == ["Dev", "Test"]
    assert "auto_migrate_to_this_phase" not in spec["phases"][1]
    assert [m for m in messages(report, migrate.CHANGE) if m.startswith("phases.3.auto_migration: not written")]
    no_errors(target)


# 10. Phases that can never take a submission, and phases with no task, are always named (issue 29).

def test_a_phase_that_never_opens_is_always_named(tmp_path):
    # an early Codabench bundle whose phase ends before it starts: nothing in the conversion explains it
    text = EARLY_CODABENCH.replace('    start: "2024-01-01 00:00:00"\n',
                                   '    start: "2024-01-01 00:00:00"\n    end: "2023-12-31 00:00:00"\n')
    path = tmp_path / "early.zip"
    path.write_bytes(old_bundle_bytes(text, CLEAN))
    _, report, _ = run(path, tmp_path, check=False)
    assert messages(report, migrate.MANUAL) == [
        "phases.1: phase 1 (Dev) ends (2023-12-31 00:00:00) when or before it starts (2024-01-01 00:00:00): on "
        "Codabench nobody can ever submit to it; change its dates or leave it out"]
    # phases the conversion closes on purpose (limit 0, filled by auto-migration) are explained, not manual steps
    closed = bundle(tmp_path, [phase(1, "Dev", "2024-01-01 00:00:00"),
                               phase(2, "Final", "2024-02-01 00:00:00", "max_submissions: 0\nauto_migration: true")],
                    name="closed.zip")
    _, report, _ = run(closed, tmp_path, check=False)
    assert not [m for m in messages(report, migrate.MANUAL) if "nobody can ever submit" in m]
    assert [m for m in messages(report, migrate.CHANGE) if "the phase ends when it starts" in m]


def test_a_phase_without_a_program_is_a_manual_step_and_validate_agrees(tmp_path):
    # as TASS-2018 eHealth-KD: only the trial phase names a scoring program
    later = phase(2, "Train", "2018-04-02 00:00:00").replace("    scoring_program: program.zip\n", "").replace(
        "    reference_data: reference.zip\n", "")
    path = bundle(tmp_path, [phase(1, "Trial", "2018-02-12 00:00:00"), later])
    spec, report, target = run(path, tmp_path)
    assert spec["phases"][1].get("tasks") in (None, [])
    manual = messages(report, migrate.MANUAL)
    assert "phases.2: phase 2 (Train) has no scoring program (on CodaLab its submissions failed): Codabench needs " \
           "one in every task, so the phase is written with none; add a task in the competition editor, or leave " \
           "the phase out" in manual
    _, findings = validate.validate(str(target), ("codabench",), replay=False)
    assert [(f.severity, f.where) for f in findings if f.where == "phases.1.tasks"] == [("error", "phases.1.tasks")]
    assert report.exit_status == 1


def test_merged_names_stay_within_what_codabench_stores(tmp_path):
    # many never-ending phases with one start and long labels: one phase, one task, names cut to 256
    labels = ["Subtask %02d - %s" % (n, "x" * 60) for n in range(1, 9)]
    phases = [phase(n, label, "2024-01-01 00:00:00", "phase_never_ends: true") for n, label in enumerate(labels, 1)]
    spec, report, target = run(bundle(tmp_path, phases), tmp_path, check=False)
    assert len(spec["phases"]) == 1 and len(spec["tasks"]) == 1
    assert all(len(p["name"]) <= 256 for p in spec["phases"]) and all(len(t["name"]) <= 256 for t in spec["tasks"])
    _, findings = validate.validate(str(target), ("codabench",), replay=False)
    assert not [f for f in findings if f.severity == "error" and "name" in f.where]


# 11. What Codabench's import refuses in real old bundles: a CMYK JPEG logo (MedICI 2015), a column tied to its
# leaderboard by 'group:' (CodaLab's example of 2013).

def jpeg_header(components):
    """The start of a baseline JPEG: SOI, an APP0 (JFIF) segment, then SOF0 with ``components`` components."""
    app0 = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = b"\xff\xc0" + (8 + 3 * components).to_bytes(2, "big") + b"\x08\x00\x10\x00\x10" + bytes([components])
    return b"\xff\xd8" + app0 + sof0 + b"".join(bytes([i + 1, 0x11, 0]) for i in range(components)) + b"\xff\xd9"


def test_a_cmyk_jpeg_logo_is_refused_by_validate_and_replaced_by_migrate(tmp_path):
    assert validate.jpeg_components(jpeg_header(4)) == 4 and validate.jpeg_components(jpeg_header(3)) == 3
    assert validate.is_cmyk_jpeg(jpeg_header(4)) and not validate.is_cmyk_jpeg(jpeg_header(3))
    path = bundle(tmp_path, [phase(1, "Dev", "2015-09-01 00:00:00")], head=HEAD.replace("logo.png", "logo.jpg"))
    source = zipfile.ZipFile(str(path))
    entries = [(n, source.read(n)) for n in source.namelist()] + [("logo.jpg", jpeg_header(4))]
    path.write_bytes(pack.zip_entries(entries))
    _, findings = validate.validate(str(path), ("codabench",), replay=False)
    assert [(f.severity, f.where, f.message) for f in findings if f.where == "image"] == [
        ("error", "image", "logo.jpg is a CMYK JPEG: Codabench makes a PNG icon of the logo and refuses the bundle "
                           "('cannot write mode CMYK as PNG')")]
    spec, report, target = run(path, tmp_path, check=False)
    assert spec["image"] == "logo_codabench.png"
    assert [m for m in messages(report, migrate.MANUAL) if m.startswith("image: logo.jpg is a CMYK JPEG")]
    no_errors(target)


def test_a_column_without_its_leaderboard_is_refused_as_the_import_refuses_it(tmp_path):
    columns = COLUMNS.replace("      leaderboard: *RESULTS\n", "      group: *RESULTS\n")
    path = bundle(tmp_path, [phase(1, "Dev", "2013-09-01 00:00:00")], columns)
    _, findings = validate.validate(str(path), ("codabench",), replay=False)
    assert [(f.severity, f.message) for f in findings if f.where == "leaderboard.columns.acc" and
            f.severity == "error"] == [
        ("error", "no leaderboard label (it has 'group:', the key of 2013 bundles): the upload fails looking it up "
                  "(KeyError: 'leaderboard')")]
    assert not validate.imports(findings)
    spec, report, target = run(path, tmp_path, check=False)  # migrate shows it on the one leaderboard
    assert [c["key"] for c in spec["leaderboards"][0]["columns"]] == ["acc"]
    no_errors(target)
