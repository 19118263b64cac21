"""Fact sheets (issue 40): task.yaml's questions, the Codabench bundle's fact_sheet as Codabench's own import stores
it, what validate says of hand-written fact sheets, submit's answers checked before sending, publish --update of
the questions, and the systems table `results` writes beside the results table (from a stand-in of the site's API
and from a folder), each against hand-written expectations. The same against the local Codabench:
tests/test_fact_sheet_live.py."""
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from codalab_bundles import validate
from codalab_bundles.authoring import taskdef
from codalab_bundles.platforms import fact_sheet
from codalab_bundles.results import systems
from codalab_bundles.site import live_update
import codabench_import
from codabench_cases import V2, bundle_bytes
from conftest import ROOT
from test_results import bundle  # noqa: F401  (the fixture: a built generic classification task)

# What the ready-made set of `new` becomes in the Codabench bundle (Codabench's format, in task.yaml's order).
DEFAULT_CODABENCH = {
    "method_name": {"key": "method_name", "type": "text", "title": "Method name", "selection": "",
                    "is_required": "true", "is_on_leaderboard": "true"},
    "run_type": {"key": "run_type", "type": "select", "title": "Primary or contrastive run",
                 "selection": ["primary", "contrastive"], "is_required": "true", "is_on_leaderboard": "false"},
    "constrained": {"key": "constrained", "type": "checkbox", "title": "Constrained (only the data the task provides)",
                    "selection": [True, False], "is_required": "false", "is_on_leaderboard": "false"},
    "external_data": {"key": "external_data", "type": "text", "title": "External data used (none, or which)",
                      "selection": "", "is_required": "false", "is_on_leaderboard": "false"},
    "pretrained_models": {"key": "pretrained_models", "type": "text",
                          "title": "Pretrained models used (none, or which)", "selection": "",
                          "is_required": "false", "is_on_leaderboard": "false"},
    "paper_url": {"key": "paper_url", "type": "text", "title": "System description paper (URL)", "selection": "",
                  "is_required": "false", "is_on_leaderboard": "false"},
}


def cli(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py")] + [str(a) for a in args],
                          capture_output=True, text=True, cwd=cwd, timeout=900, env=env)


def uncomment_fact_sheet(task_yaml):
    """task.yaml with the commented ready-made fact sheet `new` writes made live (its '# ' taken off)."""
    text = task_yaml.read_text(encoding="utf-8")
    start = text.index("# fact_sheet:")
    end = text.index("\n", text.rindex("#     type: text")) + 1
    task_yaml.write_text(text[:start] + re.sub(r"(?m)^# ", "", text[start:end]) + text[end:], encoding="utf-8")


@pytest.fixture(scope="module")
def competition(tmp_path_factory):
    """A `new` task built as written (no fact sheet), then with its ready-made fact sheet uncommented."""
    folder = tmp_path_factory.mktemp("fact-sheet") / "comp"
    made = cli("new", "fs", "--kind", "classification", "--dir", folder)
    assert made.returncode == 0, made.stderr
    built = cli("build", folder, "--no-check", "--dist", folder / "plain")
    assert built.returncode == 0, built.stdout + built.stderr
    uncomment_fact_sheet(folder / "bundles" / "fs" / "task.yaml")
    built = cli("build", folder, "--no-check")
    assert built.returncode == 0, built.stdout + built.stderr
    return folder, built.stdout


def competition_yaml(path):
    with zipfile.ZipFile(str(path)) as archive:
        return archive.read("competition.yaml").decode("utf-8")


def test_new_offers_the_ready_made_set_commented_out_and_nothing_is_asked_until_it_is_uncommented(competition):
    folder, _ = competition
    assert "fact_sheet" not in yaml.safe_load(competition_yaml(folder / "plain" / "fs.zip"))
    spec = yaml.safe_load((folder / "bundles" / "fs" / "task.yaml").read_text(encoding="utf-8"))
    assert spec["fact_sheet"] == fact_sheet.DEFAULT
    assert [q["key"] for q in spec["fact_sheet"]] == ["method_name", "run_type", "constrained", "external_data",
                                                      "pretrained_models", "paper_url"]


