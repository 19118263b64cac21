"""``publish --update ID``: what differs between a bundle and a live Codabench competition, and applying it.

A re-upload makes a new competition, so a live one is changed through the API the site's editor uses. The bundle
is read the way Codabench's v2 unpacker reads it (pages and terms as text, max_submissions as
max_submissions_per_person, dates as codabench_model stores them) and compared field by field with
GET /api/competitions/<id>/. Changes it can make safely are applied only when asked: phase names, descriptions,
dates and limits (PATCH /api/phases/<id>/), the title, description, terms, pages and fact sheet (PATCH
/api/competitions/<id>/, which the site's update view only takes with the competition's whitelist_emails; answers
already given stay as they were), and what is shown or hidden: a phase's hide_output, hide_score_output and
hide_prediction_output (PATCH /api/phases/<id>/), the leaderboard's and its columns' hidden flags (PATCH
/api/competitions/<id>/ with the leaderboard, every column by its id, and the phases as they are live, as the
site's editor sends them; checked on the local Codabench: the ids, the phases and the stored scores stay). What it
cannot make safely is refused with the reason: adding or removing phases or pages (their ids, submissions and
migrations hang on them), leaderboard columns once a submission exists (scores are stored per column, by key), and
scoring programs or data (Codabench keeps them as datasets of the tasks, not comparable by file here: re-publish
for those).
"""
import zipfile

import yaml

from ..platforms import codabench_model
from .publish import api_instant, show

PHASE_FIELDS = (("name", "name"), ("description", "description"),
                ("max_submissions_per_day", "max_submissions_per_day"),
                ("max_submissions", "max_submissions_per_person"), ("execution_time_limit", "execution_time_limit"))
# What a phase hides from its participants: safe to change at any time (the reveal of a blind phase).
HIDE_FIELDS = ("hide_output", "hide_prediction_output", "hide_score_output")


class Change(object):
    """One difference: ``where`` (e.g. 'phase 2 end'), the live and the bundle's value, and how it is applied
    (``apply``: (method, path, payload)) or why it cannot be (``refused``)."""

    def __init__(self, where, live, wanted, apply=None, refused=None):
        self.where, self.live, self.wanted, self.apply, self.refused = where, live, wanted, apply, refused

    def as_dict(self):
        return {"where": self.where, "live": _text(self.live), "bundle": _text(self.wanted),
                "applicable": self.refused is None, "refused": self.refused}


def _text(value):
    return show(value) if hasattr(value, "strftime") or value is None else value


def _read_text(archive, name):
    # Codabench opens pages in text mode (universal newlines), and its serializers trim the text (DRF's CharField)
    return archive.read(name).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n").strip()


def bundle_view(path):
    with zipfile.ZipFile(str(path)) as archive:
        spec = yaml.safe_load(archive.read("competition.yaml").decode("utf-8"))
        if str(spec.get("version")) != "2":
            raise ValueError("%s is not a Codabench (version 2) bundle: migrate it first" % path)
        stored = codabench_model.stored_phases(spec, "2")
        phases = []
        for phase in stored:
            source = phase.source
            view = {"start": phase.start.stored, "end": phase.end.stored}
            for key, live_key in PHASE_FIELDS:
                default = {"max_submissions_per_day": 5, "max_submissions": 100, "execution_time_limit": 600}.get(key)
                view[live_key] = source.get(key, default) if key not in ("name", "description") else \
                    (source.get(key) or "").strip()
            view.update((key, bool(source.get(key, False))) for key in HIDE_FIELDS)
            phases.append(view)
        board = (spec.get("leaderboards") or [{}])[0]
        names = dict((t.get("index"), t.get("name")) for t in spec.get("tasks") or [] if isinstance(t, dict))
        tracks = {"ranking": _ranking(board), "phase_tasks": [
            [names.get(i) for i in p.get("tasks") or []] for p in sorted(spec.get("phases") or [],
                                                                           key=lambda p: p.get("index", 0))]}
        return dict(tracks, **{"title": (spec.get("title") or "").strip(),
                               "description": (spec.get("description") or "").strip(),
                "terms": _read_text(archive, spec["terms"]),
                "pages": [(p.get("title"), _read_text(archive, p["file"])) for p in spec.get("pages") or []],
                "phases": phases,
                "columns": [(c.get("key"), c.get("title"), c.get("index"), c.get("sorting", "desc"),
                             c.get("precision", 2)) for c in board.get("columns") or []],
                "fact_sheet": spec.get("fact_sheet") or None, "hidden": _hidden(board)})


