"""Talking to a Codabench site's REST API (read from its code at commit c7dbc756: src/apps/api/).

Token authentication (``Authorization: Token <key>``, the key of the organizer's account: Codabench's
api-token-auth/ endpoint, or its profile page). The token comes from the environment (CODABENCH_TOKEN) or a config
file, and never appears in a message, a log or a report. It goes to the site's own host only: a call to any other
address is refused before anything is sent, files from the site's storage are fetched without it (their signed URL
is the credential), plain http is refused for a host that is not this machine unless asked for, and a token file
that others can read gets a warning, as ssh gives for a private key. Every call names its step; a failure says the step, the
HTTP status and Codabench's own error text. Only calls that are safe to repeat (reads, and the upload of the same
bytes to a presigned storage URL) are retried, with backoff.
"""
from __future__ import annotations

import ipaddress
import json
import os
import re
import socket
import stat
import time
import urllib.error
import urllib.parse
import urllib.request

TOKEN_VARIABLE = "CODABENCH_TOKEN"
SERVER_VARIABLE = "CODABENCH_URL"
CONFIG = os.path.join(os.path.expanduser("~"), ".config", "codalab-bundles", "codabench.json")
CHUNK = 1 << 20


class ApiError(Exception):
    """A call that failed: ``step`` (what was being done), ``status`` (HTTP status, or None when the server was not
    reached) and ``text`` (Codabench's own words)."""

    def __init__(self, step, status, text):
        self.step, self.status, self.text = step, status, text
        where = "HTTP %s" % status if status is not None else "no answer"
        super(ApiError, self).__init__("%s: %s: %s" % (step, where, text))


def read_token(server: str, config: str = CONFIG, environ: dict | None = None) -> tuple[str, str]:
    """The API token for ``server``: $CODABENCH_TOKEN, else the config file ({"servers": {URL: token}} or
    {"token": token}). Returns (token, where it came from); raises ApiError when there is none."""
    environ = os.environ if environ is None else environ
    if environ.get(TOKEN_VARIABLE, "").strip():
        return environ[TOKEN_VARIABLE].strip(), "$%s" % TOKEN_VARIABLE
    if os.path.isfile(config):
        try:
            with open(config, encoding="utf-8") as handle:
                settings = json.load(handle)
        except (OSError, ValueError) as exc:
            raise ApiError("reading the token", None, "%s is not readable JSON: %s" % (config, exc))
        servers = settings.get("servers") if isinstance(settings, dict) else None
        token = (servers or {}).get(server.rstrip("/")) or (servers or {}).get(server.rstrip("/") + "/") or \
            (settings.get("token") if isinstance(settings, dict) else None)
        if isinstance(token, str) and token.strip():
            return token.strip(), config
    raise ApiError("reading the token", None, "no API token: set %s, or write {\"servers\": {\"%s\": \"TOKEN\"}} "
                   "into %s (the token of your Codabench account: its profile page, or POST username and "
                   "password to %s/api/api-token-auth/)" % (TOKEN_VARIABLE, server.rstrip("/"), config,
                                                            server.rstrip("/")))


