#!/usr/bin/env python3
"""Rebuild the corpus of real shared tasks for the generic kinds from public repository snapshots.

The corpus checks that an organizer can stand up a real shared task with `new --kind KIND` (no scorer
written) and that its scores equal the task's OFFICIAL scorer run on the same files. Nothing fetched is
committed here: only manifest.json (where each file lives: repository, commit, path), this script,
check_corpus.py and README.md.

    python3 tools/kinds_corpus/build_corpus.py --mirror /work/.mirror --out /tmp/kinds-corpus

For each manifest entry the files are read with git from the bare mirror <mirror>/<owner>+<name>/repo
(or .../repo/.git) at the entry's commit, and OUT/<name>/ is written:

  gold/dev/<gold_name>, gold/test/<gold_name>   the organizer's gold, as `new --gold-dir` takes it
  runs/<run>/<submission>                       each run as a participant submits it (our format)
  official/gold...                              the gold in the layout the official scorer reads
  official/runs/<run>...                        each run in the layout the official scorer reads
  scorer/...                                    the official scorer's files (never committed)
  runs.json                                     [{name, phase, source, file, official_file}]

Where the official files are in another layout than a gold `new` reads (one score per line, eleven 0/1
columns, plain lines of text), the builder only re-lays them out (ids, columns); no value is changed. Runs
that are not published are made by a deterministic perturbation of the gold (seeded by the task name),
named "perturbed-*"; real runs keep their published names. Output is deterministic.
"""
import argparse
import csv
import io
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Snapshot:
    """Files of one commit of a bare git mirror."""

    def __init__(self, git_dir, commit):
        self.git_dir, self.commit = git_dir, commit
        out = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", commit], check=True,
                             capture_output=True).stdout.decode("utf-8", "surrogateescape")
        self.files = {}
        for record in filter(None, out.split("\0")):
            meta, path = record.split("\t", 1)
            mode, kind, sha = meta.split()
            if kind == "blob":
                self.files[path] = sha

    def read(self, path):
        if path not in self.files:
            raise KeyError("%s is not in %s at %s" % (path, self.git_dir, self.commit))
        result = subprocess.run(["git", "--git-dir", self.git_dir, "cat-file", "blob", self.files[path]],
                                capture_output=True)
        if result.returncode:
            raise KeyError("%s: the mirror lists it but lacks its content (a file of 4 MiB or more)" % path)
        return result.stdout


def git_dir_for(mirror, repo):
    base = os.path.join(mirror, repo.replace("/", "+"), "repo")
    for candidate in (os.path.join(base, ".git"), base):
        if os.path.isfile(os.path.join(candidate, "HEAD")):
            return candidate
    return None


class Source:
    """Reads the manifest's files of one entry: source(role) -> bytes."""

    def __init__(self, mirror, entry):
        self.mirror, self.entry, self._snaps = mirror, entry, {}

    def spec(self, role):
        return self.entry["files"][role]

    def __call__(self, role):
        spec = self.spec(role)
        key = (spec["repo"], spec["commit"])
        if key not in self._snaps:
            git_dir = git_dir_for(self.mirror, spec["repo"])
            if git_dir is None:
                raise KeyError("no mirror of %s under %s" % (spec["repo"], self.mirror))
            self._snaps[key] = Snapshot(git_dir, spec["commit"])
        return self._snaps[key].read(spec["path"])

    def text(self, role):
        return self(role).decode("utf-8-sig")

    def roles(self, prefix):
        return sorted(r for r in self.entry["files"] if r.startswith(prefix))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)


