"""On the local Codabench (tools/codabench_local; skipped when it is not running): a submission whose details the site
cannot show, and a zip with no entry.

The state an interrupted dispatch leaves (a site worker stopped between a details row's creation and its file's,
FAULTS.md) is made without restarting anything: tools/codabench_local/break_details.sh adds a details row without a
file to a Finished submission, and the site answers HTTP 500 to its get_details. ``submit`` then says so and keeps
exit status 1; ``--resend-broken`` deletes it and sends the zip again, and the new submission is whole, with the same
scores. The empty zip takes about 3 minutes of a compute worker (Codabench's 10 tries, 20 s apart)."""
import io
import json
import subprocess
import zipfile

import pytest

from codalab_bundles.authoring import build, taskdef
from codalab_bundles.site import codabench_api
from conftest import ROOT
from test_codabench_live import URL, WHY, cli_as, local_account, published_for_robots

pytestmark = pytest.mark.skipif(URL is None, reason="needs a running Codabench: %s" % WHY)

BREAK = ROOT / "tools" / "codabench_local" / "break_details.sh"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("whole")
    bundle = build.build_task(taskdef.load_task("toxic-spans"), tmp / "dist").codabench
    competition = published_for_robots(local_account("--user", "s-whole-organizer"), bundle)
    with zipfile.ZipFile(str(bundle)) as archive:
        kit = zipfile.ZipFile(io.BytesIO(archive.read("starting_kit_trial.zip")))
    sample = tmp / "sample.zip"
    sample.write_bytes(kit.read("sample_submission.zip"))
    return {"tmp": tmp, "bundle": bundle, "competition": competition, "sample": sample}


def _submit(robot, live, *paths_and_options):
    proc = cli_as(robot["CODABENCH_TOKEN"], "submit", *paths_and_options, "--competition", live["competition"],
                  "--phase", 1, "--even-if-closed", "--batch", "--ledger", live["tmp"] / ("%s.jsonl" % robot[
                      "CODABENCH_USER"]), "--json", "--expect-replay", live["bundle"])
    return proc, (json.loads(proc.stdout.splitlines()[-1])["submissions"] if proc.stdout.strip() else None)


def test_a_submission_whose_details_the_site_cannot_show_is_said_then_sent_again_whole(live):
    robot = local_account("--bot", "s-whole-robot")
    proc, rows = _submit(robot, live, live["sample"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (first,) = rows
    assert first["status"] == "Finished" and first["details_broken"] is None and first["replay"] == []
    broken = subprocess.run(["bash", str(BREAK), str(first["submission"])], capture_output=True, text=True,
                            timeout=300)
    if broken.returncode != 0:
        pytest.skip("break_details.sh cannot reach the local Codabench's database: %s" % broken.stderr[-300:])
    client = codabench_api.Client(URL, robot["CODABENCH_TOKEN"])
    with pytest.raises(codabench_api.ApiError) as answer:
        client.call("reading", "GET", "/api/submissions/%s/get_details/" % first["submission"])
    assert answer.value.status == 500
    proc, rows = _submit(robot, live, live["sample"])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (said,) = rows
    assert said["submission"] == first["submission"] and said["origin"] == "ledger" and said["status"] == "Finished"
    assert said["details_broken"].startswith("the site cannot show its details (GET /api/submissions/%s/get_details/ "
                                             "answers HTTP 500" % first["submission"])
    proc, rows = _submit(robot, live, live["sample"], "--resend-broken")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (whole,) = rows
    assert whole["resent"] == [first["submission"]] and whole["submission"] != first["submission"]
    assert whole["status"] == "Finished" and whole["scores"] == first["scores"] and whole["details_broken"] is None
    assert whole["replay"] == []
    assert client.call("reading", "GET", "/api/submissions/%s/get_details/" % whole["submission"])["logs"]
    with pytest.raises(codabench_api.ApiError) as gone:
        client.call("reading", "GET", "/api/submissions/%s/" % first["submission"])
    assert gone.value.status == 404
    with open(str(live["tmp"] / "s-whole-robot.jsonl")) as handle:
        stages = [json.loads(line).get("stage") for line in handle]
    assert "details broken" in stages and "compared with the replay" in stages
    assert "deleted (the site could not show its details) and sent again as submission %s" % whole["submission"] \
        in stages


def test_a_zip_with_no_entry_gets_codabenchs_words_as_the_replay_says(live):
    robot = local_account("--bot", "s-whole-empty")
    empty = live["tmp"] / "empty.zip"
    empty.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    proc, rows = _submit(robot, live, empty)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # Failed, as expected: the replay agrees
    (row,) = rows
    assert row["status"] == "Failed" and row["details"] == "Bad or empty zip file" and row["message"] == ""
    assert row["replay"] == [] and 170 <= row["seconds"] <= 400
