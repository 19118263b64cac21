"""``submit`` with many zips (issue 33) against a stand-in of Codabench's API on loopback: at most --in-flight
unfinished on the site at once, each zip submitted once under a name carrying its SHA-256, the ledger and the site's
own listing so that a second call submits nothing the site has and waits only for what still runs (also after the
answer to a creation was lost), a bounded wait that reports the last status and its meaning, the participant's
message of a failed run, and the final table. The same against a real Codabench, with faults: bench/faults.py."""
import hashlib
import io
import json
import os
import subprocess
import sys
import threading
import zipfile
from http.server import ThreadingHTTPServer

import pytest

from codalab_bundles.site import batch, codabench_api, submit
from conftest import ROOT
from stand_in_http import JsonHandler

TOKEN = "batch-token"


def _zip(tmp_path, name, text):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo("run.txt", (1980, 1, 1, 0, 0, 0))
        archive.writestr(info, text)
    path = tmp_path / name
    path.write_bytes(buffer.getvalue())
    return path


class Site(object):
    """A Codabench phase (competition 11, phase 101) whose compute worker scores a zip holding run.txt: a number is
    the score, 'bad' fails with a participant's message, 'stuck' stays Running. Each read of a submission moves it
    one status on (Submitted, Running, then final), so that several stay in flight at once."""

    def __init__(self, account="robot"):
        self.account = account
        self.submissions, self.files, self.datasets = {}, {}, {}
        self.posts, self.calls, self.max_in_flight = 0, [], 0
        self.reruns = []
        self.lose = True  # "lost" runs stay Submitting (the site worker down); once it is back they run
        self.next_id = 0  # ids are never reused, as a database's
        self.limit = None  # the phase's submissions a day: can_make_submission says no past it
        self.failing_datasets = 0
        self.drop_answer_of = set()  # creations whose answer is lost (the site makes the submission, no reply)
        self.broken_details = set()  # submissions with a details row without a file: get_details answers 500
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()

    def add(self, owner, filename, status="Finished", score=0.5):
        """A submission already on the site (another account's, or an earlier call's)."""
        with self.lock:
            number = self.next_id = self.next_id + 1
            self.submissions[number] = {"id": number, "owner": owner, "filename": filename, "status": status,
                                        "steps": [], "score": score, "message": ""}
        return number

    def in_flight(self):
        return sum(1 for s in self.submissions.values() if s["status"] not in submit.DONE)

    def _create(self, key):
        text = zipfile.ZipFile(io.BytesIO(self.files[key])).read("run.txt").decode()
        with self.lock:
            number = self.next_id = self.next_id + 1
            entry = {"id": number, "owner": self.account, "filename": self.datasets[key], "status": "Submitted",
                     "score": None, "message": "", "steps": ["Running", "Finished"]}
            if text == "bad":
                entry["steps"] = ["Running", "Failed"]
                entry["message"] = "Submission error: run.txt, line 1: 'bad' is not a score"
            elif text == "stuck":
                entry["steps"] = ["Running"]
            elif text == "lost" and self.lose:  # the dispatch was lost: it stays Submitting until it is run again
                entry["status"], entry["steps"], entry["score"] = "Submitting", [], 0.9
            else:
                entry["score"] = 0.9 if text == "lost" else float(text)
            self.submissions[number] = entry
            self.posts += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight())
        return number

    def _record(self, entry):
        return {"id": entry["id"], "owner": entry["owner"], "filename": entry["filename"], "parent": None,
                "organization": entry.get("organization"),
                "status": entry["status"], "status_details": None, "on_leaderboard": True,
                "scores": [] if entry["status"] != "Finished" or entry["score"] is None else
                [{"column_key": "score", "score": "%.10f" % entry["score"]}]}

    def _handler(self):
        site = self

        class Handler(JsonHandler):
            def _route(self, method):
                body = self._body()
                path = self.path
                site.calls.append((method, path))
                if path.startswith("/storage/"):
                    key = path.rsplit("/", 1)[1]
                    if method == "PUT":
                        site.files[key] = body
                        return self._answer(200, {})
                    entry = site.submissions[int(key.split("-")[1])]
                    data = entry["message"].encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    return self.wfile.write(data)
                if self.headers.get("Authorization") != "Token %s" % TOKEN:
                    return self._answer(401, {"detail": "Invalid token."})
                if path == "/api/competitions/11/":
                    return self._answer(200, {"id": 11, "title": "Toy", "phases": [
                        {"id": 101, "index": 0, "name": "Test", "start": "2020-01-01T00:00:00Z", "end": None,
                         "execution_time_limit": 60}],
                        "leaderboards": [{"submission_rule": "Force_Last", "columns": [{"key": "score"}]}]})
                if path.startswith("/api/can_make_submission/"):
                    if site.limit is not None and site.posts >= site.limit:
                        return self._answer(200, {"can": False, "reason": "Reached maximum allowed submissions "
                                                                          "for today for this phase"})
                    return self._answer(200, {"can": True, "reason": None})
                if path == "/api/my_profile/":
                    return self._answer(200, {"username": site.account})
                if method == "POST" and path == "/api/datasets/":
                    if site.failing_datasets:  # the storage is down: the site cannot make the placeholder file
                        site.failing_datasets -= 1
                        return self._answer(500, {"detail": "Server Error (500)"})
                    request = json.loads(body)
                    with site.lock:
                        key = "d%d" % len(site.datasets)
                        site.datasets[key] = request["request_sassy_file_name"]
                    return self._answer(201, {"key": key, "sassy_url": site.url + "/storage/" + key})
                if method == "PUT" and path.startswith("/api/datasets/completed/"):
                    return self._answer(200, {})
                if method == "GET" and path.endswith("/cancel_submission/"):  # a GET, as Codabench has it
                    entry = site.submissions[int(path.split("/")[3])]
                    if entry.get("broken"):  # a file its record names was never written: save() raises
                        return self._answer(500, {"detail": "Server Error (500)"})
                    entry["status"], entry["steps"] = "Cancelled", []
                    return self._answer(200, {"canceled": True})
                if method == "POST" and path.endswith("/re_run_submission/"):
                    old = site.submissions[int(path.split("/")[3])]
                    if old["status"] not in submit.DONE:
                        return self._answer(403, {"detail": "Cannot request a re-run on a submission that has not "
                                                            "finished processing."})
                    number = site.add(old["owner"], old["filename"], status="Submitted", score=0.8)
                    site.submissions[number]["steps"] = ["Running", "Finished"]
                    return self._answer(200, {"id": number})
                if method == "POST" and path.endswith("/run_submission/"):
                    entry = site.submissions[int(path.split("/")[3])]
                    if entry["status"] != "Submitting":
                        return self._answer(403, {"detail": "Cannot run a submission which is not in submitting "
                                                            "status"})
                    if not entry.get("broken"):  # a broken one stays: its dispatch fails again
                        entry["steps"] = ["Running", "Finished"]
                    site.reruns.append(entry["id"])
                    return self._answer(200, {"id": entry["id"]})
                if method == "POST" and path == "/api/submissions/":
                    request = json.loads(body)
                    number = site._create(request["data"])
                    site.submissions[number]["organization"] = request.get("organization")
                    if number in site.drop_answer_of:
                        self.close_connection = True
                        return  # made, but the answer never reaches the caller
                    return self._answer(201, {"id": number})
                if path.startswith("/api/submissions/?phase=101"):
                    search = path.partition("&search=")[2]  # Codabench searches the stored file's name
                    return self._answer(200, [site._record(s) for s in sorted(
                        site.submissions.values(), key=lambda s: -s["id"]) if search in s["filename"]])
                if path.endswith("/cancel_submission/") or path.endswith("run_submission/") and method != "POST":
                    return self._answer(405, {"detail": 'Method "%s" not allowed.' % method})
                if path.startswith("/api/submissions/") and path.endswith("/get_details/"):
                    number = int(path.split("/")[3])
                    if number in site.broken_details:  # Codabench cannot sign a URL for the empty file name
                        return self._answer(500, {"detail": "Server Error (500)"})
                    return self._answer(200, {"logs": [{"name": "scoring_stderr",
                                                        "data_file": site.url + "/storage/log-%d" % number}]})
                if method == "DELETE" and path.startswith("/api/submissions/"):
                    del site.submissions[int(path.split("/")[3])]
                    self.send_response(204)
                    self.end_headers()
                    return
                if path.startswith("/api/submissions/") and int(path.split("/")[3]) not in site.submissions:
                    return self._answer(404, {"detail": "No Submission matches the given query."})
                if path.startswith("/api/submissions/"):
                    entry = site.submissions[int(path.split("/")[3])]
                    with site.lock:
                        if entry["steps"]:
                            entry["status"] = entry["steps"].pop(0)
                    return self._answer(200, site._record(entry))
                if path == "/api/phases/101/get_leaderboard/":
                    return self._answer(200, {"submissions": [{"id": s["id"], "owner": s["owner"]} for s in
                                                              site.submissions.values() if s["status"] == "Finished"]})
                return self._answer(404, {"detail": "Not found."})

        return Handler


