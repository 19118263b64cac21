#!/usr/bin/env python3
"""Mutation testing of one module (or a few): where does the test suite not look?

    python3 tools/mutation.py MODULE [MODULE ...] [--tests TEST ...] [--sample N] [--seed S] [--jobs J]
                              [--only K,...] [--list] [--timeout-factor F] [--root DIR]

    nice -n 15 python3 tools/mutation.py scoring_programs/common/resampling.py --sample 80 --jobs 2

Each mutant is one small change to the module's source, made by mutmut 2.4.5's mutant generator (its library API:
``list_mutations`` and ``mutate`` with a ``Context``; ``pip install mutmut==2.4.5``, a developer tool that the test
suite does not need): a comparison turned round (``<`` to ``<=``, ``==`` to ``!=``), a number plus one, a string
with ``XX`` added, ``and`` for ``or``, ``None`` for a call's result or an assignment's value, ``break`` for
``continue``, and so on. The covering tests run against each mutant; a mutant they fail on is *killed*, one they
pass on *survives*: either the change is equivalent (a message's wording, dead code) or the suite does not check
what that code does. The real files are never edited: each of the J workers has its own temporary copy of the
tree (git's tracked and untracked files, without ignored ones, and ``../shared`` linked beside it so that tests
of the real data run or skip as they do in the tree), writes the mutant into it, runs the tests, and puts the
original back.

What it prints: the mutants (how many, the sample), the tests, the baseline run, then the kill rate (killed and
timed-out mutants over all tried: a mutant that makes a test hang would be caught too), each survivor with its
unified diff and each timeout. Numbers (#K) index the module's full list of mutants, in source order, so
``--only K`` runs one again and ``--list`` shows them all without running anything. Exit 0 when every mutant was
killed or timed out, 1 when some survived, 2 when it could not run (no mutmut, a baseline that fails, a copy
that went away during the run: such mutants are listed as not tried).

- MODULE: a Python file of this repository (path relative to the root, or absolute). With several, their mutants
  are pooled (and sampled) together.
- ``--tests``: the tests to run (files, folders or pytest node ids, relative to the root). By default, the
  *covering tests*: the test files (tests/ and bundles/*/tests/) that name the module's import name; for a module
  of scoring_programs/<task>/, also bundles/<task>/tests/; when no file names it, the test files that import a
  module importing it. The files run fastest first (timed in the baseline run) and pytest stops at the first
  failure, so most mutants are killed in seconds and only survivors cost a full run.
- ``--sample N``: N mutants drawn at random (``random.Random(SEED).sample``), so the same seed and source give
  the same mutants; ``--seed`` defaults to 0. Without ``--sample`` every mutant runs.
- ``--jobs J``: parallel copies (default 1). Each runs one pytest at a time.
- ``--timeout-factor F``: a mutant's run times out after F times the baseline's duration plus 30 s (default 3).

When to run it: before refactoring a module (what the tests do not pin down can change unnoticed), after
changing a scorer or its tests, and when an issue asks whether the suite would catch a class of bug. It is a
developer tool, not part of CI: a run costs one test run per surviving mutant. On a shared machine, run it under
``nice`` and keep --jobs small. Pytest runs with ``--hypothesis-seed=0`` (when hypothesis is installed) and each
copy's hypothesis database is cleared between mutants, so a run is repeatable.
"""
import argparse
import difflib
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ElementTree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTMUT_VERSION = "2.4.5"
TEST_FOLDERS = ("tests", "bundles")
KILLED, SURVIVED, TIMEOUT, ERROR = "killed", "survived", "timeout", "error"
_RUNNING = set()            # the pytest processes running now (each leads its own process group)
_LOCK = threading.Lock()
_STOP = threading.Event()   # set when the run is interrupted: workers start no other mutant


