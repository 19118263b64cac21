"""Kind text at scale against the reference implementations: time and peak memory (RSS) of each run.

    python3 bench/kind_text.py [--times 100]

Data (from fetched mirrors, see tests/data_manifests/text.json): WMT17 newstest2017 en-de (3004 segments, one
system's output) and the 500 SQuAD 2.0 dev questions, each repeated --times times under new ids. Each run is a
separate Python process: the generic program (scoring_programs/generic/evaluate.py, every configured key written)
against sacrebleu (corpus_bleu + corpus_chrf), rouge-score (score per segment) and the official SQuAD v2.0 script.
Peak RSS and CPU time (user + system, steadier than the wall clock on a shared machine) are the process's own
getrusage. Needs sacrebleu, rouge-score and numpy (requirements-test.txt).

The copies repeat each segment --times times: sacreBLEU's 13a tokenizer caches up to 2^16 distinct segments
(functools.lru_cache), so its BLEU tokenizes each distinct segment once here; ours tokenizes every segment.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)

import text_mirrors  # noqa: E402

# Runs a script or code as __main__ in this process, then writes its peak RSS (KiB) and CPU seconds to the file
# named first.
_WRAPPER = """
import os, resource, runpy, sys
out, what = sys.argv[1], sys.argv[2]
sys.argv = sys.argv[3:] if what == "-c" else [what] + sys.argv[3:]
try:
    if what == "-c":
        exec(compile(sys.argv[0], "<bench>", "exec"), {"__name__": "__main__"})
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(what)))
        runpy.run_path(what, run_name="__main__")
except SystemExit as exc:
    if exc.code not in (None, 0):
        raise