def _hidden(board):
    """(whether the leaderboard is hidden, [(column key, whether it is hidden)]): what the reveal changes."""
    return (bool(board.get("hidden", False)),
            [(c.get("key"), bool(c.get("hidden", False))) for c in board.get("columns") or [] if isinstance(c, dict)])


def _ranking(board):
    """The leaderboard's ranking column and computed columns, as text: 'primary st1_score; avg_score = avg of
    columns 0, 3'. ``computation_indexes`` are a list in a bundle and a list of texts from the API."""
    columns = [c for c in board.get("columns") or [] if isinstance(c, dict)]
    primary = next((c.get("key") for c in columns if c.get("index") == (board.get("primary_index") or 0)), None)
    computed = ["%s = %s of columns %s" % (c.get("key"), c.get("computation"), ", ".join(
        str(i) for i in c.get("computation_indexes") or [])) for c in columns if c.get("computation")]
    return "; ".join(["primary %s" % primary] + computed)


def live_view(competition):
    phases = []
    for phase in sorted(competition.get("phases") or [], key=lambda p: p.get("index", 0)):
        view = {"id": phase.get("id"), "start": api_instant(phase.get("start")),
                "end": api_instant(phase.get("end"))}
        for _, live_key in PHASE_FIELDS:
            view[live_key] = phase.get(live_key) if live_key not in ("name", "description") else \
                (phase.get(live_key) or "").strip()
        view.update((key, bool(phase.get(key, False))) for key in HIDE_FIELDS)
        phases.append(view)
    boards = competition.get("leaderboards") or [{}]
    columns = sorted((boards[0] or {}).get("columns") or [], key=lambda c: c.get("index", 0))
    pages = sorted(competition.get("pages") or [], key=lambda p: p.get("index", 0))
    return {"title": (competition.get("title") or "").strip(),
            "description": (competition.get("description") or "").strip(),
            "terms": (competition.get("terms") or "").strip(),
            "pages": [(p.get("title"), (p.get("content") or "").strip()) for p in pages],
            "page_ids": [p.get("id") for p in pages], "phases": phases,
            "columns": [(c.get("key"), c.get("title"), c.get("index"), c.get("sorting"), c.get("precision"))
                        for c in columns],
            "submissions": competition.get("submissions_count") or 0, "ranking": _ranking(boards[0] or {}),
            "fact_sheet": competition.get("fact_sheet") or None,
            "phase_tasks": [[t.get("name") for t in p.get("tasks") or [] if isinstance(t, dict)]
                            for p in sorted(competition.get("phases") or [], key=lambda p: p.get("index", 0))]
            if all("tasks" in p for p in competition.get("phases") or []) else None,  # None: the site says nothing
            "whitelist_emails": competition.get("whitelist_emails") or [],
            "hidden": _hidden(dict((boards[0] or {}), columns=columns)), "competition": competition}