def test_the_codabench_bundle_carries_the_questions_in_codabenchs_format(competition):
    folder, printed = competition
    text = competition_yaml(folder / "dist" / "fs.zip")
    stored = yaml.safe_load(text)["fact_sheet"]
    assert stored == DEFAULT_CODABENCH
    assert list(stored) == list(DEFAULT_CODABENCH)  # task.yaml's order
    assert ('  run_type:\n    key: run_type\n    type: select\n    title: "Primary or contrastive run"\n'
            '    selection: ["primary", "contrastive"]\n    is_required: "true"\n    is_on_leaderboard: "false"\n'
            in text)
    v15 = competition_yaml(folder / "dist" / "fs-v1.5.zip")
    assert "fact_sheet" not in yaml.safe_load(v15)
    assert "# fact_sheet: CodaLab v1.5 has no fact sheets" in v15
    assert "note: the v1.5 bundle has no fact sheet (CodaLab v1.5 has none): the 6 question(s) are in the Codabench " \
           "bundle only" in printed
    found = validate.validate(str(folder / "dist" / "fs.zip"), replay=False)[1]
    assert [f for f in found if f.severity != "note"] == []


def test_a_select_that_may_be_left_unanswered_offers_the_empty_choice_first():
    optional = fact_sheet.Question("data", "Data", "select", ["own", "shared"])
    assert optional.codabench()["selection"] == ["", "own", "shared"]
    required = fact_sheet.Question("data", "Data", "select", ["own", "shared"], required=True)
    assert required.codabench()["selection"] == ["own", "shared"]
    # read back, the empty choice is what makes it optional, not is_required
    back = fact_sheet.from_codabench({"data": optional.codabench()})[0]
    assert (back.choices, back.optional_choice, back.required) == (["own", "shared"], True, False)


def _task_with(folder, tmp_path, edit):
    """taskdef.load_task of a copy of ``folder``'s task whose task.yaml text went through ``edit``."""
    copy = tmp_path / "copy"
    shutil.copytree(str(folder), str(copy), ignore=shutil.ignore_patterns("dist", "plain"))
    task_yaml = copy / "bundles" / "fs" / "task.yaml"
    task_yaml.write_text(edit(task_yaml.read_text(encoding="utf-8")), encoding="utf-8")
    return taskdef.load_task("fs", bundles_dir=copy / "bundles")


@pytest.mark.parametrize("old, new, message", [
    ("choices: [primary, contrastive]", "choices: [yes, no]",
     "fact_sheet question run_type: choices.0: each choice must be non-empty text (in quotes for yes, no, on, off, "
     "true, false or a number; a question that is not required gets the empty choice by itself)"),
    ("choices: [primary, contrastive]", "choices: [primary, primary]",
     "fact_sheet question run_type: choices appear twice: primary"),
    ("    choices: [primary, contrastive]\n", "", "fact_sheet question run_type: a select question needs its choices"),
    ("type: checkbox", "type: checkbox\n    choices: [a]",
     "fact_sheet question constrained: choices are for a select question (this one is checkbox)"),
    ("type: checkbox", "type: box", "fact_sheet question constrained: type is one of text, select, checkbox"),
    ("type: checkbox", "type: checkbox\n    required: true",
     "fact_sheet question constrained: a checkbox is always answered (true or false), so it cannot be required"),
    ("key: paper_url", "key: paper-url",
     "fact_sheet question paper-url: key 'paper-url' must be 1-36 characters of A-Z a-z 0-9 _"),
    ("key: paper_url", "key: method_name", "fact_sheet question method_name: the key appears twice"),
    ("    label: Method name ", "    # label: Method name ", "fact_sheet question method_name: label is required"),
    ("    on_leaderboard: true ", "    on_leaderboard: yes please ",
     "fact_sheet question method_name: on_leaderboard is true or false"),
])
def test_a_mistake_in_the_questions_is_named_where_it_is(competition, tmp_path, old, new, message):
    folder, _ = competition
    with pytest.raises(taskdef.TaskDefinitionError) as caught:
        _task_with(folder, tmp_path, lambda text: text.replace(old, new, 1) if old in text else pytest.fail(old))
    assert message in str(caught.value)


# --- Codabench's own import, and validate, on hand-written fact sheets ------------------------------------------