@pytest.fixture
def site():
    fake = Site()
    yield fake
    fake.close()


def _client(site):
    return codabench_api.Client(site.url, TOKEN, retries=0)


def _many(site, paths, ledger, **options):
    options.setdefault("poll", 0.01)
    options.setdefault("resend_pauses", (0.01, 0.01))
    return batch.submit_many(_client(site), paths, 11, 1, ledger=str(ledger), **options)


def test_every_zip_is_submitted_once_with_its_hash_in_its_name_and_the_in_flight_bound_holds(site, tmp_path):
    paths = [_zip(tmp_path, "run%d.zip" % n, str(n / 10)) for n in range(6)]
    paths.append(_zip(tmp_path, "copy.zip", "0.3"))  # the same bytes as run3.zip
    result = _many(site, paths, tmp_path / "ledger.jsonl", in_flight=2)
    assert site.posts == 6 and site.max_in_flight <= 2
    by_zip = dict((e.zip, e) for e in result["entries"])
    assert [by_zip["run%d.zip" % n].scores for n in range(6)] == [{"score": n / 10} for n in range(6)]
    assert by_zip["copy.zip"].id == by_zip["run3.zip"].id and by_zip["copy.zip"].same_as == "run3.zip"
    digest = hashlib.sha256(paths[3].read_bytes()).hexdigest()
    assert site.submissions[by_zip["run3.zip"].id]["filename"] == "run3-%s.zip" % digest[:16]
    assert batch.all_finished(result)
    table = batch.format_table(result)
    assert "copy.zip  %d           Finished [= run3.zip]  score=0.3" % by_zip["run3.zip"].id in table
    assert table.splitlines()[-1] == "6 submission(s): 6 Finished, 0 Failed; 6 submitted now, 0 found from an " \
                                     "earlier call"