def changes(bundle, live, competition_id):
    """[Change] from the live competition to the bundle."""
    found = []
    competition_patch = {}
    for field in ("title", "description", "terms"):
        if bundle[field] != live[field]:
            found.append(Change(field, *_differing(live[field], bundle[field]), apply=("competition", field)))
            competition_patch[field] = bundle[field]
    if len(bundle["pages"]) != len(live["pages"]):
        found.append(Change("pages", "%d pages" % len(live["pages"]), "%d pages" % len(bundle["pages"]),
                            refused="adding or removing pages is done in the site's editor"))
    elif bundle["pages"] != live["pages"]:
        for number, (want, got) in enumerate(zip(bundle["pages"], live["pages"]), 1):
            if want != got:
                shown = _differing(got[1], want[1]) if want[0] == got[0] else (got[0], want[0])
                found.append(Change("page %d (%s)" % (number, want[0]), *shown, apply=("competition", "pages")))
        competition_patch["pages"] = [{"id": page_id, "title": title, "content": content, "index": index}
                                      for index, (page_id, (title, content)) in
                                      enumerate(zip(live["page_ids"], bundle["pages"]))]
    if len(bundle["phases"]) != len(live["phases"]):
        found.append(Change("phases", "%d phases" % len(live["phases"]), "%d phases" % len(bundle["phases"]),
                            refused="adding or removing phases on a live competition moves its submissions and "
                                    "migrations: do it in the site's editor, or publish a new competition"))
    else:
        for number, (want, got) in enumerate(zip(bundle["phases"], live["phases"]), 1):
            fields = [f for f in ("name", "description", "start", "end", "max_submissions_per_day",
                                  "max_submissions_per_person", "execution_time_limit") + HIDE_FIELDS
                      if want[f] != got[f]]
            patch = dict((f, want[f].strftime("%Y-%m-%dT%H:%M:%SZ") if hasattr(want[f], "strftime") else want[f])
                         for f in fields)
            call = ("PATCH", "/api/phases/%s/" % got["id"], patch)  # one call per phase
            found.extend(Change("phase %d %s" % (number, f), got[f], want[f], call) for f in fields)
    if bundle["columns"] != live["columns"]:
        why = ("the competition has %d submission(s), whose scores are stored per column key: changing the columns "
               "would lose or misplace them" % live["submissions"]) if live["submissions"] else \
            "leaderboard columns are changed in the site's editor (or publish a new competition)"
        found.append(Change("leaderboard columns", ", ".join(c[0] for c in live["columns"]),
                            ", ".join(c[0] for c in bundle["columns"]), refused=why))
    elif bundle.get("hidden") != live.get("hidden") and bundle.get("hidden") and live.get("hidden"):
        # Shown or hidden is display only (the scores stay stored per column): safe with submissions. Made before
        # the phases' changes, since the call carries the phases as they are live.
        found[:0] = _hidden_changes(bundle["hidden"], live, competition_id)
    if bundle.get("fact_sheet") != live.get("fact_sheet"):
        # compared as mappings: the site keeps the questions in PostgreSQL's jsonb order, not the bundle's
        found.append(Change("fact_sheet", _questions(live.get("fact_sheet"), bundle.get("fact_sheet")),
                            _questions(bundle.get("fact_sheet"), live.get("fact_sheet")), apply=("competition",
                                                                                                 "fact_sheet")))
        competition_patch["fact_sheet"] = bundle.get("fact_sheet")
    if bundle["ranking"] != live["ranking"]:
        found.append(Change("leaderboard ranking", live["ranking"], bundle["ranking"],
                            refused="the primary and computed columns are changed in the site's editor (its "
                                    "Leaderboard tab), which recomputes nothing for the submissions already scored"))
    if live["phase_tasks"] is not None and bundle["phase_tasks"] != live["phase_tasks"] \
            and len(bundle["phases"]) == len(live["phases"]):
        found.append(Change("phases' tasks", "; ".join(", ".join(map(str, t)) for t in live["phase_tasks"]),
                            "; ".join(", ".join(map(str, t)) for t in bundle["phase_tasks"]),
                            refused="tasks (tracks) carry their programs and data: publish a new competition"))
    if competition_patch:
        competition_patch["whitelist_emails"] = live["whitelist_emails"]  # the site's update view requires it
        for change in found:
            if change.apply and change.apply[0] == "competition":
                change.apply = ("PATCH", "/api/competitions/%s/" % competition_id, competition_patch)
    return found


def _hidden_changes(wanted, live, competition_id):
    """[Change] showing or hiding the leaderboard and its columns, all made in one call: the competition's update,
    as the site's editor makes it (the first leaderboard with every column by id, so none is deleted, and the
    phases as they are live, which the view requires)."""
    competition = live["competition"]
    board = dict((competition.get("leaderboards") or [{}])[0])
    board["hidden"] = wanted[0]
    hide = dict(wanted[1])
    board["columns"] = [dict(c, hidden=hide.get(c.get("key"), c.get("hidden"))) for c in board.get("columns") or []]
    phases = []
    for phase in competition.get("phases") or []:
        phase = dict(phase)
        phase["tasks"] = [{"task": t.get("task"), "phase": t.get("phase"), "order_index": t.get("order_index")}
                          for t in phase.get("tasks") or []]
        phases.append(phase)
    call = ("PATCH", "/api/competitions/%s/" % competition_id,
            {"leaderboards": [board], "phases": phases, "whitelist_emails": live["whitelist_emails"]})
    found = []
    if wanted[0] != live["hidden"][0]:
        found.append(Change("leaderboard hidden", live["hidden"][0], wanted[0], call))
    was = dict(live["hidden"][1])
    found.extend(Change("column %s hidden" % key, was.get(key), hidden, call) for key, hidden in wanted[1]
                 if was.get(key) != hidden)
    return found


