"""``submit``: a submission to a phase of a live Codabench competition, scored by the site's own compute worker
(Codabench's "robot" submissions), and its scores and leaderboard row; the smoke test after ``publish``.

The sequence is the site's (src/apps/api/views/submissions.py): a dataset of type submission is created, uploaded
and completed like a bundle, then POST /api/submissions/ {phase, data}; GET /api/submissions/<id>/ is polled
until Finished, Failed or Cancelled; its scores are read from it, and its row from the phase's leaderboard
(GET /api/phases/<id>/get_leaderboard/). With a replay report to compare (``expected``), any score that differs
beyond the 10 decimals Codabench stores is an error.

A phase of several tasks (a task with tracks) runs the submission once per task, each run a child submission, or
on the tasks it names (``tasks`` in POST /api/submissions/: the participant's choice, ``tracks`` here by the tasks'
names). The submission's record then holds every run's scores and the computed columns, and says Finished once
every run has ended; each run's status, scores and the participant's message are its child's, and are compared
with the replay's run of that task.
"""
import datetime

from ..platforms import fact_sheet
from ..replay import code_submission
from .codabench_api import ApiError, wait_for
from .publish import api_instant, show, upload

DONE = ("Finished", "Failed", "Cancelled")
QUEUE_MARGIN = 600  # seconds granted beyond Codabench's own bound, for the queue ahead of a submission
CELERY_PADDING = 1200  # Codabench's site gives each compute task a soft limit of the phase's time limit + 20 min
SCORES_TIMEOUT = 20  # seconds the scores may trail the Finished status

# What a submission's last status means when it never reached a final one, and what to do (Codabench at c7dbc756:
# competitions/tasks.py, compute_worker.py; each checked on the local Codabench, see tools/codabench_local/FAULTS.md).
STUCK = {
    "Submitting": "the site has the file, but no site worker sent the run to a compute worker: the site worker "
                  "was stopped while it dispatched the run (Celery had taken the task off its queue, so nothing "
                  "retries it), or the competition does not run submissions by itself (auto_run_submissions off). "
                  "The organizer runs it as it is, keeping its id: its Run button on the submissions page, or "
                  "submit --rerun-stuck (POST /api/submissions/<id>/run_submission/); if it still stays, the "
                  "storage was down when it was dispatched and it cannot run: cancel and re-run it (submit "
                  "--rerun-stuck does that next)",
    "Submitted": "it waits in the compute queue and no compute worker has taken it: every worker is busy with "
                 "the submissions ahead of it, or none is serving the queue. Check the site's workers (its "
                 "server status page); it runs as soon as one is free",
    "Preparing": "a compute worker took it and has not reported since (see Running)",
    "Running": "a compute worker took it and has not reported an end: the worker died, or a step of its run "
               "failed (its storage or the site unreachable: the run is dropped and its status stays). Codabench "
               "marks it Failed only after 24 hours. The organizer cancels it and re-runs it (submit --rerun-stuck "
               "does both: a new submission of the same file)",
    "Scoring": "the prediction step ended and the scoring run has not reported an end (see Running)",
}
STUCK["None"] = STUCK["Submitting"]


class SubmitError(Exception):
    pass


def default_timeout(phase):
    """Seconds to wait for one submission: Codabench's own bound on a run (the phase's time limit, capped at 600 s
    on the default queue, plus the 20 minutes of its Celery soft limit) and a margin for the queue ahead."""
    try:
        limit = int(phase.get("execution_time_limit") or 600)
    except (TypeError, ValueError):
        limit = 600
    return min(limit, 600) + CELERY_PADDING + QUEUE_MARGIN


def phase_of(competition, number):
    phases = sorted(competition.get("phases") or [], key=lambda p: p.get("index", 0))
    if not 1 <= number <= len(phases):
        raise SubmitError("the competition has %d phase(s): --phase is 1 to %d" % (len(phases), len(phases)))
    return phases[number - 1]


