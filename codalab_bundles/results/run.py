"""``results``: runs → local scores (and the audit against the site) → each team's counted run, ranked → intervals,
corrected pairwise tests and clusters → the table for the paper (CSV, Markdown, LaTeX, HTML, a figure), for the
organizers and, without what only they may see, for the participants.

What only organizers see: which submission counted and how many runs each team made, the site audit, teams left
out and why, and the leaderboard's hidden columns. The participants' variant (``participants/``) has none of these.
"""
from __future__ import annotations

import io
import os
import re
import tempfile
import zipfile
from typing import List, Optional

from .. import replay
from ..offline import rescore
from . import figure, rescoring, significance, standings, systems, tables
from .runs import Run

OUTPUTS = ("results.csv", "results.md", "results.tex", "results.html", "results.png", "results.svg", "pairs.csv",
           "runs.csv")


class ResultsError(Exception):
    pass


def hidden_keys(bundle) -> set:
    if bundle.version != "2":
        return set()
    board = (bundle.spec.get("leaderboards") or [{}])[0] or {}
    return set(str(c.get("key")) for c in board.get("columns") or [] if isinstance(c, dict) and c.get("hidden"))


def private_phase(bundle, number: int) -> int:
    """The number of the bundle's phase that writes the private figures of phase ``number``'s split: its reference
    is the split's reference_<split>_full.zip (authoring/private_items.py), holding private_scoring.txt."""
    own = bundle.phase(number).reference_data or ""
    split = re.sub(r"^reference_|(_withheld|_full)?\.zip$", "", own)
    wanted = "reference_%s_full.zip" % split
    for phase in bundle.phases:
        if phase.reference_data == wanted:
            with zipfile.ZipFile(bundle.path) as archive, \
                    zipfile.ZipFile(io.BytesIO(archive.read(wanted))) as reference:
                if "private_scoring.txt" in reference.namelist():
                    return phase.number
    raise ResultsError("--private: no phase of %s writes the private figures of phase %d's gold (task.yaml's "
                       "private: and a phase's private_scores)" % (bundle.path, number))


class Results(object):
    """Everything a table is made from."""

    def __init__(self, title, columns, key_column, ranking, rows, rule, rule_source, analysis, audit, left_out,
                 skipped, notes, runs, hidden):
        self.title, self.columns, self.key_column, self.ranking = title, columns, key_column, ranking
        self.rows, self.rule, self.rule_source, self.analysis = rows, rule, rule_source, analysis
        self.audit, self.left_out, self.skipped, self.notes = audit, left_out, skipped, notes
        self.runs, self.hidden = runs, hidden
        self.published: List[str] = []  # where an organizers' published table ranks otherwise (published.py)
        self.questions: list = []  # the fact sheet's questions, for the systems table (systems.py)


