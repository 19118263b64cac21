"""What CodaLab Competitions made of a bundle's leaderboard: the order it created columns in, the column it ranked
a table by, and which of its eras read the file in which order.

Read from codalab-competitions (apps/web/models.py): ``CompetitionDefBundle.unpack`` creates one score set per
column group, in the order it iterates ``leaderboard.column_groups``, then one score definition and score set per
plain column, in the order it iterates ``leaderboard.columns``, then the computed columns in that order; a column
in a group is a child of the group's set, any other column a new tree (MPTT, no ``order_insertion_by``: trees and
children in creation order). A column without ``rank`` gets its position in that iteration as its ordering.
``CompetitionPhase.scores`` walks a table's score sets by (tree_id, lft) and selects the first one with the highest
``selection_default`` (0 when absent): without any, the first column created, so a column in the first group comes
before every column outside groups, a computed one included.

The iteration order is the era's (see python27_order): plain dicts on Python 2.7 until commit 3c3cc0f0a (1 October
2014, merged into master within that month), the file's order (``OrderedDict``, later Python 3) from then on. A
bundle's own dates are the best clue to its era: a competition whose phases start before October 2014 was most
likely uploaded then.
"""
from __future__ import annotations

import datetime

from .python27_order import python27_key_order

FILE, PYTHON27 = "file", "python27"
ERA_NAMES = {FILE: "the file's order (CodaLab from October 2014 on: commit 3c3cc0f0a, and its Python 3 servers)",
             PYTHON27: "Python 2.7's dict order (CodaLab before October 2014)"}
ORDERED_FROM = datetime.datetime(2014, 10, 1)   # commit 3c3cc0f0a: the unpacker reads YAML into OrderedDicts
ORDERED_IN_MASTER = datetime.datetime(2014, 11, 1)  # merged into master during October 2014


def era_of(first_start: datetime.datetime | None) -> str | None:
    """The era whose order a bundle whose earliest phase starts at ``first_start`` was most likely read in; None
    when its dates cannot tell (no date, or October 2014, when both were running)."""
    if first_start is None:
        return None
    if first_start < ORDERED_FROM:
        return PYTHON27
    if first_start >= ORDERED_IN_MASTER:
        return FILE
    return None


def iteration_orders(mapping: dict) -> dict[str, list | None]:
    """{era: the mapping's keys in the order that era iterated them}; Python 2.7's is None when a key's hash is
    not reproducible (a key that is neither text nor a number)."""
    keys = list(mapping)
    return {FILE: keys, PYTHON27: python27_key_order(keys)}


def selection_default(column: dict) -> int:
    value = column.get("selection_default", 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def group_label(column: dict) -> str | None:
    """The label of the column group a column names (its anchor's label), lower-cased, or None."""
    anchor = column.get("column_group")
    label = anchor.get("label") if isinstance(anchor, dict) else None
    return str(label).strip().lower() if label is not None else None


def tree_order(columns: list[tuple[str, dict]], groups: list[tuple[str, dict]]) -> list[str]:
    """The keys of one table's ``columns`` in CodaLab's score-set tree order, given ``columns`` and ``groups``
    ([(key, spec)]) in the order CodaLab iterated them."""
    created = [kc for kc in columns if not kc[1].get("computed")] + [kc for kc in columns if kc[1].get("computed")]
    labels = []
    for key, group in groups:
        label = group.get("label") if isinstance(group, dict) else None
        labels.append(str(label if label is not None else "").strip().lower())
    children = dict((label, []) for label in labels)
    roots = []
    for key, column in created:
        label = group_label(column)
        (children[label] if label in children else roots).append(key)
    return [key for label in labels for key in children.pop(label, [])] + roots


def ranked_by(columns: list[tuple[str, dict]], groups: list[tuple[str, dict]]) -> str | None:
    """The column CodaLab's table was ranked by: the first, in tree order, with the highest selection_default."""
    order = tree_order(columns, groups)
    if not order:
        return None
    spec = dict(columns)
    best = order[0]
    for key in order[1:]:
        if selection_default(spec[key]) > selection_default(spec[best]):
            best = key
    return best