def closed(phase, now):
    """Why participants cannot submit to ``phase`` at ``now`` (naive UTC), or None. The site's upload page takes
    submissions only in the current phase; its API checks no dates, so a robot submission would still run."""
    start, end = api_instant(phase.get("start")), api_instant(phase.get("end"))
    if start is not None and now < start:
        return "it opens at %s" % show(start)
    if end is not None and now >= end:
        return "it ended at %s" % show(end)
    return None


def open_phase(client, competition_id, phase_number, even_if_closed=False, now=None):
    """(competition, phase) as the site gives them; SubmitError when the account cannot see the competition, or
    when the phase is closed (unless ``even_if_closed``)."""
    try:
        competition = client.call("reading competition %s" % competition_id, "GET", "/api/competitions/%s/"
                                  % competition_id)
    except ApiError as exc:
        if exc.status != 404:
            raise
        # Codabench shows an unpublished competition only to its organizers and approved participants
        raise SubmitError("competition %s is not visible to this account: there is no such competition, or it is "
                          "not published yet and the account is not one of its participants (the organizer "
                          "publishes it on the site, or approves the account)" % competition_id)
    phase = phase_of(competition, phase_number)
    why = closed(phase, now or datetime.datetime.utcnow())
    if why and not even_if_closed:
        raise SubmitError("phase %d (%s) is closed: %s; participants cannot submit to it now (an organizer's "
                          "rehearsal: --even-if-closed)" % (phase_number, phase.get("name"), why))
    return competition, phase


def task_ids(phase, tracks):
    """The ids of the phase's tasks named ``tracks`` (the Codabench tasks of a task's tracks carry the tracks'
    names); SubmitError for a name the phase has no task of."""
    tasks = [t for t in phase.get("tasks") or [] if isinstance(t, dict)]
    names = [str(t.get("name")) for t in tasks]
    unknown = [n for n in tracks if n not in names]
    if unknown:
        raise SubmitError("phase %s (%s) has no task named %s: its tasks are %s" % (
            phase.get("id"), phase.get("name"), ", ".join(unknown), ", ".join(names) or "none"))
    return [t.get("id") for t in tasks if str(t.get("name")) in tracks]


def create(client, competition, phase, path, name=None, organization=None, tracks=None, answers=None):
    """Upload the zip at ``path`` (as ``name`` on the site) and make it a submission to ``phase`` (to its tasks
    named ``tracks`` only, when given): its id. ``answers``: its fact-sheet answers (fact_sheet.answers_for), or None
    for none."""
    ids = task_ids(phase, tracks) if tracks else None  # said before anything is uploaded
    dataset, _ = upload(client, path, "submission", name=name, competition=competition["id"])
    payload = {"phase": phase["id"], "data": dataset.get("key")}
    if ids:
        payload["tasks"] = ids
    if answers is not None:
        payload["fact_sheet_answers"] = answers
    if organization is not None:
        payload["organization"] = organization  # the team it is made for: the site checks the membership
    created = client.call("creating the submission", "POST", "/api/submissions/", payload)
    return created.get("id")


def read_submission(client, submission_id):
    return client.call("reading submission %s" % submission_id, "GET", "/api/submissions/%s/" % submission_id)


