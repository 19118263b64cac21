"""Benchmark of the generic kind ``sequence`` at 100 times a real test set, against seqeval and conlleval.pl.

    python3 bench/kind_sequence.py [--times 100] [--repeat 1] [--scratch DIR]

The test set is CoNLL-2003 English test (eng.testb, IOB2, 46,435 tokens, 231 -DOCSTART- lines) from the mirror of
the repository named in tests/data_manifests/sequence.json (fetch it first; $SEQUENCE_DATA_MIRROR may point at the
git directory), with deterministic predictions (about one chunk in eight given another type, shortened or
dropped). Its gold and predictions are repeated ``--times`` times and scored, each in its own process, by:
  generic      scoring_programs/generic/evaluate.py INPUT OUTPUT (the whole program: reading, checks, files)
  seqeval      a reader of the two files and seqeval's precision_recall_fscore_support(average="micro") and
               accuracy_score: one pass for precision, recall and F1 (calling f1_score, precision_score and
               recall_score apart would read the chunks three times)
  conlleval.pl perl conlleval.pl < merged file (token, gold tag, predicted tag), from the mirror
Wall time, CPU time (user + system) and peak RSS (os.wait4 of each child) are printed as a table; the F1 of each is
printed too, so that one sees they scored the same thing.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "tests", "data_manifests", "sequence.json")

SEQEVAL = r"""
import sys, warnings
from seqeval.metrics import accuracy_score
from seqeval.metrics.sequence_labeling import precision_recall_fscore_support
def read(path):
    sentences, tags = [], []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            columns = line.split()
            if not columns or columns[0] == "-DOCSTART-":
                if tags:
                    sentences.append(tags)
                    tags = []
                continue
            tags.append(columns[-1])
    if tags:
        sentences.append(tags)
    return sentences
