#!/usr/bin/env python3
"""Benchmark the scoring programs at 1x, 10x and 100x their real test size.

  python3 bench/run.py [TASK ...] [--scales 1,10,100] [--repeat 3]

Each bench/tasks/<task>.py writes synthetic input/ref and input/res for a scale; this driver runs
scoring_programs/<task>/evaluate.py on them in a fresh interpreter (so interpreter start is included) and reports the
best wall time of --repeat runs and the program's peak resident memory.
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TASKS = Path(__file__).resolve().parent / "tasks"
sys.path.insert(0, str(ROOT))

from codalab_bundles.loading import load_file  # noqa: E402


def load(name):
    return load_file(TASKS / (name + ".py"))


# Runs the scoring program from a small, fresh process: a child forked from this (large) driver would count the
# driver's memory in its peak RSS until it execs.
_PROBE = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
elapsed = time.perf_counter() - started
print(json.dumps([proc.returncode, elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                  proc.stderr.decode("utf-8", "replace")]))
"""


def measure(task, input_dir, output_dir):
    """(seconds, peak RSS in MiB) of one scoring run."""
    if output_dir.exists():
        shutil.rmtree(str(output_dir))
    command = [sys.executable, str(ROOT / "scoring_programs" / task / "evaluate.py"), str(input_dir), str(output_dir)]
    probe = subprocess.run([sys.executable, "-c", _PROBE] + command, stdout=subprocess.PIPE, check=True)
    code, elapsed, max_rss_kib, stderr = json.loads(probe.stdout.decode())
    if code != 0:
        raise SystemExit("%s failed on the benchmark input: %s" % (task, stderr))
    return elapsed, max_rss_kib / 1024.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="*", help="task names (default: every bench/tasks/*.py)")
    parser.add_argument("--scales", default="1,10,100")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size below 100x (best is kept)")
    args = parser.parse_args(argv)
    names = [t.replace("-", "_") for t in args.tasks] or sorted(p.stem for p in TASKS.glob("*.py"))
    scales = [int(s) for s in args.scales.split(",")]
    print("| task | real size | scale | seconds | peak MiB | seconds / 1x |")
    print("|---|---|---|---|---|---|")
    for name in names:
        module = load(name)
        task = name.replace("_", "-")
        base = None
        for scale in scales:
            work = Path(tempfile.mkdtemp(prefix="bench-%s-%d-" % (task, scale)))
            try:
                module.make_input(work / "input", scale)
                runs = [measure(task, work / "input", work / "output")
                        for _ in range(args.repeat if scale < 100 else 1)]
                seconds = min(r[0] for r in runs)
                memory = max(r[1] for r in runs)
            finally:
                shutil.rmtree(str(work), ignore_errors=True)
            base = base or seconds
            print("| %s | %s | %dx | %.3f | %.0f | %.1f |" % (task, module.REAL_SIZE, scale, seconds, memory,
                                                              seconds / base))
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
