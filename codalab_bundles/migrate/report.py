"""The report of a migration: every change, loss, manual step and note, what Codabench will store, and the checks
of the scoring programs; as text or as one JSON object.

Manual steps are what the organizer must do before the competition works on Codabench; they decide the exit
status (1) and are listed by what breaks the most: the bundle is refused, then submissions cannot be scored, then
scores or data are missing, then content to fill in. Notes (a missing sample submission, admins to add, publishing)
are worth reading but block nothing.
"""

CHANGE, LOSS, MANUAL, NOTE = "change", "loss", "manual", "note"
KIND_TITLES = ((CHANGE, "Changes (the meaning is kept; written the way Codabench reads it)"),
               (LOSS, "Losses (no Codabench equivalent; the closest choice is written)"),
               (MANUAL, "Manual steps left (before the competition works on Codabench; what breaks most first)"),
               (NOTE, "Notes (worth a look; nothing here stops the competition)"))
# What a manual step breaks, most first: the order of the manual steps in the report.
REFUSED, UNSCORED, INCOMPLETE, CONTENT = "refused", "unscored", "incomplete", "content"
BREAKS = (REFUSED, UNSCORED, INCOMPLETE, CONTENT)


class Report(object):
    def __init__(self, source, target):
        self.source, self.target = str(source), str(target)
        self.items = []      # {kind, where, message[, breaks]}
        self.schedule = []   # {phase, name, start, end}: what Codabench stores from the new bundle
        self.tasks = []      # {index, name, phases}
        self.leaderboard = {}
        self.checks = []     # {where, status, scores, message}: replays of the programs under Codabench
        self.imports = None  # whether Codabench would import the new bundle (validate finds no error), once checked
        self.ran_with = None  # where the scoring program was replayed: this machine's python3, or a Docker image

    def add(self, kind, where, message, breaks=INCOMPLETE):
        item = {"kind": kind, "where": where, "message": message}
        if kind == MANUAL:
            item["breaks"] = breaks
        if item not in self.items:  # the same finding reached twice (e.g. one dataset key in two phases) once
            self.items.append(item)

    def of(self, kind):
        found = [item for item in self.items if item["kind"] == kind]
        if kind == MANUAL:
            found.sort(key=lambda item: BREAKS.index(item["breaks"]))  # stable: same rank keeps its order
        return found

    @property
    def exit_status(self):
        """0: ready to upload and score; 1: something the organizer must do first."""
        return 1 if self.of(MANUAL) else 0

    def as_dict(self):
        return {"source": self.source, "output": self.target, "schedule": self.schedule, "tasks": self.tasks,
                "leaderboard": self.leaderboard, "changes": self.of(CHANGE), "losses": self.of(LOSS),
                "manual": self.of(MANUAL), "notes": self.of(NOTE), "checks": self.checks, "imports": self.imports,
                "ran_with": self.ran_with,
                "exit_status": self.exit_status}


def format_report(report, command="python3 build_bundle.py"):
    lines = ["Migrated %s (CodaLab v1.5) -> %s (Codabench, version 2)" % (report.source, report.target),
             "", "Phases as Codabench stores them (UTC):"]
    for phase in report.schedule:
        lines.append("  %d. %s: %s to %s" % (phase["phase"], phase["name"], phase["start"],
                                             phase["end"] or "no end"))
    lines.append("Tasks: %s" % "; ".join("%s (%s)" % (t["name"], ", ".join(t["phases"])) for t in report.tasks))
    board = report.leaderboard
    if board:
        lines.append("Leaderboard %r: %s; ranked by %s (%s)" % (board["title"], ", ".join(board["columns"]),
                                                               board["ranked_by"], board["sorting"]))
    for kind, title in KIND_TITLES:
        items = report.of(kind)
        lines.append("")
        lines.append("%s: %s" % (title, len(items) if items else "none"))
        lines.extend("  - %s: %s" % (item["where"], item["message"]) for item in items)
    lines.append("")
    lines.append("Scoring program under the Codabench worker%s:" % (", run with %s" % report.ran_with
                                                                     if report.ran_with else ""))
    if not report.checks:
        lines.append("  (not replayed)")
    for check in report.checks:
        scores = ", ".join("%s=%.6g" % kv for kv in check["scores"].items())
        lines.append("  %s: %s%s%s" % (check["where"], check["status"], "; scores " + scores if scores else
                                       "; no score stored", "; " + check["message"] if check["message"] else ""))
    lines.append("")
    lines.append("Next: do the manual steps above, then '%s validate %s' and '%s publish %s --server URL'."
                 % (command, report.target, command, report.target) if report.of(MANUAL) else
                 "Nothing left to do by hand: '%s publish %s --server URL' puts it on Codabench."
                 % (command, report.target))
    return "\n".join(lines)


SUMMARY_FIELDS = ("bundle", "exit_status", "imports_before", "imports_after", "manual_steps", "losses", "output",
                  "problem")


def summary_rows(done, imported_before):
    """One row per migrated bundle (see migrate.migrate_many): what a platform admin moving many competitions
    scans first. ``imported_before``: {source: whether Codabench imports the old bundle as it is}."""
    rows = []
    for source, target, report, error in done:
        manual = report.of(MANUAL) if report else []
        rows.append({"bundle": source, "exit_status": 2 if report is None else report.exit_status,
                     "imports_before": _yes(imported_before.get(source)),
                     "imports_after": _yes(report.imports) if report else "-",
                     "manual_steps": len(manual), "losses": len(report.of(LOSS)) if report else 0,
                     "output": target if report else "-",
                     "problem": error or (manual[0]["where"] + ": " + manual[0]["message"] if manual else "")})
    return rows


def _yes(value):
    return "-" if value is None else "yes" if value else "no"


def format_summary(rows):
    widths = [max([len(field)] + [len(str(row[field])) for row in rows]) for field in SUMMARY_FIELDS[:-2]]
    lines = ["  ".join(f.ljust(w) for f, w in zip(SUMMARY_FIELDS[:-2], widths))]
    for row in rows:
        lines.append("  ".join(str(row[f]).ljust(w) for f, w in zip(SUMMARY_FIELDS[:-2], widths)))
    lines.append("%d bundle(s): %d ready to upload (0), %d with manual steps (1), %d not migrated (2)" % (
        len(rows), sum(r["exit_status"] == 0 for r in rows), sum(r["exit_status"] == 1 for r in rows),
        sum(r["exit_status"] == 2 for r in rows)))
    return "\n".join(lines)