def compute(bundle_path: str, runs: List[Run], phase: Optional[int] = None, rule: Optional[str] = None,
            site_rule: Optional[str] = None, by: Optional[str] = None, shown: Optional[List[str]] = None,
            settings: Optional[significance.Settings] = None, jobs: int = 1, progress_stream=None,
            title: Optional[str] = None, skipped: Optional[List[str]] = None,
            significance_teams: Optional[int] = None, avg_ranks=(), site_order: Optional[List[str]] = None,
            private: bool = False) -> Results:
    """Score ``runs`` with the bundle's phase and make the table. ``rule``: best, last or chosen (default: the
    site's ``site_rule``, else best); ``by``: a column key to rank by instead of the leaderboard's; ``shown``: the
    column keys to show (default all); ``settings``: None for no intervals and clusters; ``significance_teams``:
    intervals and clusters for the first N rows only (their pairs grow as N squared). ``avg_ranks``: KEY=COL,COL
    texts, average-rank columns computed over the table's rows (each team's counted run, chosen by the
    leaderboard's ranking column); ``site_order``: the teams in the order the site's leaderboard shows them (a note
    says where the table's order differs); ``private``: score the runs as the bundle's phase that writes the
    private figures of the phase's split, and rank them by the private figure (the runs counted as the rule counts
    them on the public figure)."""
    bundle = replay.Bundle(bundle_path)
    number = scored_as = bundle.phase(phase).number
    columns, ranking = rescore.leaderboard(bundle)
    columns = columns + rescore.avg_rank_columns(avg_ranks, columns)
    if private:
        scored_as = private_phase(bundle, number)
        by = by or "private_" + ranking.key
    every_column = columns  # scored and audited whatever --columns shows
    by_key = {c.key: c for c in columns}
    key_column = ranking
    if by is not None:
        if by not in by_key:
            raise ResultsError("--by %s: the leaderboard has no such column (its keys: %s)"
                               % (by, ", ".join(by_key)))
        key_column = by_key[by]
    if shown:
        unknown = [k for k in shown if k not in by_key]
        if unknown:
            raise ResultsError("--columns: no such leaderboard column: %s (its keys: %s)"
                               % (", ".join(unknown), ", ".join(by_key)))
        columns = [by_key[k] for k in shown]
    if rule is None:
        rule, rule_source = standings.rule_of(site_rule), ("the leaderboard's rule %s" % site_rule if site_rule
                                                           else "the default for runs from a folder")
    else:
        rule_source = "asked for"
    by_rank = key_column.computation == rescore.AVG_RANK
    if by is not None and by != ranking.key and not by_rank and not private:
        rule, rule_source = "best", "a table by %s: each team's best run on it" % by
    rescoring.score_runs(bundle.path, scored_as, runs, every_column, jobs, progress_stream)
    rows = standings.standings(runs, ranking.key if by_rank else key_column.key,
                               ranking.sorting if by_rank else key_column.sorting, rule,
                               (ranking.key, ranking.sorting) if private else None)
    rescore.fill_average_ranks([row.scores for row in rows], every_column, every_column)
    if by_rank:
        rows = standings.rerank([row for row in rows if key_column.key in row.scores], key_column.key,
                                key_column.sorting)
    notes: List[str] = []
    if site_order is not None:
        notes += site_order_notes(site_order, rows, key_column)
    analysis = None
    tested = rows[:significance_teams] if significance_teams else rows
    if settings is not None and key_column.computation and len(tested) > 1:
        notes.append("No intervals or clusters: %s is computed from other columns (%s), and the program resamples "
                     "its own scores only." % (key_column.key, ", ".join(key_column.fields)))
    elif settings is not None and len(tested) > 1:
        with tempfile.TemporaryDirectory(prefix="results-") as workdir:
            try:
                analysis = significance.analyse(bundle.path, scored_as, tested, key_column.key, settings, workdir,
                                                jobs)
            except (significance.SignificanceError, rescore.RescoreError) as exc:
                notes.append("No intervals or clusters: %s." % str(exc).rstrip("."))
    if analysis is not None:
        for row, interval, cluster in zip(tested, analysis.intervals, analysis.clusters):
            row.interval, row.cluster = interval, cluster
        if len(tested) < len(rows):
            notes.append("Intervals and clusters for the first %d teams only." % len(tested))
    audit = rescoring.audit(runs, every_column, only_stored=scored_as != number)
    if private:
        notes.append("Scored as phase %d scores them (with the private items' figures); counted by the rule on %s, "
                     "ranked by %s." % (scored_as, ranking.key, key_column.key))
    found = Results(title or bundle.spec.get("title") or os.path.basename(bundle_path), columns, key_column, ranking,
                    rows, rule, rule_source, analysis, audit, standings.left_out(runs, rows), list(skipped or []),
                    notes, runs, hidden_keys(bundle))
    found.questions = systems.questions_of(bundle.spec.get("fact_sheet") if bundle.version == "2" else None)
    return found


