#!/usr/bin/env python3
"""Benchmark the scoring programs at 1x, 10x and 100x their real test size.

  python3 bench/run.py [TASK ...] [--scales 1,10,100] [--repeat 3] [--repeat-large 1] [--no-build]

Each bundles/<task>/bench.py writes synthetic input/ref and input/res for a scale (make_input, and any VARIANTS:
other paths users take, as (label, make_input) pairs); this driver runs scoring_programs/<task>/evaluate.py on them
in a fresh interpreter (so interpreter start is included) and reports the best wall time of --repeat runs and the
program's peak resident memory. A bench.py with make_gold(folder, scale) -> {split: gold folder} has the task's
build timed too (build_bundle.py build --reference SPLIT=FOLDER, sample replays included), in a second table.

With --official DIR (or OFFICIAL_SCORERS), the organizers' own scorer of each task that has one is timed the same
way on the same inputs, each of its runs right after one of ours (see bench/official.py); a task whose scorer is not
found is reported without it.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUNDLES = ROOT / "bundles"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from codalab_bundles.loading import load_file  # noqa: E402

import official  # noqa: E402  (bench/official.py)


def load(task):
    return load_file(BUNDLES / task / "bench.py")


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


def run_probe(command):
    """(exit status, seconds, peak RSS in MiB, stderr) of one run of ``command``."""
    probe = subprocess.run([sys.executable, "-c", _PROBE] + command, stdout=subprocess.PIPE, check=True)
    code, elapsed, max_rss_kib, stderr = json.loads(probe.stdout.decode())
    return code, elapsed, max_rss_kib / 1024.0, stderr


def measure(task, input_dir, output_dir):
    """(seconds, peak RSS in MiB) of one scoring run."""
    if output_dir.exists():
        shutil.rmtree(str(output_dir))
    command = [sys.executable, str(ROOT / "scoring_programs" / task / "evaluate.py"), str(input_dir), str(output_dir)]
    code, elapsed, memory, stderr = run_probe(command)
    if code != 0:
        raise SystemExit("%s failed on the benchmark input: %s" % (task, stderr))
    return elapsed, memory


def measure_official(module, code_dir, input_dir, work, python):
    """(seconds, peak RSS in MiB) of the official scorer on the same input, or a note saying why there is none."""
    if work.exists():
        shutil.rmtree(str(work))
    work.mkdir()
    command = [python] + module.official_command(str(code_dir), input_dir, str(work))
    code, elapsed, memory, stderr = run_probe(command)
    if code != 0:
        return "failed (exit %d): %s" % (code, stderr.strip().splitlines()[-1] if stderr.strip() else "")
    return elapsed, memory


def measure_build(task, references, dist):
    """(seconds, peak RSS in MiB of the builder or any program it ran) of one build of ``task``."""
    if dist.exists():
        shutil.rmtree(str(dist))
    command = [sys.executable, str(ROOT / "build_bundle.py"), "build", "--task", task, "--dist", str(dist)]
    for split, folder in sorted(references.items()):
        command += ["--reference", "%s=%s" % (split, folder)]
    code, elapsed, memory, stderr = run_probe(command)
    if code != 0:
        raise SystemExit("the build of %s failed on the benchmark gold: %s" % (task, stderr))
    return elapsed, memory


def _cells(result):
    return ("%.3f" % result[0], "%.0f" % result[1]) if isinstance(result, tuple) else ("-", "-")


def _repeat(args, scale):
    return args.repeat if scale < 100 else args.repeat_large


def time_case(label, task, module, make_input, code_dir, scales, args, notes):
    """Print a row per scale: our program and, with ``code_dir``, the official scorer, on make_input's input."""
    base = None
    for scale in scales:
        work = Path(tempfile.mkdtemp(prefix="bench-%s-%d-" % (task, scale)))
        other = None
        try:
            make_input(work / "input", scale)
            # The two programs take turns, so that a slow spell of a shared machine falls on both.
            runs, others = [], []
            for _ in range(_repeat(args, scale)):
                runs.append(measure(task, work / "input", work / "output"))
                if code_dir is not None:
                    others.append(measure_official(module, code_dir, work / "input", work / "official",
                                                   args.official_python))
            seconds = min(r[0] for r in runs)
            memory = max(r[1] for r in runs)
            if code_dir is not None:
                failed = [o for o in others if not isinstance(o, tuple)]
                if failed:
                    notes.append("%s %dx: official scorer %s" % (label, scale, failed[0]))
                else:
                    other = (min(o[0] for o in others), max(o[1] for o in others))
        finally:
            shutil.rmtree(str(work), ignore_errors=True)
        base = base or seconds
        ratio = "%.1f" % (other[0] / seconds) if other else "-"
        print("| %s | %s | %dx | %.3f | %.0f | %.1f | %s | %s | %s |" % (
            (label, module.REAL_SIZE, scale, seconds, memory, seconds / base) + _cells(other) + (ratio,)))
        sys.stdout.flush()


