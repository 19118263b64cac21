#!/usr/bin/env python3
"""Stand up each real shared task of the corpus with `new` as an organizer would, replay its runs, and compare
every figure with the task's official scorer run on the same files.

    python3 tools/kinds_corpus/build_corpus.py --out /tmp/kinds-corpus
    python3 tools/kinds_corpus/check_corpus.py --corpus /tmp/kinds-corpus [--main /work/main] [--only NAME ...]

For each task (manifest.json):
  1. `python3 MAIN/build_bundle.py new NAME --kind KIND --gold-dir CORPUS/NAME/gold --dir WORK/NAME --keys K,..
     --set FIELD=VALUE ...`: the manifest's `scoring_json` (its keys, columns and options) given to `new`, one
     command, and no file edited after it (no scorer code is written);
  2. (nothing: `new` wrote scoring.json and task.yaml's columns from the keys)
  3. `build_bundle.py build WORK/NAME`;
  4. each run zipped under the submission name and replayed (`build_bundle.py replay dist/NAME.zip RUN.zip
     --phase N --json`, N the phase of the run's split);
  5. the official scorer run on the same files (its own layout, CORPUS/NAME/official/), its figures parsed,
     and each compared with our key (scaled, to the decimals the official scorer prints).
It prints one table: task, kind, stood up without code (y/n), figures equal (y/n, with the differences).

    --official-only   run only the official scorers and print their figures
    --record          with --official-only: write them into manifest.json as `official_figures`

The official scorers need: perl (and Statistics::Basic for correlation.pl), python 2.7 with numpy, scipy and
scikit-learn < 0.23 (--python2), sacrebleu and rouge-score in this python, a C compiler for trec_eval.
"""
import argparse
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY2_DEFAULT = os.path.expanduser("~/.pyenv/versions/2.7.18/bin/python")


ENV = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")  # the checkout under test is only read


def sh(cmd, cwd=None, stdin=None, timeout=1200):
    result = subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, timeout=timeout, env=ENV)
    return result.returncode, result.stdout.decode("utf-8", "replace"), result.stderr.decode("utf-8", "replace")


def must(cmd, **kw):
    code, out, err = sh(cmd, **kw)
    if code:
        raise RuntimeError("%s exited %d: %s" % (" ".join(cmd[:3]), code, (err or out).strip()[-400:]))
    return out


# ---------------------------------------------------------------- official scorers, one per family

class Official:
    def __init__(self, corpus, entry, py2, work):
        self.dir = os.path.join(corpus, entry["name"])
        self.entry, self.py2, self.work = entry, py2, work

    def p(self, *parts):
        return os.path.join(self.dir, *parts)

    def run(self, run):
        return getattr(self, "f_" + self.entry["build"])(self.p("official", "runs", run["name"]), run)


