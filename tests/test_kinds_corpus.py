"""The corpus of real shared tasks of tools/kinds_corpus (issue 39): what the manifest promises, always; and, where
the repository mirrors are on this machine, tasks stood up with one `new` command each whose every figure equals
the official scorer's on the same files (the official scorers chosen here need only Python 3 and perl)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codalab_bundles.authoring import generic_kits
from conftest import ROOT

CORPUS = ROOT / "tools" / "kinds_corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
MIRRORS = Path(os.environ["MIRRORS_DIR"]) if os.environ.get("MIRRORS_DIR") else ROOT.parent / ".mirror"
# One task a kind whose official scorer runs without Python 2: sequence (conlleval.pl), ranking (ms_marco_eval.py),
# text (the SQuAD v1.1 script), classification options (eval.pl of SemEval-2016 Task 6).
LIVE = ("conll2003-ner", "msmarco-passage-dev-small", "xquad-en", "semeval2016-t6a-stance")


def test_the_corpus_has_a_dozen_real_tasks_of_every_new_kind_and_option():
    names = [entry["name"] for entry in MANIFEST]
    assert len(names) >= 12 and len(set(names)) == len(names)
    kinds = set(entry["kind"] for entry in MANIFEST)
    assert {"regression", "text", "sequence", "ranking", "classification", "multilabel"} <= kinds
    fields = set(field for entry in MANIFEST for field in entry["scoring_json"])
    # the options of the issue, each used by a real task
    assert {"label_range", "normalize", "labels", "subset_labels", "missing_queries", "zero_division", "scheme",
            "docstart", "tokens"} <= fields
    keys = set(key for entry in MANIFEST for key in entry["scoring_json"].get("keys", ()))
    assert {"pearson", "qwk", "exact_match", "f1", "bleu", "chrf", "rouge1", "mrr_at_10", "ndcg_at_10", "map",
            "subset_macro_f1", "subset_micro_f1", "jaccard"} <= keys


@pytest.mark.parametrize("entry", MANIFEST, ids=[entry["name"] for entry in MANIFEST])
def test_each_task_names_its_sources_its_official_figures_and_a_valid_scoring_json(entry):
    for role, source in entry["files"].items():
        assert len(source["commit"]) == 40 and "/" in source["repo"] and source["path"], role
    assert entry["official_figures"], "the official scorer's figures are recorded for every run"
    assert entry["compare"] and entry["licence"]
    config = dict(entry["scoring_json"], kind=entry["kind"], reference=entry["gold_name"])
    assert generic_kits.generic_config().check_config(config) == []


def _mirrors_of(names):
    missing = []
    for entry in MANIFEST:
        if entry["name"] in names:
            for source in entry["files"].values():
                git_dir = MIRRORS / source["repo"].replace("/", "+") / "repo"
                if not git_dir.exists():
                    missing.append(source["repo"])
    return sorted(set(missing))


def test_tasks_stood_up_with_one_command_equal_their_official_scorers(tmp_path):
    missing = _mirrors_of(LIVE)
    if missing:
        pytest.skip("real data not available: mirrors of %s in %s (set MIRRORS_DIR)" % (", ".join(missing), MIRRORS))
    if subprocess.run(["perl", "-e", "1"]).returncode:
        pytest.skip("perl is needed by conlleval.pl and eval.pl")
    out = tmp_path / "corpus"
    built = subprocess.run([sys.executable, str(CORPUS / "build_corpus.py"), "--mirror", str(MIRRORS), "--out",
                            str(out), "--only"] + list(LIVE), capture_output=True, text=True, timeout=1800)
    assert built.returncode == 0, built.stdout + built.stderr
    checked = subprocess.run([sys.executable, str(CORPUS / "check_corpus.py"), "--corpus", str(out), "--main",
                              str(ROOT), "--work", str(tmp_path / "work"), "--only"] + list(LIVE),
                             capture_output=True, text=True, timeout=3000)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip().splitlines()[-1] == \
        "%d tasks: %d stood up without code, %d equal to the official scorer" % ((len(LIVE),) * 3)