class Mutant(object):
    """One mutation of one module: number (1-based, in the modules' list), path (relative), line (1-based), the
    mutated source and its diff. The source of a mutant from mutmut (``mutation_id``) is made when first needed,
    so that drawing a sample from hundreds of mutants costs one parse of the module."""

    def __init__(self, number, path, line, original, mutated=None, mutation_id=None):
        self.number = number
        self.path = path
        self.line = line
        self.original = original
        self._mutated = mutated
        self.mutation_id = mutation_id
        self.status = None
        self.seconds = None
        self.error = None

    @property
    def mutated(self):
        if self._mutated is None:
            mutmut = _mutmut()
            context = mutmut.Context(source=self.original, mutation_id=self.mutation_id, filename=self.path)
            mutated, count = mutmut.mutate(context)
            assert count == 1 and mutated != self.original, self.mutation_id
            self._mutated = mutated
        return self._mutated

    def diff(self):
        lines = difflib.unified_diff(self.original.splitlines(True), self.mutated.splitlines(True),
                                     "a/" + self.path, "b/" + self.path, n=1)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _mutmut():
    try:
        import mutmut
    except ImportError:
        raise SystemExit("mutation.py needs mutmut's mutant generator: pip install mutmut==%s" % MUTMUT_VERSION)
    version = getattr(mutmut, "__version__", "?")
    if version != MUTMUT_VERSION:
        print("note: mutmut %s is installed; the figures in README were measured with %s" % (version, MUTMUT_VERSION),
              file=sys.stderr)
    return mutmut


def generate(path, source, first_number=1):
    """Every mutant of ``source`` (the file at ``path``, relative to the root), in mutmut's order."""
    mutmut = _mutmut()
    return [Mutant(first_number + offset, path, mutation_id.line_number + 1, source, mutation_id=mutation_id)
            for offset, mutation_id in enumerate(mutmut.list_mutations(mutmut.Context(source=source,
                                                                                       filename=path)))]


def sample(mutants, size, seed):
    """``size`` of ``mutants`` drawn by ``random.Random(seed)``, in their original order (all when size is None or
    not smaller)."""
    if size is None or size >= len(mutants):
        return list(mutants)
    chosen = random.Random(seed).sample(range(len(mutants)), size)
    return [mutants[i] for i in sorted(chosen)]


# --- which tests -------------------------------------------------------------------------------------------------


def _test_files(root):
    found = []
    for folder in TEST_FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
            found.extend(os.path.join(dirpath, name) for name in sorted(filenames)
                         if name.startswith("test_") and name.endswith(".py"))
    return found


def _names(root, files, word):
    pattern = re.compile(r"\b%s\b" % re.escape(word))
    hits = []
    for path in files:
        with open(path, encoding="utf-8") as handle:
            if pattern.search(handle.read()):
                hits.append(path)
    return hits


def _import_pattern(module_name):
    """An import statement naming ``module_name`` (``import x``, ``from p import a, x``, ``from p.x import a``)."""
    name = re.escape(module_name)
    return re.compile(r"^\s*(from\s+[\w.]+\s+import\s+[^\n]*\b%s\b|import\s+[\w.]*\b%s\b|from\s+[\w.]*\b%s\s+import)"
                      % (name, name, name), re.M)


def _importing(files, module_name):
    pattern = _import_pattern(module_name)
    hits = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as handle:
            if pattern.search(handle.read()):
                hits.append(path)
    return hits


def _importers(root, module_name):
    """Python files of the repository (outside the test folders) that import ``module_name``."""
    pattern = _import_pattern(module_name)
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "__")) and d not in ("dist", "build")
                       and not (rel == "." and d in TEST_FOLDERS)]
        for name in filenames:
            if name.endswith(".py") and name[:-3] != module_name:
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as handle:
                    if pattern.search(handle.read()):
                        found.append(name[:-3])
    return sorted(set(found))


def _package_import_pattern(package, module_name):
    """An import of ``package.module_name`` (``from package import a, module_name``, ``package.module_name``)."""
    package, name = re.escape(package), re.escape(module_name)
    return re.compile(r"from\s+%s\s+import\s+[^\n]*\b%s\b|\b%s\.%s\b" % (package, name, package, name))