def _v2(sheet_yaml):
    return ("hand", "2", V2 + sheet_yaml, None, None, {})


QUESTION = '{key: %s, type: %s, title: "Q", selection: %s, is_required: %s, is_on_leaderboard: "false"}'
# (id, fact_sheet YAML, severity and fragment of validate's finding or None, Codabench's import: None when it
#  stores it, else a fragment of its refusal)
HAND = [
    ("clean", "fact_sheet:\n  m: " + QUESTION % ("m", "text", '""', '"true"') + "\n", None, None),
    ("a list", "fact_sheet:\n  - m\n", ("error", "is not a mapping of questions"), "Not valid JSON"),
    ("title missing", 'fact_sheet:\n  m: {key: m, type: text, selection: "", is_required: "true", '
     'is_on_leaderboard: "false"}\n', ("error", "without exactly the keys"), "Missing {'title'} values for m"),
    ("key not its name", "fact_sheet:\n  m: " + QUESTION % ("n", "text", '""', '"true"') + "\n",
     ("error", "whose key is not its name"), "does not match JSON key"),
    ("bad type", "fact_sheet:\n  m: " + QUESTION % ("m", "radio", '""', '"true"') + "\n",
     ("error", "type 'radio'"), "radio is not a valid question type"),
    ("boolean is_required", "fact_sheet:\n  m: " + QUESTION % ("m", "text", '""', "true") + "\n",
     ("warning", "so the question is never required"), None),
    ("checkbox with a text selection", "fact_sheet:\n  c: " + QUESTION % ("c", "checkbox", '""', '"false"') + "\n",
     ("error", "a checkbox is answered true or false"), None),
    ("text with choices", "fact_sheet:\n  t: " + QUESTION % ("t", "text", '["a"]', '"false"') + "\n",
     ("error", "refuses every answer that is not in it"), None),
    ("select without choices", "fact_sheet:\n  s: " + QUESTION % ("s", "select", '[""]', '"false"') + "\n",
     ("error", "a select question without choices"), None),
    ("a task- key", "fact_sheet:\n  task-x: " + QUESTION % ("task-x", "text", '""', '"false"') + "\n",
     ("error", "leaves out answers whose key starts with task-"), None),
]


@pytest.mark.parametrize("case", HAND, ids=[c[0] for c in HAND])
def test_validate_says_what_codabench_does_with_a_hand_written_fact_sheet(tmp_path, case):
    name, sheet, finding, refusal = case
    path = tmp_path / "bundle.zip"
    path.write_bytes(bundle_bytes(_v2(sheet)))
    found = [f for f in validate.validate(str(path), replay=False)[1] if f.rule == "fact-sheet"]
    if finding is None:
        assert found == []
        return
    assert [(f.severity, finding[1] in f.message) for f in found] == [(finding[0], True)], found
    # an error the import does not see is marked accepted: the competition is made, its submissions break
    assert found[0].accepted == (finding[0] == "error" and refusal is None)


def _import(paths):
    """Codabench's own import of ``paths`` (tests/codabench_import.py): one result per bundle."""
    return codabench_import.import_or_skip(paths)


def test_codabenchs_own_import_stores_the_questions_as_task_yaml_means_them(competition, tmp_path):
    folder, _ = competition
    paths = [folder / "dist" / "fs.zip", folder / "plain" / "fs.zip"]
    for number, case in enumerate(HAND):
        paths.append(tmp_path / ("%02d.zip" % number))
        paths[-1].write_bytes(bundle_bytes(_v2(case[1])))
    imported = _import(paths)
    assert imported[0]["ok"], imported[0]["error"]
    assert imported[0]["competition"]["settings"]["fact_sheet"] == DEFAULT_CODABENCH
    assert imported[1]["ok"] and imported[1]["competition"]["settings"]["fact_sheet"] is None
    for case, result in zip(HAND, imported[2:]):
        name, _, _, refusal = case
        if refusal is None:
            assert result["ok"], (name, result["error"])
        else:
            assert not result["ok"] and refusal in str(result["error"]), (name, result["error"])


# --- the answers -------------------------------------------------------------------------------------------------

QUESTIONS = fact_sheet.from_task(fact_sheet.DEFAULT)


