"""The ingestion program of code-submission tasks (scoring_programs/ingestion), run as Codabench's worker lays out the
prediction step: /app/program = the ingestion program (its files, the runtime's scoring_base and fast_csv, and
ingestion.json), /app/ingested_program = the submission, /app/input_data, /app/output, the command its metadata
says with Codabench's substitutions, from /app/program. Each broken model gets its one line, exit status 1, no
predictions file, no traceback and nothing of the test inputs."""
import json
import shutil
import subprocess
import sys
import textwrap

import pytest

from codalab_bundles.authoring import code_submission
from conftest import ROOT

INGESTION = ROOT / "scoring_programs" / "ingestion"
SECRET = "SECRET-INPUT-7f3a"  # in every test input: it must never reach the program's output text
INPUTS = "id,text\na1,%s one\na2,%s two two\na3,%s three\n" % (SECRET, SECRET, SECRET)
CONFIG = {"inputs": "items.csv", "id_column": "id", "output": "predictions.csv", "columns": ["label"],
          "time_limit": 20, "memory_mb": 512}
GOOD = """
class Model:
    def predict(self, items):
        return [{"label": str(len(item["text"].split()))} for item in items]

def load(model_dir):
    return Model()
"""


def predicting(body, header=""):
    """A model.py whose load returns a model whose predict runs ``body``: the body's first line is line 6."""
    return "%s\ndef load(d):\n    return M()\nclass M:\n    def predict(self, items):\n%s\n" % (
        header, textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8))


def layout(tmp_path, model, config=None, inputs=INPUTS, files=None):
    """The prediction step's /app, with ``model`` as the submission's model.py (None: no model.py)."""
    app = tmp_path / "app"
    program = app / "program"
    program.mkdir(parents=True)
    for name in code_submission.INGESTION_FILES:
        shutil.copy(str(INGESTION / name), str(program / name))
    for name in code_submission.RUNTIME:
        shutil.copy(str(ROOT / "scoring_programs" / "common" / name), str(program / name))
    (program / "ingestion.json").write_text(json.dumps(dict(CONFIG, **(config or {}))))
    (app / "ingested_program").mkdir()
    if model is not None:
        (app / "ingested_program" / "model.py").write_text(textwrap.dedent(model))
    for name, text in (files or {}).items():
        path = app / "ingested_program" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    (app / "input_data").mkdir()
    (app / "input_data" / "items.csv").write_text(inputs)
    (app / "output").mkdir()
    return app


