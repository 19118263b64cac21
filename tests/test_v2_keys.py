"""Codabench's other v2 keys in task.yaml (issue 40): the competition's show_detailed_results_in_submission_panel,
auto_run_submissions, can_participants_make_submissions_public, make_programs_available, make_input_data_available
and reward; a phase's auto_migrate_to_this_phase (CodaLab's auto_migration) and hide_output,
hide_prediction_output, hide_score_output; the leaderboard's and a column's hidden. Each is written into the
Codabench bundle only when task.yaml sets it, so a task.yaml without them builds the bundle it built before, and
Codabench's own import (tests/codabench_import.py) stores each as task.yaml means it."""
import re
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml

import codabench_import
from codalab_bundles import validate
from codalab_bundles.authoring import build, new_task, taskdef
from toy_task import make_toy

# every new key, each set to what Codabench's default is not
TOP = {"show_detailed_results_in_submission_panel": False, "auto_run_submissions": False,
       "can_participants_make_submissions_public": False, "make_programs_available": True,
       "make_input_data_available": True, "reward": "1st place: 500 EUR; 2nd: a mug"}
PHASE = {"auto_migrate_to_this_phase": True, "hide_output": True, "hide_prediction_output": True,
         "hide_score_output": True}
# Codabench's defaults (v2.py and the models at c7dbc756): what the import stores when task.yaml says nothing
DEFAULT_TOP = {"show_detailed_results_in_submission_panel": True, "auto_run_submissions": True,
               "can_participants_make_submissions_public": True, "make_programs_available": False,
               "make_input_data_available": False, "reward": None}
DEFAULT_PHASE = dict((key, False) for key in PHASE)


def _edit(task, edit):
    path = task.folder / "task.yaml"
    spec = yaml.safe_load(path.read_text())
    edit(spec)
    path.write_text(yaml.safe_dump(spec, sort_keys=False))


def _load(root):
    overrides = dict((split, str(root / "gold" / split)) for split in ("dev", "test"))
    return taskdef.load_task("toy", overrides, bundles_dir=root / "bundles")


def _toy(tmp_path, edit=None):
    """The toy task with task.yaml edited; its Test phase is CodaLab's blind phase (leaderboard_management_mode:
    hide_results) unless the edit says otherwise."""
    task = make_toy(tmp_path)
    if edit is not None:
        _edit(task, edit)
    return _load(tmp_path)


def _yaml(bundle):
    with zipfile.ZipFile(str(bundle)) as archive:
        return yaml.safe_load(archive.read("competition.yaml"))


def _everything(spec):
    spec.update(TOP)
    spec["phases"][1].update(PHASE)
    spec["leaderboard"]["hidden"] = True
    spec["leaderboard"]["columns"][1]["hidden"] = True  # hits; accuracy stays visible