def outcome(client, competition, phase, found, say):
    """The result of a submission that reached a final status (``found``: the site's record of it): waits the few
    seconds the site may take to store the last scores, puts it on an Add leaderboard as the participant would, and
    reads its row. {"id", "phase", "status", "details", "scores": {key: float}, "row": the row or None}."""
    submission_id = found.get("id")
    if found.get("status") == "Finished" and not found.get("has_children"):
        # the site stores the scores one by one, and may say Finished before the last: wait for every column
        # (a submission with runs says Finished only once each run has ended, its scores stored before)
        expected = _score_keys(competition)
        try:
            found = wait_for("waiting for the scores of submission %s" % submission_id,
                             lambda: read_submission(client, submission_id),
                             lambda s: expected <= set(c.get("column_key") for c in s.get("scores") or []),
                             SCORES_TIMEOUT, interval=1.0)
        except ApiError:
            pass  # a column the program never writes: what was stored is reported
    scores = dict((s["column_key"], float(s["score"])) for s in found.get("scores") or [] if s.get("column_key"))
    row = None
    if found.get("status") == "Finished":
        try:
            if not found.get("on_leaderboard") and _rule(competition) == "Add":
                # the participant's "add to the leaderboard": with rule Add nothing gets there by itself
                client.call("putting the submission on the leaderboard", "POST",
                            "/api/submissions/%s/submission_leaderboard_connection/" % submission_id, {})
                say("  put on the leaderboard (its rule is Add: the participant chooses)")
            board = client.call("reading the leaderboard", "GET", "/api/phases/%s/get_leaderboard/" % phase["id"])
            row = _row(board, submission_id, found.get("children"))
        except ApiError as exc:
            say("  (the leaderboard could not be read: %s)" % exc)
    result = {"id": submission_id, "phase": phase.get("name"), "status": found.get("status"),
              "details": found.get("status_details") or "", "scores": scores, "row": row}
    if found.get("has_children") or len(phase.get("tasks") or []) > 1:
        result["tracks"] = _runs(client, found)
    return result


def _runs(client, found):
    """Each run of a submission in a phase of several tasks: [{"task", "id", "status", "details", "scores"}], in
    the order of its tasks (a submission made to one task is its only run)."""
    records = [read_submission(client, child) for child in found.get("children") or []] or [found]
    runs = []
    for record in records:
        task = record.get("task")
        runs.append({"task": str(task.get("name")) if isinstance(task, dict) else None, "id": record.get("id"),
                     "status": record.get("status"), "details": record.get("status_details") or "",
                     "scores": dict((s["column_key"], float(s["score"])) for s in record.get("scores") or []
                                    if s.get("column_key"))})
    return sorted(runs, key=lambda run: (str(run["task"]), run["id"] or 0))


def fact_sheet_answers(competition, answers, no_fact_sheet=False):
    """The fact-sheet answers to send to ``competition`` (checked against its questions), or None; SubmitError
    saying every problem at once."""
    try:
        return fact_sheet.answers_for(competition, answers, no_fact_sheet)
    except fact_sheet.FactSheetError as exc:
        raise SubmitError(str(exc))


def submit(client, path, competition_id, phase_number, progress=None, timeout=None, even_if_closed=False,
           now=None, tracks=None, answers=None, no_fact_sheet=False):
    """Returns {"id", "status", "details", "scores": {key: float}, "row": the leaderboard row or None,
    "fact_sheet_answers": what was sent, or None}, and in a phase of several tasks "tracks": each run (see _runs).
    ``tracks``: the tasks to run it on (default: all). ``answers``: the fact-sheet answers given ({key: value},
    checked against the competition's questions before anything is sent), or None."""
    say = progress or (lambda text: None)
    competition, phase = open_phase(client, competition_id, phase_number, even_if_closed, now)
    sending = fact_sheet_answers(competition, answers, no_fact_sheet)
    may_submit(client, competition, phase, phase_number, say)
    timeout = default_timeout(phase) if timeout is None else timeout
    say("submitting %s to phase %d (%s) of %s" % (path, phase_number, phase.get("name"), competition.get("title")))
    submission_id = create(client, competition, phase, path, tracks=tracks, answers=sending)
    say("submission %s created; waiting for the compute worker" % submission_id)
    last = {}

    def poll():
        found = read_submission(client, submission_id)
        if found.get("status") != last.get("status"):
            say("  %s" % found.get("status"))
        last.update(found)
        return found

    try:
        found = wait_for("waiting for submission %s to be scored" % submission_id, poll,
                         lambda s: s.get("status") in DONE, timeout)
    except ApiError as exc:
        if exc.status is not None or not last:
            raise
        return {"id": submission_id, "phase": phase.get("name"), "status": last.get("status"),
                "details": last.get("status_details") or "", "scores": {}, "row": None,
                "stuck": "still %s after %d s: %s" % (last.get("status"), timeout, STUCK.get(
                    str(last.get("status")), "the site reports a status this command does not know")),
                "fact_sheet_answers": sending}
    return dict(outcome(client, competition, phase, found, say), fact_sheet_answers=sending)


