"""The builder: what CodaLab v1.5 requires of a bundle, determinism, and the organizer's gold override."""
import io
import subprocess
import sys
import zipfile

import pytest
import yaml

from codalab_bundles.authoring import build, taskdef
from conftest import ROOT
from toy_task import make_toy
from codalab_bundles.authoring import build_command

# Fields of the v1.5 Competition and CompetitionPhase models (codalab/codalab-competitions@c7ef5e281af2, codalab/apps/web/models.py L242-300 and its CompetitionPhase): any other key
# aborts the upload.
COMPETITION_FIELDS = {
    "title", "description", "image", "has_registration", "start_date", "end_date", "competition_docker_image",
    "force_submission_to_leaderboard", "disallow_leaderboard_modifying", "enable_detailed_results", "enable_forum",
    "allow_teams", "enable_teams", "require_team_approval", "anonymous_leaderboard", "allow_public_submissions",
    "enable_per_submission_metadata", "hide_top_three", "hide_chart", "allow_organizer_teams",
    "enable_medical_image_viewer", "show_datasets_from_yaml", "published", "url_redirect", "reward",
    "upper_bound_max_submission_size", "admin_names", "html", "phases", "leaderboard"}
PHASE_FIELDS = {
    "phasenumber", "label", "description", "start_date", "max_submissions", "max_submissions_per_day",
    "is_scoring_only", "execution_time_limit", "scoring_program", "reference_data", "input_data",
    "ingestion_program", "public_data", "starting_kit", "color", "auto_migration", "leaderboard_management_mode",
    "force_best_submission_to_leaderboard", "phase_never_ends", "max_submission_size",
    "participant_max_storage_use", "delete_submissions_except_best_and_last", "datasets"}


@pytest.fixture
def toy(tmp_path):
    task = make_toy(tmp_path)
    return task, build.build_task(task, tmp_path / "dist").codalab


def read_bundle(path):
    archive = zipfile.ZipFile(str(path))
    return archive, yaml.safe_load(archive.read("competition.yaml"))


def inner(archive, name):
    return zipfile.ZipFile(io.BytesIO(archive.read(name)))


def test_yaml_is_first_and_only_yaml_at_root(toy):
    archive, _ = read_bundle(toy[1])
    names = archive.namelist()
    assert names[0] == "competition.yaml"
    assert [n for n in names if ".yaml" in n] == ["competition.yaml"]
    assert all("/" not in n for n in names)


def test_competition_keys_are_v15_model_fields(toy):
    _, spec = read_bundle(toy[1])
    assert set(spec) <= COMPETITION_FIELDS
    assert spec["has_registration"] is False
    assert spec["competition_docker_image"] == "codalab/codalab-legacy:py37"
    assert spec["end_date"] == "2025-03-01 12:00:00"
    assert spec["enable_forum"] is True
    assert spec["title"] == "Toy task: answers: a, b"
    assert spec["description"] == "A task for tests; 'quotes' and # hashes survive."
    assert list(spec["html"]) == ["overview", "evaluation", "terms", "data", "faq"]


def test_phases(toy):
    archive, spec = read_bundle(toy[1])
    phases = list(spec["phases"].values())
    assert [p["phasenumber"] for p in phases] == [1, 2]
    for phase in phases:
        assert set(phase) <= PHASE_FIELDS
        # explicit values, because CodaLab's and Codabench's defaults differ
        for key in ("max_submissions_per_day", "execution_time_limit", "max_submissions"):
            assert isinstance(phase[key], int)
        assert isinstance(phase["start_date"], str)  # quoted, so Codabench's v1 import keeps the time of day
        for key in ("scoring_program", "reference_data", "public_data", "starting_kit"):
            assert phase[key] in archive.namelist()
    assert phases[0]["start_date"] == "2025-01-15 00:00:00"
    assert phases[1]["leaderboard_management_mode"] == "hide_results"
    assert (phases[0]["max_submissions"], phases[1]["max_submissions"]) == (50, 3)
    # one reference zip per distinct split
    assert sorted(n for n in archive.namelist() if n.startswith("reference_")) == ["reference_dev.zip",
                                                                                   "reference_test.zip"]