def covering_tests(root, path):
    """The default tests of a module (see the docstring): paths relative to ``root``."""
    module_name = os.path.splitext(os.path.basename(path))[0]
    files = _test_files(root)
    parts = os.path.normpath(path).split(os.sep)
    if len(parts) >= 3 and parts[0] == "codalab_bundles":
        # A module of one of the library's rooms has a short name (leaderboard, report) that many tests use as a
        # word: the tests that import it from its room name it, and so do those that import the room itself
        # (its __init__ re-exports the room's API, so they run its modules).
        package = ".".join(parts[:-1])
        patterns = [_package_import_pattern(package, parts[-2 if module_name == "__init__" else -1]),
                    _package_import_pattern(".".join(parts[:-2]), parts[-2])]
        if module_name == "__init__":
            patterns = patterns[1:]
        chosen = set()
        for name in files:
            with open(name, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
            if any(pattern.search(text) for pattern in patterns):
                chosen.add(name)
        return sorted(os.path.relpath(f, root) for f in chosen)
    chosen = set(_names(root, files, module_name))
    if len(parts) >= 3 and parts[0] == "scoring_programs" and parts[1] not in ("common", "generic"):
        task_tests = os.path.join(root, "bundles", parts[1], "tests")
        chosen.update(f for f in files if f.startswith(task_tests + os.sep))
    if not chosen:
        for importer in _importers(root, module_name):
            chosen.update(_importing(files, importer))
    return sorted(os.path.relpath(f, root) for f in chosen)


# --- running -----------------------------------------------------------------------------------------------------


def _tree_files(root):
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        return [name for name in out.decode("utf-8").split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in ("__pycache__", "dist")]
            names.extend(os.path.relpath(os.path.join(dirpath, f), root) for f in filenames
                         if not f.endswith(".pyc"))
        return names


def make_copy(root, scratch, name):
    """A copy of the tree at ``scratch``/``name``/tree, with ``../shared`` linked beside it when the tree has one."""
    base = os.path.join(scratch, name)
    tree = os.path.join(base, "tree")
    for rel in _tree_files(root):
        source = os.path.join(root, rel)
        if not os.path.isfile(source):      # deleted but still tracked
            continue
        target = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)
    shared = os.path.join(os.path.dirname(root), "shared")
    if os.path.isdir(shared):
        os.symlink(shared, os.path.join(base, "shared"))
    return tree


def _has_hypothesis():
    try:
        import hypothesis  # noqa: F401
        return True
    except ImportError:
        return False


def pytest_command(tests, junit=None):
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header", "-o",
               "addopts="]
    if _has_hypothesis():
        command.append("--hypothesis-seed=0")
    if junit:
        command.append("--junitxml=" + junit)
    return command + list(tests)


