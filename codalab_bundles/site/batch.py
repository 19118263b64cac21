"""``submit`` of many zips at once: a bounded number in flight on the site, progress, a final table, and a ledger so
that a second call after an interruption submits nothing the site already has and only waits for what still runs.

What a zip is, on the site: its SHA-256. Each zip is uploaded under the name ``<its name, 18 characters>-<the first
16 hex digits of its SHA-256>.zip`` (Codabench keeps 35 characters of a file's name, and the submission listing
searches the stored file name: ``GET /api/submissions/?phase=<id>&search=<digits>``), so the site itself can say
whether it has a zip, even to a call from another machine without the ledger. The ledger (JSON lines, appended and
synced at each step, ``~/.cache/codalab-bundles/submit/<site>/competition-<id>-phase-<n>.jsonl`` unless given) records
for each (account, team, SHA-256) the submission id as soon as the site returns it, then its final status; a zip
whose upload was interrupted before the site answered is looked up on the site before it is sent again.

Waiting is bounded: a submission that has not reached a final status after ``timeout`` seconds of waiting is reported
with its last status, what that status means on Codabench (see STUCK) and what to do; the ledger keeps it, and the
next call waits for it again rather than submitting it anew.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import threading
import time
import urllib.parse

from .codabench_api import ApiError
from .submit import (DONE, STUCK, SubmitError, create, default_timeout, fact_sheet_answers, first_line, may_submit,
                     open_phase, outcome, read_submission)

LEDGER_HOME = os.path.join(os.path.expanduser("~"), ".cache", "codalab-bundles", "submit")
IN_FLIGHT = 4
POLL = 5.0  # seconds between two reads of a submission in flight
NAME_DIGITS = 16  # hex digits of the SHA-256 in the file name the site keeps
RESEND_PAUSES = (20, 60)  # seconds before sending a zip again whose upload or creation the site failed (5xx, none)



def sha256_of(path):
    digest = hashlib.sha256()
    with open(str(path), "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def site_file_name(path, sha256, organization=None):
    """The zip's name on the site: its own name, the team it is for (``-t<id>``), and the first 16 digits of its
    SHA-256, within the 35 characters Codabench keeps of a name (without its extension)."""
    team = "" if organization is None else "-t%s" % organization
    stem = os.path.basename(str(path))
    stem = stem[:-4] if stem.lower().endswith(".zip") else stem
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem)[:35 - NAME_DIGITS - 1 - len(team)] or "submission"
    return "%s%s-%s.zip" % (stem, team, sha256[:NAME_DIGITS])


def named_file(filename):
    """(team, SHA-256 prefix) of a file name ``site_file_name`` made; (None, None) for any other name."""
    match = re.search(r"(?:-t(\d+))?-([0-9a-f]{%d})\.zip$" % NAME_DIGITS, str(filename or ""))
    return (match.group(1), match.group(2)) if match else (None, None)


def default_ledger(server, competition_id, phase_number):
    parsed = urllib.parse.urlparse(server)
    site = "%s_%s" % (parsed.hostname, parsed.port or {"http": 80, "https": 443}.get(parsed.scheme))
    site = "".join(c if c.isalnum() or c in "._-" else "_" for c in site)
    return os.path.join(LEDGER_HOME, site, "competition-%s-phase-%s.jsonl" % (competition_id, phase_number))


class Ledger(object):
    """Append-only JSON lines; the last line of a (account, team, sha256) wins. Each line is flushed and synced
    before the step it records is taken further, so an interruption loses at most the step in progress."""

    def __init__(self, path):
        self.path = str(path)
        self._lock = threading.Lock()

    def load(self):
        records = {}
        try:
            with open(self.path, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except FileNotFoundError:
            return records
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut by an interruption
            if isinstance(record, dict) and record.get("sha256"):
                key = (record.get("account"), record.get("organization"), record["sha256"])
                records[key] = dict(records.get(key, {}), **record)
        return records

    def write(self, **record):
        record["at"] = round(time.time(), 3)
        line = json.dumps(record, sort_keys=True) + "\n"
        with self._lock:
            folder = os.path.dirname(self.path)
            if folder:
                os.makedirs(folder, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())


class Entry(object):
    """One zip of the batch and what became of it."""

    def __init__(self, path, sha256):
        self.path, self.sha256 = str(path), sha256
        self.zip = os.path.basename(self.path)
        self.id = None
        self.origin = "new"  # new: submitted by this call; ledger / site: found there, not submitted again
        self.status, self.details, self.scores, self.row = None, "", {}, None
        self.message = ""  # a failed submission's stderr, as the participant reads it on the site (its last lines)
        self.said = ""  # the first line of that stderr (compared with the replay's, --expect-replay)
        self.stuck = None  # the meaning of the last status, when waiting ended before a final one
        self.error = None  # a step that failed for this zip (the site's own words)
        self.same_as = None  # an earlier zip of the batch with the same bytes
        self.waited = None  # seconds from submission (or from the start of waiting) to the final status
        self.replay = None  # with --expect-replay: where the site and the local replay differ
        self.rerun = 0  # times it was run again, stuck (--rerun-stuck)
        self.previous = []  # the ids it had before a cancel and re-run
        self.tracks = None  # a phase of several tasks: each run's task, id, status, details, scores (submit._runs)
        self.broken = None  # why the site cannot show the submission's details (its logs), when it cannot
        self.resent = []  # the ids deleted, their details broken, before the zip was sent again (--resend-broken)

    def as_dict(self):
        return {"zip": self.path, "sha256": self.sha256, "submission": self.id, "origin": self.origin,
                "status": self.status, "details": self.details, "scores": self.scores, "row": self.row,
                "message": self.message, "first_line": self.said, "stuck": self.stuck, "error": self.error, "same_as": self.same_as,
                "seconds": self.waited, "replay": self.replay, "rerun": self.rerun,
                "previous": self.previous, "tracks": self.tracks, "details_broken": self.broken,
                "resent": self.resent}


def site_stderr(client, submission_id, limit=1 << 20):
    """A failed submission's stderr as its page shows it (scoring first, then prediction, then the ingestion's),
    the first and last ``limit`` bytes of the first that is not blank; '' when none is."""
    try:
        details = client.call("reading submission %s's logs" % submission_id, "GET",
                              "/api/submissions/%s/get_details/" % submission_id) or {}
    except ApiError:
        return ""
    logs = dict((log.get("name"), log.get("data_file")) for log in details.get("logs") or [] if isinstance(log, dict))
    for name in ("scoring_stderr", "prediction_stderr", "scoring_ingestion_stderr", "prediction_ingestion_stderr"):
        url = logs.get(name)
        if not url:
            continue
        try:
            data = client.fetch("reading submission %s's %s" % (submission_id, name), url)
        except ApiError:
            continue
        if len(data) > 2 * limit:
            data = data[:limit] + b"\n" + data[-limit:]
        text = data.decode("utf-8", "replace")
        if text.strip():
            return text
    return ""


def participant_message(client, submission_id, limit=1 << 20):
    """The last lines of a failed submission's stderr (scoring first), as its page shows them; '' when none."""
    return last_lines(site_stderr(client, submission_id, limit))