class Figures(Official):
    def f_sts(self, rdir, run):
        out = must(["perl", self.p("scorer", "correlation.pl"), self.p("official", "gold", "STS.gs.txt"),
                    os.path.join(rdir, "STS.output.txt")])
        return {"pearson": float(re.search(r"Pearson:\s*(\S+)", out).group(1))}

    def f_emoint(self, rdir, run):
        gold = self.p("official", "gold", "gold-dev.txt" if run["phase"] == "dev" else "gold.txt")
        out = must([self.py2, self.p("scorer", "evaluate.py"), "1", os.path.join(rdir, "pred.txt"), gold])
        return {"pearson": float(re.search(r"^Pearson correlation between .*:\t(\S+)$", out, re.M).group(1)),
                "spearman": float(re.search(r"^Spearman correlation between .*:\t(\S+)$", out, re.M).group(1))}

    def f_asap(self, rdir, run):
        lo, hi = self.entry["params"]["label_range"]
        code = ("import csv,sys; sys.path.insert(0, %r); import score\n"
                "g=dict((r[0],int(r[1])) for r in list(csv.reader(open(%r), delimiter='\\t'))[1:])\n"
                "p=dict((r[0],int(r[1])) for r in list(csv.reader(open(%r), delimiter='\\t'))[1:])\n"
                "ids=sorted(g)\n"
                "print(repr(score.quadratic_weighted_kappa([g[i] for i in ids],[p[i] for i in ids],%d,%d)))\n"
                % (self.p("scorer"), self.p("official", "gold", "gold.tsv"), os.path.join(rdir, "pred.tsv"), lo, hi))
        return {"qwk": float(must([self.py2, "-c", code]).strip())}

    def f_squad(self, rdir, run):
        gold, pred = self.p("official", "gold", "dataset.json"), os.path.join(rdir, "predictions.json")
        figs = {}
        if os.path.exists(self.p("scorer", "mlqa_evaluation_v1.py")):
            out = json.loads(must([sys.executable, self.p("scorer", "mlqa_evaluation_v1.py"), gold, pred, "de"]).strip().splitlines()[-1])
            figs.update(exact_match=out["exact_match"], f1=out["f1"])
            out = json.loads(must([sys.executable, self.p("scorer", "evaluate-v1.1.py"), gold, pred]).strip().splitlines()[-1])
            figs.update({"squad-v1.1:exact_match": out["exact_match"], "squad-v1.1:f1": out["f1"]})
        elif os.path.exists(self.p("scorer", "evaluate-v2.0.py")):
            out = json.loads(must([sys.executable, self.p("scorer", "evaluate-v2.0.py"), gold, pred]))
            figs.update(out)
        else:
            out = json.loads(must([sys.executable, self.p("scorer", "evaluate-v1.1.py"), gold, pred]).strip().splitlines()[-1])
            figs.update(exact_match=out["exact_match"], f1=out["f1"])
        return figs

    def f_wmt(self, rdir, run):
        refs = sorted(glob.glob(self.p("official", "gold", "*")))
        hyp = glob.glob(os.path.join(rdir, "*"))[0]
        out = must([sys.executable, "-m", "sacrebleu"] + refs + ["-i", hyp, "-m", "bleu", "chrf", "-w", "12", "-f", "json"])
        res = json.loads(out)
        figs = {"bleu": float(res[0]["score"]), "chrf": float(res[1]["score"]),
                "signature:bleu": res[0]["signature"], "signature:chrf": res[1]["signature"]}
        published = self.p("official", "published-scores.tsv")
        if os.path.exists(published):
            pair = re.search(r"\.([a-z]{2}-[a-z]{2})\.hyp\.", hyp).group(1)
            for row in csv.DictReader(open(published, encoding="utf-8"), delimiter="\t"):
                if row["pair"] == pair and row["system"] == run["name"] and row["metric"] in ("bleu-all", "chrf-all"):
                    figs["published:" + row["metric"]] = float(row["score"])
        return figs

    def f_mediqa(self, rdir, run):
        from rouge_score import rouge_scorer  # the rouge-score the official requirements pin (0.1.2)
        gold = dict((r["ID"], r["SystemOutput"]) for r in csv.DictReader(open(self.p("official", "gold", "gold.csv"), encoding="utf-8")))
        pred = dict((r["ID"], r["SystemOutput"]) for r in csv.DictReader(open(os.path.join(rdir, "pred.csv"), encoding="utf-8")))
        scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=False)
        sums = {}
        ids = [i for i in gold if i in pred]  # the official script inner-joins gold and predictions on the id
        for i in ids:
            for k, v in scorer.score(gold[i], pred[i]).items():
                sums[k] = sums.get(k, 0.0) + v.fmeasure
        return dict((k, v / len(ids)) for k, v in sums.items())

    def _conlleval(self, merged):
        out = must(["perl", self.p("scorer", "conlleval.pl")], stdin=open(merged, "rb").read())
        m = re.search(r"accuracy:\s*([\d.]+)%; precision:\s*([\d.]+)%; recall:\s*([\d.]+)%; FB1:\s*([\d.]+)", out)
        figs = dict(zip(("accuracy", "precision", "recall", "FB1"), map(float, m.groups())))
        for t, f in re.findall(r"^\s*(\S+): precision:\s*[\d.]+%; recall:\s*[\d.]+%; FB1:\s*([\d.]+)", out, re.M):
            figs["FB1_" + t] = float(f)
        return figs

    def f_conll(self, rdir, run):
        merged = os.path.join(rdir, "merged.txt")
        if os.path.exists(self.p("scorer", "wnuteval.py")):
            out = must([sys.executable, self.p("scorer", "wnuteval.py"), os.path.join(rdir, "merged.tsv")])
            ent = out.split("### SURFACE FORM")[0]
            pattern = r"precision:\s*([\d.]+)%;\s*recall:\s*([\d.]+)%;\s*FB1:\s*([\d.]+)"  # one figure a line
            m = re.search(pattern, ent)
            figs = dict(zip(("precision", "recall", "FB1"), map(float, m.groups())))
            sf = re.search(pattern, out.split("### SURFACE FORM")[1])
            figs["surface:FB1"] = float(sf.group(3))
            figs.update(("conlleval:" + k, v) for k, v in self._conlleval(merged).items())
            return figs
        return self._conlleval(merged)

    def f_msmarco(self, rdir, run):
        out = must([sys.executable, self.p("scorer", "ms_marco_eval.py"), self.p("official", "gold", "qrels.dev.small.tsv"),
                    os.path.join(rdir, "run.tsv")])
        return {"MRR @10": float(re.search(r"MRR @10:\s*(\S+)", out).group(1)),
                "QueriesRanked": int(re.search(r"QueriesRanked:\s*(\S+)", out).group(1))}

    def trec_eval(self):
        binary = os.path.join(self.work, "trec_eval-bin", "trec_eval")
        if not os.path.exists(binary):
            build = os.path.join(self.work, "trec_eval-src")
            shutil.rmtree(build, ignore_errors=True)
            os.makedirs(build)
            with tarfile.open(self.p("scorer", "trec_eval.9.0.8.tar.gz")) as tar:
                tar.extractall(build)
            src = [d for d in glob.glob(os.path.join(build, "*")) if os.path.isdir(d)][0]
            must(["make"], cwd=src)
            os.makedirs(os.path.dirname(binary), exist_ok=True)
            shutil.copy(os.path.join(src, "trec_eval"), binary)
        return binary

    def f_trec(self, rdir, run):
        figs = {}
        for flag, prefix in (([], ""), (["-c"], "c:")):
            out = must([self.trec_eval()] + flag + ["-m", "ndcg_cut.10", "-m", "map", "-m", "recall.1000", "-m", "recip_rank",
                                                    "-l", "2", self.p("official", "gold", "qrels.txt"), os.path.join(rdir, "run.txt")])
            for line in out.splitlines():
                f = line.split()
                if len(f) == 3 and f[1] == "all":
                    figs[prefix + f[0]] = float(f[2])
        return figs

    def f_semeval2017_4a(self, rdir, run):
        pred = os.path.join(rdir, "pred.txt")
        must(["perl", self.p("scorer", "SemEval2017_task4_test_scorer_subtaskA.pl"), self.p("official", "gold", "gold.txt"), pred])
        out = open(pred + ".scored", encoding="utf-8").read()
        m = re.search(r"AvgF1_2=([\d.]+), AvgR_3=([\d.]+), Acc=([\d.]+)", out)
        return dict(zip(("AvgF1_2", "AvgR_3", "Acc"), map(float, m.groups())))

    def f_stance(self, rdir, run):
        out = must(["perl", self.p("scorer", "eval.pl"), self.p("official", "gold", "gold.txt"), os.path.join(rdir, "guess.txt")])
        return {"Macro F": float(re.search(r"Macro F:\s*(\S+)", out).group(1))}

    def f_emocontext(self, rdir, run):
        """The starting kit's getMetrics (baseline.py), run on one-hot arrays as the kit builds them. The kit imports
        keras at the top for its model; only getMetrics is taken (by its source), with keras' to_categorical
        (one-hot of width max + 1) given by numpy."""
        code = ("import ast, sys, numpy as np\n"
                "src = open(%r, encoding='utf-8').read()\n"
                "fn = [n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == 'getMetrics'][0]\n"
                "ns = {'np': np, 'NUM_CLASSES': 4, 'label2emotion': {0: 'others', 1: 'happy', 2: 'sad', 3: 'angry'},\n"
                "      'to_categorical': lambda y: np.eye(int(np.max(y)) + 1)[np.asarray(y, dtype=int)]}\n"
                "exec(compile(ast.Module(body=[fn], type_ignores=[]), 'getMetrics', 'exec'), ns)\n"
                "e2l = {'others': 0, 'happy': 1, 'sad': 2, 'angry': 3}\n"
                "def labels(path):\n"
                "    rows = [l.rstrip('\\n').split('\\t') for l in open(path, encoding='utf-8')][1:]\n"
                "    return [e2l[r[4]] for r in rows if len(r) > 1]\n"
                "g, p = labels(%r), labels(%r)\n"
                "acc, mp, mr, mf = ns['getMetrics'](np.eye(4)[p], np.eye(4)[g])\n"
                "print('RESULT', repr(float(acc)), repr(float(mp)), repr(float(mr)), repr(float(mf)))\n"
                % (self.p("scorer", "baseline.py"), self.p("official", "gold", "test.txt"), os.path.join(rdir, "test.txt")))
        out = must([sys.executable, "-c", code])
        line = [l for l in out.splitlines() if l.startswith("RESULT")][0].split()[1:]
        figs = dict(zip(("accuracy", "micro_precision", "micro_recall", "micro_f1"), map(float, line)))
        m = re.search(r"Macro Precision : ([\d.]+), Macro Recall : ([\d.]+), Macro F1 : ([\d.]+)", out)
        figs.update({"macro_precision": float(m.group(1)), "macro_recall": float(m.group(2)), "macro_f1 (of macro P and R)": float(m.group(3))})
        return figs

    def f_ec(self, rdir, run):
        out = must([self.py2, self.p("scorer", "evaluate.py"), "3", os.path.join(rdir, "pred.txt"), self.p("official", "gold", "gold.txt")],
                   cwd=self.p("scorer"))
        return {"jaccard": float(re.search(r"Jaccard index\) between .*:\t(\S+)", out).group(1)),
                "micro_f1": float(re.search(r"Micro-averaged F1 score between .*:\t(\S+)", out).group(1)),
                "macro_f1": float(re.search(r"Macro-averaged F1 score between .*:\t(\S+)", out).group(1))}