def test_dates_are_quoted_utc_with_their_time(toy):
    # Codabench keeps only the day of an unquoted YAML timestamp; CodaLab's parse_datetime reads this string form.
    text = zipfile.ZipFile(str(toy[1])).read("competition.yaml").decode()
    assert 'start_date: "2025-01-15 00:00:00"\n' in text
    assert 'end_date: "2025-03-01 12:00:00"\n' in text
    codabench = zipfile.ZipFile(str(toy[1]).replace("-v1.5.zip", ".zip")).read("competition.yaml").decode()
    assert 'start: "2025-01-15 00:00:00"\n' in codabench and 'end: "2025-01-31 23:59:59"\n' in codabench


def test_one_leaderboard_and_anchored_columns(toy):
    archive, spec = read_bundle(toy[1])
    boards = spec["leaderboard"]["leaderboards"]
    assert len(boards) == 1
    board = list(boards.values())[0]
    assert board == {"label": "Results", "rank": 1}
    columns = spec["leaderboard"]["columns"]
    assert list(columns) == ["accuracy", "hits", "never_written"]
    for rank, column in enumerate(columns.values(), 1):
        assert column["leaderboard"]["label"] == "Results"
        assert column["rank"] == rank
        assert column["sort"] in ("asc", "desc") and isinstance(column["numeric_format"], int)
    assert columns["accuracy"]["selection_default"] == 1
    assert "selection_default" not in columns["hits"]
    assert "&RESULTS" in archive.read("competition.yaml").decode()


def test_scoring_program_zip(toy):
    archive, _ = read_bundle(toy[1])
    program = inner(archive, "scoring_program.zip")
    names = program.namelist()
    assert program.read("metadata") == b"command: python3 $program/evaluate.py $input $output\n"
    assert {"evaluate.py", "scoring_runtime.py", "report_html.py", "metadata"} <= set(names)
    assert all("/" not in n and not n.endswith(".pyc") for n in names)


def test_scoring_program_runs_alone_with_the_standard_library(toy, tmp_path):
    """A participant unzips it and runs it with nothing else: -S keeps site-packages out of reach."""
    archive, _ = read_bundle(toy[1])
    program = tmp_path / "unzipped"
    inner(archive, "scoring_program.zip").extractall(str(program))
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "res").mkdir(parents=True)
    (tmp_path / "in" / "ref" / "gold.txt").write_text("a b\n")
    (tmp_path / "in" / "res" / "answers.txt").write_text("a a\n")
    proc = subprocess.run([sys.executable, "-S", str(program / "evaluate.py"), str(tmp_path / "in"),
                           str(tmp_path / "out")], capture_output=True, text=True, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "scores.txt").read_text() == "accuracy: 0.500000000000000\nhits: 1.000000000000000\n"


def test_starting_kit_holds_readme_sample_submission_and_program(toy):
    archive, _ = read_bundle(toy[1])
    kit = inner(archive, "starting_kit_test.zip")
    assert "README.md" in kit.namelist()
    assert "scoring_program/evaluate.py" in kit.namelist()
    sample = zipfile.ZipFile(io.BytesIO(kit.read("sample_submission.zip")))
    assert sample.read("answers.txt") == b"a\na\na\na\n"  # one answer per question of the 4-question test split
    public = inner(archive, "public_data_test.zip")
    assert public.read("questions.txt").decode().count("\n") == 4


def test_rebuild_is_byte_identical(tmp_path):
    task = make_toy(tmp_path)
    first = b"".join(p.read_bytes() for p in build.build_task(task, tmp_path / "one"))
    second = b"".join(p.read_bytes() for p in build.build_task(task, tmp_path / "two"))
    assert first == second


def test_every_real_task_rebuilds_byte_identically(tmp_path):
    for name in taskdef.task_names():
        task = taskdef.load_task(name)
        first = b"".join(p.read_bytes() for p in build.build_task(task, tmp_path / "one"))
        second = b"".join(p.read_bytes() for p in build.build_task(task, tmp_path / "two"))
        assert first == second, name


def test_reference_override_points_a_split_at_other_gold(tmp_path):
    task = make_toy(tmp_path)
    other = tmp_path / "organizer-gold"
    other.mkdir()
    (other / "gold.txt").write_text("b b b b b\n")
    task = taskdef.load_task("toy", {"dev": str(other), "test": str(tmp_path / "gold" / "test")},
                             bundles_dir=tmp_path / "bundles")
    archive, _ = read_bundle(build.build_task(task, tmp_path / "dist").codalab)
    assert inner(archive, "reference_dev.zip").read("gold.txt") == b"b b b b b\n"
    assert inner(archive, "public_data_dev.zip").read("questions.txt").decode().count("\n") == 5