def last_lines(text, count=3):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return "\n".join(lines[-count:])


def _on_site(client, phase, account, wanted, organization=None):
    """{sha256 prefix: the account's submission record (for the team ``organization``)} for the zips of ``wanted``
    (prefixes) the site has. The team is read from the stored name: the site's listing does not give it."""
    found = {}
    search = "&search=%s" % list(wanted)[0] if len(wanted) == 1 else ""  # the stored file name holds it
    listing = client.call("listing this account's submissions of the phase", "GET",
                          "/api/submissions/?phase=%s%s" % (phase["id"], search))
    listing = listing.get("results", []) if isinstance(listing, dict) else (listing or [])
    for record in sorted(listing, key=lambda r: r.get("id") or 0):
        if record.get("owner") != account or record.get("parent") is not None or record.get("is_soft_deleted"):
            continue
        team, prefix = named_file(record.get("filename"))
        if prefix is None or team != (None if organization is None else str(organization)):
            continue
        if prefix in wanted:
            # the first one made, should there be several, unless it was cancelled (a stuck run re-run)
            if prefix not in found or found[prefix].get("status") == "Cancelled":
                found[prefix] = record
    return found


class Batch(object):
    """One call's work: the zips (``entries``), the site's phase, the account and team, the ledger, and how each zip
    is sent (``send``), waited for (``follow``) and, stuck, run again (``rescue``)."""

    def __init__(self, client, competition, phase, account, organization, ledger, timeout, options, say, stop):
        self.client, self.competition, self.phase = client, competition, phase
        self.account, self.organization, self.ledger, self.timeout = account, organization, ledger, timeout
        self.poll, self.sleep, self.clock = options["poll"], options["sleep"], options["clock"]
        self.rerun_stuck, self.resend_pauses = options["rerun_stuck"], options["resend_pauses"]
        self.resend_broken = options.get("resend_broken", False)
        self.answers = options.get("answers")  # every zip's fact-sheet answers (None: none)
        self.say, self.stop = say, stop
        self.tracks = options.get("tracks")  # the tasks of a phase of several to submit to (None: all)
        self.total, self.done, self.lock = 0, 0, threading.Lock()

    def record(self, entry, **fields):
        """A line of the ledger about ``entry``."""
        self.ledger.write(account=self.account, organization=self.organization, sha256=entry.sha256, zip=entry.path,
                          **fields)

    def pause(self, seconds=None):
        """Wait between two reads (or ``seconds``); True when the call is being stopped."""
        seconds = self.poll if seconds is None else seconds
        if self.sleep is time.sleep:
            return self.stop.wait(seconds)
        self.sleep(seconds)
        return self.stop.is_set()

    def finished(self, entry):
        with self.lock:
            self.done += 1
            done = self.done
        what = entry.error or (("%s (%s)" % (entry.status, entry.stuck.split(":")[0])) if entry.stuck else
                               entry.status)
        self.say("[%d/%d] %s: submission %s %s%s" % (done, self.total, entry.zip, entry.id if entry.id else "-",
                                                     what, "" if entry.waited is None else
                                                     " after %d s" % entry.waited))

    def send(self, entry):
        """Upload the zip and make it a submission; a step the site did not answer, or answered with a server error
        (its storage or broker down), is tried again after a pause, but only once the site's listing shows that
        the submission was not made after all (a creation can fail after the site made it)."""
        client, phase = self.client, self.phase
        for attempt in range(len(self.resend_pauses) + 1):
            # the site's own check first: past a limit (submissions a day, in all) the creation would be a
            # bare HTTP 500 after the upload; this way the reason is the site's and nothing is left behind
            try:
                answer = client.call("asking whether this account may submit to phase %s" % phase["id"], "GET",
                                     "/api/can_make_submission/%s/" % phase["id"]) or {}
                if not answer.get("can", True):
                    entry.error = "not sent: the site says %s" % (answer.get("reason") or "no (without a reason)")
                    return
                self.record(entry, stage="uploading")
                entry.id = create(client, self.competition, phase, entry.path,
                                  site_file_name(entry.path, entry.sha256, self.organization), self.organization,
                                  self.tracks, self.answers)
            except ApiError as exc:
                if (exc.status is not None and exc.status < 500) or attempt == len(self.resend_pauses):
                    raise
                self.say("  %s: %s; trying again in %d s" % (entry.zip, exc, self.resend_pauses[attempt]))
                if self.pause(self.resend_pauses[attempt]):
                    return
                made = _on_site(client, phase, self.account, {entry.sha256[:NAME_DIGITS]}, self.organization)
                if not made:
                    continue
                entry.id = list(made.values())[0].get("id")
                self.say("  %s: the site had made it after all: submission %s" % (entry.zip, entry.id))
            self.record(entry, submission=entry.id, stage="submitted")
            return

    def rescue(self, entry, status):
        """A submission stuck in ``status``, run again the organizer's way: first a lost dispatch (Submitting) is
        run as it is (run_submission: same id); a run no worker will end (Running, Preparing, Scoring), or a
        Submitting one that running again did not move (its placeholder files were never written: the storage was
        down), is cancelled and re-run (re_run_submission: a new submission of the same file)."""
        client = self.client
        if status == "Submitting" and not entry.rerun:
            client.call("running submission %s again" % entry.id, "POST",
                        "/api/submissions/%s/run_submission/" % entry.id, {}, safe=False)
            what = "run again (it stayed Submitting)"
        else:
            old = entry.id
            try:
                # a GET in Codabench (SubmissionViewSet.cancel_submission), though it changes the submission
                client.call("cancelling submission %s" % old, "GET", "/api/submissions/%s/cancel_submission/" % old,
                            safe=False)
                made = client.call("re-running submission %s" % old, "POST",
                                   "/api/submissions/%s/re_run_submission/" % old, {}, safe=False) or {}
                entry.id = made.get("id")
                what = "cancelled and re-run as submission %s (it stayed %s)" % (entry.id, status)
            except ApiError as exc:
                if exc.status is None or exc.status < 500:
                    raise
                # Codabench cannot save it (a file its record names was never written: the storage was down),
                # so it can be neither cancelled nor re-run; it can be deleted, and the zip sent anew
                client.call("deleting submission %s" % old, "DELETE", "/api/submissions/%s/" % old, safe=False)
                entry.id = None
                self.send(entry)
                what = "deleted (the site could not cancel it: %s) and sent again as submission %s (it stayed %s)" % (
                    exc.text, entry.id, status)
            entry.previous.append(old)
        entry.rerun += 1
        self.say("  %s: submission %s %s" % (entry.zip, (entry.previous or [entry.id])[-1], what))
        self.record(entry, submission=entry.id, stage=what, previous=entry.previous)

    def follow(self, entry):
        """Send the zip if the site lacks it, and wait for its final status (within the bound)."""
        if self.stop.is_set():
            return
        try:
            if entry.id is None:
                self.send(entry)
                if entry.id is None:
                    return
            while True:
                found = self.wait(entry)
                if found is None:
                    return
                result = outcome(self.client, self.competition, self.phase, found, lambda text: None)
                entry.status, entry.details = result["status"], result["details"]
                entry.scores, entry.row, entry.tracks = result["scores"], result["row"], result.get("tracks")
                failed = [run for run in entry.tracks or [] if run["status"] != "Finished"]
                if entry.status != "Finished" or failed:  # a run of a task that failed has the message
                    text = site_stderr(self.client, failed[0]["id"] if failed else entry.id)
                    entry.message, entry.said = last_lines(text), first_line(text)
                self.record(entry, submission=entry.id, stage="final", status=entry.status, scores=entry.scores,
                            **({"tracks": [dict((k, run[k]) for k in ("task", "id", "status"))
                                           for run in entry.tracks]} if entry.tracks is not None else {}))
                if self.whole(entry) or entry.id is None:
                    return
        except ApiError as exc:
            entry.error = str(exc)
        finally:
            if not self.stop.is_set() or entry.status in DONE:
                self.finished(entry)

    def whole(self, entry):
        """Whether the site can show the final submission's details (its logs: GET .../get_details/). A run the
        site worker's interrupted dispatch left a details row without a file (one ``--rerun-stuck`` ran again under
        its id, say) keeps that row: Codabench cannot sign a URL for an empty file name and answers HTTP 500, so the
        participant cannot open its logs. Said in ``entry.broken`` and the ledger; with ``resend_broken`` (once a
        zip) the submission is deleted and its zip sent again, and False is returned: the new one is waited for."""
        try:
            self.client.call("reading submission %s's details" % entry.id, "GET",
                             "/api/submissions/%s/get_details/" % entry.id)
            return True
        except ApiError as exc:
            if exc.status is None or exc.status < 500:
                return True  # unreachable now, or not shown to this account (a phase hiding its output)
            answer, problem = exc.status, exc.text
        entry.broken = ("the site cannot show its details (GET /api/submissions/%s/get_details/ answers HTTP %s: %s): "
                        "a details row without a file, left by a dispatch the site worker did not finish, outlives "
                        "a re-run under the same id, so the participant cannot open its logs; "
                        "submit --resend-broken deletes it and sends the zip again (a new submission)"
                        % (entry.id, answer, problem))
        self.record(entry, submission=entry.id, stage="details broken", details_error="HTTP %s: %s" % (
            answer, problem))
        if not self.resend_broken or entry.resent:
            self.say("  %s: submission %s %s" % (entry.zip, entry.id, entry.broken.split(" (")[0].replace(
                "the site", "is final, but the site")))
            return True
        old = entry.id
        self.client.call("deleting submission %s" % old, "DELETE", "/api/submissions/%s/" % old, safe=False)
        entry.resent.append(old)
        entry.previous.append(old)
        entry.id, entry.broken, entry.status, entry.scores, entry.row = None, None, None, {}, None
        entry.message = entry.said = ""
        self.send(entry)
        what = "deleted (the site could not show its details) and sent again as submission %s" % entry.id
        self.say("  %s: submission %s %s" % (entry.zip, old, what))
        self.record(entry, submission=entry.id, stage=what, previous=entry.previous, resent=entry.resent)
        return False

    def wait(self, entry):
        """The site's record of the submission once final; None when waiting ended first (the bound, a stop)."""
        started, seen = self.clock(), None
        while True:
            try:
                found = read_submission(self.client, entry.id)
            except ApiError as exc:
                if exc.status is None or exc.status >= 500:
                    # the site down or failing a while (a restart): its answer is waited for, within the bound
                    if self.clock() - started > self.timeout:
                        entry.stuck = "the site has not answered for %d s: %s" % (self.timeout, exc.text)
                        entry.status = seen or "unknown"
                        return None
                    if self.pause():
                        return None
                    continue
                if exc.status != 404 or entry.origin == "new":
                    raise
                # deleted on the site since (by its organizer): the site no longer has the zip, so it is sent
                self.say("  %s: submission %s is no longer on the site: sending it again" % (entry.zip, entry.id))
                entry.previous.append(entry.id)
                entry.id = None
                self.send(entry)
                if entry.id is None:
                    return None
                continue
            status = seen = found.get("status")
            if status in DONE:
                entry.waited = int(round(self.clock() - started))
                return found
            late = self.clock() - started > self.timeout
            if late and self.rerun_stuck and status != "Submitted" and entry.rerun < 2:
                self.rescue(entry, status)
                started = self.clock()
            elif late:
                entry.status, entry.details = status, found.get("status_details") or ""
                entry.stuck = STUCK.get(str(status), "the site reports a status this command does not know")
                self.record(entry, submission=entry.id, stage="still %s after %d s" % (status, self.timeout))
                return None
            if self.pause():
                entry.status = status
                return None

    def run(self, order, in_flight):
        """Follow every entry of ``order``, ``in_flight`` at a time; True when interrupted (Ctrl-C, or stop)."""
        self.total = len(order)
        interrupted = False
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, in_flight))
        try:
            futures = [pool.submit(self.follow, entry) for entry in order]
            for future in futures:
                while True:
                    try:
                        future.result(timeout=1.0)
                        break
                    except concurrent.futures.TimeoutError:
                        continue
        except KeyboardInterrupt:
            interrupted = True
            self.stop.set()
            self.say("interrupted: nothing more is sent; the submissions made so far are in the ledger, and the same "
                     "command again waits for them without submitting them twice")
        finally:
            pool.shutdown(wait=True)
        return interrupted or self.stop.is_set()