finally:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    open(out, "w").write("%d %f" % (usage.ru_maxrss, usage.ru_utime + usage.ru_stime))
"""

SACREBLEU = """
import json, sacrebleu
gold = json.load(open("gold.json")); pred = json.load(open("predictions.json"))
ids = list(gold)
hyps = [pred[i] for i in ids]; refs = [[gold[i] for i in ids]]
print(sacrebleu.corpus_bleu(hyps, refs).score, sacrebleu.corpus_chrf(hyps, refs).score)
"""

ROUGE = """
import json, math
from rouge_score import rouge_scorer
gold = json.load(open("gold.json")); pred = json.load(open("predictions.json"))
scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
scores = [scorer.score(gold[i], pred[i]) for i in gold]
print([math.fsum(s[k].fmeasure for s in scores) / len(scores) for k in ("rouge1", "rouge2", "rougeL")])
"""


def measure(folder, what, args, env=None):
    """(wall seconds, peak RSS in MiB, stdout, CPU seconds) of one run in a fresh process."""
    out = os.path.join(folder, "maxrss")
    start = time.time()
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, out, what] + list(args), cwd=folder,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          env=dict(os.environ, **(env or {})))
    seconds = time.time() - start
    if proc.returncode != 0:
        raise SystemExit("%s failed: %s" % (what, proc.stderr[-2000:]))
    with open(out) as handle:
        rss, cpu = handle.read().split()
    return seconds, int(rss) / 1024.0, proc.stdout, float(cpu)


def generic(folder, config):
    path = os.path.join(folder, "scoring.json")
    with open(path, "w") as handle:
        json.dump(config, handle)
    os.makedirs(os.path.join(folder, "out"), exist_ok=True)
    return measure(folder, os.path.join(ROOT, "scoring_programs", "generic", "evaluate.py"),
                   [folder, os.path.join(folder, "out")], {"GENERIC_SCORING_CONFIG": path})


def write(path, obj):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(obj, handle, ensure_ascii=False)


def wmt_folder(base, times):
    data, why = text_mirrors.wmt17()
    if data is None:
        raise SystemExit(why)
    systems, reference = data
    output = systems[sorted(systems)[0]]
    folder = os.path.join(base, "wmt")
    for sub in ("ref", "res"):
        os.makedirs(os.path.join(folder, sub))
    gold, pred = {}, {}
    for copy in range(times):
        for i, (ref, hyp) in enumerate(zip(reference, output)):
            gold["%d-%d" % (copy, i)] = ref
            pred["%d-%d" % (copy, i)] = hyp
    for path, obj in ((os.path.join(folder, "ref", "gold.json"), gold), (os.path.join(folder, "gold.json"), gold),
                      (os.path.join(folder, "res", "predictions.json"), pred),
                      (os.path.join(folder, "predictions.json"), pred)):
        write(path, obj)
    return folder, len(gold)


def squad_folder(base, times):
    found = []
    for path in ("squad2/ground_truth.json", "squad2/queries.json"):
        data, why = text_mirrors.read("squad2", path)
        if data is None:
            raise SystemExit(why)
        found.append(json.loads(data.decode("utf-8")))
    truth, queries = found
    script, why = text_mirrors.read("squad_scripts", "evaluate-v2.0.py")
    if script is None:
        raise SystemExit(why)
    folder = os.path.join(base, "squad")
    for sub in ("ref", "res"):
        os.makedirs(os.path.join(folder, sub))
    with open(os.path.join(folder, "evaluate-v2.0.py"), "wb") as handle:
        handle.write(script)
    paragraphs, pred = [], {}
    for copy in range(times):
        for n, query in enumerate(queries["queries"]):
            qid = "%s-%d" % (query["id"], copy)
            answers = [] if truth[query["id"]]["is_impossible"] else [a for a in truth[query["id"]]["answers"] if a]
            paragraphs.append({"context": query["context"], "qas": [{"id": qid, "question": query["question"],
                                                                     "answers": [{"text": a, "answer_start": 0}
                                                                                 for a in answers]}]})
            words = query["context"].split()
            pred[qid] = answers[0] if answers and n % 3 else " ".join(words[n % 7:n % 7 + 3]) if n % 2 else ""
    dataset = {"version": "v2.0", "data": [{"title": "bench", "paragraphs": paragraphs}]}
    write(os.path.join(folder, "ref", "gold.json"), dataset)
    write(os.path.join(folder, "data.json"), dataset)
    write(os.path.join(folder, "res", "predictions.json"), pred)
    write(os.path.join(folder, "pred.json"), pred)
    return folder, len(pred)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, default=100, help="copies of each test set (default 100)")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-text-") as base:
        folder, n = wmt_folder(base, args.times)
        ours = generic(folder, {"kind": "text", "keys": ["bleu", "chrf"]})
        theirs = measure(folder, "-c", [SACREBLEU])
        rows.append(("bleu + chrf, WMT17 en-de x%d (%d segments)" % (args.times, n), "sacrebleu 2.6.0", ours, theirs))
        ours = generic(folder, {"kind": "text", "keys": ["rouge1", "rouge2", "rouge_l"]})
        theirs = measure(folder, "-c", [ROUGE])
        rows.append(("rouge1/2/L, WMT17 en-de x%d (%d segments)" % (args.times, n), "rouge-score 0.1.2", ours,
                     theirs))
        folder, n = squad_folder(base, args.times)
        ours = generic(folder, {"kind": "text", "keys": ["exact_match", "f1"]})
        theirs = measure(folder, "evaluate-v2.0.py", ["data.json", "pred.json"])
        rows.append(("exact_match + f1, SQuAD 2.0 sample x%d (%d questions)" % (args.times, n),
                     "official evaluate-v2.0.py", ours, theirs))
    print("| data | reference | ours CPU s | theirs CPU s | CPU speed-up | ours wall s | theirs wall s | "
          "ours MiB | theirs MiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for what, reference, ours, theirs in rows:
        print("| %s | %s | %.1f | %.1f | %.2fx | %.1f | %.1f | %.0f | %.0f |" % (
            what, reference, ours[3], theirs[3], theirs[3] / ours[3], ours[0], theirs[0], ours[1], theirs[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
