"""What every task must satisfy, whichever it is: one suite parametrised over bundles/*/task.yaml, so a new task
(written by hand or by ``build_bundle.py new``) is covered without a test of its own."""
import html.parser
import json
import os
import re
import subprocess
import sys

import pytest

from codalab_bundles import replay
from codalab_bundles.authoring import build, render, taskdef
from conftest import ROOT, run_scoring_program

TASKS = taskdef.task_names()


class _TagChecker(html.parser.HTMLParser):
    VOID = {"br", "hr", "img", "meta", "link", "input", "wbr", "col"}

    def __init__(self):
        super().__init__()
        self.stack, self.tags, self.errors = [], set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.errors.extend("%s %s=%s" % (tag, k, v) for k, v in attrs
                           if k in ("src", "srcset") or k.startswith("on"))  # no external assets, no handlers
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append("unbalanced </%s>" % tag)


def assert_safe_fragment(text, key):
    """A page: balanced tags, none that a page must not hold, not empty."""
    checker = _TagChecker()
    checker.feed(text)
    checker.close()
    assert not checker.errors and not checker.stack, (key, checker.errors, checker.stack)
    assert not checker.tags & {"script", "html", "body", "head", "iframe", "link", "style", "form"}, key
    assert text.strip(), key  # Codabench refuses an empty page in a version 2 bundle


@pytest.mark.parametrize("name", TASKS)
def test_pages_are_safe_balanced_fragments(name):
    task = taskdef.load_task(name)
    for key in task.pages:
        assert_safe_fragment(render.page_bytes(task, key).decode("utf-8"), key)


@pytest.mark.parametrize("name", TASKS)
def test_rendered_pages_state_the_schedule_of_task_yaml(name):
    task = taskdef.load_task(name)
    templates = [key for key, file in task.pages.items() if file.endswith(".j2")]
    text = "".join(render.page_bytes(task, key).decode("utf-8") for key in templates)
    if "<th>Opens (UTC)</th>" in text:
        for phase in task.phases:
            assert "<td>%s</td><td>%s</td>" % (phase.label, render._long_when(phase.start)) in text


@pytest.mark.parametrize("name", TASKS)
def test_leaderboard_columns_are_the_keys_the_program_writes(name, built_bundles):
    task = taskdef.load_task(name)
    declared = build.declared_score_keys(task)
    assert [c.key for c in task.columns if c.key not in declared] == []
    for phase in task.phases:
        report = replay.replay(built_bundles[name].codabench, None, phase.number)
        assert report["status"] == "Finished", report["stderr"]
        assert sorted(report["scores"]) == sorted(c.key for c in task.columns)
        assert report["keys_without_column"] == [] or set(report["keys_without_column"]) <= set(declared)
        assert set(report["scores"]) | set(report["keys_without_column"]) == set(declared)


# ---------------------------------------------------------------------------------------------------------------
# Metric cards: the sections every card has, and a worked example that is re-scored here

CARD_SECTIONS = ("## Inputs", "## Worked example")
FORMULA_SECTIONS = ("## Formula", "## Scores")


def card_examples(text):
    """The ```example blocks of a card: {"ref": {path: text}, "res": {path: text}, "scores": {key: value},
    optional "gold_public": true, and for a generic task "config": fields laid over its scoring.json}."""
    return [json.loads(block) for block in re.findall(r"```example\n(.*?)\n```", text, re.S)]


@pytest.mark.parametrize("name", TASKS)
def test_metric_card_has_its_sections_and_a_worked_example(name):
    task = taskdef.load_task(name)
    text = (task.scoring_program / "README.md").read_text(encoding="utf-8")
    for section in CARD_SECTIONS:
        assert section in text, section
    assert any(section in text for section in FORMULA_SECTIONS)
    assert card_examples(text), "the worked example needs an ```example block the suite can re-score"


@pytest.mark.parametrize("name", TASKS)
def test_metric_card_worked_example_scores_as_stated(name, tmp_path):
    task = taskdef.load_task(name)
    config = task.scoring_program / "scoring.json"
    for n, example in enumerate(card_examples((task.scoring_program / "README.md").read_text(encoding="utf-8"))):
        ref = dict(example["ref"])
        if example.get("gold_public"):
            ref["gold_is_public.txt"] = "the gold of this example is public\n"
        env, program = {}, None
        if config.is_file():  # a generic task: its configuration, with the example's files and columns
            merged = dict(json.loads(config.read_text(encoding="utf-8")), **example.get("config", {}))
            (tmp_path / ("config%d.json" % n)).write_text(json.dumps(merged))
            env = {"GENERIC_SCORING_CONFIG": str(tmp_path / ("config%d.json" % n))}
            program = ROOT / "scoring_programs" / "generic"
        run = run_scoring_program(name, ref, example["res"], tmp_path / ("run%d" % n), program_dir=program, env=env)
        assert run.returncode == 0, run.stderr
        for key, value in example["scores"].items():
            assert run.scores[key] == pytest.approx(value, abs=1e-9), key