# ---------------------------------------------------------------- standing a task up with `new`

def phase_numbers(task_yaml):
    """{split: phase number} from the phases' `split:` lines of bundles/NAME/task.yaml, in order."""
    splits = re.findall(r"^\s+split:\s*(\w+)", open(task_yaml, encoding="utf-8").read(), re.M)
    numbers = {}
    for i, split in enumerate(splits):
        numbers.setdefault(split, i + 1)
    return numbers


def stand_up(main, corpus, entry, work):
    """(ok, note, comp folder): one `new` with the task's keys and its scoring.json fields (--set), then build;
    no file is edited after `new`."""
    name = entry["name"]
    comp = os.path.join(work, name)
    shutil.rmtree(comp, ignore_errors=True)
    fields = dict(entry["scoring_json"])
    keys = fields.pop("keys", None)
    cmd = [sys.executable, os.path.join(main, "build_bundle.py"), "new", name, "--kind", entry["kind"],
           "--gold-dir", os.path.join(corpus, name, "gold"), "--dir", comp]
    if keys:
        cmd += ["--keys", ",".join(keys)]
    for field, value in sorted(fields.items()):
        cmd += ["--set", "%s=%s" % (field, value if isinstance(value, str) else json.dumps(value))]
    code, out, err = sh(cmd)
    if code:
        return False, "new: " + ((err or out).strip().splitlines() or ["exit %d" % code])[-1][:300], comp
    code, out, err = sh([sys.executable, os.path.join(main, "build_bundle.py"), "build", comp])
    bundle = os.path.join(comp, "dist", name + ".zip")
    if code or not os.path.exists(bundle):
        lines = [l.strip() for l in (err + out).splitlines() if l.strip()]
        errors = [l for l in lines if "error" in l.lower()] or lines
        return False, "build: " + (errors[0] if errors else "exit %d" % code)[:300], comp
    return True, "", comp


