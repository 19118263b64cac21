"""The report of a migration: every change, loss and manual step, what Codabench will store, and the checks of the
scoring programs; as text or as one JSON object."""

CHANGE, LOSS, MANUAL = "change", "loss", "manual"
KIND_TITLES = ((CHANGE, "Changes (the meaning is kept; written the way Codabench reads it)"),
               (LOSS, "Losses (no Codabench equivalent; the closest choice is written)"),
               (MANUAL, "Manual steps left"))


class Report(object):
    def __init__(self, source, target):
        self.source, self.target = str(source), str(target)
        self.items = []      # {kind, where, message}
        self.schedule = []   # {phase, name, start, end}: what Codabench stores from the new bundle
        self.tasks = []      # {index, name, phases}
        self.leaderboard = {}
        self.checks = []     # {where, status, scores, message}: replays of the programs under Codabench

    def add(self, kind, where, message):
        self.items.append({"kind": kind, "where": where, "message": message})

    def of(self, kind):
        return [item for item in self.items if item["kind"] == kind]

    def as_dict(self):
        return {"source": self.source, "output": self.target, "schedule": self.schedule, "tasks": self.tasks,
                "leaderboard": self.leaderboard, "changes": self.of(CHANGE), "losses": self.of(LOSS),
                "manual": self.of(MANUAL), "checks": self.checks}


def format_report(report):
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
    lines.append("Scoring program under the Codabench worker:")
    if not report.checks:
        lines.append("  (not replayed)")
    for check in report.checks:
        scores = ", ".join("%s=%.6g" % kv for kv in check["scores"].items())
        lines.append("  %s: %s%s%s" % (check["where"], check["status"], "; scores " + scores if scores else
                                       "; no score stored", "; " + check["message"] if check["message"] else ""))
    lines.append("")
    lines.append("Next: read the manual steps above, then 'build_bundle.py validate %s' and upload it to Codabench."
                 % report.target if report.of(MANUAL) else
                 "Nothing left to do by hand: upload %s to Codabench." % report.target)
    return "\n".join(lines)