def run_tests(tree, tests, timeout, junit=None):
    """(status, seconds, output) of one pytest run in ``tree``: 0 passed, 1 failed, None timed out."""
    shutil.rmtree(os.path.join(tree, ".hypothesis"), ignore_errors=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    started = time.time()
    with _LOCK:
        if _STOP.is_set():
            return None, 0.0, ""
        proc = subprocess.Popen(pytest_command(tests, junit), cwd=tree, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        _RUNNING.add(proc)
    try:
        output = proc.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        _kill(proc)
        proc.communicate()
        return None, time.time() - started, ""
    finally:
        with _LOCK:
            _RUNNING.discard(proc)
    return proc.returncode, time.time() - started, output.decode("utf-8", "replace")


def _kill(proc):
    """The pytest ``proc`` this tool started, and its children (its process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def _stop_all():
    with _LOCK:
        _STOP.set()
        for proc in list(_RUNNING):
            _kill(proc)


def order_by_time(tests, junit):
    """The test files (or other arguments) fastest first, from the baseline's JUnit report."""
    seconds = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        name = (case.get("classname") or "").replace(".", "/")
        seconds[name] = seconds.get(name, 0.0) + float(case.get("time") or 0)

    def cost(test):
        stem = os.path.splitext(test.split("::")[0])[0].replace(os.sep, "/")
        return sum(s for name, s in seconds.items() if name == stem or name.startswith(stem + "/"))
    return sorted(tests, key=cost)


def worker(tree, tests, timeout, todo, done):
    while not _STOP.is_set():
        try:
            mutant = todo.get_nowait()
        except queue.Empty:
            return
        target = os.path.join(tree, mutant.path)
        try:
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(mutant.mutated)
            try:
                code, mutant.seconds, _ = run_tests(tree, tests, timeout)
            finally:
                with open(target, "w", encoding="utf-8") as handle:
                    handle.write(mutant.original)
            mutant.status = TIMEOUT if code is None else SURVIVED if code == 0 else KILLED
        except Exception as exc:    # the copy went away, say: reported, and the run goes on
            mutant.status, mutant.seconds, mutant.error = ERROR, 0.0, "%s: %s" % (type(exc).__name__, exc)
        done.put(mutant)


def run_mutants(root, mutants, tests, jobs=1, timeout_factor=3.0, log=print, progress=None):
    """Run ``tests`` against each mutant in ``jobs`` temporary copies of ``root``; sets each mutant's status.
    Returns the baseline's seconds. Raises SystemExit when the tests fail on the unmutated tree."""
    progress = progress or (lambda mutant, count, total: None)
    scratch = tempfile.mkdtemp(prefix="mutation-")
    try:
        trees = [make_copy(root, scratch, "copy%d" % i) for i in range(max(1, min(jobs, len(mutants) or 1)))]
        junit = os.path.join(scratch, "baseline.xml")
        code, baseline, output = run_tests(trees[0], tests, None, junit)
        if code != 0:
            raise SystemExit("the tests fail without any mutation (exit %s); fix them first:\n%s"
                             % (code, output[-3000:]))
        tests = order_by_time(tests, junit)
        timeout = timeout_factor * baseline + 30
        log("baseline: the tests pass in %.1f s; a mutant times out after %.0f s" % (baseline, timeout))
        todo, done = queue.Queue(), queue.Queue()
        for mutant in mutants:
            todo.put(mutant)
        threads = [threading.Thread(target=worker, args=(tree, tests, timeout, todo, done), daemon=True)
                   for tree in trees]
        for thread in threads:
            thread.start()
        count = 0
        while count < len(mutants):
            try:
                mutant = done.get(timeout=1)    # a timeout, so that a signal is handled at once
            except queue.Empty:
                continue
            count += 1
            progress(mutant, count, len(mutants))
        for thread in threads:
            thread.join()
        return baseline
    except BaseException:           # interrupted (Ctrl-C, SIGTERM): stop the tests running, then clean up
        _stop_all()
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def summary(mutants):
    """(killed, timed out, survived, kill rate in percent): the rate counts timeouts as caught, and leaves out
    mutants that could not be tried (an error of the tool, reported apart)."""
    counts = dict((status, sum(1 for m in mutants if m.status == status)) for status in (KILLED, TIMEOUT, SURVIVED))
    tried = sum(counts.values())
    rate = 100.0 * (counts[KILLED] + counts[TIMEOUT]) / tried if tried else 100.0
    return counts[KILLED], counts[TIMEOUT], counts[SURVIVED], rate


def report(mutants, out=print):
    killed, timeouts, survived, rate = summary(mutants)
    out("killed %d, timed out %d, survived %d of %d: kill rate %.1f%%" % (killed, timeouts, survived,
                                                                           killed + timeouts + survived, rate))
    errors = [m for m in mutants if m.status == ERROR]
    if errors:
        out("not tried, the tool failed: %s" % "; ".join("#%d (%s)" % (m.number, m.error) for m in errors))
    for title, status in (("Survivors", SURVIVED), ("Timeouts", TIMEOUT)):
        chosen = [m for m in mutants if m.status == status]
        if chosen:
            out("\n%s (%d):" % (title, len(chosen)))
            for mutant in chosen:
                out("\n#%d %s:%d" % (mutant.number, mutant.path, mutant.line))
                out(mutant.diff().rstrip("\n"))


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Mutation testing of a module with mutmut %s's mutant generator: the kill rate, the survivors "
                    "and their diffs." % MUTMUT_VERSION,
        epilog="example: nice -n 15 python3 tools/mutation.py scoring_programs/common/resampling.py --sample 80 "
               "--jobs 2")
    parser.add_argument("modules", nargs="+", metavar="MODULE", help="a Python file of the repository")
    parser.add_argument("--tests", nargs="+", metavar="TEST",
                        help="test files, folders or node ids to run (default: the covering tests)")
    parser.add_argument("--sample", type=int, metavar="N", help="try N mutants drawn at random (default: all)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="the sample's seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1, metavar="J", help="parallel test runs (default 1)")
    parser.add_argument("--only", metavar="K,...", help="run only these mutant numbers (as --list numbers them)")
    parser.add_argument("--list", action="store_true", help="print the (sampled) mutants and their diffs, run nothing")
    parser.add_argument("--timeout-factor", type=float, default=3.0, metavar="F",
                        help="a mutant times out after F x the baseline + 30 s (default 3)")
    parser.add_argument("--root", default=ROOT, help="the tree to copy (default: this repository)")
    args = parser.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        parser.error("--sample must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.only:
        try:
            args.only = set(int(k) for k in args.only.split(","))
        except ValueError:
            parser.error("--only takes mutant numbers separated by commas, e.g. --only 3,17")
    return args


def _interrupted(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    args = parse_args(argv)
    root = os.path.abspath(args.root)
    mutants, paths = [], []
    for module in args.modules:
        full = os.path.abspath(os.path.join(root, module))
        path = os.path.relpath(full, root)
        if path.startswith(os.pardir) or not full.endswith(".py") or not os.path.isfile(full):
            print("mutation.py: %s is not a Python file of %s" % (module, root), file=sys.stderr)
            return 2
        with open(full, encoding="utf-8") as handle:
            source = handle.read()
        mutants.extend(generate(path, source, len(mutants) + 1))
        paths.append(path)
    total = len(mutants)
    chosen = sample(mutants, args.sample, args.seed)
    if args.only:
        chosen = [m for m in mutants if m.number in args.only]
    print("mutation.py: %s: %d mutants%s" % (", ".join(paths), total,
                                             ", only #%s" % ",".join(str(m.number) for m in chosen) if args.only
                                             else ", a sample of %d (seed %d)" % (len(chosen), args.seed)
                                             if len(chosen) < total else ""))
    for mutant in chosen:
        mutant.mutated      # made now, before any test runs
    if args.list:
        for mutant in chosen:
            print("\n#%d %s:%d" % (mutant.number, mutant.path, mutant.line))
            print(mutant.diff().rstrip("\n"))
        return 0
    tests = args.tests or sorted(set(t for path in paths for t in covering_tests(root, path)))
    if not tests:
        print("mutation.py: no test names the module; give --tests", file=sys.stderr)
        return 2
    print("tests: %s" % " ".join(tests))
    sys.stdout.flush()

    def progress(mutant, count, count_of):
        print("[%d/%d] #%d %s (%.0f s)" % (count, count_of, mutant.number, mutant.status, mutant.seconds),
              file=sys.stderr)
    started = time.time()
    signal.signal(signal.SIGINT, _interrupted)     # also when started in the background, where SIGINT is ignored
    signal.signal(signal.SIGTERM, _interrupted)
    try:
        run_mutants(root, chosen, tests, args.jobs, args.timeout_factor, log=print, progress=progress)
    except KeyboardInterrupt:
        print("interrupted: the tests it ran were stopped and the copies removed", file=sys.stderr)
        return 130
    print("%d mutants in %.0f s with %d job(s)\n" % (len(chosen), time.time() - started, args.jobs))
    report(chosen)
    if any(m.status == ERROR for m in chosen):
        return 2
    return 0 if all(m.status != SURVIVED for m in chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
