"""Kind ranking (qrels gold, TREC run) at 100x a real test set against pytrec_eval and ir_measures: time, peak RSS.

    python3 bench/kind_ranking.py [--copies 100] [--mirrors DIR]

The test set is TREC CAsT 2021 (tests/data_manifests/ranking.json: its graded qrels, 19,334 judgments of 158
queries, and the organizers' BM25 document run, 18,570 lines of 239 queries), copied --copies times with the
query ids renamed. Each tool runs in its own subprocess, reading the two files and writing the mean nDCG@10, MAP,
MRR@10, P@10 and R@100 at relevance threshold 2 (trec_eval -l2, averaged over the run's judged queries, trec_eval's
default); the table gives the wall and CPU time, the peak RSS (resource.getrusage of the child) and the nDCG@10
each found.
The generic program is run as the platform runs it (evaluate.py INPUT OUTPUT), so its time includes writing
scores.json and the detailed results.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = json.loads((ROOT / "tests" / "data_manifests" / "ranking.json").read_text(encoding="utf-8"))
CAST = "daltonj/treccastweb"
QRELS, RUN = "2021/trec-cast-qrels-docs.2021.qrel", "2021/baselines/document_runs/org_manual_bm25.run"
KEYS = ["ndcg_at_10", "map", "mrr_at_10", "p_at_10", "recall_at_100"]

PYTREC = r"""
import sys, json, pytrec_eval
qrels, run = {}, {}
with open(sys.argv[1]) as handle:
    for line in handle:
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
with open(sys.argv[2]) as handle:
    for line in handle:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
measures = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"}
per_query = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=2).evaluate(run)
print(json.dumps({"ndcg_at_10": sum(v["ndcg_cut_10"] for v in per_query.values()) / len(per_query)}))
"""

IR_MEASURES = r"""
import sys, json, ir_measures
from ir_measures import nDCG, AP, RR, P, R
measures = [nDCG@10, AP(rel=2), RR(rel=2)@10, P(rel=2)@10, R(rel=2)@100]
result = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(sys.argv[1]),
                                    ir_measures.read_trec_run(sys.argv[2]))
print(json.dumps({"ndcg_at_10": result[nDCG@10]}))
"""


def mirror_text(repo, path, mirrors):
    source = next(s for s in MANIFEST["sources"] if s["repo"] == repo)
    git_dir = Path(mirrors) / repo.replace("/", "+") / "repo"
    proc = subprocess.run(["git", "--git-dir", str(git_dir), "show", "%s:%s" % (source["commit"], path)],
                          capture_output=True)
    if proc.returncode != 0:
        sys.exit("the real data is not available: %s:%s in %s (fetch the mirror, or give --mirrors)"
                 % (repo, path, git_dir))
    return proc.stdout.decode("utf-8")


def copies(text, n, query_column=0):
    """``text``'s lines ``n`` times, the query ids renamed per copy (id + '#' + copy)."""
    out = []
    for copy in range(n):
        for line in text.splitlines():
            parts = line.split()
            if parts:
                parts[query_column] += "#%d" % copy
                out.append(" ".join(parts) + "\n")
    return "".join(out)


def isolated(command, env=None):
    """(wall seconds, CPU seconds, peak RSS in MiB, stdout) of ``command``, run through a helper process so that
    the CPU time and peak RSS are its own (RUSAGE_CHILDREN of the helper). CPU time (user + system) is the fair
    comparison on a shared machine, where the wall time also counts other processes."""
    helper = ("import resource, subprocess, sys, time, json; start = time.perf_counter(); "
              "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
              "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
              "print(json.dumps([p.returncode, time.perf_counter() - start, u.ru_utime + u.ru_stime, "
              "u.ru_maxrss / 1024.0, p.stdout, p.stderr[-2000:]]))")
    proc = subprocess.run([sys.executable, "-c", helper] + command, capture_output=True, text=True, env=env)
    code, seconds, cpu, peak, out, err = json.loads(proc.stdout)
    if code != 0:
        sys.exit("%s failed: %s" % (" ".join(command[:3]), err))
    return seconds, cpu, peak, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--mirrors", default=os.environ.get("MIRRORS_DIR") or str(ROOT.parent / ".mirror"))
    args = parser.parse_args(argv)
    qrels, run = mirror_text(CAST, QRELS, args.mirrors), mirror_text(CAST, RUN, args.mirrors)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-ranking-") as folder:
        folder = Path(folder)
        for sub in ("input/ref", "input/res"):
            (folder / sub).mkdir(parents=True)
        qrels_path, run_path = folder / "input" / "ref" / "qrels.txt", folder / "input" / "res" / "run.txt"
        qrels_path.write_text(copies(qrels, args.copies))
        run_path.write_text(copies(run, args.copies))
        config = folder / "scoring.json"
        config.write_text(json.dumps({"kind": "ranking", "reference": "qrels.txt", "submission": "run.txt",
                                      "keys": KEYS, "relevance_threshold": 2, "missing_queries": "skip"}))
        env = dict(os.environ, GENERIC_SCORING_CONFIG=str(config))
        seconds, cpu, peak, _ = isolated([sys.executable, str(ROOT / "scoring_programs" / "generic" / "evaluate.py"),
                                     str(folder / "input"), str(folder / "output")], env)
        ours = json.loads((folder / "output" / "scores.json").read_text())["ndcg_at_10"]
        rows.append(("generic ranking (evaluate.py)", seconds, cpu, peak, ours))
        for name, code in (("pytrec_eval (trec_eval)", PYTREC), ("ir_measures", IR_MEASURES)):
            seconds, cpu, peak, out = isolated([sys.executable, "-c", code, str(qrels_path), str(run_path)])
            rows.append((name, seconds, cpu, peak, json.loads(out.strip().splitlines()[-1])["ndcg_at_10"]))
        lines = (sum(1 for _ in qrels_path.open()), sum(1 for _ in run_path.open()))
    print("TREC CAsT 2021 x%d: %d qrels lines, %d run lines; keys %s, threshold 2"
          % (args.copies, lines[0], lines[1], ", ".join(KEYS)))
    print("%-32s %9s %9s %14s %20s" % ("tool", "wall s", "CPU s", "peak RSS MiB", "nDCG@10"))
    for name, seconds, cpu, peak, value in rows:
        print("%-32s %9.2f %9.2f %14.1f %20.15f" % (name, seconds, cpu, peak, value))
    base = rows[0]
    for name, seconds, cpu, peak, _ in rows[1:]:
        print("vs %s: %.2fx faster (CPU), %.2fx less memory" % (name, cpu / base[2], peak / base[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