def submit_many(client, paths, competition_id, phase_number, in_flight=IN_FLIGHT, ledger=None, timeout=None,
                again=False, organization=None, even_if_closed=False, progress=None, now=None, poll=POLL,
                sleep=time.sleep, clock=time.monotonic, stop=None, rerun_stuck=False, resend_pauses=RESEND_PAUSES,
                tracks=None, answers=None, no_fact_sheet=False, resend_broken=False):
    """Submit every zip of ``paths`` (at most ``in_flight`` not yet final on the site at once) and wait for each.
    Returns {"competition", "phase", "account", "ledger", "entries": [Entry], "interrupted": bool}. ``stop``: a
    threading.Event that ends the call early (the caller's Ctrl-C): nothing new is sent after it is set.
    ``rerun_stuck``: a submission not final after ``timeout`` is run again the organizer's way (Batch.rescue),
    twice at most, each time with a new ``timeout``. ``tracks``: in a phase of several tasks, the tasks to submit
    to (default: all); a zip is still known by its bytes, so the same zip for other tracks needs ``again``.
    ``answers``: the fact-sheet answers sent with every zip (checked against the competition's questions before
    anything is sent). Each final submission's details are read: where the site cannot show them (Batch.whole), it
    is said, and with ``resend_broken`` the submission is deleted and its zip sent again."""
    say = progress or (lambda text: None)
    competition, phase = open_phase(client, competition_id, phase_number, even_if_closed, now)
    sending = fact_sheet_answers(competition, answers, no_fact_sheet)
    account = (client.call("reading this account", "GET", "/api/my_profile/") or {}).get("username")
    if not account:
        raise SubmitError("the site did not say which account this token is (GET /api/my_profile/)")
    ledger = Ledger(ledger or default_ledger(client.server, competition_id, phase_number))
    timeout = default_timeout(phase) if timeout is None else timeout
    work = Batch(client, competition, phase, account, organization, ledger, timeout,
                 {"poll": poll, "sleep": sleep, "clock": clock, "rerun_stuck": rerun_stuck,
                  "resend_pauses": resend_pauses, "tracks": tracks, "answers": sending,
                  "resend_broken": resend_broken}, say,
                 stop or threading.Event())

    entries, first = [], {}
    for path in paths:
        entry = Entry(path, sha256_of(path))
        if entry.sha256 in first:
            entry.same_as = first[entry.sha256].zip
        else:
            first[entry.sha256] = entry
        entries.append(entry)
    unique = [e for e in entries if e.same_as is None]

    known = {} if again else ledger.load()
    for entry in unique:
        record = known.get((account, organization, entry.sha256)) or {}
        if record.get("submission") is not None:
            entry.id, entry.origin = record["submission"], "ledger"
    missing = dict((e.sha256[:NAME_DIGITS], e) for e in unique if e.id is None)
    if missing and not again:
        for prefix, record in _on_site(client, phase, account, set(missing), organization).items():
            entry = missing[prefix]
            entry.id, entry.origin = record.get("id"), "site"
            work.record(entry, submission=entry.id, stage="found on the site")
    resumed = [e for e in unique if e.id is not None]
    if len(resumed) < len(unique):
        # only when something is to be sent: waiting for what the site has needs no right to submit more
        may_submit(client, competition, phase, phase_number, say)
    say("%d zip(s) for phase %d (%s) of %s, as %s%s: %d already on the site, %d to submit; at most %d in flight; "
        "ledger %s" % (len(entries), phase_number, phase.get("name"), competition.get("title"), account,
                       " for team %s" % organization if organization is not None else "", len(resumed),
                       len(unique) - len(resumed), in_flight, ledger.path))
    # wait for what runs already before adding more
    interrupted = work.run(resumed + [e for e in unique if e.id is None], in_flight)
    for entry in entries:
        if entry.same_as is not None:
            twin = first[entry.sha256]
            for field in ("id", "status", "details", "scores", "row", "message", "said", "stuck", "error", "waited",
                          "tracks", "broken"):
                setattr(entry, field, getattr(twin, field))
            entry.origin = "same file"
    return {"competition": competition, "phase": phase, "account": account, "ledger": ledger.path,
            "entries": entries, "interrupted": interrupted, "timeout": timeout, "fact_sheet_answers": sending}