def test_answers_left_out_get_the_empty_answer_and_checkbox_words_become_booleans():
    sent = fact_sheet.check_answers(QUESTIONS, {"method_name": " BERT ", "run_type": "primary", "constrained": "yes"})
    assert list(sent.items()) == [("method_name", "BERT"), ("run_type", "primary"), ("constrained", True),
                                  ("external_data", ""), ("pretrained_models", ""), ("paper_url", "")]
    sent = fact_sheet.check_answers(QUESTIONS, {"method_name": "x", "run_type": "contrastive", "constrained": "No"})
    assert sent["constrained"] is False


def test_every_problem_of_the_answers_in_one_message():
    with pytest.raises(fact_sheet.FactSheetError) as caught:
        fact_sheet.check_answers(QUESTIONS, {"run_type": "other", "constrained": "maybe", "paper_url": 5,
                                             "bogus": "1"}, "competition 42")
    assert str(caught.value) == (
        "the fact-sheet answers do not fit the questions of competition 42: bogus is not a question of competition "
        "42; method_name (Method name) is required; run_type (Primary or contrastive run): \"other\" is not one of "
        "the choices primary, contrastive; constrained (Constrained (only the data the task provides)): \"maybe\" is "
        "not true or false; paper_url (System description paper (URL)): 5 is not text (write it in quotes) "
        "(its questions: method_name (required): text, run_type (required): one of primary/contrastive, "
        "constrained: true or false, external_data: text, pretrained_models: text, paper_url: text)")


def test_a_required_text_left_blank_is_refused_before_sending():
    with pytest.raises(fact_sheet.FactSheetError, match=r"method_name \(Method name\) is required: give it some text"):
        fact_sheet.check_answers(QUESTIONS, {"method_name": "  ", "run_type": "primary"})


def test_no_answers_to_required_questions_needs_no_fact_sheet_said():
    competition = {"id": 9, "fact_sheet": fact_sheet.codabench(QUESTIONS)}
    with pytest.raises(fact_sheet.FactSheetError) as caught:
        fact_sheet.answers_for(competition, None)
    assert str(caught.value).startswith("competition 9 asks a fact sheet with every submission (required: "
                                        "method_name, run_type; ")
    assert "--no-fact-sheet" in str(caught.value)
    assert fact_sheet.answers_for(competition, None, no_fact_sheet=True) is None
    with pytest.raises(fact_sheet.FactSheetError, match="give one or the other"):
        fact_sheet.answers_for(competition, {"method_name": "x"}, no_fact_sheet=True)
    # nothing required: no answers, none sent
    optional = {"id": 9, "fact_sheet": fact_sheet.codabench(QUESTIONS[2:])}
    assert fact_sheet.answers_for(optional, None) is None
    with pytest.raises(fact_sheet.FactSheetError, match="competition 9 has no fact sheet: give no answers"):
        fact_sheet.answers_for({"id": 9, "fact_sheet": None}, {"method_name": "x"})