# The command-line examples of a card: ```console blocks, each "$ python3 evaluate.py ..." and what it prints,
# run on the files of the ```example block before them (its "ref" files in ref/, "res" in res/, "res2" in res2/).

CARD_OPTIONS = ("--gold", "--per-item", "--ci", "--compare")


def card_commands(text):
    """[(the example block's files, command line, expected output)] for every ```console block of a card."""
    found, files = [], None
    for kind, body in re.findall(r"```(example|console)\n(.*?)\n```", text, re.S):
        if kind == "example":
            files = json.loads(body)
            continue
        command, _, output = body.partition("\n")
        assert command.startswith("$ python3 evaluate.py "), command
        found.append((files, command[2:], output + "\n"))
    return found


def run_card_command(files, command, workdir, program, env=None):
    """Run a card's command in ``workdir`` with the example's files (and, for a generic example, its "config" as
    the program's scoring.json)."""
    import shlex
    if (files or {}).get("config"):
        (workdir / "scoring.json").write_text(json.dumps(files["config"]))
        env = dict(env or {}, GENERIC_SCORING_CONFIG=str(workdir / "scoring.json"))
    for folder in ("ref", "res", "res2"):
        for path, data in (files or {}).get(folder, {}).items():
            target = workdir / folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(data, encoding="utf-8", newline="")
    argv = shlex.split(command)
    proc = subprocess.run([sys.executable, str(program / "evaluate.py")] + argv[2:], cwd=str(workdir),
                          capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    return proc


@pytest.mark.parametrize("name", TASKS)
def test_metric_card_command_line_examples_print_as_shown(name, tmp_path):
    task = taskdef.load_task(name)
    text = (task.scoring_program / "README.md").read_text(encoding="utf-8")
    commands = card_commands(text)
    # A generic task's card shows the commands with its file names; their outputs are the generic card's examples
    # (tests/test_score_files.py).
    shown = text if (task.scoring_program / "scoring.json").is_file() else " ".join(c for _, c, _ in commands)
    assert all(option in shown for option in CARD_OPTIONS), "the card shows %s" % ", ".join(CARD_OPTIONS)
    for n, (files, command, output) in enumerate(commands):
        workdir = tmp_path / ("cmd%d" % n)
        workdir.mkdir()
        proc = run_card_command(files, command, workdir, task.scoring_program)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == output, command


# ---------------------------------------------------------------------------------------------------------------
# The sample data: bundles/<task>/sample_data.py --out DIR writes exactly what reference_data/<task>/ holds


def _files(folder):
    return dict((p.relative_to(folder).as_posix(), p.read_bytes()) for p in sorted(folder.rglob("*")) if p.is_file())


@pytest.mark.parametrize("name", TASKS)
def test_sample_data_generator_reproduces_the_committed_data(name, tmp_path):
    generator = ROOT / "bundles" / name / "sample_data.py"
    if not generator.is_file():
        pytest.skip("%s ships the organizer's gold, not generated sample data" % name)
    proc = subprocess.run([sys.executable, str(generator), "--out", str(tmp_path / "out")], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    made, committed = _files(tmp_path / "out"), _files(ROOT / "reference_data" / name)
    assert sorted(made) == sorted(committed), "run: python3 bundles/%s/sample_data.py" % name
    for path in made:
        assert made[path] == committed[path], (path, "run: python3 bundles/%s/sample_data.py" % name)


# ---------------------------------------------------------------------------------------------------------------
# The task as one unit


def _task_named_in(path):
    """The task whose id (as ehealth-kd, ehealth_kd or ehealthkd) is a word of the path, or None."""
    tokens = re.split(r"[/.]", path)
    for name in TASKS:
        for spelling in set([name, name.replace("-", "_"), name.replace("-", "")]):
            word = re.compile(r"(^|_)%s(_|$)" % re.escape(spelling))
            if any(token == spelling or word.search(token) for token in tokens):
                return name
    return None


def test_every_file_of_a_task_lives_in_its_own_folders():
    """What belongs to one task (its id in the path) lives in bundles/<task>, scoring_programs/<task> or
    reference_data/<task>, so adding, moving or deleting a task is three folders."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=str(ROOT), check=True,
                            stdout=subprocess.PIPE).stdout.decode().splitlines()
    assert len(listed) > 100
    homes = ("bundles", "scoring_programs", "reference_data")
    misplaced = [path for path in listed if _task_named_in(path) and
                 not any(path.startswith("%s/%s/" % (home, _task_named_in(path))) for home in homes)]
    assert misplaced == []


def test_the_ownership_rule_can_fail():
    assert [_task_named_in(p) for p in ("tools/sample_data/toxic_spans.py", "tests/test_ehealth_kd_bundle.py",
                                        "bench/tasks/food_hazard.py", "tests/test_generic_spans.py",
                                        "bundles/recipe-mpr/task.yaml")] == [
        "toxic-spans", "ehealth-kd", "food-hazard", None, "recipe-mpr"]
