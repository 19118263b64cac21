"""From runs to the table's rows: per team, the run the leaderboard counts, ranked.

Which run counts is the leaderboard's submission rule (Codabench's Leaderboard.submission_rule): "best" (Force_Best:
the best score of the ranking column), "last" (Force_Last, Force_Latest_Multiple: the latest submission) or "chosen"
(Add, Add_And_Delete, Add_And_Delete_Multiple: the one the participant put on the leaderboard; a team that chose none
has no row). ``--by KEY`` makes a table of another column: each team's best run on that column, whatever the rule.

Ranks are standard competition ranks (1, 2, 2, 4): teams share a rank when their scores are equal to the 10
decimals Codabench stores, and only then.
"""
from __future__ import annotations

from typing import List, Optional

from .rescoring import STORED_DECIMALS
from .runs import Run

RULES = {"Force_Best": "best", "Force_Last": "last", "Force_Latest_Multiple": "last", "Add": "chosen",
         "Add_And_Delete": "chosen", "Add_And_Delete_Multiple": "chosen"}
RULE_WORDS = {"best": "each team's best run", "last": "each team's last run",
              "chosen": "the run each team put on the leaderboard"}


class Row(object):
    """A team's line: its counted run, its rank, and (filled later) its interval and cluster."""

    def __init__(self, team: str, run: Run, runs: List[Run]):
        self.team, self.run, self.runs = team, run, runs
        self.rank: Optional[int] = None
        self.interval = None  # {"low", "high", ...} from the program
        self.cluster: Optional[int] = None

    @property
    def scores(self):
        return self.run.scores


def rule_of(site_rule: Optional[str]) -> str:
    return RULES.get(site_rule or "", "best")


def _better(value: float, other: float, sorting: str) -> bool:
    return value < other if sorting == "asc" else value > other


def counted(runs: List[Run], rule: str, key: str, sorting: str) -> Optional[Run]:
    """The run of one team's ``runs`` that counts, or None (no scored run, or none chosen)."""
    scored = [r for r in runs if r.status == "Finished" and key in r.scores]
    if rule == "last":
        return max(scored, key=lambda r: r.order) if scored else None
    if rule == "chosen":
        scored = [r for r in scored if r.chosen]
    best = None
    for run in sorted(scored, key=lambda r: r.order):  # the earlier run wins a tie, as on the site
        if best is None or _better(round(run.scores[key], STORED_DECIMALS), round(best.scores[key], STORED_DECIMALS),
                                   sorting):
            best = run
    return best


def standings(runs: List[Run], key: str, sorting: str, rule: str, choose=None) -> List[Row]:
    """One Row per team with a counted run, best first (then by team name), ranked. ``choose``: (key, sorting) the
    rule picks the counted run by, when not the ranking's (a private leaderboard: the run the public figure chose,
    ranked by its private figure)."""
    teams = {}
    for run in runs:
        teams.setdefault(run.team, []).append(run)
    pick_key, pick_sorting = choose or (key, sorting)
    rows = [Row(team, chosen, sorted(team_runs, key=lambda r: r.order))
            for team, team_runs in teams.items()
            for chosen in [counted(team_runs, rule, pick_key, pick_sorting)] if chosen is not None and key in
            chosen.scores]
    return rerank(rows, key, sorting)


def rerank(rows: List[Row], key: str, sorting: str) -> List[Row]:
    """The rows sorted by ``key`` (best first, then by team name) and ranked: equal stored values share a rank
    (1, 2, 2, 4). Also for a column computed over the rows, as an average rank."""
    def order(row):
        value = round(row.scores[key], STORED_DECIMALS)
        return (value if sorting == "asc" else -value, row.team.lower(), row.team)

    rows = sorted(rows, key=order)
    previous = None
    for number, row in enumerate(rows, 1):
        value = round(row.scores[key], STORED_DECIMALS)
        if value != previous:
            rank, previous = number, value
        row.rank = rank
    return rows


def left_out(runs: List[Run], rows: List[Row]) -> List[str]:
    """Teams with runs but no row, each with why."""
    shown = set(row.team for row in rows)
    lines = []
    for team in sorted(set(r.team for r in runs) - shown):
        team_runs = [r for r in runs if r.team == team]
        finished = [r for r in team_runs if r.status == "Finished" and r.scores]
        why = ("none of its %d run(s) was put on the leaderboard" % len(team_runs) if finished
               else "none of its %d run(s) could be scored" % len(team_runs))
        lines.append("%s: %s" % (team, why))
    return lines
