"""The runs of a phase of a live Codabench competition, read through its API with the organizer's token.

Calls (Codabench's src/apps/api/ at commit c7dbc756):
- GET /api/competitions/<id>/ : the phases and the leaderboard (its columns and submission rule);
- GET /api/submissions/?phase=<phase id> : every submission of the phase (the competition's organizer sees
  everyone's, not only the leaderboard's), with its owner, status, creation time, stored scores, whether it is on
  the leaderboard, and its fact-sheet answers (``fact_sheet_answers``: None or {} when it came with none);
- GET /api/phases/<phase id>/get_leaderboard/ : the team ("organization") of the leaderboard's rows, and their order
  (in a phase of several tasks, Codabench's order is not the ranking column's: results says so);
- GET /api/submissions/<id>/get_details/ : the signed storage URL of the submission's file (``data_file``), which
  is fetched without the token;
- GET /api/competitions/<id>/get_files/ : the competition's bundle, when none is given.

Files are cached as <cache>/<site host>/submission-<id>.zip (names made from the site's numeric ids only, so
nothing lands outside the cache), written to a temporary name and renamed when complete: a second run, or one
after an interruption, downloads only what it does not have. Every file is a participant's and is only ever
opened as a bounded zip by the replay (zips/safe_zip.py); the download itself is bounded by the same byte limit.
"""
from __future__ import annotations

import os
import urllib.parse
import zipfile
from typing import Callable, List, Optional

from ..site.codabench_api import ApiError, Client
from ..site.submit import phase_of
from ..zips import safe_zip
from .runs import Run

FINAL = ("Finished", "Failed", "Cancelled")


class SiteRuns(object):
    """What the site gave: ``competition`` and ``phase`` (the API's dicts), ``runs``, ``skipped`` (lines),
    ``rule`` (the leaderboard's submission rule), ``bundle`` (a path, when fetched)."""

    def __init__(self, competition, phase, runs, skipped, rule, bundle=None, board_teams=None):
        self.competition, self.phase, self.runs, self.skipped, self.rule, self.bundle = (competition, phase, runs,
                                                                                         skipped, rule, bundle)
        self.board_teams = board_teams  # the teams in the order the site's leaderboard shows their rows


def _number(value, what):
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(what, 200, "the site gave %r where an id was expected" % (value,))
    return value


def _listing(found):
    return found.get("results", []) if isinstance(found, dict) else (found or [])


def _team_names(board) -> dict:
    """{submission id: team} of the leaderboard rows that name an organization."""
    teams = {}
    for row in (board or {}).get("submissions") or []:
        organization = row.get("organization")
        name = organization.get("name") if isinstance(organization, dict) else organization
        if isinstance(name, str) and name.strip():
            teams[row.get("id")] = name.strip()
            teams.setdefault(("owner", row.get("owner")), name.strip())
    return teams


def cache_folder(cache: str, client: Client) -> str:
    host = urllib.parse.urlparse(client.server)
    name = "%s_%s" % (host.hostname, host.port or {"http": 80, "https": 443}[host.scheme])
    folder = os.path.join(cache, "".join(c if c.isalnum() or c in "._-" else "_" for c in name))
    os.makedirs(folder, exist_ok=True)
    return folder


def _download(client: Client, step: str, url: str, target: str, limit: int) -> None:
    data = client.fetch(step, url)
    if len(data) > limit:
        raise ApiError(step, 200, "the file is %s, over the %s limit" % (safe_zip.size_text(len(data)),
                                                                        safe_zip.size_text(limit)))
    partial = target + ".part"
    with open(partial, "wb") as handle:
        handle.write(data)
    os.replace(partial, target)


def _have(path: str) -> bool:
    return os.path.isfile(path) and zipfile.is_zipfile(path)