def _score_text(scores):
    return ", ".join("%s=%s" % (key, ("%.10f" % value).rstrip("0").rstrip(".")) for key, value in scores.items())


def format_table(result):
    """The final table: zip, submission id, status, the scores or the participant's message, and a summary."""
    rows = [("zip", "submission", "status", "scores, or the participant's message")]
    for entry in result["entries"]:
        status = entry.status or ("error" if entry.error else "not sent")
        if entry.stuck:
            status = "%s (not final)" % status
        if entry.origin in ("ledger", "site"):
            status += " [earlier]"
        if entry.broken:
            status += " [details broken]"
        if entry.resent:
            status += " [sent again: %s deleted]" % ", ".join(map(str, entry.resent))
        if entry.previous and entry.previous != entry.resent:
            status += " [re-run of %s]" % ", ".join(str(i) for i in entry.previous if i not in entry.resent)
        elif entry.rerun:
            status += " [run again]"
        elif entry.origin == "same file":
            status += " [= %s]" % entry.same_as
        if entry.error:
            what = entry.error
        elif entry.broken:
            what = "%s; %s" % (_score_text(entry.scores) or entry.message.replace("\n", " | ") or entry.status,
                               entry.broken)
        elif entry.stuck:
            what = entry.stuck
        elif entry.status == "Finished" and entry.message:  # a run of a task failed (its message)
            what = "%s; %s" % (", ".join("%s %s" % (run["task"], run["status"]) for run in entry.tracks or []),
                               entry.message.replace("\n", " | "))
        elif entry.status == "Finished":
            what = _score_text(entry.scores) or "no score stored"
        else:
            what = (entry.message or entry.details or "no message").replace("\n", " | ")
        rows.append((entry.zip, "-" if entry.id is None else str(entry.id), status, what))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3] for r in rows]
    lines.append(summary(result))
    return "\n".join(lines)