def test_a_second_call_submits_nothing_the_ledger_or_the_site_knows(site, tmp_path):
    paths = [_zip(tmp_path, "run%d.zip" % n, str(n / 10)) for n in range(3)]
    _many(site, paths, tmp_path / "ledger.jsonl")
    assert site.posts == 3
    again = _many(site, paths, tmp_path / "ledger.jsonl")
    assert site.posts == 3 and [e.origin for e in again["entries"]] == ["ledger"] * 3
    assert [e.scores for e in again["entries"]] == [{"score": 0.0}, {"score": 0.1}, {"score": 0.2}]
    uploads = sum(1 for method, path in site.calls if method == "POST" and path == "/api/datasets/")
    elsewhere = _many(site, paths + [_zip(tmp_path, "new.zip", "0.9")], tmp_path / "other-machine.jsonl")
    assert [e.origin for e in elsewhere["entries"]] == ["site", "site", "site", "new"]
    assert site.posts == 4
    assert sum(1 for method, path in site.calls if method == "POST" and path == "/api/datasets/") == uploads + 1
    assert batch.summary(elsewhere).endswith("1 submitted now, 3 found from an earlier call")


def test_another_accounts_submission_of_the_same_file_is_not_taken_for_ours(site, tmp_path):
    path = _zip(tmp_path, "run.zip", "0.4")
    site.add("someone-else", batch.site_file_name(path, batch.sha256_of(path)))
    result = _many(site, [path], tmp_path / "ledger.jsonl")
    assert site.posts == 1 and result["entries"][0].origin == "new" and result["entries"][0].id == 2


