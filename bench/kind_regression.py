#!/usr/bin/env python3
"""The generic kind regression at 100x a real test set against scipy / scikit-learn: time and peak memory.

  python3 bench/kind_regression.py [--times 100] [--repeat 3]

Data: the STS Benchmark test set (1379 pairs; tests/data_manifests/regression.json says where it comes from; the
mirror under /work/.mirror or $MIRROR_ROOT), repeated --times times with distinct ids; the predictions are a word
overlap system's plus a small deterministic jitter, so that they are nearly all distinct (the rank keys cannot
profit from repeated pairs). Without the mirror, synthetic data of the same size and shape.

Each side runs in its own process from a cold start, reading the same gold and prediction CSV files:
- ours: scoring_programs/generic/evaluate.py INPUT OUTPUT (every key: writes scores.txt, scores.json and the
  detailed page, as on the platform);
- reference: a script that reads both files with the csv module, matches them by id and calls scipy.stats
  pearsonr, spearmanr, kendalltau and sklearn.metrics mean_absolute_error, mean_squared_error, r2_score
  (cohen_kappa_score for qwk).
Time: the wall clock of the process and its CPU time (user + system; steadier on a shared machine), medians of
--repeat runs; memory: its peak RSS (resource.getrusage of the children, in a fresh measuring process each time). Two configurations: the six continuous keys, and qwk (gold and
predictions rounded to the labels 0..5) with pearson.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = json.loads((ROOT / "tests" / "data_manifests" / "regression.json").read_text())["files"]
MIRRORS = Path(os.environ.get("MIRROR_ROOT", "/work/.mirror"))

MEASURE = r"""
import resource, subprocess, sys, time
start = time.time()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
elapsed = time.time() - start
if proc.returncode:
    sys.stderr.write(proc.stderr.decode()[-2000:])
    sys.exit(proc.returncode)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%f %f %d" % (elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