def test_answer_options_file_then_pairs(tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text('{"method_name": "A", "constrained": true}')
    assert fact_sheet.parse_answer_options(str(answers), ["method_name=B=C", "paper_url="]) == {
        "method_name": "B=C", "constrained": True, "paper_url": ""}
    assert fact_sheet.parse_answer_options(None, []) is None
    with pytest.raises(fact_sheet.FactSheetError, match="--answer method_name: write KEY=VALUE"):
        fact_sheet.parse_answer_options(None, ["method_name"])
    answers.write_text("[1]")
    with pytest.raises(fact_sheet.FactSheetError, match="must hold a JSON object"):
        fact_sheet.parse_answer_options(str(answers), [])


def test_submit_sends_the_checked_answers_and_sends_nothing_when_they_do_not_fit(tmp_path):
    from test_publish import TOKEN, FakeCodabench, _stored
    from toy_task import make_toy
    from codalab_bundles.authoring import build
    toy = build.build_task(make_toy(tmp_path), tmp_path / "dist").codabench
    sample = tmp_path / "sample.zip"
    with zipfile.ZipFile(str(toy)) as archive:
        with zipfile.ZipFile(__import__("io").BytesIO(archive.read("starting_kit_dev.zip"))) as kit:
            sample.write_bytes(kit.read("sample_submission.zip"))
    answers = tmp_path / "answers.json"
    answers.write_text('{"method_name": "Rules", "run_type": "primary"}')

    class Site(FakeCodabench):
        def _handler(self):
            base, site = FakeCodabench._handler(self), self
            site.bodies = []

            class Handler(base):
                def _body(self):
                    body = base._body(self)
                    site.bodies.append((self.command, self.path, body))
                    return body
            return Handler

    fake = Site()
    fake.live = {"id": 11, "title": "Toy", "phases": _stored(toy), "fact_sheet": fact_sheet.codabench(QUESTIONS)}
    env = {"CODABENCH_TOKEN": TOKEN}
    try:
        proc = cli("submit", sample, "--competition", 11, "--even-if-closed", "--server", fake.url, "--fact-sheet",
                   answers, "--answer", "constrained=yes", "--json", env=dict(os.environ, **env))
        assert proc.returncode in (0, 1), proc.stderr
        created = [json.loads(b) for m, p, b in fake.bodies if (m, p) == ("POST", "/api/submissions/")]
        assert created == [{"phase": 101, "data": "k-submission", "fact_sheet_answers": {
            "method_name": "Rules", "run_type": "primary", "constrained": True, "external_data": "",
            "pretrained_models": "", "paper_url": ""}}]
        assert json.loads(proc.stdout)["fact_sheet_answers"]["constrained"] is True
        before = len(fake.calls)
        proc = cli("submit", sample, "--competition", 11, "--even-if-closed", "--server", fake.url, "--answer",
                   "run_type=both", env=dict(os.environ, **env))
        assert proc.returncode == 2
        assert proc.stderr.startswith("submit: the fact-sheet answers do not fit the questions of competition 11: "
                                      "method_name (Method name) is required; run_type (Primary or contrastive run): "
                                      "\"both\" is not one of the choices primary, contrastive (its questions: ")
        assert len(proc.stderr.strip().splitlines()) == 1
        assert [c[:2] for c in fake.calls[before:]] == [("GET", "/api/competitions/11/")]  # nothing uploaded
        proc = cli("submit", sample, sample, "--competition", 11, "--even-if-closed", "--server", fake.url,
                   env=dict(os.environ, **env))
        assert proc.returncode == 2 and "asks a fact sheet with every submission" in proc.stderr  # a batch too
    finally:
        fake.close()


# --- publish --update ---------------------------------------------------------------------------------------------

def test_update_compares_the_questions_as_a_mapping_and_applies_them():
    bundle_sheet = fact_sheet.codabench(QUESTIONS)
    live_sheet = dict(reversed(list(bundle_sheet.items())))  # the site's jsonb order
    base = {"title": "T", "description": "", "terms": "t", "pages": [], "phases": [], "columns": [], "ranking": "",
            "phase_tasks": None}
    live = dict(base, page_ids=[], submissions=0, whitelist_emails=[], fact_sheet=live_sheet)
    assert live_update.changes(dict(base, fact_sheet=bundle_sheet), live, 5) == []
    changed = dict(bundle_sheet, run_type=dict(bundle_sheet["run_type"], is_required="false"))
    del changed["paper_url"]
    found = live_update.changes(dict(base, fact_sheet=changed), live, 5)
    assert [(c.where, c.live, c.wanted, c.refused) for c in found] == [(
        "fact_sheet", "paper_url (text: System description paper (URL)); run_type (select primary/contrastive, "
        "required: Primary or contrastive run)", "run_type (select primary/contrastive: Primary or contrastive "
        "run); no question paper_url", None)]
    assert found[0].apply == ("PATCH", "/api/competitions/5/", {"fact_sheet": changed, "whitelist_emails": []})
    found = live_update.changes(dict(base, fact_sheet=None), live, 5)
    assert ("method_name (text, required, on the leaderboard: Method name)" in found[0].live,
            found[0].wanted, found[0].apply[2]["fact_sheet"]) == (True, "no fact sheet", None)


# --- the systems table --------------------------------------------------------------------------------------------

def test_the_sites_questions_in_the_bundles_order_then_the_sites():
    questions = fact_sheet.from_task(fact_sheet.DEFAULT)
    site = {"run_type": dict(DEFAULT_CODABENCH["run_type"], title="Run"), "new": DEFAULT_CODABENCH["paper_url"],
            "method_name": DEFAULT_CODABENCH["method_name"]}
    site["new"] = dict(site["new"], key="new")
    merged = systems.on_site(questions, site)
    assert [(q.key, q.label) for q in merged] == [("method_name", "Method name"), ("run_type", "Run"),
                                                 ("new", "System description paper (URL)")]
    assert systems.on_site(questions, {}) == []


SITE_SHEET = {  # as the site gives it: PostgreSQL's jsonb order (shorter keys first)
    "run_type": DEFAULT_CODABENCH["run_type"],
    "paper_url": dict(DEFAULT_CODABENCH["paper_url"], title="Paper URL"),
    "constrained": dict(DEFAULT_CODABENCH["constrained"], title="Constrained"),
    "method_name": DEFAULT_CODABENCH["method_name"],
}
SITE_ANSWERS = {1: {"run_type": "contrastive", "paper_url": "", "constrained": False, "method_name": "First try"},
                2: {"run_type": "primary", "paper_url": "", "constrained": True, "method_name": "Rules | regex"},
                4: {}}  # what the web form sends when it asks nothing: no fact sheet


@pytest.fixture
def fact_site(bundle, tmp_path):  # noqa: F811 (bundle: test_results' fixture)
    from test_results_site import Site, serve
    from test_results import ALL_POS, BETA, ONE_WRONG, RIGHT, submission

    class FactSite(Site):
        def api(self, path, storage):
            found = Site.api(self, path, storage)
            if path == "/api/competitions/7/":
                found["fact_sheet"] = SITE_SHEET
            if path == "/api/submissions/?phase=71":
                for one in found:
                    one["fact_sheet_answers"] = SITE_ANSWERS.get(one["id"])
            return found

    files = {}
    for number, labels in ((1, RIGHT), (2, ONE_WRONG), (4, ONE_WRONG), (5, ALL_POS), (3, ALL_POS)):
        submission(tmp_path / "s.zip", labels)
        files[number] = (tmp_path / "s.zip").read_bytes()
    right = {"macro_f1": 1.0, "accuracy": 1.0, "weighted_f1": 1.0}
    one_wrong = {"macro_f1": BETA, "accuracy": 0.875, "weighted_f1": BETA}
    made = FactSite(bundle.read_bytes(), files, {1: right, 2: dict(one_wrong), 3: {}, 4: one_wrong, 5: {}})
    storage_url = [None]
    api, storage = serve(made, "api", storage_url), serve(made, "storage", storage_url)
    storage_url[0] = "http://127.0.0.1:%d" % storage.server_port
    made.url = "http://127.0.0.1:%d" % api.server_port
    yield made
    for server in (api, storage):
        server.shutdown()
        server.server_close()


SITE_CSV = """rank,team,run,fact_sheet,run_type,paper_url,constrained,method_name
1,alice,2,yes,primary,,yes,Rules | regex
1,Team B,4,no,,,,
"""
SITE_MD = """# Senti: Test: systems

| \\# | Team | Run | Primary or contrastive run | Paper URL | Constrained | Method name |
|---:|---|---|---|---|---|---|
| 1 | alice | 2 | primary | - | yes | Rules \\| regex |
| 1 | Team B | 4 | no fact sheet |  |  |  |

Each team's answers to the fact sheet that came with its run in the results table.

No fact sheet: the run came with no answers (1 of 2 teams).

'-': left unanswered.
"""
SITE_TEX = r"""% Senti: Test: systems
% needs \usepackage{booktabs}
\begin{table}[t]
\centering
\begin{tabular}{rllllll}
\toprule
\# & Team & Run & Primary or contrastive run & Paper URL & Constrained & Method name \\
\midrule
1 & alice & 2 & primary & - & yes & Rules \textbar{} regex \\
1 & Team B & 4 & no fact sheet &  &  &  \\
\bottomrule
\end{tabular}
\caption{Each team's answers to the fact sheet that came with its run in the results table. No fact sheet: the run came with no answers (1 of 2 teams). '-': left unanswered.}
\end{table}
"""
SITE_PARTICIPANTS_MD = """# Senti: Test: systems

| \\# | Team | Method name |
|---:|---|---|
| 1 | alice | Rules \\| regex |
| 1 | Team B | no fact sheet |

Each team's answers to the fact sheet that came with its run in the results table.

No fact sheet: the run came with no answers (1 of 2 teams).
"""


def test_the_systems_table_from_the_sites_answers(fact_site, tmp_path):
    from test_results_site import results
    proc = results(fact_site, tmp_path, "-o", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    # Force_Last: alice's counted run is 2 (her run 1 has other answers), Team B's is 4, which came with none
    assert found["systems"] == [
        {"rank": 1, "team": "alice", "run": "2", "answers": SITE_ANSWERS[2]},
        {"rank": 1, "team": "Team B", "run": "4", "answers": None}]
    out = tmp_path / "out"
    assert (out / "systems.csv").read_text(encoding="utf-8") == SITE_CSV
    assert (out / "systems.md").read_text(encoding="utf-8") == SITE_MD
    assert (out / "systems.tex").read_text(encoding="utf-8") == SITE_TEX
    html = (out / "systems.html").read_text(encoding="utf-8")
    assert "<td>Rules | regex</td>" in html and "<td>no fact sheet</td>" in html
    assert (out / "participants" / "systems.md").read_text(encoding="utf-8") == SITE_PARTICIPANTS_MD
    assert (out / "participants" / "systems.csv").read_text(encoding="utf-8") == (
        "rank,team,fact_sheet,method_name\n1,alice,yes,Rules | regex\n1,Team B,no,\n")


FOLDER_CSV = """rank,team,run,fact_sheet,method_name,constrained,notes
1,alpha,alpha/run1,yes,Ensemble,no,
2,beta,beta/beta,yes,'=SUM(A1),,"uses a,b"
2,gamma,gamma/run1,no,,,
"""


def test_the_systems_table_from_a_folder_of_runs_and_answer_files(bundle, tmp_path):  # noqa: F811
    from test_results import ONE_WRONG, RIGHT, submission
    runs = tmp_path / "runs"
    for path in (runs / "alpha", runs / "gamma"):
        path.mkdir(parents=True)
    submission(runs / "alpha" / "run1.zip", RIGHT)
    submission(runs / "alpha" / "run2.zip", ONE_WRONG)
    submission(runs / "beta.zip", ONE_WRONG)
    submission(runs / "gamma" / "run1.zip", ONE_WRONG)
    (runs / "alpha" / "fact_sheet.json").write_text('{"method_name": "Team default", "constrained": true}')
    (runs / "alpha" / "run1.fact_sheet.json").write_text('{"method_name": "Ensemble", "constrained": false}')
    (runs / "beta.fact_sheet.json").write_text('{"method_name": "=SUM(A1)", "notes": "uses a,b"}')
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "codalab_bundles", "results", str(runs), "--bundle", str(bundle),
                           "--phase", "2", "--no-significance", "-o", str(out), "--json"], capture_output=True,
                          text=True, cwd=str(ROOT), timeout=900)
    assert proc.returncode == 0, proc.stderr
    # best run per team: alpha's run1 (all right) with its own answers, not the team's
    assert (out / "systems.csv").read_text(encoding="utf-8") == FOLDER_CSV
    assert "| 2 | gamma | gamma/run1 | no fact sheet |  |  |" in (out / "systems.md").read_text(encoding="utf-8")
    # the bundle asks nothing: the answers' keys are the organizers' columns, the participants get none
    written = json.loads(proc.stdout)["written"]
    assert "no systems table for the participants: the competition has no fact sheet" in written
    assert not (out / "participants" / "systems.csv").exists()
    (runs / "beta.fact_sheet.json").write_text('["not", "answers"]')
    proc = subprocess.run([sys.executable, "-m", "codalab_bundles", "results", str(runs), "--bundle", str(bundle),
                           "--phase", "2", "--no-significance", "-o", str(out)], capture_output=True, text=True,
                          cwd=str(ROOT), timeout=900)
    assert proc.returncode == 2
    assert "beta.fact_sheet.json: fact-sheet answers are a JSON object" in proc.stderr