def site_order_notes(site_order: List[str], rows, key_column) -> List[str]:
    """A sentence when the site's leaderboard shows the table's teams in another order: in a phase of several tasks
    (tracks), Codabench orders the rows by its tasks' runs, not by the ranking column
    (platforms/codabench_leaderboard.py)."""
    ours = [row.team for row in rows]
    shown = [team for team in site_order if team in ours]
    shown += [team for team in ours if team not in shown]
    if shown == ours:
        return []
    return ["The site's leaderboard shows these teams in another order: %s. Codabench (c7dbc756) orders a phase of "
            "several tasks by each task's run, a run without %s first, not by %s; this table ranks by it." % (
                ", ".join(shown), key_column.key, key_column.key)]


def _number(value, precision):
    return "%.*f" % (precision, value)


def method_notes(results: Results) -> List[str]:
    key = results.key_column
    notes = ["Ranked by %s (%s; %s is better), %s (%s). Teams share a rank only when their scores are equal to 10 "
             "decimals; ranks are 1, 2, 2, 4." % (key.title, key.key, "lower" if key.sorting == "asc" else "higher",
                                                    standings.RULE_WORDS[results.rule], results.rule_source)]
    analysis = results.analysis
    if analysis is not None and analysis.intervals:
        first = analysis.intervals[0]
        notes.append("Intervals: %g%% percentile bootstrap over the %d gold %ss, %d resamples, seed %d." % (
            100 * first["level"], first["items"], first["unit"], first["samples"], first["seed"]))
        notes.append("Clusters: from the top, a team joins the cluster above it unless it differs significantly from "
                     "a team in it: paired approximate randomization on the gold's %ss (two-sided, %d rounds, seed "
                     "%d), Holm-corrected over all %d pairs of teams, alpha %g." % (
                         first["unit"], analysis.rounds, analysis.settings.seed, len(analysis.pairs),
                         round(analysis.settings.alpha, 6)))
        notes.append(tables.SIGNATURE + analysis.signature_text)
    return notes + results.notes


def table(results: Results, participants: bool = False) -> tables.Table:
    columns = [c for c in results.columns if not (participants and c.key in results.hidden)]
    analysis = results.analysis
    header = ["#", "Team"] + ([] if participants else ["Run", "Runs"]) + [c.title for c in columns]
    numeric = [True, False] + ([] if participants else [False, True]) + [True] * len(columns)
    keys = ["rank", "team"] + ([] if participants else ["run", "runs"]) + [c.key for c in columns]
    if analysis is not None:
        header += ["%g%% interval" % (100 * analysis.intervals[0]["level"]), "Cluster"]
        numeric += [True, True]
        keys += ["interval_low", "interval_high", "cluster"]
    lines, records, clusters = [], [], []
    precision = results.key_column.precision
    for row in results.rows:
        cells = [str(row.rank), row.team] + ([] if participants else [row.run.id, str(len(row.runs))])
        record = {"rank": row.rank, "team": row.team, "run": row.run.id, "runs": len(row.runs)}
        for column in columns:
            value = row.scores.get(column.key)
            cells.append("-" if value is None else _number(value, column.precision))
            record[column.key] = value
        if analysis is not None and row.interval is not None:
            cells += ["[%s, %s]" % (_number(row.interval["low"], precision), _number(row.interval["high"], precision)),
                      str(row.cluster)]
            record.update(interval_low=row.interval["low"], interval_high=row.interval["high"], cluster=row.cluster)
        elif analysis is not None:
            cells += ["-", "-"]
        lines.append(cells)
        records.append(record)
        clusters.append(row.cluster)
    notes = method_notes(results)
    if not participants:
        notes += ["Not in the table: %s." % "; ".join(results.left_out)] if results.left_out else []
        notes += ["Not read: %s." % "; ".join(results.skipped)] if results.skipped else []
        if results.published:
            notes.append("Against the published table: %s." % "; ".join(results.published))
        if any(run.stored is not None for run in results.runs):
            notes.append("Audit of the site's stored scores: %s." % (
                "every run's scores equal the local ones to 10 decimals" if not results.audit else
                "%d difference(s): %s" % (len(results.audit), "; ".join(results.audit))))
    return tables.Table(results.title, header, lines, numeric, clusters, notes, keys, records)