"""

REFERENCE = r"""
import csv, json, math, sys
gold_path, pred_path, keys = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
from scipy.stats import kendalltau, pearsonr, spearmanr
from sklearn.metrics import cohen_kappa_score, mean_absolute_error, mean_squared_error, r2_score
def read(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return dict((row["id"], float(row["score"])) for row in csv.DictReader(handle))
gold, pred = read(gold_path), read(pred_path)
ids = list(gold)
y, x = [gold[i] for i in ids], [pred[i] for i in ids]
functions = {"pearson": lambda: pearsonr(y, x)[0], "spearman": lambda: spearmanr(y, x)[0],
             "kendall_tau": lambda: kendalltau(y, x)[0], "mae": lambda: mean_absolute_error(y, x),
             "rmse": lambda: math.sqrt(mean_squared_error(y, x)), "r2": lambda: r2_score(y, x),
             "qwk": lambda: cohen_kappa_score(y, x, weights="quadratic", labels=list(range(0, 6)))}
print(json.dumps(dict((key, float(functions[key]())) for key in keys)))
"""


def real_rows():
    entry = MANIFEST["sts_benchmark_test"]
    repo = MIRRORS / entry["repo"].replace("/", "+") / "repo"
    git_dir = repo / ".git" if (repo / ".git").exists() else repo
    shown = subprocess.run(["git", "--git-dir", str(git_dir), "show", "%s:%s" % (entry["commit"], entry["path"])],
                           capture_output=True)
    if shown.returncode:
        return None
    rows = []
    for line in shown.stdout.decode("utf-8").splitlines():
        fields = line.split("\t")
        a, b = set(fields[5].lower().split()), set(fields[6].lower().split())
        rows.append((float(fields[4]), 5.0 * len(a & b) / max(1, len(a | b))))
    return rows


def synthetic_rows(n=1379):
    rng = random.Random(1)
    rows = []
    for _ in range(n):
        gold = round(rng.uniform(0, 5), 1)
        rows.append((gold, min(5.0, max(0.0, gold + rng.gauss(0, 1.2)))))
    return rows


def write_files(folder, rows, times, labels):
    rng = random.Random(12345)
    gold_lines, pred_lines = ["id,score"], ["id,score"]
    for copy in range(times):
        for number, (gold, pred) in enumerate(rows):
            item = "c%d-%d" % (copy, number)
            pred = pred + rng.uniform(-0.05, 0.05)
            if labels:
                gold_lines.append("%s,%d" % (item, int(math.floor(gold + 0.5))))
                pred_lines.append("%s,%d" % (item, min(5, max(0, int(math.floor(pred + 0.5))))))
            else:
                gold_lines.append("%s,%.3f" % (item, gold))
                pred_lines.append("%s,%.6f" % (item, pred))
    for sub, lines, name in (("ref", gold_lines, "gold.csv"), ("res", pred_lines, "predictions.csv")):
        (folder / "input" / sub).mkdir(parents=True, exist_ok=True)
        (folder / "input" / sub / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(gold_lines) - 1


def measure(command, env=None):
    proc = subprocess.run([sys.executable, "-c", MEASURE] + command, capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))
    if proc.returncode:
        raise SystemExit("failed: %s\n%s" % (" ".join(command), proc.stderr))
    elapsed, cpu, rss = proc.stdout.split()
    return float(elapsed), float(cpu), int(rss) / 1024.0


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def compare(folder, keys, config, repeat):
    (folder / "scoring.json").write_text(json.dumps(config))
    env = {"GENERIC_SCORING_CONFIG": str(folder / "scoring.json")}
    ours = [measure([sys.executable, str(ROOT / "scoring_programs" / "generic" / "evaluate.py"),
                     str(folder / "input"), str(folder / "output")], env) for _ in range(repeat)]
    reference_cmd = [sys.executable, "-c", REFERENCE, str(folder / "input" / "ref" / "gold.csv"),
                     str(folder / "input" / "res" / "predictions.csv"), ",".join(keys)]
    theirs = [measure(reference_cmd) for _ in range(repeat)]
    scores = json.loads((folder / "output" / "scores.json").read_text())
    expected = json.loads(subprocess.run(reference_cmd, capture_output=True, text=True, check=True).stdout)
    difference = max(abs(scores[k] - expected[k]) for k in keys)
    return [median(m[0] for m in ours), median(m[1] for m in ours), max(m[2] for m in ours),
            median(m[0] for m in theirs), median(m[1] for m in theirs), max(m[2] for m in theirs), difference]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--times", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = real_rows()
    source = "STS Benchmark test (%d pairs)" % len(rows) if rows else "synthetic (no mirror: see the docstring)"
    rows = rows or synthetic_rows()
    print("data: %s x %d" % (source, args.times))
    print("%-28s %7s | %7s %7s %8s | %7s %7s %8s | %8s %8s | %9s" % (
        "configuration", "items", "wall s", "CPU s", "peak MiB", "wall s", "CPU s", "peak MiB", "wall x", "CPU x",
        "max|diff|"))
    print("%-36s | %-25s | %-25s |" % ("", "ours (generic regression)", "reference (scipy/sklearn)"))
    continuous = ["pearson", "spearman", "kendall_tau", "mae", "rmse", "r2"]
    for name, keys, config, labels in (
            ("6 keys (pearson ... r2)", continuous, {"kind": "regression", "keys": continuous}, False),
            ("qwk, pearson (labels 0..5)", ["qwk", "pearson"],
             {"kind": "regression", "keys": ["qwk", "pearson"], "label_range": [0, 5]}, True)):
        with tempfile.TemporaryDirectory(prefix="bench-regression-") as folder:
            folder = Path(folder)
            items = write_files(folder, rows, args.times, labels)
            ours_t, ours_c, ours_m, ref_t, ref_c, ref_m, diff = compare(folder, keys, config, args.repeat)
            print("%-28s %7d | %7.2f %7.2f %8.1f | %7.2f %7.2f %8.1f | %7.1fx %7.1fx | %9.1e" % (
                name, items, ours_t, ours_c, ours_m, ref_t, ref_c, ref_m, ref_t / ours_t, ref_c / ours_c, diff))


if __name__ == "__main__":
    main()