def may_submit(client, competition, phase, number, say):
    """Make the account able to submit to ``phase``, or say exactly why it cannot (SubmitError). The site's own
    check (GET /api/can_make_submission/<phase>/) is what makes a robot account a participant, when the
    competition allows robot submissions; any other account registers (POST /api/competitions/<id>/register/),
    which approves it at once when the competition auto-approves. Without this, POST /api/submissions/ answers a
    bare 403 to an account that is not an approved participant."""
    def ask():
        return client.call("asking whether this account may submit to phase %s" % phase["id"], "GET",
                           "/api/can_make_submission/%s/" % phase["id"]) or {}

    answer = ask()
    if answer.get("can"):
        return
    if "not approved" in str(answer.get("reason") or ""):
        try:
            registered = client.call("registering for competition %s" % competition["id"], "POST",
                                     "/api/competitions/%s/register/" % competition["id"], {}, safe=False) or {}
            say("  registered as a participant: %s" % registered.get("participant_status", "?"))
        except ApiError as exc:
            if exc.status not in (400, 403):
                raise
            say("  registering was refused (%s)" % exc.text)
        answer = ask()
        if answer.get("can"):
            return
    reason = str(answer.get("reason") or "the site gave no reason")
    if "not approved" in reason:
        reason += (": the account's registration is pending or refused. The organizer approves it on the "
                   "competition's participants page, or sets registration_auto_approve; for a robot account "
                   "(User.is_bot) the organizer sets allow_robot_submissions")
    raise SubmitError("this account cannot submit to phase %s (%s) of competition %s: %s"
                      % (number, phase.get("name"), competition.get("id"), reason))


def _score_keys(competition):
    """The keys of the leaderboard's columns the program writes (not those the site computes)."""
    board = (competition.get("leaderboards") or [{}])[0] or {}
    return set(c.get("key") for c in board.get("columns") or [] if not c.get("computation"))


def _rule(competition):
    boards = competition.get("leaderboards") or [{}]
    return (boards[0] or {}).get("submission_rule")


def _row(board, submission_id, children=None):
    """The leaderboard row of the submission: in a phase of several tasks the row carries the id of its first run
    and, in detailed_results, the ids of all its runs."""
    ids = set([submission_id] + list(children or []))
    for row in (board or {}).get("submissions") or []:
        runs = set(d.get("id") for d in row.get("detailed_results") or [] if isinstance(d, dict))
        if ids & (set([row.get("id"), row.get("parent")]) | runs) or submission_id in (row.get("ids") or []):
            return row
    return None


def first_line(text):
    """The first line of ``text`` that is not blank, stripped ('' for none)."""
    return next((line.strip() for line in str(text or "").splitlines() if line.strip()), "")


def message_difference(result, replayed):
    """The line saying how the participant's message differs between the site and the replay, or None. Compared when
    either says Failed: the first line of the run's stderr (the site's, fetched into ``result["message"]``), or, when
    neither has any and the replay's program never ran (the worker refused the submission: a broken zip), the site's
    status text (``result["details"]``) against the replay's reason, which is then the worker's own words."""
    if "Failed" not in (result.get("status"), replayed.get("status")):
        return None
    site, local = first_line(result.get("message")), first_line(replayed.get("stderr"))
    if site or local:
        if site != local:
            return "message: the participant reads %s on the site, %s in the replay" % (
                repr(site) if site else "no stderr", repr(local) if local else "no stderr")
        return None
    if replayed.get("exit_code") is None and replayed.get("reason"):
        details = str(result.get("details") or "").strip()
        if details != replayed["reason"].strip():
            return "message: the site says %r, the replay %r (neither has stderr)" % (details, replayed["reason"])
    return None