def test_reference_option_parsing():
    assert build_command._parse_references(["test=/x/gold"], ["toxic-spans"]) == {"toxic-spans": {"test": "/x/gold"}}
    assert build_command._parse_references(["a:dev=/d", "b:test=/t"], ["a", "b"]) == {"a": {"dev": "/d"},
                                                                                    "b": {"test": "/t"}}
    with pytest.raises(SystemExit):
        build_command._parse_references(["test=/x"], ["a", "b"])
    with pytest.raises(SystemExit):
        build_command._parse_references(["test"], ["a"])


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.replace("start: 2025-02-01 00:00:00", "start: 2025-01-15 12:00:00"), "less than one day"),
    (lambda s: s.replace("    split: test\n", "    split: test\n    end_date: 2025-02-02\n"), "unknown keys"),
    (lambda s: s.replace("title:", "version: 2\ntitle:"), "unknown keys"),
    (lambda s: s.replace("{key: hits, label: Hits}", "{key: hits-2, label: Hits}"), "hits-2"),
    (lambda s: s.replace("start: 2025-01-15", 'start: "15 Jan"'), "is not a date"),
    (lambda s: s.replace("end_date: 2025-03-01 12:00:00", "end_date: 2025-01-20"), "end_date is before"),
    (lambda s: s.replace("  label: Results", "  label: ' Results'"), "surrounding spaces"),
])
def test_task_definition_mistakes_are_caught_before_building(tmp_path, edit, message):
    make_toy(tmp_path)
    path = tmp_path / "bundles" / "toy" / "task.yaml"
    path.write_text(edit(path.read_text()))
    with pytest.raises(taskdef.TaskDefinitionError) as info:
        taskdef.load_task("toy", {"dev": str(tmp_path / "gold" / "dev"), "test": str(tmp_path / "gold" / "test")},
                          bundles_dir=tmp_path / "bundles")
    assert message in str(info.value)


def test_metadata_with_extra_keys_is_refused(tmp_path):
    task = make_toy(tmp_path)
    (task.scoring_program / "metadata").write_text("command: python3 $program/evaluate.py $input $output\n"
                                                   "description: x\n")
    with pytest.raises(build.BuildError):
        build.build_task(task, tmp_path / "dist").codalab


def test_cli_builds_every_task_and_checks_samples(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "--dist", str(tmp_path)],
                          capture_output=True, text=True, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in taskdef.task_names():
        assert (tmp_path / ("%s.zip" % name)).is_file()
        assert (tmp_path / ("%s-v1.5.zip" % name)).is_file()
    assert "sample submission on Codabench: Finished" in proc.stdout
    assert "sample submission on CodaLab v1.5: Finished" in proc.stdout
    assert proc.stdout.strip().endswith("%d built, 0 failed" % len(taskdef.task_names()))


def test_a_build_whose_sample_fails_leaves_no_bundle(tmp_path):
    """A gold the starting kit's sample cannot be scored against: the check fails, and no zip looks finished."""
    make_toy(tmp_path)
    (tmp_path / "gold" / "dev" / "gold.txt").write_text("\n")  # no item: the toy program divides by zero
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "build", str(tmp_path),
                           "--reference", "dev=%s" % (tmp_path / "gold" / "dev"),
                           "--reference", "test=%s" % (tmp_path / "gold" / "test")],
                          capture_output=True, text=True, cwd=str(tmp_path))
    assert proc.returncode == 1
    assert "toy: not built: a starting kit's sample submission fails (above); dist/toy.zip and dist/toy-v1.5.zip " \
        "removed" in proc.stderr
    assert sorted(p.name for p in (tmp_path / "dist").iterdir()) == []


