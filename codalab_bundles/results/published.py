"""An organizers' published table to check the computed one against (``results --published FILE[:N]``).

The file is a CSV; tables in it are separated by empty rows and ``:N`` picks the N-th (default the first), as in
eHealth-KD 2019's "Final Results.csv" (one table per scenario). A table's first row is its header: the rank is the
column named "#" or "rank", else the first; the team the column named "team", else the second.
"""
from __future__ import annotations

import csv
import re
from typing import Dict, List


class PublishedError(Exception):
    pass


def read(spec: str) -> Dict[str, int]:
    """{team: published rank} of the table ``spec`` names (``FILE`` or ``FILE:N``)."""
    match = re.match(r"^(.*):(\d+)$", spec)
    path, number = (match.group(1), int(match.group(2))) if match else (spec, 1)
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise PublishedError("--published %s: cannot be read (%s)" % (path, exc))
    blocks: List[List[List[str]]] = [[]]
    for row in rows:
        if not any(cell.strip() for cell in row):
            if blocks[-1]:
                blocks.append([])
            continue
        blocks[-1].append([cell.strip() for cell in row])
    blocks = [b for b in blocks if b]
    if not 1 <= number <= len(blocks):
        raise PublishedError("--published %s: it holds %d table(s), not a table %d" % (path, len(blocks), number))
    header, *body = blocks[number - 1]
    names = [h.lower() for h in header]
    rank_at = next((i for i, h in enumerate(names) if h in ("#", "rank")), 0)
    team_at = names.index("team") if "team" in names else 1
    found = {}
    for line, row in enumerate(body, 2):
        try:
            found[row[team_at]] = int(row[rank_at])
        except (IndexError, ValueError):
            raise PublishedError("--published %s: table %d, row %d: no rank and team there" % (path, number, line))
    return found


def differences(published: Dict[str, int], rows) -> List[str]:
    """Sentences for each team whose published rank is not the one computed, or that is on one side only."""
    lines = []
    computed: Dict[str, int] = {row.team: row.rank for row in rows}
    for row in rows:
        if row.team not in published:
            lines.append("%s: not in the published table" % row.team)
        elif published[row.team] != row.rank:
            sharing = sorted(t for t, r in published.items() if r == published[row.team] and t != row.team)
            lines.append("%s: published rank %d, computed rank %d; the scores do not give rank %d%s" % (
                row.team, published[row.team], row.rank, published[row.team],
                " (shared there with %s, whose scores differ from its own)" % ", ".join(sharing) if sharing
                else ""))
    for team in sorted(set(published) - set(computed)):
        lines.append("%s: in the published table (rank %d) but has no row here" % (team, published[team]))
    return lines
