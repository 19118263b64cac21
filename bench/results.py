#!/usr/bin/env python3
"""Benchmark ``results`` from a folder: N submissions of a toxic-spans-sized test set (2,000 posts, synthetic, from
bundles/toxic-spans/bench.py), T teams of N / T runs each, rescored through the bundle's program in a process pool.

  python3 bench/results.py [--submissions 1000] [--teams 100] [--jobs CPUS] [--significance-teams 10]

Reports the wall time of the rescoring (``--no-significance``) of all N, and of a table with intervals and
clusters for the first --significance-teams teams (their pairs grow as T (T - 1) / 2).
"""
import argparse
import csv
import importlib.util
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from codalab_bundles.zips import pack  # noqa: E402


def _task_bench():
    spec = importlib.util.spec_from_file_location("toxic_bench", ROOT / "bundles" / "toxic-spans" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_runs(work, submissions, teams):
    bench = _task_bench()
    bench.make_input(work / "input", 1)
    with open(work / "input" / "ref" / "tsd_test.csv", encoding="utf-8", newline="") as handle:
        gold = [eval(row["spans"]) for row in csv.DictReader(handle)]  # noqa: S307 (our own synthetic file)
    for number in range(submissions):
        rng = random.Random(number)
        lines = "".join("%d\t%s\n" % (i, bench._prediction(rng, spans)) for i, spans in enumerate(gold))
        folder = work / "runs" / ("team%03d" % (number % teams))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ("run%03d.zip" % (number // teams))).write_bytes(pack.zip_entries([("spans-pred.txt",
                                                                                      lines.encode())]))
    return work / "input" / "ref", work / "runs"


def timed(command):
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(proc.stderr)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=1000)
    parser.add_argument("--teams", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--significance-teams", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-results-") as folder:
        work = Path(folder)
        ref, runs = make_runs(work, args.submissions, args.teams)
        subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "--task", "toxic-spans", "--dist",
                        str(work / "dist"), "--reference", "test=%s" % ref, "--no-check"], check=True,
                       capture_output=True)
        bundle = str(work / "dist" / "toxic-spans.zip")
        command = [sys.executable, "-m", "codalab_bundles", "results", "--bundle", bundle, "--phase", "2",
                   "--jobs", str(args.jobs)]
        seconds = timed(command + [str(runs), "--no-significance", "-o", str(work / "out")])
        print("rescoring %d submissions (%d teams, 2,000 posts each), %d processes: %.1f s (%.2f s per submission "
              "per process)" % (args.submissions, args.teams, args.jobs, seconds, seconds * args.jobs /
                                args.submissions))
        few = work / "few"
        few.mkdir()
        for team in sorted(os.listdir(runs))[:args.significance_teams]:
            os.symlink(runs / team, few / team)
        pairs = args.significance_teams * (args.significance_teams - 1) // 2
        seconds = timed(command + [str(few), "-o", str(work / "out-few")])
        print("a table with intervals and clusters of %d teams (%d runs rescored, %d pairs, rounds raised to "
              "%d): %.1f s" % (args.significance_teams, args.significance_teams * args.submissions // args.teams,
                               pairs, max(1000, 40 * pairs), seconds))


if __name__ == "__main__":
    main()