def read_phase(client: Client, competition_id: int, phase_number: int, cache: str, bundle: Optional[str] = None,
               progress: Optional[Callable[[str], None]] = None, limits: Optional[safe_zip.Limits] = None
               ) -> SiteRuns:
    say = progress or (lambda text: None)
    limit = (limits or safe_zip.Limits()).max_bytes
    competition = client.call("reading competition %s" % competition_id, "GET",
                              "/api/competitions/%d/" % competition_id)
    phase = phase_of(competition, phase_number)
    phase_id = _number(phase.get("id"), "reading the phases")
    folder = cache_folder(cache, client)
    if bundle is None:
        files = client.call("reading the competition's files", "GET",
                            "/api/competitions/%d/get_files/" % competition_id) or {}
        url = (files.get("bundle") or {}).get("url")
        if not url:
            raise ApiError("reading the competition's files", 200, "the site keeps no bundle for competition %d: "
                           "give the bundle with --bundle" % competition_id)
        bundle = os.path.join(folder, "competition-%d-bundle.zip" % competition_id)
        if not _have(bundle):
            say("downloading the competition's bundle")
            _download(client, "downloading the competition's bundle", url, bundle, limit)
    submissions = _listing(client.call("listing the submissions of phase %d" % phase_number, "GET",
                                       "/api/submissions/?phase=%d" % phase_id))
    try:
        board = client.call("reading the leaderboard", "GET", "/api/phases/%d/get_leaderboard/" % phase_id)
    except ApiError as exc:
        say("(the leaderboard could not be read, teams are the submitters: %s)" % exc)
        board = None
    teams = _team_names(board)
    top = [s for s in submissions if s.get("parent") is None and not s.get("is_soft_deleted")]
    # A phase of several tasks (tracks): each submission runs once per task it was made to, each run a child
    # submission with its task; the submission's own record holds every child's scores and the computed columns.
    several = len(phase.get("tasks") or []) > 1
    children = {}
    for found in submissions:
        if found.get("parent") is not None:
            children.setdefault(found.get("parent"), []).append(found)
    top.sort(key=lambda s: (str(s.get("created_when") or ""), _number(s.get("id"), "listing the submissions")))
    runs: List[Run] = []
    skipped = []
    order = {}
    for number, found in enumerate(top, 1):
        submission_id = _number(found.get("id"), "listing the submissions")
        owner = str(found.get("owner") or "?")
        status = found.get("status")
        if status not in FINAL:
            skipped.append("submission %d (%s): still %s on the site" % (submission_id, owner, status))
            continue
        target = os.path.join(folder, "submission-%d.zip" % submission_id)
        if not _have(target):
            say("downloading %d/%d: submission %d of %s" % (number, len(top), submission_id, owner))
            details = client.call("reading submission %d's files" % submission_id, "GET",
                                  "/api/submissions/%d/get_details/" % submission_id) or {}
            url = details.get("data_file")
            if not url:
                skipped.append("submission %d (%s): the site gives no file for it" % (submission_id, owner))
                continue
            _download(client, "downloading submission %d" % submission_id, url, target, limit)
        team = teams.get(submission_id) or teams.get(("owner", owner)) or owner
        stored = {}
        for score in found.get("scores") or []:
            try:
                stored[str(score["column_key"])] = float(score["score"])
            except (KeyError, TypeError, ValueError):
                continue
        chosen = bool(found.get("on_leaderboard") or found.get("leaderboard"))
        run = Run(str(submission_id), team, order.setdefault(team, 0), target, submitter=owner, stored=stored,
                  chosen=chosen, site_status=status)
        if several:
            runs_of = children.get(submission_id) or [found]
            run.tracks = [_task_name(r) for r in runs_of if _task_name(r) is not None] or None
            if not any(r.get("status") == "Finished" for r in runs_of):
                # Codabench says Finished once every run has ended; the local merge (replay.merge_runs) says Failed
                # when no run finished: the audit compares like with like
                run.site_status = "Failed"
        answers = found.get("fact_sheet_answers")
        run.answers = answers if isinstance(answers, dict) and answers else None  # {}: the web form, no sheet
        runs.append(run)
        order[team] += 1
    board_settings = (competition.get("leaderboards") or [{}])[0] or {}
    return SiteRuns(competition, phase, runs, skipped, board_settings.get("submission_rule"), bundle,
                    _board_teams(board, submissions, runs))


def _task_name(submission):
    task = submission.get("task")
    name = task.get("name") if isinstance(task, dict) else None
    return str(name) if name is not None else None


def _board_teams(board, submissions, runs) -> Optional[List[str]]:
    """The teams of the leaderboard's rows in the site's order (a row is a submission, or in a phase of several
    tasks the run of it that came first: its parent's team); None when the leaderboard could not be read."""
    if board is None:
        return None
    parent = dict((s.get("id"), s.get("parent") or s.get("id")) for s in submissions)
    team_of = dict((run.id, run.team) for run in runs)
    found = []
    for row in board.get("submissions") or []:
        team = team_of.get(str(parent.get(row.get("id"), row.get("id"))))
        if team is not None and team not in found:
            found.append(team)
    return found
