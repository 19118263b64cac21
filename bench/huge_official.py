"""The official scorers of bench/huge_runs.py's runs: for each run, the task's or kind's own scorer on the same files.

The five tasks' scorers are those bench/run.py times (each bundles/<task>/bench.py names its repository and the
command that runs it); the generic kinds' are those tools/kinds_corpus checks against: SQuAD's evaluate-v2.0.py and
sacreBLEU for text, trec_eval for ranking, scikit-learn and SciPy (read with pandas) for classification and
regression. None of their code is part of this project: bench/official.py finds it at run time in the checkouts or
mirrors named by --official or $OFFICIAL_SCORERS, and a scorer not found there is reported as not run.

Each runs in a fresh process, started from a small probe process that caps its address space (RLIMIT_AS) and its
CPU time (RLIMIT_CPU; four times as much wall time), and reads its wall time, CPU time and peak RSS (ru_maxrss of
the finished child). What an official scorer needs in another layout
than the run's (toxic-spans' gold as <id><TAB><list>, SQuAD's dataset JSON, sacreBLEU's line files) is written
before it starts and is not timed; the submission file itself is read as it is, except for sacreBLEU (its
hypotheses one a line, in the gold's order).
"""
import importlib.util
import json
import os
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from codalab_bundles.loading import load_file  # noqa: E402
import official  # noqa: E402  (bench/official.py)


WALL_FACTOR = 4  # the wall time cap, in CPU time caps


class CannotRun(Exception):
    """The official scorer cannot be run on this run's files (why is the message)."""


_PROBE = """
import json, resource, subprocess, sys, time
limit, timeout, wall, cwd = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]


def cap():
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CPU, (int(timeout), int(timeout) + 5))


started = time.time()
try:
    # the wall time cap only backs the CPU time cap up (a shared machine may give the scorer a fraction of a core)
    proc = subprocess.run(sys.argv[5:], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=cap,
                          timeout=wall)
    code, out, err = proc.returncode, proc.stdout, proc.stderr
except subprocess.TimeoutExpired as exc:
    code, out, err = None, exc.stdout or b"", exc.stderr or b""
elapsed = time.time() - started
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps([code, elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss,
                  out[-4000:].decode("utf-8", "replace"), err[-4000:].decode("utf-8", "replace")]))
"""


def measure(command, cwd, memory_mb, timeout):
    """(exit status or None when stopped, wall seconds, CPU seconds, peak RSS in MB, stdout tail, stderr tail) of
    ``command``, capped at ``memory_mb`` of address space and ``timeout`` seconds of CPU time (WALL_FACTOR times as
    much wall time)."""
    probe = subprocess.run([sys.executable, "-c", _PROBE, str(memory_mb * 1024 * 1024), str(timeout),
                            str(WALL_FACTOR * timeout), cwd] + command, stdout=subprocess.PIPE, check=True)
    code, seconds, cpu, peak_kb, out, err = json.loads(probe.stdout.decode())
    return code, seconds, cpu, peak_kb / 1024.0, out, err


