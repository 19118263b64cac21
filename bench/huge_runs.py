#!/usr/bin/env python3
"""Huge and broken runs of about 200 MB against every task's scoring program and every generic kind: how long
each takes and its peak memory (the process's peak RSS), with what it said.

    python3 bench/huge_runs.py [--only NAME ...] [--mb 200] [--keep DIR]

Each task's bundle is built from the sample data (its test phase: program and gold as the platform gets them);
each generic kind is scored by scoring_programs/generic with a small gold. The shapes:
- refusals: a well-formed start, then rows (members, lines, sentences) the gold does not have, or one line of
  200 MB; each must be refused at its first bad row, within 5 s and 256 MB;
- valid huge runs (the load mix's "huge" run of each task, long texts of the text kind, a 200 MB ranking): each
  must be scored within 1 GB.
Every run is a fresh Python process started as the platform starts it (python3 evaluate.py INPUT OUTPUT); its peak
RSS (VmHWM) and CPU time are read by a wrapper inside it, the wall time here. Linux only (/proc).

A second table, "against the official scorers": on the same files, right after ours, each run's task or kind's own
scorer (bench/huge_official.py says which and how), found under --official or $OFFICIAL_SCORERS (checkouts or
mirrors, as for bench/run.py), in a fresh process capped at --official-memory MB of address space and
--official-timeout seconds of CPU time; both sides' CPU time is shown beside the wall time (per MB in CPU time, which
a busy machine skews less); "cannot run" with why where it crashes, refuses, runs out of memory or time, or is not
found. --no-official leaves it out.
"""
import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from codalab_bundles.authoring import build, taskdef  # noqa: E402
from codalab_bundles.replay.bundle import Bundle  # noqa: E402
import load_mix  # noqa: E402
import huge_official  # noqa: E402
import official  # noqa: E402

REFUSAL_SECONDS, REFUSAL_MB, VALID_MB = 5.0, 256, 1024

_WRAPPER = """
import os, resource, runpy, sys
out, script = sys.argv[1], sys.argv[2]
sys.argv = [script] + sys.argv[3:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
code = 0
try:
    runpy.run_path(script, run_name="__main__")
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 1
finally:
    # VmHWM, the peak RSS of this process's own memory: ru_maxrss would also count what the parent held when it
    # was started (Linux keeps the larger of the two across exec)
    peak = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    open(out, "w").write("%s %f" % (peak, usage.ru_utime + usage.ru_stime))
sys.exit(code)
"""


class Shape(object):
    """A run: ``make()`` gives its files ({name: bytes}), made only when it is run (so that this process never holds
    more than one: a child's peak RSS counts what its parent held when it was started)."""

    def __init__(self, name, expect, program, ref, make, env=None):
        self.name, self.expect, self.program, self.ref, self.make, self.env = name, expect, program, ref, make, env


def _fill(head, make_row, size, tail=b""):
    """head, then rows from make_row(i) until ``size`` bytes, then tail."""
    parts, total, i = [head], len(head), 0
    while total < size:
        rows = b"".join(make_row(j) for j in range(i, i + 10000))
        parts.append(rows)
        total += len(rows)
        i += 10000
    parts.append(tail)
    return b"".join(parts)