def test_a_creation_whose_answer_was_lost_is_found_on_the_site_not_sent_again(site, tmp_path):
    paths = [_zip(tmp_path, "run%d.zip" % n, str(n / 10)) for n in range(3)]
    site.drop_answer_of = {2}
    said = []
    first = _many(site, paths, tmp_path / "ledger.jsonl", in_flight=1, progress=said.append)
    assert site.posts == 3 and batch.all_finished(first)  # the site made it; it was not sent a second time
    lost = [e for e in first["entries"] if e.id == 2][0]
    assert "  %s: the site had made it after all: submission 2" % lost.zip in said
    assert any(line.startswith("  %s: creating the submission: no answer" % lost.zip) for line in said)
    second = _many(site, paths, tmp_path / "ledger.jsonl")
    assert site.posts == 3 and [e.origin for e in second["entries"]] == ["ledger"] * 3


def test_an_upload_the_site_failed_is_sent_again_once_the_site_shows_it_was_not_made(site, tmp_path):
    site.failing_datasets = 2  # the storage was down for two tries
    result = _many(site, [_zip(tmp_path, "run.zip", "0.6")], tmp_path / "ledger.jsonl")
    assert site.posts == 1 and batch.all_finished(result) and result["entries"][0].scores == {"score": 0.6}
    site.failing_datasets = 3  # longer than the pauses: the step's own error
    result = _many(site, [_zip(tmp_path, "other.zip", "0.7")], tmp_path / "ledger.jsonl")
    assert result["entries"][0].error == "creating the submission dataset: HTTP 500: Server Error (500)"
    assert site.posts == 1


def test_the_wait_is_bounded_and_says_what_the_last_status_means_then_a_second_call_waits_only(site, tmp_path):
    paths = [_zip(tmp_path, "fine.zip", "0.7"), _zip(tmp_path, "stuck.zip", "stuck")]
    first = _many(site, paths, tmp_path / "ledger.jsonl", timeout=0.3)
    stuck = [e for e in first["entries"] if e.zip == "stuck.zip"][0]
    assert stuck.status == "Running" and stuck.stuck == submit.STUCK["Running"]
    assert not batch.all_finished(first)
    assert "1 not final after 0 s" in batch.summary(first)
    assert "stuck.zip  %d           Running (not final)  a compute worker took it" % stuck.id in \
        batch.format_table(first)
    site.submissions[stuck.id]["steps"] = ["Finished"]
    site.submissions[stuck.id]["score"] = 0.2
    second = _many(site, paths, tmp_path / "ledger.jsonl")
    assert site.posts == 2 and batch.all_finished(second)
    assert [e.status for e in second["entries"]] == ["Finished", "Finished"]


def test_a_failed_run_shows_the_participants_own_message(site, tmp_path):
    result = _many(site, [_zip(tmp_path, "bad.zip", "bad")], tmp_path / "ledger.jsonl")
    entry = result["entries"][0]
    assert entry.status == "Failed"
    assert entry.message == "Submission error: run.txt, line 1: 'bad' is not a score"
    assert "bad.zip  1           Failed  Submission error: run.txt, line 1: 'bad' is not a score" in \
        batch.format_table(result)


def test_a_stopped_call_sends_nothing_more_and_the_next_one_sends_only_the_rest(site, tmp_path):
    paths = [_zip(tmp_path, "run%d.zip" % n, str(n / 10)) for n in range(5)]
    stop = threading.Event()

    def slow_progress(text):
        if text.startswith("[2/5]"):
            stop.set()  # as Ctrl-C would, once two have ended
    first = _many(site, paths, tmp_path / "ledger.jsonl", in_flight=1, stop=stop, progress=slow_progress)
    assert first["interrupted"] and site.posts == 2
    assert batch.summary(first).startswith("5 submission(s): 2 Finished, 0 Failed, 3 not sent; ")
    second = _many(site, paths, tmp_path / "ledger.jsonl", in_flight=1)
    assert site.posts == 5 and batch.all_finished(second)
    assert sorted(e.origin for e in second["entries"]) == ["ledger", "ledger", "new", "new", "new"]