def outcome(code, out, err, output_dir, memory_mb, timeout):
    """What the official scorer did, in a few words: scored (its first figures), refused, crashed, out of memory."""
    lines = [line.strip() for line in err.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    if code is None:
        return False, "cannot run: still running after %d s of wall time (stopped)" % (WALL_FACTOR * timeout)
    if code == -signal.SIGXCPU:
        return False, "cannot run: still running after %d s of CPU time (stopped)" % timeout
    if code != 0 and ("MemoryError" in err or "Cannot allocate" in err or "std::bad_alloc" in err
                      or "malloc" in err.lower() or code == -9):
        return False, "cannot run: out of memory (address space capped at %d MB): %s" % (memory_mb, last[:60])
    if code != 0:
        kind = "crashed" if "Traceback" in err else "refused"
        return False, "cannot run: %s (exit %d): %s" % (kind, code, last[:90])
    figures = ""
    scores = os.path.join(output_dir, "scores.txt")
    if os.path.isfile(scores):
        with open(scores) as handle:
            figures = " ".join(line.strip() for line in handle if line.strip())
    if not figures:
        figures = " ".join(line.strip() for line in out.splitlines() if line.strip() and "Missing" not in line)
    return True, "scored: %s" % " ".join(figures.split())[:90]


class Tools(object):
    """Finds (once) the official scorers' code under the search roots, in a scratch folder."""

    def __init__(self, search, scratch):
        self.search, self.scratch, self._found = search, scratch, {}

    def code(self, repo, paths):
        key = (repo, tuple(paths))
        if key not in self._found:
            folder = os.path.join(self.scratch, repo.replace("/", "+"), str(len(self._found)))
            self._found[key] = official.extract(self.search, repo, list(paths), folder)
        if self._found[key] is None:
            raise CannotRun("not run: %s not found under %s" % (
                official.describe(repo, paths), os.pathsep.join(self.search) or "$%s (not set)" % official.ENV))
        return self._found[key]

    def trec_eval(self, revision):
        """trec_eval built (make) from usnistgov/trec_eval's source at ``revision`` (a tag), once."""
        key = "trec_eval " + revision
        if key not in self._found:
            source = official.export(self.search, "usnistgov/trec_eval", os.path.join(self.scratch, key),
                                     "trec_eval.c", revision)
            binary = None
            if source is not None:
                built = subprocess.run(["make"], cwd=source, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                binary = os.path.join(source, "trec_eval") if built.returncode == 0 else None
            self._found[key] = binary
        if self._found[key] is None:
            raise CannotRun("not run: usnistgov/trec_eval %s not found or not built under %s" % (
                revision, os.pathsep.join(self.search) or "$%s (not set)" % official.ENV))
        return self._found[key]


def _bench(task):
    return load_file(os.path.join(ROOT, "bundles", task, "bench.py"))


def _one(folder, pattern_end):
    names = sorted(n for n in os.listdir(folder) if n.endswith(pattern_end))
    if len(names) != 1:
        raise CannotRun("cannot run: %s holds %d files ending in %s" % (folder, len(names), pattern_end))
    return os.path.join(folder, names[0])


def _as_task_input(input_dir, work, gold_name, gold_path):
    """An input folder laid out as the task's bench.py expects it: ref/<gold_name> and the run's res."""
    laid = os.path.join(work, "input")
    os.makedirs(os.path.join(laid, "ref"))
    os.symlink(os.path.realpath(gold_path), os.path.join(laid, "ref", gold_name))
    os.symlink(os.path.realpath(os.path.join(input_dir, "res")), os.path.join(laid, "res"))
    return laid


def _task_scorer(task, gold_name=None, gold_end=None):
    """The command of bundles/<task>/bench.py's official_command, on this run's gold (renamed as it expects)."""
    def prepare(tools, input_dir, work):
        module = _bench(task)
        code_dir = tools.code(module.OFFICIAL_REPO, module.OFFICIAL_FILES)
        laid = input_dir
        if gold_name:
            laid = _as_task_input(input_dir, work, gold_name, _one(os.path.join(input_dir, "ref"), gold_end))
        return [sys.executable] + module.official_command(code_dir, laid, work)
    return prepare


# recipe-mpr's form 2 (a list of the dataset's own query objects with a `pred` text), as the authors' baselines
# pass predictions to their evaluate(): one predicted option text per query, in the gold's order.
_RECIPE_FORM2 = """
import json, sys
sys.path.insert(0, sys.argv[1])
from eval import evaluate
queries = json.load(open(sys.argv[2], encoding="utf-8"))
predicted = dict((item["query"], item["pred"]) for item in json.load(open(sys.argv[3], encoding="utf-8")))
evaluate(queries, [predicted.get(query["query"]) for query in queries])
"""


def _recipe_mpr(tools, input_dir, work):
    prediction = os.path.join(input_dir, "res", "predictions.json")
    with open(prediction, "rb") as handle:
        form2 = handle.read(64).lstrip().startswith(b"[")
    if not form2:
        return _task_scorer("recipe-mpr")(tools, input_dir, work)
    module = _bench("recipe-mpr")
    code_dir = tools.code(module.OFFICIAL_REPO, module.OFFICIAL_FILES)
    return [sys.executable, "-c", _RECIPE_FORM2, code_dir, os.path.join(input_dir, "ref", "test.json"), prediction]


_CLASSIFICATION = """
import sys
import pandas as pd
from sklearn.metrics import accuracy_score, f1_score
gold = pd.read_csv(sys.argv[1], dtype=str).set_index("id")["label"]
predicted = pd.read_csv(sys.argv[2], dtype=str).set_index("id")["label"].reindex(gold.index)
print("accuracy", accuracy_score(gold, predicted), "f1_macro", f1_score(gold, predicted, average="macro"))
"""

_REGRESSION = """
import sys
import pandas as pd
from scipy.stats import pearsonr, spearmanr
gold = pd.read_csv(sys.argv[1]).set_index("id")["score"]
predicted = pd.read_csv(sys.argv[2]).set_index("id")["score"].reindex(gold.index)
print("pearson", pearsonr(gold, predicted)[0], "spearman", spearmanr(gold, predicted)[0])
"""


def _library(driver, gold, submission):
    def prepare(tools, input_dir, work):
        return [sys.executable, "-c", driver, os.path.join(input_dir, "ref", gold),
                os.path.join(input_dir, "res", submission)]
    return prepare


def _gold_texts(input_dir):
    with open(os.path.join(input_dir, "ref", "gold.json"), encoding="utf-8") as handle:
        return json.load(handle)


def _squad(tools, input_dir, work):
    """SQuAD 2.0's evaluate-v2.0.py on the run's predictions.json as it is; the gold as a SQuAD dataset."""
    code_dir = tools.code("qwang70/bert", ("evaluate-v2.0.py",))
    dataset = {"version": "v2.0", "data": [{"title": "gold", "paragraphs": [{"context": "", "qas": [
        {"id": qid, "question": "", "is_impossible": False, "answers": [{"text": text, "answer_start": 0}]}
        for qid, text in sorted(_gold_texts(input_dir).items())]}]}]}
    gold = os.path.join(work, "dataset.json")
    with open(gold, "w", encoding="utf-8") as handle:
        json.dump(dataset, handle)
    return [sys.executable, os.path.join(code_dir, "evaluate-v2.0.py"), gold,
            os.path.join(input_dir, "res", "predictions.json")]


def _sacrebleu(tools, input_dir, work):
    """sacreBLEU's command line (BLEU) on the references and the hypotheses, one a line in the gold's order."""
    if importlib.util.find_spec("sacrebleu") is None:
        raise CannotRun("not run: sacrebleu is not installed in %s" % sys.executable)
    gold = sorted(_gold_texts(input_dir).items())
    with open(os.path.join(input_dir, "res", "predictions.json"), encoding="utf-8") as handle:
        predicted = json.load(handle)
    names = os.path.join(work, "refs.txt"), os.path.join(work, "hyps.txt")
    for name, texts in zip(names, ([text for _, text in gold], [predicted.get(qid, "") for qid, _ in gold])):
        with open(name, "w", encoding="utf-8") as handle:
            handle.writelines(" ".join(text.split()) + "\n" for text in texts)
    del predicted
    return [sys.executable, "-m", "sacrebleu", names[0], "-i", names[1], "-m", "bleu", "-b"]


def _trec_eval(revision, flags):
    def prepare(tools, input_dir, work):
        return [tools.trec_eval(revision)] + flags + ["-m", "ndcg_cut.10", os.path.join(input_dir, "ref", "qrels.txt"),
                                              os.path.join(input_dir, "res", "run.txt")]
    return prepare


def _cannot(reason):
    def prepare(tools, input_dir, work):
        raise CannotRun(reason)
    return prepare


_CHEERS = _cannot("none runs: the organizers' first script scores a sentence without reading the prediction, the "
                  "later one crashes once a sentence is predicted relevant (spec/tasks/cheers.md)")
_CONLLEVAL = _cannot("cannot run: conlleval.pl reads one file with each token's gold and predicted tags side by "
                     "side; a prediction whose tokens or sentences are not the gold's cannot be laid beside it")

# Shape name prefix -> [(the scorer's name, prepare(tools, input_dir, work) -> command)]; the longest prefix wins.
SCORERS = {
    "cheers": [("organizers' scripts", _CHEERS)],
    "ehealth-kd": [("ehealthkd-2019 eval.py", _task_scorer("ehealth-kd"))],
    "food-hazard": [("compute_score (notebook)", _task_scorer("food-hazard", "incidents_test.csv", ".csv"))],
    "recipe-mpr": [("Recipe-MPR eval.py", _recipe_mpr)],
    "toxic-spans": [("semeval2021.py", _task_scorer("toxic-spans", "tsd_test.csv", ".csv"))],
    "classification": [("pandas + scikit-learn", _library(_CLASSIFICATION, "gold.csv", "predictions.csv"))],
    "regression": [("pandas + SciPy", _library(_REGRESSION, "gold.csv", "predictions.csv"))],
    "text": [("SQuAD evaluate-v2.0.py", _squad)],
    "text valid huge": [("SQuAD evaluate-v2.0.py", _squad), ("sacreBLEU (BLEU)", _sacrebleu)],
    "sequence": [("conlleval.pl", _CONLLEVAL)],
    # 9.0.8: the version tools/kinds_corpus checks the kind against; 10.0 (2026) exits when a qrels query has no
    # ranking unless -c is given
    "ranking 7 M unknown queries": [("trec_eval 9.0.8", _trec_eval("v9.0.8", [])),
                                    ("trec_eval 10.0", _trec_eval("HEAD", []))],
    "ranking valid huge query": [("trec_eval 9.0.8 -c", _trec_eval("v9.0.8", ["-c"])),
                                 ("trec_eval 10.0 -c", _trec_eval("HEAD", ["-c"]))],
}


def scorers(shape_name):
    """The official scorers of a run, by its name: [(scorer name, prepare)]."""
    keys = [key for key in SCORERS if shape_name.startswith(key)]
    return SCORERS[max(keys, key=len)] if keys else []


def run(prepare, tools, input_dir, work, memory_mb, timeout):
    """(scored, wall seconds, CPU seconds, peak MB, what it did): the figures None when it could not be started."""
    output_dir = os.path.join(work, "out")
    try:
        command = prepare(tools, input_dir, work)
    except CannotRun as exc:
        return False, None, None, None, str(exc)
    if command and command[-1] == work:  # the programs that take INPUT OUTPUT write into OUTPUT: give them out/
        command[-1] = output_dir
        os.makedirs(output_dir)
    code, seconds, cpu, peak, out, err = measure(command, work, memory_mb, timeout)
    scored, said = outcome(code, out, err, output_dir, memory_mb, timeout)
    return scored, seconds, cpu, peak, said
