"""publish and submit against a stand-in of Codabench's API on loopback (the calls, their order, the answers and
the error shapes of Codabench's code at c7dbc756: DRF's {"detail": ...}); the same commands against a real local
Codabench are in test_codabench_live.py."""
import json
import subprocess
import sys
import threading
import zipfile
from http.server import ThreadingHTTPServer

import pytest

from codalab_bundles.site import codabench_api, publish
from conftest import ROOT
from stand_in_http import JsonHandler

TOKEN = "s3cret-token-value"


class FakeCodabench(object):
    """A tiny in-memory Codabench: datasets, an unpacking status, competitions, submissions."""

    def __init__(self, stored_phases=None, refuse=None, scores=None, status="Finished"):
        self.calls, self.uploads, self.patches, self.live = [], {}, [], None
        self.stored_phases, self.refuse, self.scores, self.status = stored_phases, refuse, scores, status
        # the account's participation, as Codabench's can_make_submission and register views answer it:
        # "approved", "none" (register: approved at once), "pending" (register: waits for the organizer)
        self.participant = "approved"
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()

    def _handler(self):
        fake = self

        class Handler(JsonHandler):
            def _route(self, method):
                body = self._body()
                fake.calls.append((method, self.path, self.headers.get("Authorization")))
                if self.path.startswith("/storage/"):
                    fake.uploads[self.path] = body
                    return self._answer(200, {})
                if self.headers.get("Authorization") != "Token %s" % TOKEN:
                    return self._answer(401, {"detail": "Invalid token."})
                if method == "POST" and self.path == "/api/datasets/":
                    request = json.loads(body)
                    return self._answer(201, {"key": "k-%s" % request["type"],  # no id: as the site answers
                                              "sassy_url": fake.url + "/storage/" + request["file_name"]})
                if method == "PUT" and self.path == "/api/datasets/completed/k-competition_bundle/":
                    return self._answer(200, {"status_id": 3})
                if method == "PUT" and self.path == "/api/datasets/completed/k-submission/":
                    return self._answer(200, {"key": "k-submission"})
                if self.path == "/api/competitions/3/creation_status/":
                    if fake.refuse:
                        return self._answer(200, {"status": "Failed", "details": fake.refuse,
                                                  "resulting_competition": None})
                    return self._answer(200, {"status": "Finished", "details": None, "resulting_competition": 11})
                if method == "PATCH":
                    fake.patches.append((self.path, json.loads(body)))
                    return self._answer(200, {})
                if self.path == "/api/competitions/11/" and fake.live is not None:
                    return self._answer(200, fake.live)
                if self.path == "/api/competitions/11/":
                    return self._answer(200, {"id": 11, "title": "Toy", "phases": fake.stored_phases})
                if self.path.startswith("/api/can_make_submission/"):
                    approved = fake.participant == "approved"
                    return self._answer(200, {"can": approved, "reason": None if approved else
                                              "User not approved to participate in this competition"})
                if method == "POST" and self.path == "/api/competitions/11/register/":
                    if fake.participant != "none":
                        return self._answer(400, ["You already applied for participation in this competition!"])
                    fake.participant = "approved" if not fake.refuse else "pending"
                    return self._answer(201, {"participant_status": fake.participant})
                if method == "POST" and self.path == "/api/submissions/":
                    return self._answer(201, {"id": 55})
                if self.path == "/api/submissions/55/":
                    return self._answer(200, {"id": 55, "status": fake.status, "status_details": None,
                                              "scores": [{"column_key": k, "score": "%.10f" % v}
                                                         for k, v in (fake.scores or {}).items()]})
                if self.path == "/api/phases/101/get_leaderboard/":
                    return self._answer(200, {"submissions": [{"id": 55, "owner": "robot", "parent": None}]})
                return self._answer(404, {"detail": "Not found."})

        return Handler


@pytest.fixture
def toy_bundle(tmp_path):
    from toy_task import make_toy
    from codalab_bundles.authoring import build
    return build.build_task(make_toy(tmp_path), tmp_path / "dist").codabench