def tsv(rows):
    out = io.StringIO()
    w = csv.writer(out, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    for row in rows:
        w.writerow(row)
    return out.getvalue()


def jdump(obj):
    return json.dumps(obj, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


class Task:
    """The output folder of one task, and the runs it gets."""

    def __init__(self, out, entry):
        self.dir = os.path.join(out, entry["name"])
        self.entry = entry
        self.gold_name = entry["gold_name"]
        self.submission = entry["scoring_json"]["submission"]
        self.runs = []
        self.rng = random.Random(entry["name"])

    def gold(self, split, data):
        write(os.path.join(self.dir, "gold", split, self.gold_name), data)

    def official(self, rel, data):
        write(os.path.join(self.dir, "official", rel), data)
        return os.path.join("official", rel)

    def scorer(self, rel, data):
        write(os.path.join(self.dir, "scorer", rel), data)

    def run(self, name, ours, official_files, phase="test", source="real"):
        """ours: the submission's bytes; official_files: {official rel path: bytes}."""
        write(os.path.join(self.dir, "runs", name, self.submission), ours)
        rels = [self.official(os.path.join("runs", name, rel), data) for rel, data in sorted(official_files.items())]
        self.runs.append({"name": name, "phase": phase, "source": source,
                          "file": os.path.join("runs", name, self.submission), "official_files": rels})

    def finish(self):
        write(os.path.join(self.dir, "runs.json"), jdump(self.runs))


def copy_scorers(src, task):
    for role in src.roles("scorer"):
        task.scorer(os.path.basename(src.spec(role)["path"]), src(role))


# ---------------------------------------------------------------- perturbations (deterministic)

def perturb_numbers(rng, values, noise, lo, hi, decimals=3):
    out = []
    for v in values:
        x = min(hi, max(lo, v + rng.gauss(0, noise)))
        out.append(round(x, decimals))
    return out


def perturb_labels(rng, labels, rate, choices):
    return [rng.choice([c for c in choices if c != g]) if rng.random() < rate else g for g in labels]


# ---------------------------------------------------------------- builders, one per task family

def b_sts(src, task, p):
    """SemEval STS 2012: gs file = one score per line; system = one score per line (first tab field)."""
    test = [float(x) for x in src.text("gold_test").split()]
    dev = [float(x) for x in src.text("gold_dev").split()]
    for split, values in (("dev", dev), ("test", test)):
        task.gold(split, tsv([["id", "score"]] + [[str(i + 1), "%g" % v] for i, v in enumerate(values)]))
    task.official("gold/STS.gs.txt", src("gold_test"))
    copy_scorers(src, task)
    for role in src.roles("run:"):
        lines = src.text(role).splitlines()
        scores = [line.split("\t")[0] for line in lines]
        task.run(role[4:], tsv([["id", "score"]] + [[str(i + 1), s] for i, s in enumerate(scores)]),
                 {"STS.output.txt": src(role)})
    for k, noise in enumerate(p["noise"]):
        values = perturb_numbers(task.rng, test, noise, 0, 5)
        text = "".join("%.3f\n" % v for v in values)
        task.run("perturbed-%d" % (k + 1), tsv([["id", "score"]] + [[str(i + 1), "%.3f" % v] for i, v in enumerate(values)]),
                 {"STS.output.txt": text}, source="perturbed")


def _emoint_rows(text):
    return [line.split("\t") for line in text.splitlines() if line.strip()]


def b_emoint(src, task, p):
    """WASSA-2017 EmoInt: id<TAB>tweet<TAB>emotion<TAB>score, no header; the official scorer reads this format."""
    for split in ("dev", "test"):
        rows = _emoint_rows(src.text("gold_" + split))
        task.gold(split, tsv([["id", "score"]] + [[r[0], r[3]] for r in rows]))
    task.official("gold/gold.txt", src("gold_test"))
    task.official("gold/gold-dev.txt", src("gold_dev"))
    copy_scorers(src, task)
    for role in src.roles("run:"):
        rows = _emoint_rows(src.text(role))
        task.run(role[4:], tsv([["id", "score"]] + [[r[0], r[3]] for r in rows]), {"pred.txt": src(role)},
                 phase="dev")
    rows = _emoint_rows(src.text("gold_test"))
    gold = [float(r[3]) for r in rows]
    for k, noise in enumerate(p["noise"]):
        values = perturb_numbers(task.rng, gold, noise, 0, 1)
        official = "".join("%s\t%s\t%s\t%.3f\n" % (r[0], r[1], r[2], v) for r, v in zip(rows, values))
        task.run("perturbed-%d" % (k + 1), tsv([["id", "score"]] + [[r[0], "%.3f" % v] for r, v in zip(rows, values)]),
                 {"pred.txt": official}, source="perturbed")


def b_asap(src, task, p):
    """ASAP-AES, one prompt (essay_set): integer domain1_score over the prompt's range."""
    lo, hi = p["label_range"]
    for split in ("dev", "test"):
        reader = csv.DictReader(io.StringIO(src("gold_" + split).decode("latin-1")), delimiter="\t")
        rows = [(r["essay_id"], int(r["domain1_score"])) for r in reader if r["essay_set"] == str(p["essay_set"])]
        task.gold(split, tsv([["id", "score"]] + [[i, str(s)] for i, s in rows]))
        if split == "test":
            test = rows
    task.official("gold/gold.tsv", tsv([["essay_id", "score"]] + [[i, str(s)] for i, s in test]))
    copy_scorers(src, task)
    for k, rate in enumerate(p["rates"]):
        pred = []
        for i, s in test:
            if task.rng.random() < rate:
                s = min(hi, max(lo, s + task.rng.choice([-2, -1, 1, 2])))
            pred.append((i, s))
        text = tsv([["id", "score"]] + [[i, str(s)] for i, s in pred])
        task.run("perturbed-%d" % (k + 1), text,
                 {"pred.tsv": tsv([["essay_id", "score"]] + [[i, str(s)] for i, s in pred])}, source="perturbed")


def _squad_qas(dataset):
    for article in dataset["data"]:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                yield qa


def _squad_answer_run(rng, qas, p):
    """A made run: a gold answer, a gold answer changed at its edges, or a wrong/empty answer."""
    pred = {}
    for qa in qas:
        golds = [a["text"] for a in qa.get("answers", [])]
        r = rng.random()
        if not golds:
            pred[qa["id"]] = "" if r < p["abstain"] else rng.choice(p["fillers"])
            continue
        text = rng.choice(golds)
        if r < p["exact"]:
            pass
        elif r < p["exact"] + p["edge"]:
            words = text.split()
            if len(words) > 1 and rng.random() < 0.5:
                text = " ".join(words[1:])
            else:
                text = rng.choice(p["fillers"]).split()[0] + " " + text
        elif r < p["exact"] + p["edge"] + p["empty"]:
            text = ""
        else:
            text = rng.choice(p["fillers"])
        pred[qa["id"]] = text
    return pred


def b_squad(src, task, p):
    """A SQuAD-format dataset (XQuAD or a SQuAD 2.0 sample): gold is the dataset JSON itself."""
    if "gold_test" in src.entry["files"] and src.spec("gold_test")["path"].endswith("ground_truth.json"):
        truth = json.loads(src.text("gold_test"))  # {id: {answers, is_impossible}} -> SQuAD 2.0 layout
        # a question without an answer has "answers": [""] there; the SQuAD 2.0 layout gives it no answers
        qas = [{"id": i, "question": "", "is_impossible": v["is_impossible"],
                "answers": [] if v["is_impossible"] else [{"text": t, "answer_start": -1} for t in v["answers"]]}
               for i, v in sorted(truth.items())]
        dataset = {"version": "v2.0", "data": [{"title": "sample", "paragraphs": [{"context": "", "qas": qas}]}]}
    else:
        dataset = json.loads(src.text("gold_test"))
    data = json.dumps(dataset, ensure_ascii=False)
    n_dev = p.get("dev_articles", 1)
    if len(dataset["data"]) > 1:
        dev = dict(dataset, data=dataset["data"][:n_dev])
    else:
        para = dataset["data"][0]["paragraphs"][0]
        dev = dict(dataset, data=[dict(dataset["data"][0], paragraphs=[dict(para, qas=para["qas"][:100])])])
    task.gold("dev", json.dumps(dev, ensure_ascii=False))
    task.gold("test", data)
    task.official("gold/dataset.json", data)
    copy_scorers(src, task)
    qas = list(_squad_qas(dataset))
    for k, mix in enumerate(p["runs"]):
        pred = _squad_answer_run(task.rng, qas, dict(p, **mix))
        text = json.dumps(pred, ensure_ascii=False, sort_keys=True)
        task.run("perturbed-%d" % (k + 1), text, {"predictions.json": text}, source="perturbed")


def b_wmt(src, task, p):
    """WMT22 general task: plain lines (one segment a line); ids are line numbers."""
    refs = [src.text(role).split("\n") for role in src.roles("ref:")]
    n = len(refs[0]) - (1 if refs[0][-1] == "" else 0)
    refs = [r[:n] for r in refs]
    gold = dict(("%d" % (i + 1), [r[i] for r in refs] if len(refs) > 1 else refs[0][i]) for i in range(n))
    dev = dict((k, v) for k, v in gold.items() if int(k) <= p.get("dev_lines", 100))
    task.gold("dev", jdump(dev))
    task.gold("test", jdump(gold))
    for role in src.roles("ref:"):
        task.official("gold/%s" % os.path.basename(src.spec(role)["path"]), src(role))
    for role in src.roles("run:"):
        lines = src.text(role).split("\n")[:n]
        task.run(role[4:], jdump(dict(("%d" % (i + 1), lines[i]) for i in range(n))),
                 {os.path.basename(src.spec(role)["path"]): src(role)})
    if "scores" in src.entry["files"]:
        task.official("published-scores.tsv", src("scores"))


def b_mediqa(src, task, p):
    """MEDIQA-Chat 2023 task A (MTS-Dialog): section_text is the reference note; four systems' outputs on the
    validation set are published in the correlation study (IDs 0-99 model 1, 100-199 model 2, ...)."""
    val = list(csv.DictReader(io.StringIO(src.text("gold_test"))))
    train = list(csv.DictReader(io.StringIO(src.text("gold_dev"))))
    task.gold("test", jdump(dict((r["ID"], r["section_text"]) for r in val)))
    task.gold("dev", jdump(dict((r["ID"], r["section_text"]) for r in train[:100])))
    task.official("gold/gold.csv", tsv_csv([["ID", "SystemOutput"]] + [[r["ID"], r["section_text"]] for r in val]))
    copy_scorers(src, task)
    autos = list(csv.DictReader(io.StringIO(src.text("runs"))))
    n = len(val)
    for m in range(len(autos) // n):
        block = autos[m * n:(m + 1) * n]
        # the study's rows follow the validation set's order; its reference must be the gold's section_text
        pred = dict((val[i]["ID"], block[i]["Automatic Summary"]) for i in range(n))
        mism = sum(1 for i in range(n) if block[i]["Reference Summary"].strip() != val[i]["section_text"].strip())
        if mism:
            print("%s: model %d: %d references differ from the validation set's" % (task.entry["name"], m + 1, mism))
        task.run("model-%d" % (m + 1), jdump(pred),
                 {"pred.csv": tsv_csv([["ID", "SystemOutput"]] + [[k, v] for k, v in pred.items()])})


def tsv_csv(rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    for row in rows:
        w.writerow(row)
    return out.getvalue()


def _conll_sentences(text, tag_col=-1):
    """[[(line fields)]] sentences of a CoNLL column file; -DOCSTART- lines kept as they are."""
    sents, cur = [], []
    for line in text.splitlines():
        if not line.strip():
            if cur:
                sents.append(cur)
                cur = []
            continue
        cur.append(line.split())
    if cur:
        sents.append(cur)
    return sents


def _conll_text(sents, sep=" "):
    return "".join("".join(sep.join(f) + "\n" for f in s) + "\n" for s in sents)


def _perturb_tags(rng, sents, rate, types, scheme):
    """Change some entity tags: drop an entity, retype it, or cut its first token (leaving I- alone)."""
    out = []
    for s in sents:
        tags = [f[-1] for f in s]
        new = list(tags)
        i = 0
        while i < len(tags):
            if tags[i] != "O" and (i == 0 or tags[i][:2] == "B-" or tags[i - 1] == "O" or tags[i - 1][2:] != tags[i][2:]):
                j = i + 1
                while j < len(tags) and tags[j][:2] == "I-" and tags[j][2:] == tags[i][2:]:
                    j += 1
                if rng.random() < rate:
                    what = rng.random()
                    if what < 0.4:
                        for k in range(i, j):
                            new[k] = "O"
                    elif what < 0.8:
                        t = rng.choice([x for x in types if x != tags[i][2:]])
                        for k in range(i, j):
                            new[k] = tags[k][:2] + t
                    elif j - i > 1:
                        new[i] = "O"  # the chunk now starts with I- (conlleval starts a chunk there)
                i = j
            else:
                if tags[i] == "O" and s[i][0] != "-DOCSTART-" and rng.random() < rate / 20:
                    new[i] = ("I-" if scheme == "iob1" else "B-") + rng.choice(types)
                i += 1
        out.append([[f[0], t] for f, t in zip(s, new)])
    return out


def b_conll(src, task, p):
    """CoNLL-2003 (IOB1, four columns) or WNUT-17 (BIO, two columns): the gold file as it is."""
    for split in ("dev", "test"):
        task.gold(split, src("gold_" + split))
    task.official("gold/gold.conll", src("gold_test"))
    copy_scorers(src, task)
    gold = _conll_sentences(src.text("gold_test"))
    gold_pairs = [[[f[0], f[-1]] for f in s] for s in gold]

    def official_merged(pred):
        # conlleval and wnuteval read one file: token, gold tag, guessed tag (conlleval: spaces, wnuteval: tabs)
        lines = ["".join("%s %s %s\n" % (g[0], g[1], q[1]) for g, q in zip(gs, ps)) + "\n"
                 for gs, ps in zip(gold_pairs, pred)]
        text = "".join(lines)
        return {"merged.txt": text, "merged.tsv": text.replace(" ", "\t")}

    for role in src.roles("run:"):
        pred = _conll_sentences(src.text(role))
        if [len(s) for s in pred] != [len(s) for s in gold]:
            print("%s: %s does not align with the gold sentence by sentence; skipped" % (task.entry["name"], role))
            continue
        changed = sum(1 for gs, ps in zip(gold, pred) for a, b in zip(gs, ps) if a[0] != b[0])
        if changed:  # the official scorers pair tags by position; the run's own tokens stay in its file
            print("%s: %s changes %d tokens of the gold (kept: tags are paired by position)" % (task.entry["name"], role, changed))
        pred = [[[f[0], f[-1]] for f in s] for s in pred]
        task.run(role[4:], _conll_text(pred), official_merged(pred))
    for k, rate in enumerate(p["rates"]):
        pred = _perturb_tags(task.rng, gold, rate, p["types"], p["scheme"])
        task.run("perturbed-%d" % (k + 1), _conll_text(pred), official_merged(pred),
                 source="perturbed")


def _qrels(text):
    q = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 4:
            q.setdefault(f[0], {})[f[2]] = int(f[3])
    return q


def _made_ranking(rng, qrels, depth, p, pool):
    """{qid: [docids best first]}: relevant documents placed at random depths among others from the pool."""
    run = {}
    for qid in sorted(qrels):
        if rng.random() < p.get("missing", 0):
            continue
        rel = [d for d, g in sorted(qrels[qid].items()) if g > 0]
        nonrel = [d for d, g in sorted(qrels[qid].items()) if g <= 0]
        others = nonrel + rng.sample(pool, min(len(pool), depth))
        ranking = []
        for d in others:
            if d not in ranking and d not in qrels[qid] or d in nonrel and d not in ranking:
                ranking.append(d)
        ranking = ranking[:depth]
        for d in rel:
            if rng.random() < p["found"]:
                pos = min(len(ranking), int(rng.expovariate(1.0 / p["mean_rank"])))
                ranking.insert(pos, d)
        run[qid] = ranking[:depth]
    return run


def b_msmarco(src, task, p):
    """MS MARCO passage dev small: TREC-style qrels (qid 0 pid 1); MRR@10 over the reference's queries."""
    text = src.text("gold_test")
    qrels = _qrels(text)
    qids = sorted(qrels, key=int)
    dev_q = set(qids[:p.get("dev_queries", 200)])
    lines = [l for l in text.splitlines() if l.split()]
    task.gold("test", "".join(" ".join(l.split()[:4]) + "\n" for l in lines))
    task.gold("dev", "".join(" ".join(l.split()[:4]) + "\n" for l in lines if l.split()[0] in dev_q))
    task.official("gold/qrels.dev.small.tsv", "".join("\t".join(l.split()[:4]) + "\n" for l in lines))
    copy_scorers(src, task)
    pool = sorted(set(d for q in qrels.values() for d in q))
    for k, mix in enumerate(p["runs"]):
        run = _made_ranking(task.rng, qrels, p["depth"], mix, pool)
        trec = "".join("%s Q0 %s %d %.4f made\n" % (q, d, i + 1, 100.0 - i) for q in sorted(run, key=int)
                       for i, d in enumerate(run[q]))
        official = "".join("%s\t%s\t%d\n" % (q, d, i + 1) for q in sorted(run, key=int) for i, d in enumerate(run[q]))
        task.run("perturbed-%d" % (k + 1), trec, {"run.tsv": official}, source="perturbed")


def b_trec(src, task, p):
    """A TREC track with graded qrels; runs in TREC format; trec_eval from its release tarball."""
    text = src.text("gold_test")
    qrels = _qrels(text)
    qids = sorted(qrels, key=lambda q: (len(q), q))
    dev_q = set(qids[:p.get("dev_queries", 5)])
    task.gold("test", text)
    task.gold("dev", "".join(l + "\n" for l in text.splitlines() if l.split() and l.split()[0] in dev_q))
    task.official("gold/qrels.txt", text)
    copy_scorers(src, task)
    pool = sorted(set(d for q in qrels.values() for d in q))
    for k, mix in enumerate(p["runs"]):
        run = _made_ranking(task.rng, qrels, p["depth"], mix, pool)
        trec = "".join("%s Q0 %s %d %.4f made%d\n" % (q, d, i + 1, 1000.0 - i, k + 1)
                       for q in sorted(run, key=lambda q: (len(q), q)) for i, d in enumerate(run[q]))
        task.run("perturbed-%d" % (k + 1), trec, {"run.txt": trec}, source="perturbed")


def b_semeval2017_4a(src, task, p):
    """SemEval-2017 Task 4A: gold id<TAB>label<TAB>text; the scorer wants id<TAB>label in the gold's order."""
    rows = [l.split("\t") for l in src.text("gold_test").splitlines() if l.strip()]
    task.gold("test", tsv([["id", "label"]] + [[r[0], r[1]] for r in rows]))
    task.gold("dev", tsv([["id", "label"]] + [[r[0], r[1]] for r in rows[:p.get("dev_items", 1000)]]))
    task.official("gold/gold.txt", src("gold_test"))
    copy_scorers(src, task)
    labels = [r[1] for r in rows]
    for k, rate in enumerate(p["rates"]):
        pred = perturb_labels(task.rng, labels, rate, ["positive", "negative", "neutral"])
        task.run("perturbed-%d" % (k + 1), tsv([["id", "label"]] + [[r[0], q] for r, q in zip(rows, pred)]),
                 {"pred.txt": "".join("%s\t%s\n" % (r[0], q) for r, q in zip(rows, pred))}, source="perturbed")


def b_stance(src, task, p):
    """SemEval-2016 Task 6A: ID<TAB>Target<TAB>Tweet<TAB>Stance with a header, for the gold and the runs."""
    def rows_of(text):
        lines = [l.rstrip("\r") for l in text.splitlines() if l.strip()]
        return [l.split("\t") for l in lines[1:]]
    test = rows_of(src.text("gold_test"))
    gold4 = "ID\tTarget\tTweet\tStance\n" + "".join("\t".join(r[:4]) + "\n" for r in test)
    task.gold("test", tsv([["ID", "Target", "Stance"]] + [[r[0], r[1], r[3]] for r in test]))
    trial = rows_of(src.text("gold_dev"))
    task.gold("dev", tsv([["ID", "Target", "Stance"]] + [[r[0], r[1], r[3]] for r in trial]))
    task.official("gold/gold.txt", gold4)
    copy_scorers(src, task)
    for role in src.roles("run:"):
        rows = rows_of(src.text(role))
        task.run(role[4:], tsv([["ID", "Stance"]] + [[r[0], r[3]] for r in rows]), {"guess.txt": src(role)})
    labels = [r[3] for r in test]
    for k, rate in enumerate(p["rates"]):
        pred = perturb_labels(task.rng, labels, rate, ["FAVOR", "AGAINST", "NONE"])
        official = "ID\tTarget\tTweet\tStance\n" + "".join("%s\t%s\t%s\t%s\n" % (r[0], r[1], r[2], q)
                                                            for r, q in zip(test, pred))
        task.run("perturbed-%d" % (k + 1), tsv([["ID", "Stance"]] + [[r[0], q] for r, q in zip(test, pred)]),
                 {"guess.txt": official}, source="perturbed")


def b_ec(src, task, p):
    """SemEval-2018 Task 1 E-c: ID, Tweet, eleven 0/1 emotion columns (tab separated, header)."""
    def parse(text):
        lines = [l for l in text.splitlines() if l.strip()]
        header = lines[0].split("\t")
        return header, [l.split("\t") for l in lines[1:]]
    header, rows = parse(src.text("gold_test"))
    emotions = header[2:]

    def ours(rs):
        return tsv_csv([["id", "labels"]] + [[r[0], "|".join(e for e, v in zip(emotions, r[2:]) if v == "1")]
                                             for r in rs])
    task.gold("test", ours(rows))
    task.gold("dev", ours(rows[:p.get("dev_items", 200)]))
    task.official("gold/gold.txt", src("gold_test"))
    copy_scorers(src, task)
    for k, rate in enumerate(p["rates"]):
        pred = []
        for r in rows:
            bits = [("1" if v == "0" else "0") if task.rng.random() < rate else v for v in r[2:]]
            pred.append(r[:2] + bits)
        official = "\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in pred)
        task.run("perturbed-%d" % (k + 1), ours(pred), {"pred.txt": official}, source="perturbed")


def b_emocontext(src, task, p):
    """SemEval-2019 Task 3: id, turn1, turn2, turn3, label (tab separated, header): the gold and the runs as they are."""
    text = src.text("gold_test")
    lines = text.splitlines()
    task.gold("test", text)
    task.gold("dev", "\n".join(lines[:p.get("dev_items", 500) + 1]) + "\n")
    task.official("gold/test.txt", text)
    copy_scorers(src, task)
    for role in src.roles("run:"):
        task.run(role[4:], src(role), {"test.txt": src(role)})


BUILDERS = {"sts": b_sts, "emoint": b_emoint, "asap": b_asap, "squad": b_squad, "wmt": b_wmt, "mediqa": b_mediqa,
            "conll": b_conll, "msmarco": b_msmarco, "trec": b_trec, "semeval2017_4a": b_semeval2017_4a,
            "stance": b_stance, "ec": b_ec, "emocontext": b_emocontext}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default="/work/.mirror", help="folder holding <owner>+<name>/repo mirrors")
    parser.add_argument("--out", required=True, help="folder to write <name>/ into")
    parser.add_argument("--manifest", default=os.path.join(HERE, "manifest.json"))
    parser.add_argument("--only", nargs="*", help="build only these entry names")
    args = parser.parse_args()
    with open(args.manifest, encoding="utf-8") as f:
        entries = json.load(f)
    built = 0
    for entry in entries:
        if args.only and entry["name"] not in args.only:
            continue
        src = Source(args.mirror, entry)
        task = Task(args.out, entry)
        try:
            BUILDERS[entry["build"]](src, task, entry.get("params", {}))
        except (KeyError, subprocess.CalledProcessError) as exc:
            print("%s: skipped, %s" % (entry["name"], exc))
            continue
        task.finish()
        built += 1
        print("%s: %d runs (%s)" % (entry["name"], len(task.runs),
                                     ", ".join("%s/%s" % (r["name"], r["phase"]) for r in task.runs)))
    print("built %d of %d tasks into %s" % (built, len(entries), args.out))
    return 0 if built else 1


if __name__ == "__main__":
    sys.exit(main())