def summary(result):
    entries = [e for e in result["entries"] if e.same_as is None]
    count = dict((s, sum(1 for e in entries if e.status == s and not e.stuck)) for s in DONE)
    stuck = sum(1 for e in entries if e.stuck)
    errors = sum(1 for e in entries if e.error)
    waiting = sum(1 for e in entries if e.id is not None and e.status not in DONE and not e.stuck and not e.error)
    unsent = sum(1 for e in entries if e.id is None and not e.error)
    broken = sum(1 for e in entries if e.broken)
    resent = sum(len(e.resent) for e in entries)
    new = sum(1 for e in entries if e.origin == "new" and e.id is not None)
    parts = ["%d Finished" % count["Finished"], "%d Failed" % count["Failed"]]
    if count["Cancelled"]:
        parts.append("%d Cancelled" % count["Cancelled"])
    if stuck:
        parts.append("%d not final after %d s" % (stuck, result["timeout"]))
    if waiting:
        parts.append("%d still running when interrupted" % waiting)
    if errors:
        parts.append("%d with an error" % errors)
    if unsent:
        parts.append("%d not sent" % unsent)
    if broken:
        parts.append("%d whose details the site cannot show (--resend-broken)" % broken)
    if resent:
        parts.append("%d sent again, their details broken" % resent)
    text = "%d submission(s): %s; %d submitted now, %d found from an earlier call" % (
        len(entries), ", ".join(parts), new, sum(1 for e in entries if e.origin in ("ledger", "site")))
    if result["interrupted"] or stuck or unsent or waiting:
        text += "\nthe same command again waits for what is still running and submits only what the site lacks"
    return text


def all_finished(result):
    """Every submission Finished, and in a phase of several tasks each of its runs."""
    return all(e.status == "Finished" and not e.stuck and not e.error and not e.broken
               and all(run["status"] == "Finished" for run in e.tracks or []) for e in result["entries"])
