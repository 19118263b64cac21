"""What a Codabench participant can read of what a bundle means to hide, as checked on a real Codabench at the pinned
commit c7dbc756 (tools/codabench_local; README, "Public and private test scores"): hidden columns, hidden
leaderboards and the phases' hide_* flags hide much less than their names say.

- A hidden column is left out of GET /api/phases/<id>/get_leaderboard/ (the leaderboard page) only. Its scores are
  stored, and GET /api/submissions/?phase=<id> gives every leaderboard submission with all its scores to anyone,
  without an account; so does GET /api/leaderboards/<id>/; the owner also reads them in /api/submissions/<id>/, in
  the scoring output (scores.txt) and in the scoring log.
- A hidden leaderboard is left out of the competition's listing and of /api/leaderboards/<id>/ only:
  get_leaderboard serves it to anyone, and so does /api/submissions/?phase=<id>.
- hide_output, hide_score_output and hide_prediction_output hide the log, the scoring output and the predictions in
  /api/submissions/<id>/get_details/, not the scores, not the detailed-results page
  (/api/submissions/<id>/get_detail_result/ ignores them), and any signed-in account can turn them off
  (PATCH /api/phases/<id>/ checks no permission).

So the only figure a participant cannot read is one the site never stored: the tool's shape computes the private
figures only in a phase after the deadline (private_scoring.txt in its reference), and a blind phase's program
writes no figure (scores_withheld.txt). This module reads those marks from the bundle's reference zips."""
from __future__ import annotations

import io
import zipfile

from .findings import Context

PRIVATE_IDS, PRIVATE_SCORING, SCORES_WITHHELD = "private_ids.txt", "private_scoring.txt", "scores_withheld.txt"
HIDE_FLAGS = ("hide_output", "hide_score_output", "hide_prediction_output")
ADD_RULES = ("Add", "Add_And_Delete", "Add_And_Delete_Multiple")

READABLE = ("anyone can read its scores, without an account: GET /api/submissions/?phase=<phase id> and "
            "GET /api/leaderboards/<id>/ give every leaderboard submission with all its scores, and the owner also "
            "reads them in /api/submissions/<id>/, the scoring output and the log")


def reference_marks(ctx: Context, name) -> set:
    """The scoring runtime's marks (private ids, private scoring, withheld) in a reference zip of the bundle."""
    if not isinstance(name, str) or name not in ctx.names:
        return set()
    try:
        inner = zipfile.ZipFile(io.BytesIO(ctx.read(name)))
    except (zipfile.BadZipFile, OSError, ValueError):
        return set()
    with inner:
        names = [n.rstrip("/") for n in inner.namelist()]
    tops = set(n.split("/")[0] for n in names)
    found = set(n.split("/")[-1] for n in names if n.count("/") == 0 or (len(tops) == 1 and n.count("/") == 1))
    return found & {PRIVATE_IDS, PRIVATE_SCORING, SCORES_WITHHELD}


def phase_marks(ctx: Context) -> list:
    """[(phase index, phase, marks of its tasks' references)] of a version 2 bundle."""
    tasks = dict((t.get("index"), t) for t in ctx.spec.get("tasks") or [] if isinstance(t, dict))
    found = []
    for i, phase in enumerate(p for p in ctx.spec.get("phases") or [] if isinstance(p, dict)):
        marks = set()
        for t in phase.get("tasks") or []:
            marks |= reference_marks(ctx, (tasks.get(t) or {}).get("reference_data"))
        found.append((i, phase, marks))
    return found


def expected_empty(ctx: Context, reference_data, columns, primary):
    """The columns a phase scored against ``reference_data`` leaves empty by design: all of them in a blind phase;
    all but the ranking score (and its private figure) where the gold has private items; the private columns
    elsewhere."""
    marks = reference_marks(ctx, reference_data)
    if SCORES_WITHHELD in marks:
        return set(columns)
    if PRIVATE_IDS in marks:
        kept = {primary} | ({"private_" + primary} if PRIVATE_SCORING in marks else set())
        return set(c for c in columns if c not in kept)
    return set(c for c in columns if c.startswith("private_"))