def _without_hide_results(spec):
    for phase in spec["phases"]:
        phase.pop("leaderboard_management_mode", None)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The toy built twice: with every key set, and with none (the Test phase not blind either)."""
    out = {}
    for name, edit in (("set", _everything), ("unset", _without_hide_results)):
        root = tmp_path_factory.mktemp(name)
        out[name] = build.build_task(_toy(root, edit), root / "dist")
    return out


def test_every_key_set_goes_into_the_codabench_bundle(built):
    spec = _yaml(built["set"].codabench)
    assert dict((k, spec[k]) for k in TOP) == TOP
    assert dict((k, spec["phases"][1][k]) for k in PHASE) == PHASE
    assert not set(PHASE) & set(spec["phases"][0])  # set on Test only
    board = spec["leaderboards"][0]
    assert board["hidden"] is True
    assert [(c["key"], c.get("hidden")) for c in board["columns"]] == [
        ("accuracy", None), ("hits", True), ("never_written", None)]


def test_keys_not_set_are_not_written(built):
    text = zipfile.ZipFile(str(built["unset"].codabench)).read("competition.yaml").decode()
    for key in list(TOP) + list(PHASE) + ["hidden"]:
        assert not re.search(r"^\s*%s:" % key, text, re.M), key


def test_the_v15_bundle_gets_codalabs_names_and_leaves_the_rest_out(built):
    spec = _yaml(built["set"].codalab)
    assert spec["allow_public_submissions"] is False  # CodaLab's field for can_participants_make_submissions_public
    assert not set(TOP) & set(spec)  # CodaLab refuses a top-level key that is not one of its fields
    assert spec["phases"][2]["auto_migration"] is True
    assert not set(PHASE) & set(spec["phases"][2])  # CodaLab refuses a phase key that is not one of its fields
    assert sorted(spec["leaderboard"]["columns"]) == ["accuracy", "never_written"]  # the hidden column left out
    assert "allow_public_submissions" not in _yaml(built["unset"].codalab)


def test_both_bundles_validate(built):
    for bundle, platforms in ((built["set"].codabench, ("codabench",)), (built["set"].codalab, ("codalab",))):
        version, findings = validate.validate(str(bundle), platforms=platforms, replay=False)
        # what a participant can still read of the hidden leaderboard and column, and the migration into an Add
        # leaderboard (validate/exposure_rules.py, checked on the local Codabench): warnings, nothing else
        assert [(f.rule, f.where) for f in findings if f.severity != "note"] == (
            [("exposure", "leaderboards.0"), ("exposure", "leaderboards.0.columns.hits"), ("exposure", "phases.1")]
            if platforms == ("codabench",) else []), findings


@pytest.fixture(scope="module")
def imported(built):
    results = codabench_import.import_or_skip([built["set"].codabench, built["unset"].codabench])
    assert [r["ok"] for r in results] == [True, True], [r["error"] for r in results]
    return dict(zip(("set", "unset"), (r["competition"] for r in results)))


def test_codabench_stores_every_key_as_task_yaml_means_it(imported):
    stored = imported["set"]
    assert dict((k, stored["settings"][k]) for k in TOP) == TOP
    dev, test = stored["phases"]
    assert dict((k, test["settings"][k]) for k in PHASE) == PHASE
    assert dict((k, dev["settings"][k]) for k in PHASE) == DEFAULT_PHASE
    (board,) = stored["leaderboards"]
    assert board["hidden"] is True and board["used"] is True
    assert [(c["key"], c["hidden"]) for c in board["columns"]] == [
        ("accuracy", False), ("hits", True), ("never_written", False)]


def test_codabench_stores_its_defaults_for_keys_not_set(imported):
    stored = imported["unset"]
    assert dict((k, stored["settings"][k]) for k in TOP) == DEFAULT_TOP
    assert DEFAULT_TOP == dict(taskdef.CODABENCH_TOP)  # what task.yaml's documentation says the default is
    for phase in stored["phases"]:
        assert dict((k, phase["settings"][k]) for k in PHASE) == DEFAULT_PHASE
    (board,) = stored["leaderboards"]
    assert board["hidden"] is False and not any(c["hidden"] for c in board["columns"])


def test_codalabs_names_mean_the_same_on_codabench(tmp_path):
    """auto_migration (CodaLab's name) migrates, hide_results hides the output, and a hide_output of task.yaml's
    own wins over hide_results."""
    def edit(spec):
        spec["phases"][1]["auto_migration"] = True  # the Test phase keeps leaderboard_management_mode: hide_results
    spec = _yaml(build.build_task(_toy(tmp_path / "a", edit), tmp_path / "a" / "dist").codabench)
    assert spec["phases"][1]["auto_migrate_to_this_phase"] is True and spec["phases"][1]["hide_output"] is True

    def explicit(spec):
        spec["phases"][1]["hide_output"] = False
    spec = _yaml(build.build_task(_toy(tmp_path / "b", explicit), tmp_path / "b" / "dist").codabench)
    assert spec["phases"][1]["hide_output"] is False


@pytest.mark.parametrize("edit, message", [
    (lambda s: s["phases"][1].update(auto_migration=True, auto_migrate_to_this_phase=False),
     "phase 2: auto_migration and auto_migrate_to_this_phase disagree"),
    (lambda s: s["phases"][0].update(auto_migrate_to_this_phase=True),
     "phase 1: auto_migrate_to_this_phase: no phase comes before the first"),
    (lambda s: s["phases"][0].update(auto_migration=True),
     "You cannot auto migrate to the first phase of a competition"),
    (lambda s: [c.update(hidden=True) for c in s["leaderboard"]["columns"]],
     "every leaderboard column is hidden"),
    (lambda s: s.update(reward="x" * 257), "reward must be text of at most 256 characters"),
    (lambda s: s.update(auto_run_submissions="no"), "auto_run_submissions is true or false"),
    (lambda s: s["phases"][1].update(hide_score_output=1), "phase 2: hide_score_output is true or false"),
    (lambda s: s["leaderboard"]["columns"][0].update(hidden="yes"), "column accuracy: hidden is true or false"),
    (lambda s: s["phases"][1].update(leaderboard_management_mode="hidden"),
     "leaderboard_management_mode is default or hide_results"),
])
def test_what_codabench_would_refuse_or_break_is_refused_in_words(tmp_path, edit, message):
    with pytest.raises(taskdef.TaskDefinitionError) as caught:
        _toy(tmp_path, edit)
    assert message in str(caught.value)


# --- the task.yaml `new` writes: each optional key commented out, with its meaning and default -------------------

PLACES = (("top level", "top"), ("in a phase", "phase"), ("in leaderboard", "leaderboard"), ("in a column", "column"))
COMMENTED = re.compile(r"^# (\w+): (.*?)\s+# (.*)$")


def _commented(text):
    """[(key, value as YAML reads it, place)] of the commented-out keys at the end of a task.yaml `new` wrote."""
    found = []
    for line in text[text.index("# Optional keys"):].splitlines()[1:]:
        match = COMMENTED.match(line)
        if match:
            place = next((p for words, p in PLACES if match.group(3).startswith(words)), None)
            assert place, "%r: say where the key goes (%s)" % (line, ", ".join(words for words, _ in PLACES))
            found.append((match.group(1), yaml.safe_load(match.group(2)), place))
    return found


@pytest.fixture(scope="module")
def new_folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("newfolder")
    new_task.create("sentiment", "classification", root=root)
    return root


def test_new_documents_every_optional_key(new_folder):
    text = (new_folder / "bundles" / "sentiment" / "task.yaml").read_text()
    spec = yaml.safe_load(text)
    commented = _commented(text)
    places = {"top": (spec, taskdef.TOP_KEYS), "phase": (spec["phases"][0], taskdef.PHASE_KEYS),
              "leaderboard": (spec["leaderboard"], taskdef.LEADERBOARD_KEYS),
              "column": (spec["leaderboard"]["columns"][0], taskdef.COLUMN_KEYS)}
    for place, (written, keys) in places.items():
        documented = set(written) | set(k for k, _, p in commented if p == place)
        assert keys - documented == set(), place


PRIVATE_KEYS = ("private", "private_scores", "blind", "reveal")  # not with tracks yet: uncommented on their own


@pytest.mark.parametrize("which", ["all but the private keys", "the private keys"])
def test_the_commented_keys_once_uncommented_are_accepted(new_folder, which, tmp_path):
    new_folder = Path(shutil.copytree(str(new_folder), str(tmp_path / "folder")))  # new's task.yaml, untouched
    path = new_folder / "bundles" / "sentiment" / "task.yaml"
    text = path.read_text()
    spec = yaml.safe_load(text)
    last = spec["phases"][-1]  # a phase after the first, so that it may migrate
    for key, value, place in _commented(text):
        if (key in PRIVATE_KEYS) != (which == "the private keys"):
            continue
        if key == "splits":  # the commented example names a folder of the organizer's: point it at the real one
            value = {"test": str(new_folder / "reference_data" / "sentiment" / "test")}
        if key == "end":  # an end of the last phase's own replaces end_date
            spec.pop("end_date")
        if key == "private":  # the commented example names a file of ids of the organizer's: write one
            (new_folder / "private_ids.txt").write_text("an-id\n")
        {"top": spec, "phase": last, "leaderboard": spec["leaderboard"],
         "column": spec["leaderboard"]["columns"][0]}[place][key] = value
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    task = taskdef.load_task("sentiment", bundles_dir=new_folder / "bundles")
    if which == "the private keys":
        assert task.private_ids == {"test": ["an-id"]} and task.reveal is False
        return
    assert task.spec["reward"] == "1st place: 500 EUR" and task.phases[-1].options["auto_migration"] is False