def test_the_file_name_on_the_site_keeps_the_hash_within_codabenchs_35_characters():
    digest = "ab" * 32
    assert batch.site_file_name("/x/a very long run name with spaces.zip", digest) == \
        "a_very_long_run_na-abababababababab.zip"
    assert len(batch.site_file_name("/x/" + "n" * 80 + ".zip", digest)) - len(".zip") == 35
    assert batch.site_file_name("run.ZIP", digest) == "run-abababababababab.zip"
    assert batch.site_file_name("/x/a very long run name.zip", digest, organization=42) == \
        "a_very_long_ru-t42-abababababababab.zip"


def test_the_ledger_keeps_the_last_word_and_skips_a_line_cut_short(tmp_path):
    ledger = batch.Ledger(tmp_path / "sub" / "ledger.jsonl")
    ledger.write(account="a", organization=None, sha256="s1", stage="uploading")
    ledger.write(account="a", organization=None, sha256="s1", submission=7, stage="submitted")
    ledger.write(account="b", organization=None, sha256="s1", submission=9, stage="submitted")
    with open(ledger.path, "a") as handle:
        handle.write('{"account": "a", "sha256": "s2", "subm')  # an interruption mid-line
    records = ledger.load()
    assert records[("a", None, "s1")]["submission"] == 7 and records[("a", None, "s1")]["stage"] == "submitted"
    assert records[("b", None, "s1")]["submission"] == 9 and len(records) == 2


def test_the_default_wait_is_codabenchs_own_bound_and_a_margin():
    assert submit.default_timeout({"execution_time_limit": 300}) == 300 + 1200 + 600
    assert submit.default_timeout({"execution_time_limit": 7200}) == 600 + 1200 + 600  # the default queue's cap
    assert submit.default_timeout({}) == 600 + 1200 + 600


def _cli(site, *args, ledger):
    env = dict(os.environ, CODABENCH_URL=site.url, CODABENCH_TOKEN=TOKEN)
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "submit"] + [str(a) for a in args] +
                          ["--competition", "11", "--ledger", str(ledger)], capture_output=True, text=True, env=env,
                          timeout=120)


def test_the_command_prints_the_table_and_exits_by_what_the_site_did(site, tmp_path):
    good = [_zip(tmp_path, "a.zip", "0.25"), _zip(tmp_path, "b.zip", "0.5")]
    proc = _cli(site, *good, ledger=tmp_path / "l.jsonl")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["zip", "submission", "status", "scores,", "or", "the", "participant's", "message"]
    assert sorted(line.split()[0] for line in lines[1:3]) == ["a.zip", "b.zip"]
    assert "2 zip(s) for phase 1 (Test) of Toy, as robot: 0 already on the site, 2 to submit" in proc.stderr
    proc = _cli(site, good[0], _zip(tmp_path, "bad.zip", "bad"), "--json", ledger=tmp_path / "l.jsonl")
    assert proc.returncode == 1
    rows = json.loads(proc.stdout)["submissions"]
    assert [(r["origin"], r["status"]) for r in rows] == [("ledger", "Finished"), ("new", "Failed")]
    assert rows[1]["message"] == "Submission error: run.txt, line 1: 'bad' is not a score"
    assert site.posts == 3


def test_a_submission_whose_dispatch_was_lost_is_run_again_once_when_asked_keeping_its_id(site, tmp_path):
    paths = [_zip(tmp_path, "lost.zip", "lost")]
    first = _many(site, paths, tmp_path / "ledger.jsonl", timeout=0.2)
    entry = first["entries"][0]
    assert entry.status == "Submitting" and entry.stuck == submit.STUCK["Submitting"] and site.reruns == []
    assert "submit --rerun-stuck" in entry.stuck
    second = _many(site, paths, tmp_path / "ledger.jsonl", timeout=0.2, rerun_stuck=True)
    entry = second["entries"][0]
    assert site.reruns == [entry.id] and site.posts == 1
    assert entry.status == "Finished" and entry.scores == {"score": 0.9} and entry.rerun
    assert "Finished [earlier] [run again]" in batch.format_table(second)


