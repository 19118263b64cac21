"""food-hazard's code-submission variant (bundles/food-hazard/task-code.yaml) on a real Codabench: the local one of
tools/codabench_local, or any site given by CODABENCH_URL and CODABENCH_TOKEN. Skipped, saying why, when no site
answers; CI does not run it.

The bundle is published; the baseline, a model that crashes (with a submission.csv of its own in the zip) and a model
that looks for the gold under /app are submitted; each ends on the site as code_run.run (both steps, laid out as
Codabench's worker lays them out) says: the same status and, to the 10 decimals the site keeps, the same scores."""
import json

import pytest

from codalab_bundles.authoring import build, code_run, taskdef
from codalab_bundles.zips import pack
from test_code_submission import LABELS, TASK, competition
from test_codabench_live import URL, WHY, _cli

pytestmark = pytest.mark.skipif(URL is None, reason="needs a running Codabench: %s" % WHY)

CRASH = "def load(d):\n    return M()\nclass M:\n    def predict(self, items):\n        return 1 / 0\n"
SNOOP = ("import os\ndef load(d):\n    return M()\nclass M:\n    def predict(self, items):\n"
         "        hit = os.path.exists('/app/input/ref') or any('incidents_test' in f or f.startswith('reference')\n"
         "                                                      for _, _, fs in os.walk('/app') for f in fs)\n"
         "        return [dict((k, 'gold' if hit else 'none') for k in %r) for _ in items]\n" % LABELS)


def test_the_code_variant_on_a_real_codabench_ends_as_its_local_run(tmp_path):
    folder = competition(tmp_path / "competition")
    task = taskdef.load_task(TASK, bundles_dir=folder / "bundles")
    bundle = build.build_task(task, folder / "dist").codabench
    proc = _cli("publish", bundle, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    published = json.loads(proc.stdout)
    assert published["differences"] == []
    kit = code_run.phase_files(bundle, 2)["starting_kit"]
    submissions = {"baseline": code_run.sample_submission(kit),
                   "crash": pack.zip_entries([("model.py", CRASH.encode()), ("submission.csv", b"forged\n")]),
                   "snoop": pack.zip_entries([("model.py", SNOOP.encode())])}
    for name, data in submissions.items():
        path = tmp_path / ("%s.zip" % name)
        path.write_bytes(data)
        local = code_run.run(bundle, 2, data)
        proc = _cli("submit", path, "--competition", published["id"], "--phase", 2, "--json")
        result = json.loads(proc.stdout)
        assert result["status"] == local["status"], (name, result, local)
        site = dict((key, round(float(value), 10)) for key, value in (result.get("scores") or {}).items())
        assert site == dict((key, round(value, 10)) for key, value in local["scores"].items()), name
    assert local["predictions"]["submission.csv"].decode().splitlines()[1].endswith("none,none,none,none")
