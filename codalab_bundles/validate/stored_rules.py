"""What Codabench stores from a bundle of either version (codabench_model reads it as Codabench's import does):
every phase's start and end after its date conversion, phases nobody can submit to, limits of 0 (no limit there),
the column that orders the leaderboard and the pages it shows."""
from __future__ import annotations

import datetime

from ..platforms import codabench_model
from .findings import Context
from .v15_rules import v1_columns


def _when(value):
    return codabench_model.format_instant(value)


def codabench_stored(ctx: Context, platform: str) -> None:
    """A note of the dates Codabench stores for each phase, warnings where they differ from what was written,
    errors for phases nobody can submit to; then the ordering column and the pages."""
    try:
        phases = codabench_model.stored_phases(ctx.spec, ctx.version)
    except codabench_model.ImportRefused as exc:
        migration = "auto migrate" in str(exc)
        ctx.add("error", platform, "phases", "phases", "Codabench refuses the bundle: %s" % exc,
                "remove %s from the first phase: no phase comes before it to migrate submissions from" % (
                    "auto_migrate_to_this_phase" if ctx.version == "2" else "auto_migration") if migration else
                "give every phase a start and, when another phase follows, an end before that phase's start")
        return
    for phase in phases:
        gap = " (one day before the next phase starts: no submissions in between)" \
            if codabench_model.DAY_BEFORE in phase.end.changes else ""
        ctx.add("note", platform, "stored-dates", phase.where, "Codabench stores phase %d (%s): %s to %s%s"
                % (phase.index + 1, phase.name, _when(phase.start.stored), _when(phase.end.stored), gap))
        for field, date in (("start", phase.start), ("end", phase.end)):
            written = date.written
            for change in date.changes:
                if change == codabench_model.DAY_BEFORE:
                    continue
                elif change.startswith("read by dateutil"):
                    ctx.add("note", platform, "stored-dates", phase.where, "%r is %s (month first when ambiguous)"
                            % (written, change))
                else:
                    ctx.add("warning", platform, "stored-dates", phase.where, "%s %s: %s, so Codabench stores %s"
                            % (field, written, change, _when(date.stored)),
                            'quote the date in UTC with its time: "%s"' % (
                                written.strftime("%Y-%m-%d %H:%M:%S") if isinstance(written, datetime.datetime)
                                else "YYYY-MM-DD HH:MM:SS"))
        migrated_to = phase.source.get("auto_migrate_to_this_phase" if ctx.version == "2" else "auto_migration")
        if phase.never_opens and migrated_to and phase.index > 0:
            ctx.add("note", platform, "stored-dates", phase.where, "phase %d (%s) ends when it starts: it takes no "
                    "submission of its own, and shows the submissions auto-migration brings from the phase before"
                    % (phase.index + 1, phase.name))
        elif phase.never_opens:
            ctx.add("error", platform, "stored-dates", phase.where, "phase %d (%s) ends (%s) before or when it "
                    "starts (%s): Codabench accepts it, but nobody can ever submit to it" % (
                        phase.index + 1, phase.name, _when(phase.end.stored), _when(phase.start.stored)),
                    "end it after its start" if ctx.version == "2" else
                    "start the next phase at least one day after this one", accepted=True)
        else:
            _closed_phase(ctx, platform, phase.where, phase.source, "max_submissions", "max_submissions_per_day")
    _ordering_column(ctx, platform)
    _pages(ctx, platform)


def _pages(ctx: Context, platform: str) -> None:
    """The tabs Codabench makes: v1 html keys become page titles as written, in order; terms is its own page."""
    if ctx.version == "2":
        titles = [str(p.get("title")) for p in ctx.spec.get("pages") or [] if isinstance(p, dict)]
    else:
        html = ctx.spec.get("html")
        titles = [str(k) for k in html if k != "terms"] if isinstance(html, dict) else []
    if titles:
        ctx.add("note", platform, "pages", "pages" if ctx.version == "2" else "html", "Codabench shows the pages %s"
                " (in this order) and the terms" % ", ".join(repr(t) for t in titles))


def _ordering_column(ctx: Context, platform: str) -> None:
    """Codabench orders a leaderboard by the column whose index is primary_index (0 unless set)."""
    if ctx.version == "2":
        boards = [b for b in ctx.spec.get("leaderboards") or [] if isinstance(b, dict)]
        if not boards:
            return
        primary = boards[0].get("primary_index", 0)
        keys = [c.get("key") for c in boards[0].get("columns") or [] if isinstance(c, dict)
                and c.get("index") == primary]
        if keys:
            ctx.add("note", platform, "leaderboard", "leaderboards.0", "Codabench ranks the leaderboard by %s"
                    % keys[0])
        else:
            ctx.add("warning", platform, "leaderboard", "leaderboards.0", "no column has index %s (the "
                    "leaderboard's primary_index): the leaderboard is ordered by no column" % primary,
                    "give the ranking column index 0")
    else:
        columns = v1_columns(ctx)
        if columns:
            first = min(columns, key=lambda kc: kc[1].get("rank", 1) if isinstance(kc[1].get("rank", 1), int) else 1)
            ctx.add("note", platform, "leaderboard", "leaderboard.columns.%s" % first[0], "Codabench ranks the "
                    "leaderboard by this column (the lowest rank)")


def _closed_phase(ctx, platform, where, phase, *fields):
    """A limit of 0 refused every submission on CodaLab; Codabench skips a falsy limit, so it means no limit
    (Phase.can_user_make_submissions: 'if self.max_submissions_per_day:')."""
    zero = [f for f in fields if phase.get(f) == 0 and not isinstance(phase.get(f), bool)]
    if zero:
        ctx.add("warning", platform, "limits", where, "%s: 0 means no limit at all on Codabench (on CodaLab it "
                "refused every submission)" % " and ".join(zero), "to close the phase, leave no phase open in that "
                "interval (or end it when it starts); otherwise give the real limit")