def runs_table(results: Results) -> tables.Table:
    """Every run (organizers only), in team order then submission order."""
    keys = ["team", "run", "submitter", "order", "status", "counted", "on_leaderboard", "error"]
    keys += [c.key for c in results.columns] + ["stored_" + c.key for c in results.columns]
    counted = set(id(row.run) for row in results.rows)
    records = []
    for run in sorted(results.runs, key=lambda r: (r.team.lower(), r.team, r.order)):
        record = {"team": run.team, "run": run.id, "submitter": run.submitter or "", "order": run.order + 1,
                  "status": run.status, "counted": "yes" if id(run) in counted else "no",
                  "on_leaderboard": "" if run.chosen is None else ("yes" if run.chosen else "no"), "error": run.error}
        for column in results.columns:
            record[column.key] = run.scores.get(column.key)
            record["stored_" + column.key] = (run.stored or {}).get(column.key)
        records.append(record)
    return tables.Table(results.title, [], [], [], [], [], keys, records)


def pairs_table(results: Results) -> tables.Table:
    """Every pair of teams (A ranked above B): delta = A - B, the randomization p-value, Holm's, and the verdict."""
    keys = ["team_a", "team_b", "delta", "p", "p_holm", "significant"]
    records = []
    if results.analysis is not None:
        for (i, j), pair in sorted(results.analysis.pairs.items()):
            records.append({"team_a": results.rows[i].team, "team_b": results.rows[j].team, "delta": pair["delta"],
                            "p": pair["p"], "p_holm": pair["p_holm"], "significant": "yes" if pair["rejected"]
                            else "no"})
    return tables.Table(results.title, [], [], [], [], [], keys, records)


def write(results: Results, folder: str) -> List[str]:
    """The organizers' files in ``folder`` and the participants' in ``folder``/participants; returns the paths
    written (a line saying why, instead of the figure's paths, when it cannot be drawn)."""
    written = []
    for variant, target in ((False, folder), (True, os.path.join(folder, "participants"))):
        os.makedirs(target, exist_ok=True)
        shown = table(results, participants=variant)
        for name, render in (("results.csv", tables.csv_text), ("results.md", tables.markdown_text),
                             ("results.tex", tables.latex_text), ("results.html", tables.html_text)):
            path = os.path.join(target, name)
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(render(shown))
            written.append(path)
        if results.analysis is not None:
            path = os.path.join(target, "pairs.csv")
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(tables.csv_text(pairs_table(results)))
            written.append(path)
        try:
            written += figure.draw(os.path.join(target, "results"), results.title, results.key_column.title,
                                   [row.team for row in results.rows],
                                   [row.scores[results.key_column.key] for row in results.rows],
                                   [(row.interval["low"], row.interval["high"]) if row.interval else None
                                    for row in results.rows], [row.cluster for row in results.rows])
        except figure.FigureError as exc:
            written.append(str(exc))
        written += systems.write(results, target, participants=variant)
    path = os.path.join(folder, "runs.csv")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(tables.csv_text(runs_table(results)))
    written.append(path)
    return written


def summary(results: Results) -> str:
    """The table as text for the terminal (organizer's view)."""
    shown = table(results)
    widths = [max(len(h), *(len(line[i]) for line in shown.lines)) if shown.lines else len(h)
              for i, h in enumerate(shown.header)]
    out = ["  ".join(h.ljust(w) for h, w in zip(shown.header, widths))]
    out += ["  ".join((c.rjust(w) if right else c.ljust(w)) for c, w, right in zip(line, widths, shown.numeric))
            for line in shown.lines]
    return "\n".join(out + [""] + shown.notes)
