"""Every kind of ``new`` through a real Codabench (issue 39): the local one of tools/codabench_local, or any site
given by CODABENCH_URL and CODABENCH_TOKEN. Skipped, saying why, when no site answers; CI does not run it.

For each generic kind, and for ``custom``: ``new`` writes a task from its sample data in a fresh competition
folder, ``build`` builds it, ``publish`` puts it on the site (the stored phases must be task.yaml's), and the
starting kit's sample of each phase is submitted with ``--expect-replay``: the site's status and scores must equal
the local replay's under Codabench's worker, and the submission must be on the leaderboard."""
import json
import zipfile

import pytest

from codalab_bundles.authoring import generic_kits
from conftest import ROOT
from test_codabench_live import URL, WHY, _cli, _sample

pytestmark = pytest.mark.skipif(URL is None, reason="needs a running Codabench: %s" % WHY)

# Each kind from its sample data; "ranking-qrels": a ranking task whose gold is TREC qrels (graded relevance).
KINDS = list(generic_kits.KINDS) + ["custom", "ranking-qrels"]


def _qrels_gold(folder):
    for split in ("dev", "test"):
        (folder / split).mkdir(parents=True)
        for name, text in generic_kits.sample_gold("ranking", split, 7, qrels=True).items():
            (folder / split / name).write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("kind", KINDS)
def test_a_new_task_of_each_kind_scores_on_a_real_codabench_as_its_replay(kind, tmp_path):
    folder = tmp_path / "competition"
    name = "live-%s" % kind
    if kind == "ranking-qrels":
        made = _cli("new", name, "--gold-dir", _qrels_gold(tmp_path / "gold"), "--dir", folder)
    else:
        made = _cli("new", name, "--kind", kind, "--dir", folder)
    assert made.returncode == 0, made.stdout + made.stderr
    built = _cli("build", folder, "--task", name)
    assert built.returncode == 0, built.stdout + built.stderr
    bundle = folder / "dist" / ("%s.zip" % name)
    proc = _cli("publish", bundle, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    published = json.loads(proc.stdout)
    assert published["differences"] == []
    with zipfile.ZipFile(str(bundle)) as archive:
        assert "competition.yaml" in archive.namelist()
    for number, split in ((1, "dev"), (2, "test")):
        sample = _sample(bundle, split, tmp_path)
        proc = _cli("submit", sample, "--competition", published["id"], "--phase", number, "--even-if-closed",
                    "--expect-replay", bundle, "--json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout)
        assert result["status"] == "Finished" and result["differences"] == [], result
        assert result["row"] is not None
        assert result["scores"], result
    assert ROOT.is_dir()