def test_a_column_the_program_does_not_declare_fails_the_build(tmp_path):
    task = make_toy(tmp_path)
    (task.scoring_program / "score_keys.txt").write_text("accuracy\nhits\n")
    with pytest.raises(build.BuildError) as info:
        build.build_task(task, tmp_path / "dist")
    assert str(info.value) == ("leaderboard column(s) never_written get no score: the scoring program writes "
                               "accuracy, hits")
    (task.scoring_program / "score_keys.txt").unlink()
    with pytest.raises(build.BuildError) as info:
        build.build_task(task, tmp_path / "dist")
    assert "declares no score keys" in str(info.value)


def test_declared_keys_stay_out_of_the_built_program(tmp_path):
    task = make_toy(tmp_path)
    names = [name for name, _ in build.program_entries(task)]
    assert "score_keys.txt" not in names and "evaluate.py" in names


def test_every_entry_runs_the_same_command_line(tmp_path):
    """build_bundle.py (the layout's entry), python -m codalab_bundles and the codalab-bundles console script."""
    import tomllib
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"codalab-bundles": "codalab_bundles.cli:main"}
    for argv in ([sys.executable, str(ROOT / "build_bundle.py")], [sys.executable, "-m", "codalab_bundles"]):
        proc = subprocess.run(argv + ["validate", "--help"], capture_output=True, text=True, cwd=str(ROOT))
        assert proc.returncode == 0 and "--platform" in proc.stdout, proc.stderr


def _toy_references(root):
    return {"dev": str(root / "gold" / "dev"), "test": str(root / "gold" / "test")}


def test_build_checks_the_samples_as_the_command_does(tmp_path):
    """build.build is the whole build, for any caller: both zips, the dates Codabench stores, each split's sample
    replayed on both workers (dev: answers a a a against a b a; test: a a a a against b b a a). CodaLab reads
    scores.txt (15 significant digits), Codabench scores.json."""
    make_toy(tmp_path)
    outcome = build.build("toy", tmp_path / "dist", tmp_path / "bundles", _toy_references(tmp_path))
    assert outcome.ok and outcome.error is None and outcome.removed == []
    assert outcome.built.codabench.is_file() and outcome.built.codalab.is_file()
    assert [(r.phase, r.platform, r.status, r.scores) for r in outcome.samples] == [
        (1, "Codabench", "Finished", {"accuracy": 2 / 3, "hits": 2}),
        (1, "CodaLab v1.5", "Finished", {"accuracy": 0.666666666666667, "hits": 2}),
        (2, "Codabench", "Finished", {"accuracy": 0.5, "hits": 2}),
        (2, "CodaLab v1.5", "Finished", {"accuracy": 0.5, "hits": 2})]
    assert [what for what, _ in outcome.schedules] == [
        "Codabench stores", "from the v1.5 bundle, Codabench's v1 import stores"]
    assert [name for name, _, _ in outcome.schedules[0][1]] == ["Development", "Test"]


def test_build_removes_the_zips_when_a_sample_fails_or_the_task_cannot_be_read(tmp_path):
    make_toy(tmp_path)
    references = _toy_references(tmp_path)
    (tmp_path / "gold" / "dev" / "gold.txt").write_text("\n")  # no item: the toy program divides by zero
    outcome = build.build("toy", tmp_path / "dist", tmp_path / "bundles", references)
    assert not outcome.ok and outcome.error is None and not outcome.older
    assert [(r.phase, r.status) for r in outcome.samples][:1] == [(1, "Failed")]
    assert outcome.samples[0].failed and "ZeroDivisionError" in outcome.samples[0].stderr
    assert sorted(p.name for p in outcome.removed) == ["toy-v1.5.zip", "toy.zip"]
    assert list((tmp_path / "dist").iterdir()) == []
    # zips of an earlier build stay only while the task builds: a task.yaml that is no longer YAML removes them
    (tmp_path / "gold" / "dev" / "gold.txt").write_text("a b a\n")
    assert build.build("toy", tmp_path / "dist", tmp_path / "bundles", references, check=False).ok
    (tmp_path / "bundles" / "toy" / "task.yaml").write_text("title: [unclosed\n")
    outcome = build.build("toy", tmp_path / "dist", tmp_path / "bundles", references)
    assert outcome.unreadable and outcome.older and outcome.built is None and outcome.samples == []
    assert "not valid YAML" in outcome.error
    assert sorted(p.name for p in outcome.removed) == ["toy-v1.5.zip", "toy.zip"]
    assert list((tmp_path / "dist").iterdir()) == []
