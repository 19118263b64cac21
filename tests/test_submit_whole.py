"""``submit`` leaves every submission whole for its participant (issue 41): a final submission whose details the
site cannot show (Codabench answers HTTP 500 to get_details when a details row has no file, as an interrupted
dispatch leaves it) is said, in the table, the summary and the ledger, and ``--resend-broken`` deletes it and sends
the zip again; ``--expect-replay`` compares the participant's message as well as the status and scores. Against the
stand-in of Codabench's API of test_submit_batch; the same on the local Codabench: test_submit_whole_live.py."""
import json

import pytest

from codalab_bundles.site import submit_command
from codalab_bundles.site import batch, submit
from test_submit_batch import Site, _many, _zip


@pytest.fixture
def site():
    fake = Site()
    yield fake
    fake.close()


def _ledger_lines(path):
    with open(str(path)) as handle:
        return [json.loads(line) for line in handle]


def test_a_final_submission_whose_details_the_site_cannot_show_is_said_and_counted(site, tmp_path):
    site.broken_details.add(1)
    said = []
    result = _many(site, [_zip(tmp_path, "run.zip", "0.4")], tmp_path / "ledger.jsonl", progress=said.append)
    entry = result["entries"][0]
    assert entry.status == "Finished" and entry.scores == {"score": 0.4} and entry.id == 1
    assert entry.broken.startswith("the site cannot show its details (GET /api/submissions/1/get_details/ answers "
                                   "HTTP 500: Server Error (500)): a details row without a file")
    assert "submit --resend-broken deletes it and sends the zip again" in entry.broken
    assert "  run.zip: submission 1 is final, but the site cannot show its details" in said
    assert not batch.all_finished(result) and site.posts == 1 and ("DELETE", "/api/submissions/1/") not in site.calls
    table = batch.format_table(result)
    assert "run.zip  1           Finished [details broken]  score=0.4; the site cannot show its details" in table
    assert "1 whose details the site cannot show (--resend-broken)" in batch.summary(result)
    stages = [(line.get("stage"), line.get("details_error")) for line in _ledger_lines(tmp_path / "ledger.jsonl")]
    assert stages[-2:] == [("final", None), ("details broken", "HTTP 500: Server Error (500)")]


def test_resend_broken_deletes_it_and_sends_the_zip_again_which_is_what_counts(site, tmp_path):
    site.broken_details.add(1)
    said = []
    result = _many(site, [_zip(tmp_path, "run.zip", "0.4")], tmp_path / "ledger.jsonl", resend_broken=True,
                   progress=said.append)
    entry = result["entries"][0]
    assert ("DELETE", "/api/submissions/1/") in site.calls and 1 not in site.submissions
    assert entry.id == 2 and entry.status == "Finished" and entry.scores == {"score": 0.4} and entry.broken is None
    assert entry.resent == [1] and site.posts == 2 and batch.all_finished(result)
    assert "  run.zip: submission 1 deleted (the site could not show its details) and sent again as submission 2" \
        in said
    assert "Finished [sent again: 1 deleted]" in batch.format_table(result)
    assert "1 sent again, their details broken" in batch.summary(result)
    last = _ledger_lines(tmp_path / "ledger.jsonl")
    assert [line["stage"] for line in last if line.get("stage", "").startswith("deleted")] == [
        "deleted (the site could not show its details) and sent again as submission 2"]
    assert last[-1]["stage"] == "final" and last[-1]["submission"] == 2
    # the next call finds the new one in the ledger and sends nothing
    again = _many(site, [_zip(tmp_path, "run.zip", "0.4")], tmp_path / "ledger.jsonl", resend_broken=True)
    assert again["entries"][0].id == 2 and again["entries"][0].origin == "ledger" and site.posts == 2


def test_a_lost_dispatch_run_again_with_broken_details_is_sent_again_once(site, tmp_path):
    # the case: the site worker stopped mid-dispatch (Submitting), --rerun-stuck runs it under its id, it
    # Finishes with its scores, but the details row the interrupted dispatch left has no file
    site.broken_details.add(1)

    def progress(text):
        if "run again (it stayed Submitting)" in text:
            site.lose = False  # the site worker is back: what is sent from now on is dispatched
    result = _many(site, [_zip(tmp_path, "lost.zip", "lost")], tmp_path / "ledger.jsonl", timeout=0.2,
                   rerun_stuck=True, resend_broken=True, progress=progress)
    entry = result["entries"][0]
    assert site.reruns == [1] and entry.rerun == 1 and entry.resent == [1] and entry.previous == [1]
    assert entry.id == 2 and entry.status == "Finished" and entry.scores == {"score": 0.9}
    assert batch.all_finished(result) and site.posts == 2
    assert "Finished [sent again: 1 deleted]" in batch.format_table(result)