def _task_shapes(task, dist, work, size):
    """The shapes of one of the five tasks, on its test phase."""
    bundle_zip = str(build.build_task(taskdef.load_task(task), dist)[0])  # the Codabench bundle
    phase = load_mix.test_phase(bundle_zip)
    bundle = Bundle(bundle_zip)
    info = bundle.phase(phase)
    program, ref = os.path.join(work, task, "program"), os.path.join(work, task, "ref")
    for target, member in ((program, info.scoring_program), (ref, info.reference_data)):
        os.makedirs(target, exist_ok=True)
        zipfile.ZipFile(io.BytesIO(bundle.read(member, member))).extractall(target)
    name, sample, public = load_mix._open_phase(bundle_zip, phase)
    mixer = load_mix.TASKS[name](sample, public)
    # The load mix's huge run, with what it says the platform does with it (Finished: scored; Failed: refused).
    note = mixer.huge(random.Random(0))[1]
    shapes = [Shape("%s load-mix huge (%s)" % (task, note.split(":")[0]),
                    "scored" if note.startswith("Finished") else "refused", program, ref,
                    lambda: mixer.huge(random.Random(0))[0])]
    (file_name, data), = [(n, d) for n, d in sample.items() if not n.endswith("/")][:1]
    if task == "cheers":
        shapes.append(Shape("cheers unknown rows", "refused", program, ref, lambda: {file_name: _fill(
            data, lambda i: b"zz%d,%d,1,-1\n" % (i, i), size)}))
        shapes.append(Shape("cheers one 200 MB line", "refused", program, ref, lambda: {
                            file_name: data.split(b"\n")[0] + b"\n1," + b"9" * size + b",1,-1\n"}))
    elif task == "food-hazard":
        row = data.split(b"\n")[1].split(b",", 1)[1]
        shapes.append(Shape("food-hazard unknown ids", "refused", program, ref, lambda: {file_name: _fill(
            data, lambda i: b"%d,%s\n" % (10 ** 6 + i, row), size)}))
    elif task == "toxic-spans":
        shapes.append(Shape("toxic-spans unknown ids", "refused", program, ref, lambda: {file_name: _fill(
            data, lambda i: b"%d\t[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n" % (10 ** 6 + i), size)}))
        shapes.append(Shape("toxic-spans one 200 MB line", "refused", program, ref, lambda: {
            file_name: b"0\t[" + b"1, " * (size // 3) + b"2]\n"}))
    elif task == "recipe-mpr":
        head = json.dumps(json.loads(data))[:-1].encode()
        shapes.append(Shape("recipe-mpr unknown queries", "refused", program, ref, lambda: {file_name: _fill(
            head, lambda i: b', "zz%07d": "0123456789"' % i, size, b"}")}))
    elif task == "ehealth-kd":
        pass  # its huge run is valid (duplicate keyphrases); its format has no ids to get wrong by the million
    return shapes


def _generic_shapes(work, size):
    """The generic kinds with a small gold: (config, gold files, shapes)."""
    cases = []

    def add(name, expect, config, gold, make):
        folder = os.path.join(work, "generic", name.replace(" ", "-"))
        ref = os.path.join(folder, "ref")
        os.makedirs(ref, exist_ok=True)
        for file_name, text in gold.items():
            with open(os.path.join(ref, file_name), "w") as handle:
                handle.write(text)
        with open(os.path.join(folder, "scoring.json"), "w") as handle:
            json.dump(config, handle)
        cases.append(Shape(name, expect, os.path.join(ROOT, "scoring_programs", "generic"), ref, make,
                           {"GENERIC_SCORING_CONFIG": os.path.join(folder, "scoring.json")}))

    ids = "id,label\n1,a\n2,b\n3,a\n"
    add("classification unknown ids", "refused", {"kind": "classification"}, {"gold.csv": ids},
        lambda: {"predictions.csv": _fill(b"id,label\n1,a\n", lambda i: b"%d,b\n" % (10 ** 6 + i), size)})
    add("regression unknown ids", "refused", {"kind": "regression"}, {"gold.csv": "id,score\n1,1\n2,2\n3,3\n"},
        lambda: {"predictions.csv": _fill(b"id,score\n1,1\n", lambda i: b"%d,0.5\n" % (10 ** 6 + i), size)})
    add("text unknown ids (JSON)", "refused", {"kind": "text"}, {"gold.json": '{"1": "x", "2": "y"}'},
        lambda: {"predictions.json": _fill(b'{"1": "x", ', lambda i: b'"%d": "abc def", ' % (10 ** 6 + i), size,
                                   b'"2": "y"}')})
    add("text valid huge", "scored", {"kind": "text", "keys": ["exact_match", "f1", "bleu"]},
        {"gold.json": '{"1": "word word", "2": "y"}'},
        lambda: {"predictions.json": b'{"1": "' + b"word " * (size // 5) + b'", "2": "y"}'})
    add("sequence bad token", "refused", {"kind": "sequence"}, {"gold.conll": "A B-PER\nb O\n\nC B-LOC\n"},
        lambda: {"predictions.conll": _fill(b"A B-PER\nzzz O\n", lambda i: b"tok O\n", size)})
    add("sequence extra sentences", "refused", {"kind": "sequence"}, {"gold.conll": "A B-PER\nb O\n\nC B-LOC\n"},
        lambda: {"predictions.conll": _fill(b"A B-PER\nb O\n\nC B-LOC\n\n", lambda i: b"tok O\n\n", size)})
    qrels = {"qrels.txt": "q1 0 d1 1\nq2 0 d2 1\n"}
    ranking = {"kind": "ranking", "reference": "qrels.txt", "submission": "run.txt", "keys": ["ndcg_at_10"]}
    # trec_eval ignores a run's queries the qrels lack; so does the kind (with a warning): a valid run
    add("ranking 7 M unknown queries", "scored", ranking, qrels,
        lambda: {"run.txt": _fill(b"q1 Q0 d1 1 1.0 r\n", lambda i: b"q%d Q0 d%d 1 1.0 r\n" % (i + 3, i), size)})
    add("ranking valid huge query", "scored", dict(ranking, missing_queries="zero"), qrels,
        lambda: {"run.txt": _fill(b"", lambda i: b"q1 Q0 d%d %d %f r\n" % (i, i + 1, 1.0 / (i + 1)), size)})
    return cases


def _run(shape, work, officials=None):
    """Ours on the shape's files: (MB, exit, seconds, peak MB, stderr's first line, CPU seconds, theirs); with
    ``officials`` ((tools, memory MB, timeout)), theirs: each official scorer of the shape on the same files
    afterwards, [(scorer name, (scored, seconds, CPU seconds, peak MB, what it did))]."""
    folder = tempfile.mkdtemp(dir=work)
    res, out = os.path.join(folder, "input", "res"), os.path.join(folder, "output")
    os.makedirs(res)
    os.symlink(shape.ref, os.path.join(folder, "input", "ref"))
    megabytes, files = 0, shape.make()
    for name, data in files.items():
        path = os.path.join(res, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
        megabytes += len(data) / 1e6
    del files, data
    usage = os.path.join(folder, "usage")
    env = dict(os.environ, **(shape.env or {}))
    started = time.time()
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, usage, os.path.join(shape.program, "evaluate.py"),
                           os.path.join(folder, "input"), out], capture_output=True, text=True, env=env)
    seconds = time.time() - started
    peak_kb, cpu = open(usage).read().split()
    theirs = []
    if officials is not None:
        tools, memory_mb, timeout = officials
        for number, (scorer, prepare) in enumerate(huge_official.scorers(shape.name)):
            scratch = os.path.join(folder, "official-%d" % number)
            os.makedirs(scratch)
            theirs.append((scorer, huge_official.run(prepare, tools, os.path.join(folder, "input"), scratch,
                                                     memory_mb, timeout)))
    shutil.rmtree(folder)
    said = (proc.stderr.strip().splitlines() or [""])[0]
    return megabytes, proc.returncode, seconds, int(peak_kb) / 1024.0, said, float(cpu), theirs


def _per_mb(seconds, megabytes):
    return "%.3f" % (seconds / megabytes) if seconds is not None and megabytes else "-"


def _official_rows(rows):
    """The table against the official scorers: a row per (run, official scorer); per MB and the ratio in CPU time."""
    print("\n| run | MB | ours: seconds (CPU) | ours: peak MB | ours: CPU s/MB | official scorer "
          "| official: seconds (CPU) | official: peak MB | official: CPU s/MB | official / ours (CPU time) "
          "| what the official scorer did |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, megabytes, seconds, cpu, peak, theirs in rows:
        for scorer, (_, other_seconds, other_cpu, other_peak, said) in theirs:
            print("| %s | %.0f | %.1f (%.1f) | %.0f | %s | %s | %s | %s | %s | %s | %s |" % (
                name, megabytes, seconds, cpu, peak, _per_mb(cpu, megabytes), scorer,
                "-" if other_seconds is None else "%.1f (%.1f)" % (other_seconds, other_cpu),
                "-" if other_peak is None else "%.0f" % other_peak, _per_mb(other_cpu, megabytes),
                "-" if other_cpu is None else "%.1f" % (other_cpu / max(cpu, 0.01)), said.replace("|", "/")))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", help="run only shapes whose name contains this (repeatable)")
    parser.add_argument("--mb", type=int, default=200, help="size of each run in MB (default 200)")
    parser.add_argument("--keep", help="work in this folder and keep it")
    parser.add_argument("--official", default=None, metavar="DIR",
                        help="folder(s) holding checkouts or mirrors of the official scorers (default: $%s)"
                             % official.ENV)
    parser.add_argument("--official-memory", type=int, default=8192, metavar="MB",
                        help="address space cap of each official scorer's process (default 8192 MB)")
    parser.add_argument("--official-timeout", type=float, default=600, metavar="SECONDS",
                        help="CPU time cap of each official scorer's run (default 600 s; 4 x as much wall time)")
    parser.add_argument("--no-official", action="store_true", help="do not run the official scorers")
    args = parser.parse_args(argv)
    size = args.mb * 1000 * 1000
    load_mix.HUGE_BYTES = size
    work = args.keep or tempfile.mkdtemp(prefix="huge-runs-")
    os.makedirs(work, exist_ok=True)
    dist = os.path.join(work, "dist")
    shapes = []
    # --only names a task, a kind or a whole run name ("ranking valid huge query"): build what it can select
    kinds = ("generic", "classification", "regression", "text", "sequence", "ranking")
    for task in taskdef.task_names():
        if not args.only or any(task in o or o in task for o in args.only):
            shapes.extend(_task_shapes(task, dist, work, size))
    if not args.only or any(k in o or o in k for o in args.only for k in kinds):
        shapes.extend(_generic_shapes(work, size))
    shapes = [s for s in shapes if not args.only or any(o in s.name for o in args.only)]
    officials = None if args.no_official else (
        huge_official.Tools(official.roots(args.official), os.path.join(work, "official-code")),
        args.official_memory, args.official_timeout)
    print("| run | MB | exit | seconds | peak MB | target | met | first line on stderr |")
    print("|---|---|---|---|---|---|---|---|")
    against = []
    for shape in shapes:
        megabytes, code, seconds, peak, said, cpu, theirs = _run(shape, work, officials)
        if theirs:
            against.append((shape.name, megabytes, seconds, cpu, peak, theirs))
        if shape.expect == "refused":
            target, met = "refused, <= %g s, <= %d MB" % (REFUSAL_SECONDS, REFUSAL_MB), (
                code == 1 and seconds <= REFUSAL_SECONDS and peak <= REFUSAL_MB)
        else:
            target, met = "scored, <= %d MB" % VALID_MB, code == 0 and peak <= VALID_MB
        print("| %s | %.0f | %d | %.1f | %.0f | %s | %s | %s |" % (shape.name, megabytes, code, seconds, peak, target,
                                                                "yes" if met else "**no**", said[:80]))
        sys.stdout.flush()
    if against:
        _official_rows(against)
    if not args.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
