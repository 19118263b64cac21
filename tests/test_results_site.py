"""results --competition against a stand-in of Codabench's API (two local servers: the site, and its storage on
another origin), answering as Codabench's views do (src/apps/api/ at c7dbc756): every submission of the phase is
downloaded once into the cache (never with the token to the storage), the team is the leaderboard's organization
when it names one, child and unfinished submissions are left out, the bundle comes from get_files, and a stored
score that differs from the local one fails the audit. The same check against a real local Codabench is
tests/test_results_live.py."""
import http.server
import json
import os
import subprocess
import sys
import threading

import pytest

from conftest import ROOT
from test_results import ALL_POS, BETA, ONE_WRONG, RIGHT, bundle, submission  # noqa: F401 (bundle: a fixture)

TOKEN = "organizer-token-1"


class Site(object):
    def __init__(self, bundle_bytes, files, stored):
        self.bundle_bytes, self.files, self.stored, self.seen = bundle_bytes, files, stored, []

    def api(self, path, storage):
        if path == "/api/competitions/7/":
            return {"id": 7, "title": "Senti", "phases": [{"id": 70, "index": 0, "name": "Development"},
                                                           {"id": 71, "index": 1, "name": "Test"}],
                    "leaderboards": [{"submission_rule": "Force_Last", "columns": []}]}
        if path == "/api/competitions/7/get_files/":
            return {"bundle": {"name": "senti.zip", "url": storage + "/bundle?sig=1"}, "dumps": []}
        if path == "/api/submissions/?phase=71":
            def one(number, owner, status="Finished", parent=None, when="2027-01-0%d"):
                return {"id": number, "owner": owner, "status": status, "parent": parent, "is_soft_deleted": False,
                        "created_when": when % number, "on_leaderboard": False, "leaderboard": None,
                        "scores": [{"column_key": k, "score": "%.10f" % v} for k, v in self.stored[number].items()]}
            return [one(4, "bob"), one(5, "bob", parent=4), one(3, "carol", status="Running"), one(2, "alice"),
                    one(1, "alice")]
        if path == "/api/phases/71/get_leaderboard/":
            return {"submissions": [{"id": 4, "owner": "bob", "organization": {"name": "Team B"}}]}
        if path.startswith("/api/submissions/") and path.endswith("/get_details/"):
            number = int(path.split("/")[3])
            return {"data_file": storage + "/file/%d?sig=2" % number}
        return None


def serve(site, kind, storage_url):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            site.seen.append((kind, self.path, self.headers.get("Authorization")))
            if kind == "api":
                body = site.api(self.path, storage_url[0])
                data = json.dumps(body).encode() if body is not None else b'{"detail": "Not found."}'
                code = 200 if body is not None else 404
            elif self.path.startswith("/bundle"):
                data, code = site.bundle_bytes, 200
            else:
                data, code = site.files[int(self.path.split("/")[2].split("?")[0])], 200
            self.send_response(code)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def site(bundle, tmp_path):  # noqa: F811
    files = {}
    for number, labels in ((1, RIGHT), (2, ONE_WRONG), (4, ONE_WRONG), (5, ALL_POS), (3, ALL_POS)):
        submission(tmp_path / "s.zip", labels)
        files[number] = (tmp_path / "s.zip").read_bytes()
    right = {"macro_f1": 1.0, "accuracy": 1.0, "weighted_f1": 1.0}
    one_wrong = {"macro_f1": BETA, "accuracy": 0.875, "weighted_f1": BETA}  # 4 and 4 of each class: weighted = macro
    stored = {1: right, 2: dict(one_wrong), 3: {}, 4: one_wrong, 5: {}}
    made = Site(bundle.read_bytes(), files, stored)
    storage_url = [None]
    api, storage = serve(made, "api", storage_url), serve(made, "storage", storage_url)
    storage_url[0] = "http://127.0.0.1:%d" % storage.server_port
    made.url = "http://127.0.0.1:%d" % api.server_port
    yield made
    for server in (api, storage):
        server.shutdown()
        server.server_close()


def results(site, tmp_path, *args):
    env = dict(os.environ, CODABENCH_TOKEN=TOKEN, CODABENCH_URL=site.url, HOME=str(tmp_path / "home"))
    return subprocess.run([sys.executable, "-m", "codalab_bundles", "results", "--competition", "7", "--phase", "2",
                           "--no-significance", "--cache", str(tmp_path / "cache"), "--json"] + list(args),
                          capture_output=True, text=True, env=env, timeout=600, cwd=str(ROOT))


def test_every_finished_submission_once_teams_by_organization_and_the_site_rule(site, tmp_path):
    proc = results(site, tmp_path, "-o", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    # Force_Last: alice's last submission is 2 (created after 1); bob's team is the leaderboard's organization
    assert [(r["rank"], r["team"], r["run"]) for r in found["rows"]] == [(1, "alice", "2"), (1, "Team B", "4")]
    assert found["audit"] == []
    downloads = sorted(path for kind, path, _ in site.seen if kind == "storage")
    assert downloads == ["/bundle?sig=1", "/file/1?sig=2", "/file/2?sig=2", "/file/4?sig=2"]  # not 3 (Running), 5
    assert all(auth is None for kind, _, auth in site.seen if kind == "storage")
    assert all(auth == "Token " + TOKEN for kind, _, auth in site.seen if kind == "api")
    assert "submission 3 (carol): still Running on the site" in (tmp_path / "out" / "results.md").read_text()
    cached = sorted(os.listdir(next((tmp_path / "cache").iterdir())))
    assert cached == ["competition-7-bundle.zip", "submission-1.zip", "submission-2.zip", "submission-4.zip"]

    del site.seen[:]
    again = results(site, tmp_path, "-o", str(tmp_path / "again"))
    assert again.returncode == 0, again.stderr
    assert [kind for kind, _, _ in site.seen if kind == "storage"] == []  # the second run reads nothing it has
    assert "downloading" not in again.stderr
    assert (tmp_path / "again" / "results.csv").read_bytes() == (tmp_path / "out" / "results.csv").read_bytes()


def test_a_stored_score_that_differs_fails_the_audit_naming_the_submission(site, tmp_path):
    site.stored[2]["macro_f1"] = BETA + 2e-10
    proc = results(site, tmp_path, "--rule", "best", "-o", str(tmp_path / "out"))
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["audit"] == [
        "submission 2 (alice): macro_f1 stored by the site %.10f, scored here %.10f" % (BETA + 2e-10, BETA)]
    assert [r["run"] for r in json.loads(proc.stdout)["rows"]] == ["1", "4"]  # best: alice's first run counts