def _questions(sheet, other):
    """A fact sheet as a change shows it: the questions that differ from ``other``'s (each with its type, choices,
    whether it is required and on the leaderboard, and its title; "no question KEY" where ``other`` has one this
    sheet lacks), or 'no fact sheet'."""
    if not isinstance(sheet, dict) or not sheet:
        return "no fact sheet"
    other = other if isinstance(other, dict) else {}
    shown = []
    for key in list(sheet) + [k for k in other if k not in sheet]:
        question = sheet.get(key)
        if question == other.get(key):
            continue
        if key not in sheet:
            shown.append("no question %s" % key)
        elif not isinstance(question, dict):
            shown.append("%s: %r" % (key, question))
        else:
            choices = question.get("selection")
            listed = "/".join('""' if c == "" else str(c) for c in choices) if isinstance(choices, list) else ""
            shown.append("%s (%s%s%s%s: %s)" % (
                key, question.get("type"), " " + listed if question.get("type") == "select" and listed else "",
                ", required" if question.get("is_required") == "true" else "",
                ", on the leaderboard" if question.get("is_on_leaderboard") == "true" else "", question.get("title")))
    return "; ".join(shown)


SHORT = 60  # a text this long or shorter is shown whole
CONTEXT = 20  # characters shown either side of where two long texts differ
DIFFERING = 40  # characters of the differing part shown


def _differing(live, wanted):
    """How the two sides of a changed text are shown: whole when short; else the part where they differ, with some
    context, where it starts and the length (a long title changed near its end would otherwise show the same
    opening twice). Line ends are shown as \\n."""
    live, wanted = str(live), str(wanted)
    start = 0
    while start < min(len(live), len(wanted)) and live[start] == wanted[start]:
        start += 1
    same_end = 0  # characters equal at the end of both, not reaching into the start
    while same_end < min(len(live), len(wanted)) - start and live[-1 - same_end] == wanted[-1 - same_end]:
        same_end += 1
    return tuple(_excerpt(text, start, len(text) - same_end) for text in (live, wanted))


def _excerpt(text, start, end):
    """``text`` whole when short, else its characters [start, end) (where it differs) with context."""
    if len(text) <= SHORT:
        return text.replace("\n", "\\n")
    low = max(0, start - CONTEXT)
    if end - start > DIFFERING:
        high, tail = start + DIFFERING, "..."
    else:
        high = min(len(text), end + CONTEXT)
        tail = "..." if high < len(text) else ""
    shown = ("..." if low else "") + text[low:high] + tail
    return "%s (%d characters, differs from character %d)" % (shown.replace("\n", "\\n"), len(text), start + 1)


def apply(client, found):
    """Apply the applicable changes, each call once (several changes share a call); returns the calls made."""
    made = []
    for change in found:
        if change.refused or not change.apply or change.apply in made:
            continue
        method, path, payload = change.apply
        client.call("applying %s" % change.where, method, path, payload)
        made.append(change.apply)
    return made


def format_changes(competition_id, found, applied=None):
    if not found:
        return "competition %s already is the bundle: nothing to change" % competition_id
    lines = ["competition %s differs from the bundle:" % competition_id]
    for change in found:
        lines.append("  %s %s: live %s -> bundle %s%s" % ("!" if change.refused else "~", change.where,
                                                         _text(change.live), _text(change.wanted),
                                                         " (not applied: %s)" % change.refused if change.refused
                                                         else ""))
    refused = [c for c in found if c.refused]
    if applied is None:
        lines.append("nothing was changed: rerun with --apply to make the %d change(s) marked ~"
                     % (len(found) - len(refused)))
    else:
        lines.append("applied %d change(s) in %d call(s)%s" % (len(found) - len(refused), len(applied),
                                                              "; %d refused (marked !)" % len(refused) if refused
                                                              else ""))
    return "\n".join(lines)