def differences(result, replayed):
    """Lines saying where the site's result differs from the local replay (status, the participant's message, and
    scores to 10 decimals); in a phase of several tasks, each run's status against the replay's run of its task
    (the submission's own status is Finished on the site once its runs have ended), and the submission's scores
    (every run's, and the computed columns)."""
    lines = []
    if result.get("tracks") is not None and replayed.get("tasks") is not None:
        local = dict((run["task"], run) for run in replayed["tasks"])
        for run in result["tracks"]:
            mine = local.pop(run["task"], None)
            if mine is None:
                lines.append("task %s: the site ran it, the replay did not" % run["task"])
            elif run["status"] != mine["status"]:
                lines.append("task %s: the site says %s, the replay %s" % (run["task"], run["status"],
                                                                          mine["status"]))
        lines.extend("task %s: the replay ran it, the site did not" % name for name in sorted(local))
    else:
        if result["status"] != replayed["status"]:
            lines.append("status: the site says %s, the replay %s" % (result["status"], replayed["status"]))
        code = replayed.get("site_details") is not None  # a code submission: its status details compared below
        said = message_difference(result, dict(replayed, reason=None, stderr=code_submission.participant_stderr(
            replayed)) if code else replayed)
        if said:
            lines.append(said)
        if code and result["status"] == "Failed" and replayed["site_details"] and result.get("details") not in \
                [replayed["site_details"]] + ((replayed.get("prediction") or {}).get("site_details_first") or []):
            # the worker's own message (or the one it shows until the scoring step it already started ends)
            lines.append("status details: the site says %r, the replay %r" % (result.get("details"),
                                                                              replayed["site_details"]))
    for key in sorted(set(result["scores"]) | set(replayed["scores"])):
        site, local = result["scores"].get(key), replayed["scores"].get(key)
        if site is None or local is None or round(site, 10) != round(float(local), 10):
            lines.append("%s: the site stored %s, the replay %s" % (key, site, local))
    return lines


def format_submitted(result, diffs=None):
    lines = ["submission %s to phase %s: %s%s" % (result["id"], result["phase"], result["status"],
                                                   " (%s)" % result["details"] if result["details"] else "")]
    if result.get("stuck"):
        lines.append("not final: %s" % result["stuck"])
    if result.get("fact_sheet_answers") is not None:
        lines.append("fact sheet: %s" % ", ".join("%s=%s" % (k, v) for k, v in result["fact_sheet_answers"].items()))
    for key, value in result["scores"].items():
        lines.append("  %s: %r" % (key, value))
    for run in result.get("tracks") or []:
        lines.append("  task %s (submission %s): %s%s" % (run["task"], run["id"], run["status"], " (%s)" % run[
            "details"] if run["status"] != "Finished" and run["details"] else ""))
    if result["row"] is not None:
        shown = ", ".join("%s=%s" % (s.get("column_key"), s.get("score")) for s in result["row"].get("scores") or [])
        lines.append("leaderboard row: %s, by %s: %s" % (result["row"].get("id"), result["row"].get("owner"),
                                                         shown or "no score"))
    elif result["status"] == "Finished":
        lines.append("not on the leaderboard (the leaderboard's submission rule may need the participant to add it)")
    if diffs is not None:
        lines.append("the local replay gives the same status, message and scores" if not diffs else
                     "ERROR: the site and the local replay differ:")
        lines.extend("  - %s" % line for line in diffs)
    return "\n".join(lines)