def replay(main, comp, entry, corpus, run, phases, work):
    name = entry["name"]
    sub = os.path.join(work, "%s--%s.zip" % (name, run["name"]))
    with zipfile.ZipFile(sub, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(os.path.join(corpus, name, run["file"]), entry["scoring_json"]["submission"])
    bundle = os.path.join(comp, "dist", name + ".zip")
    code, out, err = sh([sys.executable, os.path.join(main, "build_bundle.py"), "replay", bundle, sub,
                         "--phase", str(phases.get(run["phase"], 1)), "--json"])
    last = [l for l in out.splitlines() if l.startswith("{")]
    if not last:
        return None, (err or out).strip()[-300:]
    report = json.loads(last[-1])
    if report.get("status") != "Finished":
        return None, (report.get("stderr") or report.get("reason") or "not finished").strip()[:300]
    return report.get("scores", {}), ""


def write_direct_config(work, entry):
    """--direct: the scoring.json the organizer would have (kind, gold name, the manifest's fields)."""
    config = dict(entry["scoring_json"], kind=entry["kind"], reference=entry["gold_name"])
    path = os.path.join(work, entry["name"] + ".scoring.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=1)
    return path


def score_direct(main, config, entry, corpus, run):
    """The generic program on the run's split gold and the run, as `evaluate.py --gold G --pred P --json`."""
    gold = os.path.join(corpus, entry["name"], "gold", run["phase"], entry["gold_name"])
    env = dict(ENV, GENERIC_SCORING_CONFIG=config)
    result = subprocess.run([sys.executable, os.path.join(main, "scoring_programs", "generic", "evaluate.py"),
                             "--gold", gold, "--pred", os.path.join(corpus, entry["name"], run["file"]), "--json"],
                            capture_output=True, env=env, timeout=1200)
    if result.returncode:
        return None, result.stderr.decode("utf-8", "replace").strip()[-300:]
    return json.loads(result.stdout.decode("utf-8"))["scores"], ""


def compare(entry, official, ours):
    """[(figure, official, ours or None, equal)] over the manifest's `compare` table."""
    rows = []
    for fig, spec in entry["compare"].items():
        if fig not in official:
            continue
        value = ours.get(spec["key"]) if ours else None
        if value is None:
            rows.append((fig, official[fig], None, False))
            continue
        mine = float(value) * spec.get("scale", 1)
        tol = max(0.5 * 10 ** -spec["decimals"], 1e-9) * (1 + 1e-9)
        rows.append((fig, official[fig], mine, abs(mine - official[fig]) <= tol + 1e-12))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="the folder build_corpus.py wrote")
    parser.add_argument("--main", default=os.path.dirname(os.path.dirname(HERE)), help="the project checkout to test")
    parser.add_argument("--manifest", default=os.path.join(HERE, "manifest.json"))
    parser.add_argument("--work", default=None, help="scratch folder (default: CORPUS/../kinds-corpus-work)")
    parser.add_argument("--python2", default=PY2_DEFAULT)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--official-only", action="store_true")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--json", help="write the detailed results to this file")
    parser.add_argument("--direct", action="store_true",
                        help="where `new` does not offer a task's kind yet, score its runs with the checkout's "
                             "scoring_programs/generic/evaluate.py directly (figures only; stood up stays n)")
    args = parser.parse_args()
    entries = json.load(open(args.manifest, encoding="utf-8"))
    work = os.path.abspath(args.work or os.path.join(os.path.dirname(os.path.abspath(args.corpus)), "kinds-corpus-work"))
    os.makedirs(work, exist_ok=True)
    corpus = os.path.abspath(args.corpus)
    table, details = [], []
    for entry in entries:
        name = entry["name"]
        if args.only and name not in args.only:
            continue
        runs_file = os.path.join(corpus, name, "runs.json")
        if not os.path.exists(runs_file):
            table.append((name, entry["kind"], "-", "-", "not built (mirror missing?)"))
            continue
        runs = json.load(open(runs_file, encoding="utf-8"))
        figs = Figures(corpus, entry, args.python2, work)
        official = {}
        for run in runs:
            try:
                official[run["name"]] = figs.run(run)
            except (RuntimeError, AttributeError, OSError, ValueError, subprocess.TimeoutExpired) as exc:
                official[run["name"]] = {"error": str(exc)[:300]}
        if args.official_only:
            for run in runs:
                print("%-28s %-22s %s" % (name, run["name"], json.dumps(official[run["name"]], sort_keys=True)))
            if args.record:
                entry["official_figures"] = official
            continue
        ok, note, comp = stand_up(args.main, corpus, entry, work)
        direct = None
        if not ok and "invalid choice" in note and args.direct:
            direct = write_direct_config(work, entry)
        elif not ok:
            table.append((name, entry["kind"], "n", "-", note))
            details.append({"task": name, "stood_up": False, "note": note})
            continue
        phases = phase_numbers(os.path.join(comp, "bundles", name, "task.yaml")) if ok else {}
        all_equal, diffs, n_cmp = True, [], 0
        for run in runs:
            if direct:
                ours, problem = score_direct(args.main, direct, entry, corpus, run)
            else:
                ours, problem = replay(args.main, comp, entry, corpus, run, phases, work)
            if "error" in official[run["name"]]:
                diffs.append("%s: official scorer failed: %s" % (run["name"], official[run["name"]]["error"][:120]))
                all_equal = False
                continue
            if ours is None:
                diffs.append("%s: replay failed: %s" % (run["name"], problem))
                all_equal = False
                continue
            rows = compare(entry, official[run["name"]], ours)
            n_cmp += len(rows)
            for fig, off, mine, equal in rows:
                if not equal:
                    all_equal = False
                    diffs.append("%s %s: official %s, ours %s" % (run["name"], fig, off, "missing" if mine is None else "%.10g" % mine))
            details.append({"task": name, "run": run["name"], "official": official[run["name"]], "ours": ours,
                            "compared": [list(r) for r in rows]})
        if direct:
            diffs.insert(0, "new does not offer the kind yet: scored directly by scoring_programs/generic/evaluate.py")
        table.append((name, entry["kind"], "n" if direct else "y", "y" if all_equal and n_cmp else "n",
                      "%d figures over %d runs" % (n_cmp, len(runs)) + ("; " + "; ".join(diffs[:6]) if diffs else "")
                      + (" (+%d more)" % (len(diffs) - 6) if len(diffs) > 6 else "")))
    if args.official_only:
        if args.record:
            with open(args.manifest, "w", encoding="utf-8") as f:
                json.dump(entries, f, indent=1, ensure_ascii=False)
                f.write("\n")
            print("recorded official_figures in %s" % args.manifest)
        return 0
    print("%-28s %-15s %-9s %-7s %s" % ("task", "kind", "stood up", "equal", "notes"))
    for row in table:
        print("%-28s %-15s %-9s %-7s %s" % row)
    stood = sum(1 for r in table if r[2] == "y")
    equal = sum(1 for r in table if r[3] == "y")
    print("\n%d tasks: %d stood up without code, %d equal to the official scorer" % (len(table), stood, equal))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"table": table, "details": details}, f, indent=1)
    return 0 if table and stood == equal == len(table) else 1


if __name__ == "__main__":
    sys.exit(main())