def test_a_resent_submission_broken_again_is_said_not_sent_a_third_time(site, tmp_path):
    site.broken_details.update({1, 2})
    result = _many(site, [_zip(tmp_path, "run.zip", "0.3")], tmp_path / "ledger.jsonl", resend_broken=True)
    entry = result["entries"][0]
    assert entry.resent == [1] and entry.id == 2 and site.posts == 2 and 2 in site.submissions
    assert entry.broken.startswith("the site cannot show its details (GET /api/submissions/2/get_details/")
    assert not batch.all_finished(result)
    assert "Finished [details broken] [sent again: 1 deleted]" in batch.format_table(result)


def test_only_a_server_error_counts_as_broken_details(site, tmp_path):
    # a 403 (a phase hiding its output from participants) is not a broken submission
    site.broken_details.clear()
    result = _many(site, [_zip(tmp_path, "run.zip", "0.4")], tmp_path / "ledger.jsonl")
    assert result["entries"][0].broken is None and batch.all_finished(result)


def test_the_participants_message_is_compared_with_the_replays():
    replayed_bad_zip = {"status": "Failed", "scores": {}, "stderr": "", "exit_code": None,
                        "reason": "Bad or empty zip file"}
    site_bad_zip = {"status": "Failed", "scores": {}, "message": "", "details": "Bad or empty zip file"}
    assert submit.differences(site_bad_zip, replayed_bad_zip) == []
    # the old replay: the program's own message where the site never ran the program
    program = {"status": "Failed", "scores": {}, "exit_code": 1, "reason": "the scoring program exited with status 1",
               "stderr": "Submission error: no answers.txt in the submission\n"}
    assert submit.differences(site_bad_zip, program) == [
        "message: the participant reads no stderr on the site, 'Submission error: no answers.txt in the submission' "
        "in the replay"]
    site_program = {"status": "Failed", "scores": {}, "details": "Child task failed or non-zero return code",
                    "message": "\nSubmission error: no answers.txt in the submission\n"}
    assert submit.differences(site_program, program) == []
    other = dict(site_program, message="Submission error: answers.txt, line 2: bad")
    assert submit.differences(other, program) == [
        "message: the participant reads 'Submission error: answers.txt, line 2: bad' on the site, "
        "'Submission error: no answers.txt in the submission' in the replay"]
    # the worker's own words with no stderr on either side: the site's status text against the replay's reason
    assert submit.differences(dict(site_bad_zip, details="Metadata file not found"), replayed_bad_zip) == [
        "message: the site says 'Metadata file not found', the replay 'Bad or empty zip file' (neither has stderr)"]
    # a status that differs says both
    finished = {"status": "Finished", "scores": {"score": 0.5}, "message": "", "details": ""}
    assert submit.differences(finished, replayed_bad_zip) == [
        "status: the site says Finished, the replay Failed",
        "message: the site says '', the replay 'Bad or empty zip file' (neither has stderr)",
        "score: the site stored 0.5, the replay None"]
    # Finished on both: stderr is not compared
    assert submit.differences(finished, {"status": "Finished", "scores": {"score": 0.5}, "stderr": "note\n"}) == []
    # a stuck submission (Preparing on both) is not compared either
    assert submit.differences({"status": "Preparing", "scores": {}, "details": "ingestion_hostname-vm"},
                              {"status": "Preparing", "scores": {}, "stderr": "", "exit_code": None,
                               "reason": "the compute worker's task dies"}) == []


def test_each_replay_difference_goes_to_the_ledger(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    same, differs, twin = batch.Entry("a.zip", "a" * 64), batch.Entry("b.zip", "b" * 64), batch.Entry("c.zip", "a" * 64)
    same.id, same.replay = 1, []
    differs.id, differs.replay = 2, ["message: the site says 'Bad or empty zip file', the replay ''"]
    twin.same_as, twin.replay = "a.zip", []
    submit_command._ledger_replays({"ledger": str(ledger), "account": "robot", "entries": [same, differs, twin]}, None)
    lines = _ledger_lines(ledger)
    assert [(line["zip"], line["submission"], line["stage"], line["replay"]) for line in lines] == [
        ("a.zip", 1, "compared with the replay", []),
        ("b.zip", 2, "compared with the replay", ["message: the site says 'Bad or empty zip file', the replay ''"])]
    assert batch.Ledger(ledger).load()[("robot", None, "b" * 64)]["replay"] == differs.replay