def _stored(toy_bundle, shift_end=False):
    phases = []
    for index, (name, start, end) in enumerate(publish.bundle_phases(toy_bundle)):
        end_text = end.strftime("%Y-%m-%dT%H:%M:%SZ") if end else None
        if shift_end and end is not None:
            end_text = end.strftime("%Y-%m-%dT00:00:00Z")  # the site kept only the day
        phases.append({"id": 101 + index, "index": index, "name": name, "end": end_text,
                       "start": start.strftime("%Y-%m-%dT%H:%M:%S+00:00")})
    return phases


def _cli(*args, env=None):
    import os
    environment = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, str(ROOT / "build_bundle.py")] + [str(a) for a in args],
                          capture_output=True, text=True, env=environment)


def _publish(fake, bundle, env):
    """``publish`` of ``bundle`` against the stand-in site ``fake``, which is closed afterwards."""
    try:
        return _cli("publish", bundle, "--server", fake.url, env=env)
    finally:
        fake.close()


def test_publish_uploads_waits_and_checks_the_stored_phases(toy_bundle):
    fake = FakeCodabench(stored_phases=_stored(toy_bundle))
    proc = _publish(fake, toy_bundle, {"CODABENCH_TOKEN": TOKEN})
    assert proc.returncode == 0, proc.stderr
    assert "published: Toy (competition 11): %s/competitions/11/" % fake.url in proc.stdout
    assert "1. Development: 2025-01-15 00:00:00 UTC to 2025-01-31 23:59:59 UTC" in proc.stdout
    assert "the stored phases are the bundle's, to the second" in proc.stdout
    assert [(m, p) for m, p, _ in fake.calls] == [
        ("POST", "/api/datasets/"), ("PUT", "/storage/toy.zip"),
        ("PUT", "/api/datasets/completed/k-competition_bundle/"),
        ("GET", "/api/competitions/3/creation_status/"), ("GET", "/api/competitions/11/")]
    assert fake.uploads["/storage/toy.zip"] == toy_bundle.read_bytes()
    assert [a for m, p, a in fake.calls if p.startswith("/storage/")] == [None]  # the presigned URL needs no token
    assert TOKEN not in proc.stdout + proc.stderr


def test_publish_fails_when_the_site_stored_other_phases(toy_bundle):
    fake = FakeCodabench(stored_phases=_stored(toy_bundle, shift_end=True))
    proc = _publish(fake, toy_bundle, {"CODABENCH_TOKEN": TOKEN})
    assert proc.returncode == 1
    assert "phase 1 end: the bundle says 2025-01-31 23:59:59 UTC, the site stored 2025-01-31 00:00:00 UTC" \
        in proc.stdout


@pytest.mark.parametrize("setup, expected", [
    ({"CODABENCH_TOKEN": "wrong"}, "publish: creating the competition_bundle dataset: HTTP 401: Invalid token."),
    ({"CODABENCH_TOKEN": ""}, "publish: reading the token: no answer: no API token: set CODABENCH_TOKEN"),
])
def test_publish_bad_token(toy_bundle, tmp_path, setup, expected):
    fake = FakeCodabench(stored_phases=_stored(toy_bundle))
    proc = _publish(fake, toy_bundle, dict(setup, HOME=str(tmp_path)))
    assert proc.returncode == 2 and expected in proc.stderr and "Traceback" not in proc.stderr
    assert "wrong" not in proc.stderr.replace(expected, "")  # the token is never repeated


def test_publish_refused_bundle_shows_codabenchs_message(toy_bundle):
    fake = FakeCodabench(refuse="Phases dates conflict. Phase: Test should start after Phase: Development has ended")
    proc = _publish(fake, toy_bundle, {"CODABENCH_TOKEN": TOKEN})
    assert proc.returncode == 2
    assert "Codabench refused the bundle: Phases dates conflict. Phase: Test should start after Phase: Development " \
           "has ended (no competition was made, and the site deleted the upload)" in proc.stderr


