"""What Codabench's site makes of the scores a submission's runs post: the stored values, the computed columns, and
the order of the leaderboard's rows. Modelled on Codabench at the pinned commit c7dbc756 and checked on the local
Codabench (tests/test_tracks_live.py):

- a score is stored as a DecimalField(20, 10) (leaderboards/models.py SubmissionScore): Django makes the float a
  decimal of 20 significant digits, PostgreSQL rounds it to 10 places (``stored``);
- a computed column (``computation``: avg, sum, min, max; ``computation_indexes``: the columns it is computed of) is
  computed by ``Submission.calculate_scores`` from the stored values of those columns that the submission has, when
  it has at least one (an avg over the values present, not over all), and stored the same way (``computed``). In a
  phase with several tasks each task's run is a child submission whose scores are added to its parent: the parent
  gets the computed columns, the children never do;
- the leaderboard (api/serializers/leaderboards.py LeaderboardPhaseSerializer.get_submissions, shown by
  api/views/competitions.py get_leaderboard) lists the submissions without children on the leaderboard: in a phase
  with several tasks, the children, each with its own scores, Failed ones included. They are ordered by the primary
  column, then every other visible column by index, each in its sorting (PostgreSQL puts a missing value first in
  a descending order, last in an ascending one), then by creation time; a submission's row is where its first child
  comes (``row_order``). So the primary column orders a phase of one task; in a phase of several tasks the children
  of a track without the primary column come first, and the rows follow them (codabench#639, #1540).

``average_ranks`` is the avg_rank computation Codabench does not have at c7dbc756 (a later pull request,
codabench#2351, adds it): each column's fractional rank (tied values share the mean of their places; the better
value, by the column's sorting, ranks first), averaged over the columns; a row without one of the columns gets none.
"""
from __future__ import annotations

import decimal
import statistics
from typing import Dict, List, Optional, Sequence

DECIMAL_PLACES = 10
MAX_DIGITS = 20
COMPUTATIONS = {"avg": statistics.mean, "sum": sum, "min": min, "max": max}  # leaderboards.models.Column


def stored(value: float) -> decimal.Decimal:
    """The decimal Codabench stores for a score (a float from scores.json, or a computed decimal): Django 5.2's
    DecimalField makes it a decimal of 20 significant digits (half-even), and PostgreSQL's numeric(20, 10) rounds
    that to 10 places, half away from zero."""
    context = decimal.Context(prec=MAX_DIGITS)
    number = (context.create_decimal(value) if isinstance(value, decimal.Decimal)
              else context.create_decimal_from_float(float(value)))
    return number.quantize(decimal.Decimal(1).scaleb(-DECIMAL_PLACES), rounding=decimal.ROUND_HALF_UP)


def computed(computation: str, values: Sequence[float]) -> Optional[float]:
    """The value the site stores for a computed column of these (unstored) values; None when there are none."""
    if not values:
        return None
    return float(stored(COMPUTATIONS[computation]([stored(v) for v in values])))


def fill_computed(scores: Dict[str, float], columns) -> Dict[str, float]:
    """``scores`` with the site's computed columns added (``columns``: objects with ``key``, ``computation`` and
    ``fields``, the keys of the columns each is computed of); avg_rank is left to ``average_ranks``."""
    filled = dict(scores)
    for column in columns:
        if column.computation in COMPUTATIONS and column.fields:
            value = computed(column.computation, [scores[k] for k in column.fields if k in scores])
            if value is not None:
                filled[column.key] = value
    return filled


def _fractional_ranks(values: List[Optional[float]], sorting: str) -> List[Optional[float]]:
    present = sorted((v if sorting == "asc" else -v, i) for i, v in enumerate(values) if v is not None)
    ranks: List[Optional[float]] = [None] * len(values)
    start = 0
    while start < len(present):
        end = start
        while end + 1 < len(present) and present[end + 1][0] == present[start][0]:
            end += 1
        for _, i in present[start:end + 1]:
            ranks[i] = (start + end) / 2.0 + 1
        start = end + 1
    return ranks


def average_ranks(rows: List[Dict[str, float]], fields: Sequence[str],
                  sortings: Sequence[str]) -> List[Optional[float]]:
    """Per row (its scores), the mean of its fractional ranks among ``rows`` on each of ``fields`` (sorted as
    ``sortings`` say, values compared as the site stores them); None for a row without one of the fields."""
    per_field = [_fractional_ranks([float(stored(r[f])) if f in r else None for r in rows], s)
                 for f, s in zip(fields, sortings)]
    found = []
    for i in range(len(rows)):
        ranks = [column[i] for column in per_field]
        found.append(None if any(r is None for r in ranks) else sum(ranks) / len(ranks))
    return found


class Entry(object):
    """A submission without children that is on the leaderboard: ``row`` (its parent's id, or its own), ``owner``,
    ``created`` (anything that sorts as its creation time), ``scores`` ({column key: value})."""

    def __init__(self, row, owner, created, scores):
        self.row, self.owner, self.created, self.scores = row, owner, created, scores


def _entry_key(entry: Entry, columns):
    key = []
    for column_key, sorting in columns:
        value = entry.scores.get(column_key)
        if value is None:  # PostgreSQL: NULLS FIRST when descending, NULLS LAST when ascending
            key.append((0,) if sorting != "asc" else (2,))
        else:
            number = float(stored(value))
            key.append((1, -number if sorting != "asc" else number))
    return key + [entry.created]


def row_order(entries: List[Entry], columns: Sequence, primary: str) -> List:
    """The rows (``Entry.row``) in the order the leaderboard shows them. ``columns``: (key, sorting) of the visible
    columns in index order, and of the primary column (``primary``, its key) when it is hidden: the site orders by
    it all the same."""
    by_key = dict(columns)
    ordering = [(primary, by_key.get(primary, "desc"))] + [(k, s) for k, s in columns if k != primary]
    shown, seen = [], set()
    for entry in sorted(entries, key=lambda e: _entry_key(e, ordering)):
        mark = (entry.owner, entry.row)
        if mark not in seen:
            seen.add(mark)
            shown.append(entry.row)
    return shown
