"""The API token goes to the site's own host only, over https or to this machine, and its file stays private."""
import http.server
import json
import os
import threading

import pytest

from codalab_bundles.site import codabench_api

TOKEN = "secret-token-123"


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Answers GET with JSON; ``redirect_to`` (a URL) makes it answer 302 there instead. Records what came."""
    seen = None
    redirect_to = None

    def do_GET(self):  # noqa: N802 (the handler's name)
        self.seen.append((self.server.server_port, self.path, self.headers.get("Authorization")))
        if self.redirect_to and not self.path.startswith("/landed"):
            self.send_response(302)
            self.send_header("Location", self.redirect_to)
            self.end_headers()
            return
        body = json.dumps({"ok": True}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def two_sites():
    """Two local HTTP servers (two origins: other ports), sharing one record of the requests they got."""
    seen = []
    servers = []
    for _ in range(2):
        handler = type("Handler", (_Recorder,), {"seen": seen, "redirect_to": None})
        server = http.server.HTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    yield servers, seen
    for server in servers:
        server.shutdown()
        server.server_close()


def _url(server, path=""):
    return "http://127.0.0.1:%d%s" % (server.server_port, path)


def test_calls_go_to_the_site_with_the_token_and_nowhere_else(two_sites):
    (site, other), seen = two_sites
    client = codabench_api.Client(_url(site), TOKEN, retries=0)
    assert client.call("reading", "GET", "/api/competitions/1/") == {"ok": True}
    assert client.call("reading", "GET", _url(site, "/api/x/")) == {"ok": True}  # the site's own absolute URL
    with pytest.raises(codabench_api.ApiError) as info:
        client.call("reading", "GET", _url(other, "/api/steal/"))
    assert "refused: it is not the site" in str(info.value) and TOKEN not in str(info.value)
    assert seen == [(site.server_port, "/api/competitions/1/", "Token " + TOKEN),
                    (site.server_port, "/api/x/", "Token " + TOKEN)]  # nothing reached the other port


@pytest.mark.parametrize("foreign", ["https://127.0.0.1:{port}/api/", "http://localhost.evil.example/api/",
                                     "http://127.0.0.1:1{port}/api/", "http://127.0.0.2:{port}/api/"])
def test_an_absolute_url_of_another_origin_is_refused(two_sites, foreign):
    (site, _), seen = two_sites
    client = codabench_api.Client(_url(site), TOKEN, retries=0)
    with pytest.raises(codabench_api.ApiError, match="refused"):
        client.url(foreign.format(port=site.server_port))
    assert client.url("/api/a/") == _url(site, "/api/a/")
    assert client.url(_url(site, "/api/b/?page=2")) == _url(site, "/api/b/?page=2")


def test_a_redirect_to_another_host_does_not_carry_the_token(two_sites):
    (site, other), seen = two_sites
    site.RequestHandlerClass.redirect_to = _url(other, "/landed")
    client = codabench_api.Client(_url(site), TOKEN, retries=0)
    assert client.call("reading", "GET", "/api/files/9/") == {"ok": True}
    assert seen == [(site.server_port, "/api/files/9/", "Token " + TOKEN), (other.server_port, "/landed", None)]


def test_storage_files_are_fetched_without_the_token(two_sites):
    (site, storage), seen = two_sites
    client = codabench_api.Client(_url(site), TOKEN, retries=0)
    assert json.loads(client.fetch("downloading", _url(storage, "/bucket/pred.zip?sig=abc")).decode()) == {"ok": True}
    assert seen == [(storage.server_port, "/bucket/pred.zip?sig=abc", None)]


@pytest.mark.parametrize("server, allowed", [
    ("https://www.codabench.org", True), ("http://127.0.0.1:8765", True), ("http://localhost:8000", True),
    ("http://[::1]:8000", True), ("http://codabench.example.org", False), ("http://10.0.0.5:8000", False)])
def test_plain_http_only_to_this_machine_unless_asked(server, allowed):
    if allowed:
        assert codabench_api.Client(server, TOKEN).server == server
    else:
        with pytest.raises(codabench_api.ApiError, match="plain http to another machine.*--allow-http"):
            codabench_api.Client(server, TOKEN)
        assert codabench_api.Client(server, TOKEN, allow_http=True).server == server


def test_a_token_file_others_can_read_gets_a_warning(tmp_path):
    config = tmp_path / "codabench.json"
    assert codabench_api.token_file_warning(str(config)) is None  # no file
    config.write_text(json.dumps({"token": TOKEN}))
    os.chmod(str(config), 0o600)
    assert codabench_api.token_file_warning(str(config)) is None
    os.chmod(str(config), 0o644)
    assert codabench_api.token_file_warning(str(config)) == (
        "warning: %s, which holds your Codabench API token, can be read by others (mode 644): chmod 600 %s"
        % (config, config))
    os.chmod(str(config), 0o620)
    assert "mode 620" in codabench_api.token_file_warning(str(config))