gold, predicted = read(sys.argv[1]), read(sys.argv[2])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    p, r, f, _ = precision_recall_fscore_support(gold, predicted, average="micro")
print("f1: %.15f" % f)
print("accuracy: %.15f" % accuracy_score(gold, predicted))
"""


def mirror(manifest):
    candidates = [os.environ.get("SEQUENCE_DATA_MIRROR")] + [
        os.path.join(base, ".mirror", manifest["repo"].replace("/", "+"), "repo")
        for base in (os.path.dirname(ROOT), os.path.dirname(os.path.dirname(ROOT)))]
    for path in candidates:
        if path and os.path.isdir(path):
            return path
    sys.exit("no mirror of %s: fetch it (see %s)" % (manifest["repo"], MANIFEST))


def show(git_dir, commit, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", "%s:%s" % (commit, path)], check=True,
                          stdout=subprocess.PIPE).stdout.decode("utf-8")


def predictions(text, seed=1):
    """(gold CoNLL, predicted CoNLL, merged token/gold/predicted) of the test set, sentences in order."""
    rng = random.Random(seed)
    gold_out, pred_out, merged = [], [], []
    for block in text.split("\n\n"):
        rows = [line.split() for line in block.split("\n") if line.strip()]
        if not rows:
            continue
        gold = [r[-1] for r in rows]
        pred = list(gold)
        for i, tag in enumerate(gold):
            if tag.startswith("B-") and rng.random() < 0.125:
                end = i + 1
                while end < len(gold) and gold[end] == "I-" + tag[2:]:
                    end += 1
                change = rng.choice(("type", "short", "drop"))
                if change == "type":
                    other = rng.choice([t for t in ("PER", "LOC", "ORG", "MISC") if t != tag[2:]])
                    pred[i:end] = ["B-" + other] + ["I-" + other] * (end - i - 1)
                elif change == "short" and end - i > 1:
                    pred[end - 1] = "O"
                else:
                    pred[i:end] = ["O"] * (end - i)
        gold_out.append("".join(" ".join(r) + "\n" for r in rows))
        pred_out.append("".join("%s %s\n" % (r[0], p) for r, p in zip(rows, pred)))
        merged.append("".join("%s %s %s\n" % (r[0], g, p) for r, g, p in zip(rows, gold, pred)))
    return "\n".join(gold_out) + "\n", "\n".join(pred_out) + "\n", "\n".join(merged) + "\n"


def measure(command, stdin=None, env=None):
    """(wall seconds, CPU seconds, peak RSS in MiB, stdout) of one child process."""
    start = time.time()
    proc = subprocess.Popen(command, stdin=open(stdin, "rb") if stdin else None, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    out = proc.stdout.read().decode("utf-8", "replace")
    err = proc.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = status
    wall = time.time() - start
    if status:
        sys.exit("%s failed: %s" % (command[:2], err[-500:]))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, out


def f1_of(out, pattern):
    for line in out.splitlines():
        if line.startswith(pattern):
            text = line.split("FB1:")[1] if "FB1:" in line else line.split(":", 1)[1]
            value = float(text.split()[0])
            return value / 100 if "FB1:" in line else value
    return float("nan")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--times", type=int, default=100, help="copies of the test set (default 100)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each scorer; the fastest is shown")
    parser.add_argument("--scratch", help="folder for the files (default: a temporary one, removed)")
    args = parser.parse_args(argv)
    with open(MANIFEST) as handle:
        manifest = json.load(handle)
    git_dir = mirror(manifest)
    text = show(git_dir, manifest["commit"], manifest["files"]["testb"]["path"])
    gold, pred, merged = predictions(text)
    scratch = args.scratch or tempfile.mkdtemp(prefix="bench-sequence-")
    try:
        for folder in ("input/ref", "input/res", "output"):
            os.makedirs(os.path.join(scratch, folder), exist_ok=True)
        paths = {"gold": os.path.join(scratch, "input", "ref", "gold.conll"),
                 "pred": os.path.join(scratch, "input", "res", "predictions.conll"),
                 "merged": os.path.join(scratch, "merged.txt"), "config": os.path.join(scratch, "scoring.json"),
                 "conlleval": os.path.join(scratch, "conlleval.pl"), "seqeval": os.path.join(scratch, "run_seqeval.py")}
        for name, data in (("gold", gold), ("pred", pred), ("merged", merged)):
            with open(paths[name], "w", encoding="utf-8") as handle:
                for _ in range(args.times):
                    handle.write(data)
        with open(paths["config"], "w") as handle:
            json.dump({"kind": "sequence", "keys": ["f1", "precision", "recall", "accuracy"]}, handle)
        with open(paths["conlleval"], "w", encoding="utf-8") as handle:
            handle.write(show(git_dir, manifest["commit"], manifest["files"]["conlleval.pl"]["path"]))
        with open(paths["seqeval"], "w") as handle:
            handle.write(SEQEVAL)
        env = dict(os.environ, GENERIC_SCORING_CONFIG=paths["config"])
        runs = [
            ("generic", [sys.executable, os.path.join(ROOT, "scoring_programs", "generic", "evaluate.py"),
                         os.path.join(scratch, "input"), os.path.join(scratch, "output")], None, env, "f1:"),
            ("seqeval", [sys.executable, paths["seqeval"], paths["gold"], paths["pred"]], None, None, "f1:"),
            ("conlleval.pl", ["perl", paths["conlleval"]], paths["merged"], None, "accuracy:"),
        ]
        tokens = sum(1 for line in pred.splitlines() if line.strip() and not line.startswith("-DOCSTART-"))
        print("eng.testb x %d: %d tokens, gold %.1f MiB" % (args.times, tokens * args.times,
                                                            os.path.getsize(paths["gold"]) / 2.0 ** 20))
        print("%-13s %9s %9s %10s %10s" % ("scorer", "wall s", "CPU s", "peak MiB", "f1"))
        results = {}
        for name, command, stdin, run_env, pattern in runs:
            best = min((measure(command, stdin, run_env) for _ in range(args.repeat)), key=lambda r: r[1])
            results[name] = best
            print("%-13s %9.2f %9.2f %10.1f %10.6f" % (name, best[0], best[1], best[2], f1_of(best[3], pattern)))
        for other in ("seqeval", "conlleval.pl"):
            print("generic vs %s: %.1fx less CPU time, %.2fx the peak memory"
                  % (other, results[other][1] / results["generic"][1], results["generic"][2] / results[other][2]))
    finally:
        if not args.scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