def test_publish_unreachable_server_is_retried_only_where_safe():
    slept = []
    client = codabench_api.Client("http://127.0.0.1:9", TOKEN, retries=2, sleep=slept.append)
    with pytest.raises(codabench_api.ApiError) as info:
        client.call("reading", "GET", "/api/competitions/1/")
    assert info.value.status is None and "cannot reach 127.0.0.1:9" in str(info.value) and slept == [2.0, 4.0]
    slept[:] = []
    with pytest.raises(codabench_api.ApiError):
        client.call("creating", "POST", "/api/datasets/", {})
    assert slept == []  # a POST is not repeated


def test_submit_waits_for_the_worker_and_compares_with_the_replay(toy_bundle, tmp_path):
    from codalab_bundles import replay
    report = replay.replay(str(toy_bundle), None, 1, platform="codabench")
    sample = tmp_path / "sample.zip"
    with zipfile.ZipFile(str(toy_bundle)) as bundle:
        with zipfile.ZipFile(__import__("io").BytesIO(bundle.read("starting_kit_dev.zip"))) as kit:
            sample.write_bytes(kit.read("sample_submission.zip"))
    phases = _stored(toy_bundle)
    phases[0]["end"] = None  # open now; the second ended in 2025
    fake = FakeCodabench(stored_phases=phases, scores=report["scores"])
    try:
        proc = _cli("submit", sample, "--competition", 11, "--phase", 1, "--server", fake.url, "--expect-replay",
                    toy_bundle, env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "submission 55 to phase Development: Finished" in proc.stdout
        assert "the local replay gives the same status, message and scores" in proc.stdout
        fake.scores = dict(report["scores"], accuracy=0.5)
        proc = _cli("submit", sample, "--competition", 11, "--server", fake.url, "--expect-replay", toy_bundle,
                    env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 1 and "accuracy: the site stored 0.5, the replay" in proc.stdout
        before = len(fake.calls)
        proc = _cli("submit", sample, "--competition", 11, "--phase", 2, "--server", fake.url,
                    env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 2
        assert "submit: phase 2 (Test) is closed: it ended at 2025-03-01 12:00:00 UTC; participants cannot submit to " \
            "it now (an organizer's rehearsal: --even-if-closed)" in proc.stderr
        assert [c[:2] for c in fake.calls[before:]] == [("GET", "/api/competitions/11/")]  # nothing uploaded
        proc = _cli("submit", sample, "--competition", 11, "--phase", 2, "--even-if-closed", "--server", fake.url,
                    env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 0 and "submission 55 to phase Test: Finished" in proc.stdout
        proc = _cli("submit", sample, "--competition", 11, "--phase", 3, "--server", fake.url,
                    env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 2 and "the competition has 2 phase(s): --phase is 1 to 2" in proc.stderr
    finally:
        fake.close()


def test_submit_registers_an_account_that_is_not_a_participant_or_says_what_is_missing(toy_bundle, tmp_path):
    sample = tmp_path / "sample.zip"
    with zipfile.ZipFile(str(toy_bundle)) as bundle:
        with zipfile.ZipFile(__import__("io").BytesIO(bundle.read("starting_kit_dev.zip"))) as kit:
            sample.write_bytes(kit.read("sample_submission.zip"))
    fake = FakeCodabench(stored_phases=_stored(toy_bundle), scores={})
    try:
        fake.participant = "none"  # a new account: without the question and the registration, the POST gets 403
        proc = _cli("submit", sample, "--competition", 11, "--even-if-closed", "--server", fake.url,
                    env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 0, proc.stderr
        assert "registered as a participant: approved" in proc.stderr
        asked = [c[:2] for c in fake.calls if "can_make" in c[1] or "register" in c[1] or c[1] == "/api/submissions/"]
        assert asked == [("GET", "/api/can_make_submission/101/"), ("POST", "/api/competitions/11/register/"),
                         ("GET", "/api/can_make_submission/101/"), ("POST", "/api/submissions/")]
        fake.participant, fake.refuse = "none", True  # registration waits for the organizer's approval
        del fake.calls[:]
        proc = _cli("submit", sample, "--competition", 11, "--even-if-closed", "--server", fake.url,
                    env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 2
        assert proc.stderr.strip().splitlines()[-1] == (
            "submit: this account cannot submit to phase 1 (Development) of competition 11: User not approved to "
            "participate in this competition: the account's registration is pending or refused. The organizer "
            "approves it on the competition's participants page, or sets registration_auto_approve; for a robot "
            "account (User.is_bot) the organizer sets allow_robot_submissions")
        assert not [c for c in fake.calls if c[1] == "/api/datasets/"]  # nothing uploaded
        proc = _cli("submit", sample, "--competition", 12, "--server", fake.url, env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 2 and proc.stderr.strip() == (
            "submit: competition 12 is not visible to this account: there is no such competition, or it is not "
            "published yet and the account is not one of its participants (the organizer publishes it on the site, "
            "or approves the account)")
    finally:
        fake.close()


def test_token_from_the_config_file(tmp_path):
    config = tmp_path / "codabench.json"
    config.write_text(json.dumps({"servers": {"https://www.codabench.org": "abc"}}))
    assert codabench_api.read_token("https://www.codabench.org/", str(config), {}) == ("abc", str(config))
    assert codabench_api.read_token("https://x", str(config), {"CODABENCH_TOKEN": " t "}) == ("t", "$CODABENCH_TOKEN")
    with pytest.raises(codabench_api.ApiError):
        codabench_api.read_token("https://other.example", str(config), {})


def _live(bundle, submissions=0):
    """The competition as the site's API shows it after importing ``bundle`` (what GET /api/competitions/<id>/
    returns, for the fields update compares)."""
    from codalab_bundles.site import live_update
    view = live_update.bundle_view(bundle)
    phases = []
    for index, phase in enumerate(view["phases"]):
        phases.append(dict([(k, v) for k, v in phase.items() if k not in ("start", "end")],
                           id=101 + index, index=index, start=phase["start"].strftime("%Y-%m-%dT%H:%M:%SZ"),
                           end=phase["end"] and phase["end"].strftime("%Y-%m-%dT%H:%M:%S+00:00")))
    return {"id": 11, "title": view["title"], "description": view["description"], "terms": view["terms"],
            "pages": [{"id": 201 + i, "index": i, "title": t, "content": c} for i, (t, c) in enumerate(view["pages"])],
            "phases": phases, "submissions_count": submissions, "whitelist_emails": ["a@example.org"],
            "leaderboards": [{"columns": [{"key": k, "title": t, "index": i, "sorting": s, "precision": p}
                                          for k, t, i, s, p in view["columns"]]}]}


def test_update_shows_the_difference_then_applies_what_is_safe(toy_bundle, tmp_path):
    from test_validate import rewrite
    fake = FakeCodabench()
    fake.live = _live(toy_bundle)
    try:
        proc = _cli("publish", toy_bundle, "--update", 11, "--server", fake.url, env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 0 and "competition 11 already is the bundle: nothing to change" in proc.stdout
        changed = rewrite(toy_bundle, tmp_path / "changed.zip",
                          lambda y: y.replace('end: "2025-03-01 12:00:00"', 'end: "2025-03-08 12:00:00"'),
                          {"overview.html": b"<p>New overview</p>\n"})
        proc = _cli("publish", changed, "--update", 11, "--server", fake.url, env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 1 and fake.patches == []
        assert "~ phase 2 end: live 2025-03-01 12:00:00 UTC -> bundle 2025-03-08 12:00:00 UTC" in proc.stdout
        assert "~ page 1 (Overview): live <p>overview</p>" in proc.stdout
        assert "nothing was changed: rerun with --apply to make the 2 change(s) marked ~" in proc.stdout
        proc = _cli("publish", changed, "--update", 11, "--apply", "--server", fake.url,
                    env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "applied 2 change(s) in 2 call(s)" in proc.stdout
        assert fake.patches[0] == ("/api/competitions/11/", {
            # the text as the site keeps it: trimmed, as its serializers do
            "pages": [{"id": 201, "title": "Overview", "content": "<p>New overview</p>", "index": 0},
                      {"id": 202, "title": "Evaluation", "content": "<p>evaluation</p>", "index": 1},
                      {"id": 203, "title": "Data", "content": "<p>data</p>", "index": 2},
                      {"id": 204, "title": "Faq", "content": "<p>faq</p>", "index": 3}],
            "whitelist_emails": ["a@example.org"]})
        assert fake.patches[1] == ("/api/phases/102/", {"end": "2025-03-08T12:00:00Z"})
        # columns of a competition with submissions: refused, and nothing else is held back
        fake.live = _live(toy_bundle, submissions=3)
        fake.patches[:] = []
        renamed = rewrite(toy_bundle, tmp_path / "renamed.zip", lambda y: y.replace("key: hits", "key: hits_total"))
        proc = _cli("publish", renamed, "--update", 11, "--apply", "--server", fake.url,
                    env={"CODABENCH_TOKEN": TOKEN})
        assert proc.returncode == 1 and fake.patches == []
        assert "! leaderboard columns: live accuracy, hits, never_written -> bundle accuracy, hits_total, " \
               "never_written " \
               "(not applied: the " \
               "competition has 3 submission(s), whose scores are stored per column key" in proc.stdout
    finally:
        fake.close()


def test_update_shows_where_a_long_text_changed(toy_bundle, tmp_path):
    """A long title changed near its end: both sides show where they differ, not the same opening twice."""
    import re
    from test_validate import rewrite
    opening = "Toy task: answers a and b, a competition held every year since 2019, this is the "  # 81 characters
    changed = rewrite(toy_bundle, tmp_path / "retitled.zip",
                      lambda y: re.sub(r"(?m)^title: .*$", 'title: "%s2025 edition"' % opening, y))
    fake = FakeCodabench()
    fake.live = dict(_live(toy_bundle), title=opening + "2024 edition")
    try:
        proc = _cli("publish", changed, "--update", 11, "--server", fake.url, env={"CODABENCH_TOKEN": TOKEN})
    finally:
        fake.close()
    assert proc.returncode == 1, proc.stderr
    # 93 characters each; the first 84 are the same ("...the 202"), so the difference starts at character 85,
    # shown with the 20 characters before it and what follows.
    assert "  ~ title: live ...019, this is the 2024 edition (93 characters, differs from character 85) -> bundle " \
           "...019, this is the 2025 edition (93 characters, differs from character 85)\n" in proc.stdout


@pytest.mark.parametrize("interrupt_at, left", [
    ("uploading", "nothing was made on the site. Publishing again is safe"),
    ("  sent", "no competition was made; the site keeps the dataset record k-competition_bundle of the upload (8192 "
               "bytes of the bundle were sent), which nothing will unpack"),  # http.client sends 8192 bytes at a time
    ("Codabench is unpacking", "the bundle was uploaded and Codabench is unpacking it (creation status 3): the "
                               "competition appears among your competitions if the site accepts it, unpublished "
                               "(%s/api/competitions/3/creation_status/ says how it ended). Publishing again makes a "
                               "second competition: look first"),
])
def test_an_interrupted_publish_says_what_it_left_on_the_site(toy_bundle, interrupt_at, left):
    fake = FakeCodabench(stored_phases=_stored(toy_bundle))
    try:
        def progress(text):
            if text.startswith(interrupt_at):
                raise KeyboardInterrupt
        client = codabench_api.Client(fake.url, TOKEN)
        with pytest.raises(publish.Interrupted) as caught:
            publish.publish(client, toy_bundle, progress=progress)
    finally:
        fake.close()
    expected = left % fake.url if "%s" in left else left
    assert str(caught.value).startswith("interrupted: " + expected)
    made = [p for m, p, _ in fake.calls if m == "POST"]
    assert made == ([] if interrupt_at == "uploading" else ["/api/datasets/"])
