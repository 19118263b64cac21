"""What a participant's account (or no account at all) can read of a Codabench competition, through every endpoint
the site's pages and API give it: the leak investigation of issue 40, as a function the live tests call.

``readable(url, token, competition_id, needles)`` reads, with ``token`` (None: no account):
- GET /api/competitions/<id>/ (its leaderboards and columns),
- per phase: GET /api/submissions/?phase=<id>, GET /api/phases/<id>/get_leaderboard/,
- per submission seen there: GET /api/submissions/<id>/, GET /api/submissions/<id>/get_details/ and every file it
  links (the scoring output zip's members, the detailed results, the predictions, each log),
  GET /api/submissions/<id>/get_detail_result/ and the file it points to,
- per leaderboard: GET /api/leaderboards/<id>/, and GET /api/competitions/<id>/results/ (the CSV export),
and returns [(where, the needles found there)] for every place that holds one. Files from the site's storage are
fetched from the signed URLs the API returns, as a browser does.
"""
import io
import json
import urllib.error
import urllib.request
import zipfile


def _get(url, token=None, raw=False):
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if token:
        request.add_header("Authorization", "Token %s" % token)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read()
            return response.status, body if raw else (json.loads(body) if body.strip() else None)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _texts(blob):
    try:
        with zipfile.ZipFile(io.BytesIO(blob)) as archive:
            return dict((name, archive.read(name).decode("utf-8", "replace")) for name in archive.namelist())
    except zipfile.BadZipFile:
        return {"": blob.decode("utf-8", "replace")}


def readable(url, token, competition_id, needles):
    """[(where, [needles found])] for each place a participant with ``token`` reads that holds a needle."""
    url = url.rstrip("/")
    found = []

    def look(where, value):
        text = value if isinstance(value, str) else json.dumps(value)
        hits = [n for n in needles if n in text]
        if hits:
            found.append((where, hits))

    status, competition = _get("%s/api/competitions/%s/" % (url, competition_id), token)
    if status != 200:
        return [("GET /api/competitions/%s/ answers %s" % (competition_id, status), [])]
    look("GET /api/competitions/%s/" % competition_id, competition)
    for phase in competition.get("phases") or []:
        ids = set()
        status, listed = _get("%s/api/submissions/?phase=%s" % (url, phase["id"]), token)
        if status == 200:
            look("GET /api/submissions/?phase=%s" % phase["id"], listed)
            ids.update(s["id"] for s in listed)
        status, board = _get("%s/api/phases/%s/get_leaderboard/" % (url, phase["id"]), token)
        if status == 200:
            look("GET /api/phases/%s/get_leaderboard/" % phase["id"], board)
            ids.update(s["id"] for s in board.get("submissions") or [])
        for sid in sorted(ids):
            status, one = _get("%s/api/submissions/%s/" % (url, sid), token)
            if status == 200:
                look("GET /api/submissions/%s/" % sid, one)
            status, details = _get("%s/api/submissions/%s/get_details/" % (url, sid), token)
            if status == 200:
                look("GET /api/submissions/%s/get_details/" % sid, details)
                for field in ("scoring_result", "detailed_result", "prediction_result"):
                    if details.get(field):
                        for name, text in _texts(_get(details[field], raw=True)[1]).items():
                            look("get_details(%s).%s %s" % (sid, field, name), text)
                for log in details.get("logs") or []:
                    if log.get("data_file"):
                        look("get_details(%s).logs %s" % (sid, log.get("name")),
                             _get(log["data_file"], raw=True)[1].decode("utf-8", "replace"))
            status, link = _get("%s/api/submissions/%s/get_detail_result/" % (url, sid), token)
            if status == 200 and isinstance(link, str):
                look("GET /api/submissions/%s/get_detail_result/ (the file)" % sid,
                     _get(link, raw=True)[1].decode("utf-8", "replace"))
    for board in competition.get("leaderboards") or []:
        status, entries = _get("%s/api/leaderboards/%s/" % (url, board["id"]), token)
        if status == 200:
            look("GET /api/leaderboards/%s/" % board["id"], entries)
    status, export = _get("%s/api/competitions/%s/results/?format=csv" % (url, competition_id), token, raw=True)
    if status == 200:
        look("GET /api/competitions/%s/results/" % competition_id, export.decode("utf-8", "replace"))
    return found
