#!/usr/bin/env python3
"""Benchmark the scoring programs at 1x, 10x and 100x their real test size.

  python3 bench/run.py [TASK ...] [--scales 1,10,100] [--repeat 3]

Each bench/tasks/<task>.py writes synthetic input/ref and input/res for a scale; this driver runs
scoring_programs/<task>/evaluate.py on them in a fresh interpreter (so interpreter start is included) and reports the
best wall time of --repeat runs and the child's peak resident memory (from wait4's rusage).
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TASKS = Path(__file__).resolve().parent / "tasks"


def load(name):
    spec = importlib.util.spec_from_file_location("bench_" + name, str(TASKS / (name + ".py")))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(task, input_dir, output_dir):
    """(seconds, peak RSS in MiB, exit code) of one scoring run."""
    if output_dir.exists():
        shutil.rmtree(str(output_dir))
    command = [sys.executable, str(ROOT / "scoring_programs" / task / "evaluate.py"), str(input_dir), str(output_dir)]
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit("%s failed on the benchmark input: %s" % (task, proc.stderr.read().decode()))
    return elapsed, usage.ru_maxrss / 1024.0


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