def v2_exposure(ctx: Context, platform: str) -> None:
    """Hidden columns, hidden leaderboards and hide_* flags of a version 2 bundle, against what leaks."""
    spec = ctx.spec
    boards = [b for b in spec.get("leaderboards") or [] if isinstance(b, dict)]
    phases = phase_marks(ctx)
    writing = [(i, p) for i, p, marks in phases if PRIVATE_SCORING in marks]
    for b, board in enumerate(boards):
        where = "leaderboards.%d" % b
        if board.get("hidden") is True:
            ctx.add("warning", platform, "exposure", where, "a hidden leaderboard is left out of the competition's "
                    "listing and of GET /api/leaderboards/<id>/ only: GET /api/phases/<id>/get_leaderboard/ (the "
                    "leaderboard page's source) still serves it to anyone, and GET /api/submissions/?phase=<phase id> "
                    "gives every leaderboard submission with all its scores to anyone, without an account",
                    "do not rely on it to keep figures from participants: compute them only when they may be seen "
                    "(task.yaml's private: with private_scores, or blind: true)")
        for c in board.get("columns") or []:
            if not isinstance(c, dict) or c.get("hidden") is not True:
                continue
            key = c.get("key")
            if isinstance(key, str) and key.startswith("private_") and writing and all(
                    p.get("auto_migrate_to_this_phase") is True for _, p in writing):
                ctx.add("note", platform, "exposure", "%s.columns.%s" % (where, key), "hidden until the reveal; "
                        "no phase computes it before phase%s %s (private_scores, after the deadline, re-scoring the "
                        "migrated submissions): from then on anyone can read it through the API, hidden or not"
                        % ("s" if len(writing) > 1 else "", ", ".join(str(i + 1) for i, _ in writing)))
                continue
            ctx.add("warning", platform, "exposure", "%s.columns.%s" % (where, key), "a hidden column is left out "
                    "of the leaderboard page only: " + READABLE, "compute that figure only when it may be seen: "
                    "task.yaml's private: with a phase's private_scores (bundles/README.md), or leave it out of "
                    "the scores")
    _private_in_names(ctx, platform)
    rule = (boards[0] if boards else {}).get("submission_rule", "Add")
    for i, phase, marks in phases:
        where = "phases.%d" % i
        flags = [f for f in HIDE_FLAGS if phase.get(f) is True]
        withheld = SCORES_WITHHELD in marks
        if flags and withheld:
            ctx.add("note", platform, "exposure", where, "blind phase: its program writes no figure; %s hide%s "
                    "the outputs from their owner, and any signed-in account can turn %s off (PATCH "
                    "/api/phases/<id>/ checks no permission)" % (", ".join(flags), "s" if len(flags) == 1 else "",
                                                                "it" if len(flags) == 1 else "them"))
        elif flags:  # a note: the flags do what Codabench says they do, and an organizer may want no more
            ctx.add("note", platform, "exposure", where, "%s hide%s the log, scoring output or predictions "
                    "from their owner, not the scores: " % (", ".join(flags), "s" if len(flags) == 1 else "") +
                    READABLE + "; the detailed-results page stays readable by anyone "
                    "(/api/submissions/<id>/get_detail_result/ ignores the flags), and any signed-in account can "
                    "turn the flags off (PATCH /api/phases/<id>/ checks no permission)",
                    "to keep the scores from participants during the phase, withhold them: task.yaml's blind: true")
        if withheld:
            following = phases[i + 1][1] if i + 1 < len(phases) else {}
            if following.get("auto_migrate_to_this_phase") is not True:
                ctx.add("warning", platform, "exposure", where, "blind phase: its submissions are never scored on "
                        "the site, since the next phase does not migrate them (auto_migrate_to_this_phase)",
                        "give the next phase auto_migration: true in task.yaml, or score them offline with "
                        "results")
            if rule == "Force_Best":
                ctx.add("warning", platform, "exposure", where, "blind phase with submission_rule Force_Best: it "
                        "stores no score, so the submission that reaches the leaderboard (and migrates) is not the "
                        "best", "use Force_Last")
        if phase.get("auto_migrate_to_this_phase") is True and i > 0 and rule in ADD_RULES:
            ctx.add("warning", platform, "exposure", where, "submissions migrated into this phase are scored but "
                    "not put on its leaderboard: with submission_rule %s each participant must add them" % rule,
                    "use Force_Last (or Force_Latest_Multiple) for a phase that re-scores migrated submissions")


def _private_in_names(ctx: Context, platform: str) -> None:
    """A file of the bundle whose name holds "private": Codabench (utils/data.py make_url_sassy) cuts a stored file's
    path at its private bucket's name, which is "private" in its default settings, so the compute worker is handed
    the URL of ".../private/<what follows the word>" and every run of the task fails ("Problem fetching ... to put in
    input/ref"; checked on the local Codabench with reference_test_private.zip)."""
    named = []
    for i, task in enumerate(t for t in ctx.spec.get("tasks") or [] if isinstance(t, dict)):
        for field in ("scoring_program", "reference_data", "input_data", "ingestion_program"):
            named.append(("tasks.%d.%s" % (i, field), task.get(field)))
    for i, phase in enumerate(p for p in ctx.spec.get("phases") or [] if isinstance(p, dict)):
        for field in ("public_data", "starting_kit"):
            named.append(("phases.%d.%s" % (i, field), phase.get(field)))
    for where, name in named:
        if isinstance(name, str) and "private" in name.rsplit("/", 1)[-1]:
            ctx.add("warning", platform, "storage-names", where, "%s: on a Codabench whose private bucket is named "
                    "'private' (its default settings), a stored file whose name holds that word gets a broken "
                    "storage URL, and every run of the task fails ('Problem fetching ...')" % name,
                    "rename the file without the word 'private'")