def token_file_warning(path: str = CONFIG) -> str | None:
    """A warning when the token file can be read or written by others than its owner (None when it cannot, or
    when there is no such file)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        return ("warning: %s, which holds your Codabench API token, can be read by others (mode %o): "
                "chmod 600 %s" % (path, stat.S_IMODE(mode), path))
    return None


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, as in a URL) is this machine."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _origin(url):
    """(scheme, host, port) of ``url``; None for a URL whose port is not a port."""
    parsed = urllib.parse.urlparse(url)
    try:
        port = parsed.port
    except ValueError:
        return None
    return parsed.scheme, (parsed.hostname or "").lower(), port or {"http": 80, "https": 443}.get(parsed.scheme)


def _codabench_text(body):
    """Codabench's error text from a response body: DRF's {"detail": ...}, field errors, or the text itself."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        if text[:200].lstrip().lower().startswith(("<!doctype html", "<html")):
            # Django's error page: its title says all it says ("Server Error (500)"), the rest is markup
            found = re.search(r"<title>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
            return "an HTML page: %s" % (found.group(1).strip() if found else "no title")
        return text[:500] or "(empty response)"
    if isinstance(data, dict) and set(data) == {"detail"}:
        return str(data["detail"])
    if isinstance(data, dict):
        return "; ".join("%s: %s" % (k, " ".join(map(str, v)) if isinstance(v, list) else v) for k, v in data.items())
    if isinstance(data, list):
        return "; ".join(map(str, data))
    return str(data)


class Client(object):
    """A Codabench site: ``server`` is its base URL (http://127.0.0.1:8765)."""

    def __init__(self, server, token, timeout=60, retries=3, backoff=2.0, sleep=time.sleep, allow_http=False):
        parsed = urllib.parse.urlparse(server)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ApiError("reading the server address", None, "%r is not an http(s) URL" % server)
        if parsed.scheme == "http" and not is_loopback(parsed.hostname or "") and not allow_http:
            raise ApiError("reading the server address", None, "%s is plain http to another machine: the API token "
                           "would cross the network readable by anyone on the way; use https (or, on a network you "
                           "trust, --allow-http)" % server)
        self.server = server.rstrip("/")
        self._token = token
        self.timeout, self.retries, self.backoff, self.sleep = timeout, retries, backoff, sleep

    def url(self, path):
        """The site's URL for ``path`` (``/api/...``); an absolute URL only when it is the site's own (the same
        scheme, host and port), since calls carry the token. ApiError for any other."""
        if not path.startswith(("http://", "https://")):
            return self.server + path
        if _origin(path) is None or _origin(path) != _origin(self.server):
            raise ApiError("calling %s" % urllib.parse.urlparse(path).netloc, None, "refused: it is not the site "
                           "%s, and calls carry your API token (a file from the site's storage is fetched without "
                           "it)" % self.server)
        return path

    def fetch(self, step, url):
        """GET a file from a URL the site returned (its storage's signed URL), without the token: safe to repeat.
        Bytes."""
        if not url.startswith(("http://", "https://")):
            url = self.server + url
        return self._send(step, "GET", url, None, {}, True)

    def call(self, step, method, path, payload=None, safe=None):
        """JSON in, JSON out. ``safe``: retry when the server cannot be reached or answers 502-504 (default: GET)."""
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        body = self._send(step, method, self.url(path), data, headers, method == "GET" if safe is None else safe,
                          authorized=True)
        if not body.strip():
            return None
        try:
            return json.loads(body.decode("utf-8"))
        except ValueError:
            raise ApiError(step, 200, "the answer is not JSON: %s" % body[:200].decode("utf-8", "replace"))

    def upload(self, step, url, data, content_type, progress=None):
        """PUT ``data`` to a presigned storage URL (no token: the URL is the credential); safe to repeat."""
        request_data = _Reading(data, progress)
        self._send(step, "PUT", url, request_data, {"Content-Type": content_type, "Content-Length": str(len(data))},
                   True)

    def _send(self, step, method, url, data, headers, safe, authorized=False):
        attempts = self.retries + 1 if safe else 1
        for attempt in range(attempts):
            if isinstance(data, _Reading):
                data.rewind()
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            if authorized:  # an unredirected header: urllib does not carry it on to where a redirect points
                request.add_unredirected_header("Authorization", "Token %s" % self._token)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return response.read()
            except urllib.error.HTTPError as exc:
                text = _codabench_text(exc.read())
                if exc.code in (502, 503, 504) and attempt + 1 < attempts:
                    self.sleep(self.backoff * 2 ** attempt)
                    continue
                raise ApiError(step, exc.code, text)
            except (urllib.error.URLError, socket.timeout, ConnectionError) as exc:
                if attempt + 1 < attempts:
                    self.sleep(self.backoff * 2 ** attempt)
                    continue
                reason = getattr(exc, "reason", exc)
                raise ApiError(step, None, "cannot reach %s: %s" % (urllib.parse.urlparse(url).netloc, reason))
        raise AssertionError("unreachable")


class _Reading(object):
    """Bytes read in chunks by urllib, reporting progress (a file-like body with a known length)."""

    def __init__(self, data, progress):
        self.data, self.progress, self.offset = data, progress, 0

    def rewind(self):
        self.offset = 0

    def read(self, size=-1):
        size = CHUNK if size is None or size < 0 else min(size, CHUNK)
        chunk = self.data[self.offset:self.offset + size]
        self.offset += len(chunk)
        if self.progress and chunk:
            self.progress(self.offset, len(self.data))
        return chunk

    def __len__(self):
        return len(self.data)


def wait_for(step, poll, done, timeout, interval=2.0, sleep=time.sleep, clock=time.monotonic, progress=None):
    """Call ``poll()`` until ``done(result)``; returns the result. Raises ApiError after ``timeout`` seconds."""
    start = clock()
    while True:
        result = poll()
        if done(result):
            return result
        waited = clock() - start
        if waited > timeout:
            raise ApiError(step, None, "still not done after %d s" % timeout)
        if progress and waited >= interval:
            progress(waited)
        sleep(interval)