def time_builds(names, scales, args):
    """A table of build times with each task's make_gold at each scale (no official counterpart)."""
    tasks = [(name, load(name)) for name in names]
    tasks = [(name, module) for name, module in tasks if hasattr(module, "make_gold")]
    if not tasks:
        return
    print("\n| build | real size | scale | seconds | peak MiB | seconds / 1x |")
    print("|---|---|---|---|---|---|")
    for name, module in tasks:
        base = None
        for scale in scales:
            work = Path(tempfile.mkdtemp(prefix="bench-build-%s-%d-" % (name, scale)))
            try:
                references = module.make_gold(work / "gold", scale)
                runs = [measure_build(name, references, work / "dist") for _ in range(_repeat(args, scale))]
            finally:
                shutil.rmtree(str(work), ignore_errors=True)
            seconds, memory = min(r[0] for r in runs), max(r[1] for r in runs)
            base = base or seconds
            print("| %s | %s | %dx | %.3f | %.0f | %.1f |" % (name, module.REAL_SIZE, scale, seconds, memory,
                                                            seconds / base))
            sys.stdout.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="*", help="task names (default: every task with a bundles/<task>/bench.py)")
    parser.add_argument("--scales", default="1,10,100")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size below 100x (best is kept)")
    parser.add_argument("--repeat-large", type=int, default=1, help="runs at 100x and above (best is kept)")
    parser.add_argument("--official", default=None, metavar="DIR",
                        help="folder(s) holding checkouts or mirrors of the official scorers (default: $%s)"
                             % official.ENV)
    parser.add_argument("--official-python", default=sys.executable,
                        help="interpreter for the official scorers (needs their packages: pandas, scikit-learn, "
                             "numpy, scipy)")
    parser.add_argument("--no-build", action="store_true", help="do not time the builds")
    args = parser.parse_args(argv)
    search = official.roots(args.official)
    names = args.tasks or sorted(p.parent.name for p in BUNDLES.glob("*/bench.py"))
    scales = [int(s) for s in args.scales.split(",")]
    print("| task | real size | scale | seconds | peak MiB | seconds / 1x | official seconds | official peak MiB "
          "| official / ours (time) |")
    print("|---|---|---|---|---|---|---|---|---|")
    notes = []
    for task in names:
        module = load(task)
        scratch = Path(tempfile.mkdtemp(prefix="bench-official-%s-" % task))
        code_dir = None
        if hasattr(module, "OFFICIAL_REPO"):
            code_dir = official.extract(search, module.OFFICIAL_REPO, module.OFFICIAL_FILES, str(scratch / "code"))
            if code_dir is None:
                notes.append("%s: official scorer not run: %s not found in %s" % (
                    task, official.describe(module.OFFICIAL_REPO, module.OFFICIAL_FILES),
                    os.pathsep.join(search) or "(no --official folder or $%s given)" % official.ENV))
        else:
            notes.append("%s: no official scorer to compare with" % task)
        cases = [(task, module.make_input)] + [("%s, %s" % (task, label), make_input)
                                               for label, make_input in getattr(module, "VARIANTS", ())]
        try:
            for label, make_input in cases:
                time_case(label, task, module, make_input, code_dir, scales, args, notes)
        finally:
            shutil.rmtree(str(scratch), ignore_errors=True)
    if not args.no_build:
        time_builds(names, scales, args)
    for note in notes:
        print("\n" + note if note is notes[0] else note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