def ingest(app, *extra, timeout=60, python=sys.executable):
    """The metadata's command, as Codabench substitutes it, run from /app/program."""
    command = (app / "program" / "metadata").read_text().split(":", 1)[1].strip()
    for name, folder in (("$input", "input_data"), ("$output", "output"), ("$submission_program", "ingested_program"),
                         ("$program", "program")):
        command = command.replace(name, str(app / folder))
    words = command.split()
    assert words[0] == "python3"
    done = subprocess.run([python] + words[1:] + list(extra), cwd=str(app / "program"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def test_the_metadata_is_codabench_ingestion_command():
    assert (INGESTION / "metadata").read_text() == \
        "command: python3 $program/ingest.py $input $submission_program $output\n"


def test_a_good_model_writes_the_predictions_file(tmp_path):
    app = layout(tmp_path, GOOD)
    code, out, err = ingest(app)
    assert (code, err) == (0, "")
    assert out == "Ingestion: 3 predictions written to predictions.csv\n"
    assert (app / "output" / "predictions.csv").read_text() == "id,label\na1,2\na2,3\na3,2\n"


def test_a_dict_by_id_in_any_order_is_written_in_the_inputs_order(tmp_path):
    model = """
    class M:
        def predict(self, items):
            return dict((item["id"], {"label": "x" + item["id"]}) for item in reversed(items))
    def load(d):
        return M()
    """
    app = layout(tmp_path, model)
    assert ingest(app)[0] == 0
    assert (app / "output" / "predictions.csv").read_text() == "id,label\na1,xa1\na2,xa2\na3,xa3\n"


def test_load_gets_the_submission_folder_and_reads_its_files(tmp_path):
    model = """
    import os
    class M:
        def __init__(self, label):
            self.label = label
        def predict(self, items):
            return [self.label for _ in items]
    def load(model_dir):
        with open(os.path.join(model_dir, "params", "label.txt")) as handle:
            return M(handle.read().strip())
    """
    app = layout(tmp_path, model, files={"params/label.txt": "spam\n"})
    assert ingest(app)[0] == 0
    assert (app / "output" / "predictions.csv").read_text() == "id,label\na1,spam\na2,spam\na3,spam\n"


def test_several_columns_and_an_unnamed_id_column(tmp_path):
    model = predicting('return [{"b": 1.5, "a": "x, y"} for _ in items]')
    app = layout(tmp_path, model, {"columns": ["a", "b"], "output_id_column": ""})
    assert ingest(app)[0] == 0
    assert (app / "output" / "predictions.csv").read_text() == ',a,b\na1,"x, y",1.5\na2,"x, y",1.5\na3,"x, y",1.5\n'


def test_json_output_and_jsonl_inputs(tmp_path):
    lines = "".join(json.dumps({"qid": q, "options": ["o1", "o2"]}) + "\n" for q in ("q1", "q2"))
    model = predicting('return [list(reversed(item["options"])) for item in items]')
    app = layout(tmp_path, model, {"inputs": "items.csv", "input_format": "jsonl", "id_column": "qid",
                                   "output": "ranking.json", "output_format": "json", "columns": []}, inputs=lines)
    assert ingest(app)[0] == 0
    assert json.loads((app / "output" / "ranking.json").read_text()) == {"q1": ["o2", "o1"], "q2": ["o2", "o1"]}


BROKEN = [
    ("predict_crash", predicting("return [1 / 0 for _ in items]"), {},
     "Submission error: model.py: predict raised ZeroDivisionError at model.py line 6"),
    ("message_quotes_an_input", predicting("for item in items:\n    raise ValueError(item['text'])"), {},
     "Submission error: model.py: predict raised ValueError at model.py line 7"),
    ("key_error_names_an_input", predicting('return [{}[item["text"]] for item in items]'), {},
     "Submission error: model.py: predict raised KeyError at model.py line 6"),
    ("load_crash", """
     import json
     def load(d):
         return json.loads("{")
     """, {}, "Submission error: model.py: load raised JSONDecodeError at model.py line 4"),
    ("import_crash", """
     import numpyy
     """, {}, "Submission error: model.py: import raised ModuleNotFoundError at model.py line 2"),
    ("syntax_error", """
     def load(d)
         return 1
     """, {}, "Submission error: model.py: import raised SyntaxError at model.py line 2"),
    ("no_load", """
     def predict(items):
         return []
     """, {}, "Submission error: model.py: no function load(model_dir)"),
    ("no_predict", """
     class Weights:
         pass
     def load(d):
         return Weights()
     """, {}, "Submission error: model.py: the model load() returned (a Weights) has no method predict(items)"),
    ("load_returns_none", """
     def load(d):
         pass
     """, {}, "Submission error: model.py: the model load() returned (None) has no method predict(items)"),
    ("timeout", predicting("while True:\n    pass"), {"time_limit": 2},
     "Submission error: model.py: predict did not finish within the time limit of 2 s (load and predict together)"),
    ("timeout_in_load", """
     import time
     def load(d):
         time.sleep(30)
     """, {"time_limit": 1},
     "Submission error: model.py: load did not finish within the time limit of 1 s (load and predict together)"),
    ("out_of_memory", predicting("return [bytearray(1024 * 1024 * 1024) for _ in items]"), {"memory_mb": 256},
     "Submission error: model.py: predict ran out of memory (the limit is 256 MB)"),
    ("sys_exit", """
     import sys
     def load(d):
         sys.exit(3)
     """, {}, "Submission error: model.py: load called sys.exit(3) at model.py line 4"),
    ("hard_exit", predicting("os._exit(4)", "import os"), {},
     "Submission error: model.py: the submission's process exited with status 4 during predict, "
     "without an answer"),
    ("killed", """
     import os, signal
     def load(d):
         os.kill(os.getpid(), signal.SIGKILL)
     """, {"memory_mb": 300}, "Submission error: model.py: the submission's process was killed by SIGKILL during "
                             "load (the memory limit is 300 MB)"),
    ("returns_a_string", predicting('return "a1,x"'), {},
     "Submission error: model.py: wrong output: predict returned a str: return a list of predictions (one "
     "per item, in the items' order) or a dict {item id: prediction}"),
    ("returns_a_set", predicting('return [{"label": "x"}, {"label": {"x"}}, {"label": "y"}]'), {},
     "Submission error: model.py: wrong output type: the prediction for item 2 is a builtins.set; return "
     "str, int, float, bool, None, lists and dicts only"),
    ("too_few", predicting('return [{"label": "x"}]'), {},
     "Submission error: model.py: wrong output: predict returned 1 predictions for 3 items (return one per "
     "item, in the items' order, or a dict {item id: prediction})"),
    ("missing_ids", predicting('return {"a1": "x", "a3": "z"}'), {},
     "Submission error: model.py: wrong output: predict returned no prediction for 1 of the 3 items (the "
     "first: item 2, counting from 1 in the items' order)"),
    ("unknown_ids", predicting('return {"a1": "x", "a2": "y", "a3": "z", "zz": "?"}'), {},
     "Submission error: model.py: wrong output: predict returned predictions for 1 id(s) that are no "
     "item's: 'zz'"),
    ("missing_column", predicting('return [{"a": "x"} for _ in items]'), {"columns": ["a", "b"]},
     "Submission error: model.py: wrong output: the prediction for item 1 has no 'b' "
     "(it needs a, b)"),
    ("unknown_column", predicting('return [{"label": "x", "score": 1} for _ in items]'), {},
     "Submission error: model.py: wrong output: the prediction for item 1 has the key 'score', which is no "
     "column of the predictions (label)"),
    ("none_value", predicting("return [None for _ in items]"), {},
     "Submission error: model.py: wrong output: the prediction for item 1 is None: it must be a dict with "
     "the keys label (or one value)"),
]


@pytest.mark.parametrize("name,model,config,line", BROKEN, ids=[case[0] for case in BROKEN])
def test_a_broken_model_gets_one_line(tmp_path, name, model, config, line):
    app = layout(tmp_path, model, config)
    # Codabench copies a submission without a metadata file into the output folder: a predictions file it brings
    # must not stay there when the model fails
    (app / "output" / "predictions.csv").write_text("id,label\na1,forged\n")
    code, out, err = ingest(app)
    assert code == 1
    assert err == line + "\n"
    assert not (app / "output" / "predictions.csv").exists()
    assert SECRET not in out + err and "Traceback" not in out + err


def test_a_crash_in_another_file_of_the_submission_is_placed_there(tmp_path):
    model = """
    from helpers import tokens
    def load(d):
        return M()
    class M:
        def predict(self, items):
            return [tokens(item) for item in items]
    """
    app = layout(tmp_path, model, files={"helpers.py": "def tokens(item):\n    return item['nope']\n"})
    assert ingest(app)[2] == "Submission error: model.py: predict raised KeyError at helpers.py line 2\n"


def test_no_model_py(tmp_path):
    app = layout(tmp_path, None, files={"my_model/model.py": GOOD})
    code, _, err = ingest(app)
    assert code == 1
    assert err == ("Submission error: the submission has no model.py at its root (it holds: 'my_model'); zip the "
                   "files themselves, not their folder\n")


def test_what_the_model_prints_is_not_shown_unless_asked(tmp_path):
    model = """
    import sys
    def load(d):
        return M()
    class M:
        def predict(self, items):
            print(items[0]["text"])
            sys.stderr.write(items[1]["text"] + "\\n")
            return ["x" for _ in items]
    """
    app = layout(tmp_path, model)
    code, out, err = ingest(app)
    assert code == 0 and SECRET not in out + err
    code, out, err = ingest(app, "--show-output")  # the starting kit's offline run
    assert code == 0 and out.startswith("%s one\n" % SECRET) and err == "%s two two\n" % SECRET


def test_the_inputs_reach_the_model_only_through_predict(tmp_path):
    # the child removes its copy of the items (its second argument) before importing model.py
    model = """
    import os, sys
    def load(d):
        return M()
    class M:
        def predict(self, items):
            return [sys.argv[2].endswith("items.json") and str(os.path.exists(sys.argv[2])) for _ in items]
    """
    app = layout(tmp_path, model)
    assert ingest(app)[0] == 0
    assert (app / "output" / "predictions.csv").read_text() == "id,label\na1,False\na2,False\na3,False\n"


def test_a_problem_of_the_inputs_is_the_organizers(tmp_path):
    app = layout(tmp_path, GOOD, {"id_column": "key"})
    code, _, err = ingest(app)
    assert code == 1
    assert err == ("Ingestion program error (a problem for the organizers, not your submission): the input data "
                   "items.csv has no column 'key' (its columns: 'id', 'text')\n")


def test_usage(tmp_path):
    app = layout(tmp_path, GOOD)
    done = subprocess.run([sys.executable, str(app / "program" / "ingest.py")], stderr=subprocess.PIPE,
                          universal_newlines=True)
    assert (done.returncode, done.stderr) == (2, "usage: python3 ingest.py INPUT_DATA SUBMISSION OUTPUT "
                                                 "[--show-output]\n")


# The scoring step's gate (ingestion_gate.py), with a stand-in evaluate.py that writes what it was given.
def gate(tmp_path, metadata):
    program = tmp_path / "program"
    program.mkdir()
    shutil.copy(str(INGESTION / "ingestion_gate.py"), str(program / "ingestion_gate.py"))
    (program / "evaluate.py").write_text("import sys\nopen(sys.argv[2] + '/scores.txt', 'w').write('ok: 1\\n')\n"
                                         "sys.exit(0)\n")
    res = tmp_path / "input" / "res"
    res.mkdir(parents=True)
    if metadata is not None:
        (res / "metadata").write_text(metadata)
    (tmp_path / "output").mkdir()
    done = subprocess.run([sys.executable, str(program / "ingestion_gate.py"), str(tmp_path / "input"),
                           str(tmp_path / "output")], stderr=subprocess.PIPE, universal_newlines=True)
    return done.returncode, done.stderr, (tmp_path / "output" / "scores.txt").exists()


def test_the_gate_scores_after_a_good_prediction_step(tmp_path):
    # as Codabench's worker writes it (yaml.dump of exitCode, elapsedTime, ingestionExitCode, ingestionElapsedTime)
    text = "elapsedTime: 1.2\nexitCode: null\ningestionElapsedTime: 1.2\ningestionExitCode: 0\n"
    assert gate(tmp_path, text) == (0, "", True)


def test_the_gate_scores_an_offline_run(tmp_path):
    assert gate(tmp_path, None) == (0, "", True)


def test_the_gate_refuses_after_a_failed_ingestion(tmp_path):
    text = "elapsedTime: 1.2\nexitCode: null\ningestionElapsedTime: 1.2\ningestionExitCode: 1\n"
    assert gate(tmp_path, text) == (1, "Submission error: the prediction step failed (the ingestion program's exit "
                                       "status: 1): its message is in the prediction step's error log; nothing was "
                                       "scored\n", False)


def test_the_gate_refuses_a_submission_that_ran_its_own_command(tmp_path):
    text = "elapsedTime: 1.2\nexitCode: 0\ningestionElapsedTime: 1.2\ningestionExitCode: 0\n"
    code, err, scored = gate(tmp_path, text)
    assert (code, scored) == (1, False)
    assert err.startswith("Submission error: the submission has a metadata file with a command")


def test_the_program_runs_on_python36(tmp_path):
    """Beyond syntax: a good model, a crash, a wrong output and the memory limit on a real Python 3.6 (the child
    runs on the interpreter the program runs on)."""
    from test_python36_compat import _python36
    exe = _python36()
    if exe is None:
        pytest.skip("no Python 3.6 interpreter on this machine")
    app = layout(tmp_path / "good", GOOD)
    assert ingest(app, python=exe) == (0, "Ingestion: 3 predictions written to predictions.csv\n", "")
    assert (app / "output" / "predictions.csv").read_text() == "id,label\na1,2\na2,3\na3,2\n"
    for name, model, config, line in [case for case in BROKEN if case[0] in ("predict_crash", "missing_ids",
                                                                              "out_of_memory", "timeout")]:
        code, out, err = ingest(layout(tmp_path / name, model, config), python=exe)
        assert (code, err) == (1, line + "\n"), name