def test_past_the_phases_limit_nothing_is_uploaded_and_the_sites_reason_is_given(site, tmp_path):
    paths = [_zip(tmp_path, "run%d.zip" % n, str(n / 10)) for n in range(4)]
    site.limit = 2
    result = _many(site, paths, tmp_path / "ledger.jsonl", in_flight=1)
    assert site.posts == 2 and len(site.datasets) == 2  # nothing uploaded for the two refused
    refused = [e for e in result["entries"] if e.error]
    assert [e.error for e in refused] == ["not sent: the site says Reached maximum allowed submissions for today "
                                          "for this phase"] * 2
    assert "2 with an error" in batch.summary(result)
    # the next call, with nothing new it may send, still waits for and reports what the site has
    again = _many(site, paths[:2], tmp_path / "ledger.jsonl")
    assert [e.status for e in again["entries"]] == ["Finished", "Finished"] and site.posts == 2


def test_an_html_error_page_is_said_by_its_title():
    page = b"<!doctype html>\n<html lang='en'>\n<head>\n  <title>Server Error (500)</title>\n</head>\n<body>" \
           b"<h1>Server Error (500)</h1><p></p></body></html>"
    assert codabench_api._codabench_text(page) == "an HTML page: Server Error (500)"
    assert codabench_api._codabench_text(b'{"detail": "Invalid token."}') == "Invalid token."


def test_a_run_no_worker_will_end_is_cancelled_and_re_run_and_the_re_run_is_what_counts(site, tmp_path):
    paths = [_zip(tmp_path, "stuck.zip", "stuck")]
    said = []
    result = _many(site, paths, tmp_path / "ledger.jsonl", timeout=0.2, rerun_stuck=True, progress=said.append)
    entry = result["entries"][0]
    assert entry.previous == [1] and entry.id == 2 and site.submissions[1]["status"] == "Cancelled"
    assert entry.status == "Finished" and entry.scores == {"score": 0.8} and site.posts == 1
    assert "  stuck.zip: submission 1 cancelled and re-run as submission 2 (it stayed Running)" in said
    assert "Finished [re-run of 1]" in batch.format_table(result)
    # another machine's call finds the re-run, not the cancelled original
    elsewhere = _many(site, paths, tmp_path / "other.jsonl")
    assert elsewhere["entries"][0].id == 2 and elsewhere["entries"][0].origin == "site"


def test_a_stuck_submission_the_site_cannot_cancel_is_deleted_and_sent_again(site, tmp_path):
    paths = [_zip(tmp_path, "lost.zip", "lost")]
    first = _many(site, paths, tmp_path / "ledger.jsonl", timeout=0.2)
    site.submissions[1]["broken"] = True  # the storage was down when it was dispatched
    site.lose = False  # and is up again
    said = []
    second = _many(site, paths, tmp_path / "ledger.jsonl", timeout=0.2, rerun_stuck=True, progress=said.append)
    entry = second["entries"][0]
    assert first["entries"][0].id == 1 and 1 not in site.submissions and site.posts == 2
    assert entry.previous == [1] and entry.id == 2 and entry.status == "Finished" and entry.rerun == 2
    assert "  lost.zip: submission 1 run again (it stayed Submitting)" in said
    assert "  lost.zip: submission 1 deleted (the site could not cancel it: Server Error (500)) and sent again as " \
           "submission 2 (it stayed Submitting)" in said


def test_a_submission_deleted_on_the_site_since_is_sent_again(site, tmp_path):
    paths = [_zip(tmp_path, "run.zip", "0.3")]
    _many(site, paths, tmp_path / "ledger.jsonl")
    del site.submissions[1]  # the organizer deleted it
    said = []
    again = _many(site, paths, tmp_path / "ledger.jsonl", progress=said.append)
    entry = again["entries"][0]
    assert "  run.zip: submission 1 is no longer on the site: sending it again" in said
    assert entry.id == 2 and entry.previous == [1] and entry.status == "Finished" and site.posts == 2


def test_a_team_submits_its_own_copy_and_the_ledger_keeps_teams_apart(site, tmp_path):
    path = _zip(tmp_path, "run.zip", "0.5")
    ledger = tmp_path / "ledger.jsonl"
    for_team = _many(site, [path], ledger, organization=7)
    assert site.submissions[1]["organization"] == 7 and for_team["entries"][0].id == 1
    again = _many(site, [path], ledger, organization=7)
    assert site.posts == 1 and again["entries"][0].origin == "ledger"
    other_team = _many(site, [path], ledger, organization=8)
    assert site.posts == 2 and site.submissions[2]["organization"] == 8 and other_team["entries"][0].id == 2
