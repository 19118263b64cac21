"""The participants' systems table of the overview paper: each team's fact-sheet answers, beside the results table.

One row per row of the results table (each team's counted run, in rank order), holding the answers that came with
that run: a team's runs may each describe a different system (a primary and a contrastive run), and the table
describes the run that was ranked. A run that came with no answers is said so ("no fact sheet") rather than shown
as blank answers.

The questions are the competition's (the site's fact sheet, or the bundle's), in the bundle's order (the site gives
them in PostgreSQL's jsonb order, shorter keys first). An answer to a key no question has (a question removed since,
or a folder's fact_sheet.json) gets a column of its own, titled with its key. The participants' variant shows only
the questions the organizers show on the leaderboard (``on_leaderboard``), as the site's own pages do.
"""
from __future__ import annotations

import os
from typing import List, Optional

from ..platforms import fact_sheet
from . import tables

NAMES = ("systems.csv", "systems.md", "systems.tex", "systems.html")


def questions_of(bundle_sheet) -> List[fact_sheet.Question]:
    """The questions of a bundle's ``fact_sheet`` (Codabench's format), in its order."""
    return fact_sheet.from_codabench(bundle_sheet)


def on_site(questions: List[fact_sheet.Question], site_sheet) -> List[fact_sheet.Question]:
    """The site's questions (``site_sheet``: the competition's fact_sheet as the site gives it, which an organizer
    may have edited there since the bundle; None or {} when it has none), in the bundle's order (``questions``),
    then the site's."""
    theirs = dict((q.key, q) for q in fact_sheet.from_codabench(site_sheet))
    mine = [q.key for q in questions if q.key in theirs]
    return [theirs[key] for key in mine + [k for k in theirs if k not in mine]]


def _columns(questions, rows, participants):
    """The questions shown, plus a text column for each answered key no question has (organizers only)."""
    shown = [q for q in questions if q.on_leaderboard or not participants]
    if participants:
        return shown
    known = set(q.key for q in questions)
    extra = []
    for row in rows:
        for key in row.run.answers or {}:
            if key not in known and key not in extra:
                extra.append(key)
    return shown + [fact_sheet.Question(key, key, "text") for key in extra]


def table(results, participants: bool = False) -> Optional[tables.Table]:
    """The systems table, or None when there is nothing to show (no question, or none the participants may see)."""
    columns = _columns(results.questions, results.rows, participants)
    if not columns:
        return None
    header = ["#", "Team"] + ([] if participants else ["Run"]) + [q.label for q in columns]
    numeric = [True, False] + ([] if participants else [False]) + [False] * len(columns)
    keys = ["rank", "team"] + ([] if participants else ["run"]) + ["fact_sheet"] + [q.key for q in columns]
    lines, records = [], []
    missing, blank = 0, False
    for row in results.rows:
        answers = row.run.answers
        cells = [str(row.rank), row.team] + ([] if participants else [row.run.id])
        record = {"rank": row.rank, "team": row.team, "run": row.run.id, "fact_sheet": "yes" if answers else "no"}
        if not answers:
            missing += 1
            cells += [fact_sheet.NO_FACT_SHEET] + [""] * (len(columns) - 1)
        else:
            for question in columns:
                text = fact_sheet.shown(answers.get(question.key))
                cells.append(text if text != "" else "-")
                blank = blank or text == ""
                record[question.key] = text
        lines.append(cells)
        records.append(record)
    notes = ["Each team's answers to the fact sheet that came with its run in the results table."]
    if missing:
        notes.append("%s: the run came with no answers (%d of %d teams)." % (
            fact_sheet.NO_FACT_SHEET.capitalize(), missing, len(results.rows)))
    if blank:
        notes.append("'-': left unanswered.")
    return tables.Table("%s: systems" % results.title, header, lines, numeric, [None] * len(lines), notes, keys,
                        records)


def write(results, folder: str, participants: bool = False) -> List[str]:
    """systems.csv, .md, .tex and .html in ``folder``; the paths written, or a line saying why there are none."""
    shown = table(results, participants)
    if shown is None:
        return ["no systems table%s: %s" % (" for the participants" if participants else "",
                                            "no fact-sheet question is shown on the leaderboard" if participants
                                            and results.questions else "the competition has no fact sheet")]
    written = []
    for name, render in zip(NAMES, (tables.csv_text, tables.markdown_text, tables.latex_text, tables.html_text)):
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(render(shown))
        written.append(path)
    return written


def as_json(results) -> List[dict]:
    """The rows for --json: rank, team, run and its answers (None: no fact sheet)."""
    return [{"rank": row.rank, "team": row.team, "run": row.run.id, "answers": row.run.answers or None}
            for row in results.rows]
