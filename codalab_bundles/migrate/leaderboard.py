"""A CodaLab v1.5 leaderboard as one Codabench leaderboard, with the closest choice for what has no equivalent.

What CodaLab showed (codalab-competitions, apps/web/models.py: CompetitionPhase.scores and the unpacker): one table
per leaderboard, in the leaderboards' rank order; in each table, column groups (by the group's rank) and ungrouped
columns (by their own rank) sorted together, ties in the order they were created (groups before columns, computed
columns last), and each group's columns by rank under the group's label. A Codabench phase shows one leaderboard
with no groups, so the columns are written in that order, their titles prefixed with their group's and (after the
first) their leaderboard's label, and kept unique within Codabench's 36 characters.

Ranking: CodaLab ranked each table by the first column it created with the highest selection_default; which column
was created first depends on the order CodaLab read the file in, which changed in October 2014 (codalab_leaderboard,
python27_order). The report says what is known (both orders' answers, the era the bundle's dates point to), what
the migrated leaderboard ranks by and why, and that ``migrate --rank-by KEY`` chooses another. A CodaLab dump never
writes selection_default and lists columns alphabetically, so it cannot tell: the column shown first is chosen.
CodaLab's Avg is the average *rank* of its fields; Codabench computes on scores only.
"""
import re

from ..platforms import codalab_leaderboard as codalab
from .report import CHANGE, LOSS, MANUAL, NOTE, REFUSED

MAX_COLUMN_TEXT = 36  # Codabench's Column.title, Column.key and Leaderboard.key
MAX_BOARD_TITLE = 64  # Leaderboard.title
SEPARATOR = ": "


def _rank(item, position):
    value = item.get("rank")
    return value if isinstance(value, int) and not isinstance(value, bool) else position


def _label(item, key):
    label = item.get("label") if isinstance(item, dict) else None
    return str(label).strip() if label is not None and str(label).strip() else str(key)


def _board_order(boards):
    items = [(str(k), b) for k, b in boards.items() if isinstance(b, dict)]
    return sorted(items, key=lambda kb: (_rank(kb[1], 0), items.index(kb)))


def _anchor_label(column, field):
    anchor = column.get(field)
    label = anchor.get("label") if isinstance(anchor, dict) else None
    return str(label).strip() if label is not None else None


def _display(columns, groups, positions):
    """[(key, column, group label or None)] of one CodaLab table, in the order CodaLab showed them; ``columns`` and
    ``groups`` in the order CodaLab iterated them, ``positions`` each column's place in the whole mapping (the
    ordering of a column without rank)."""
    group_order = dict((_label(g, k).lower(), (_rank(g, i + 1), i)) for i, (k, g) in enumerate(groups))
    created = [kc for kc in columns if not kc[1].get("computed")] + [kc for kc in columns if kc[1].get("computed")]
    headers = {}
    for position, (key, column) in enumerate(created):
        member = (_rank(column, positions[key] + 1), position, key, column)
        group = _anchor_label(column, "column_group")
        if group is not None and group.lower() in group_order:
            rank, index = group_order[group.lower()]
            headers.setdefault(("g", group.lower()), [(rank, index), group, []])[2].append(member)
        else:
            headers[("c", key)] = [(member[0], len(groups) + position), None, [member]]
    shown = []
    for _, group, members in sorted(headers.values(), key=lambda h: h[0]):
        shown += [(key, column, group) for _, _, key, column in sorted(members, key=lambda m: m[:2])]
    return shown


class Context(object):
    """What the ranking choice depends on beyond the leaderboard: the earliest phase start (the bundle's era),
    whether the file is a CodaLab dump, and the organizer's --rank-by."""

    def __init__(self, first_start=None, dump=False, rank_by=None):
        self.first_start, self.dump, self.rank_by = first_start, dump, rank_by


def _in_order(mapping, order, keep=None):
    return [(str(k), mapping[k]) for k in order if isinstance(mapping[k], dict) and (keep is None or str(k) in keep)]


def _ranking(table, display, raw_columns, raw_groups, context, report):
    """The key the migrated table ranks by, with the report's account of what CodaLab did and why this one.

    ``table`` is the main table's [(key, column)], ``display`` the same as CodaLab showed them; ``raw_columns`` and
    ``raw_groups`` the bundle's mappings as read (the file's order)."""
    keys = set(k for k, _ in table)
    if not keys:
        return None, None
    column_orders, group_orders = codalab.iteration_orders(raw_columns), codalab.iteration_orders(raw_groups)
    picks = {}
    for era in (codalab.FILE, codalab.PYTHON27):
        if column_orders[era] is None or group_orders[era] is None:
            picks[era] = None
        else:
            picks[era] = codalab.ranked_by(_in_order(raw_columns, column_orders[era], keys),
                                           _in_order(raw_groups, group_orders[era]))
    spec = dict(table)
    shown_first = next((k for k, c, _ in display if not c.get("computed")), display[0][0])
    has_default = any(codalab.selection_default(c) > 0 for _, c in table)
    rule = "the first column it created with the highest selection_default" if has_default else \
        "the first column it created (no column has selection_default)"
    era = codalab.era_of(context.first_start)
    when = context.first_start.strftime("%Y-%m-%d") if context.first_start else None
    if context.dump:
        known = None
        fact = ("this file is a CodaLab dump, which lists columns alphabetically and leaves out selection_default and "
                "computed columns, so which column ranked the old leaderboard cannot be told from it")
    elif picks[codalab.PYTHON27] in (None, picks[codalab.FILE]):
        known = picks[codalab.FILE]
        fact = "CodaLab ranked by %s, %s%s" % (known, rule, ", whichever order it read the file in"
                                               if picks[codalab.PYTHON27] else "")
    else:
        fact = ("CodaLab ranked by %s, which depends on the order it read the file in: %s in %s, %s in %s" % (
            rule, picks[codalab.FILE], codalab.ERA_NAMES[codalab.FILE], picks[codalab.PYTHON27],
            codalab.ERA_NAMES[codalab.PYTHON27]))
        if era:
            known = picks[era]
            fact += "; the phases start on %s, so the bundle was most likely read in %s, and ranked by %s" % (
                when, "Python 2.7's order" if era == codalab.PYTHON27 else "the file's order", known)
        else:
            known = None
            fact += "; its dates (%s) do not tell which" % ("earliest start %s, while both ran" % when if when
                                                              else "none")
    if context.rank_by is not None:
        if context.rank_by not in spec:
            raise ValueError("--rank-by %s: the main leaderboard has no such column (its columns: %s)"
                             % (context.rank_by, ", ".join(k for k, _ in table)))
        chosen, why, short = context.rank_by, "as asked (--rank-by)", "as asked (--rank-by)"
    elif known is not None:
        chosen, why, short = known, "as on CodaLab", "as on CodaLab"
    elif context.dump:
        chosen, why = shown_first, "the column CodaLab showed first (lowest rank): a choice, check it against the " \
            "old leaderboard"
        short = "chosen: see the note on the ranking column"
    else:
        chosen, why = picks[codalab.FILE], "the first in the file's order, in which CodaLab read bundles from " \
            "October 2014 to its end: a choice, check it against the old leaderboard"
        short = "chosen: see the note on the ranking column"
    if chosen == known:
        report.add(CHANGE, "leaderboard", "%s; the migrated leaderboard ranks by %s too" % (fact, chosen))
    else:
        report.add(NOTE, "leaderboard", "%s. The migrated leaderboard ranks by %s, %s; to rank by another column: "
                   "migrate --rank-by KEY" % (fact, chosen, why))
    key, column, _ = display[0]
    if column.get("computed") and key != chosen:  # the file's intent and CodaLab's mechanics disagree
        report.add(NOTE, "leaderboard.columns.%s" % key, "the file shows the computed column %s first (rank %s), as "
                   "if it ranked, but CodaLab created computed columns after the others and ranked by %s; %s is "
                   "kept, %s; to rank by %s instead: migrate --rank-by %s" % (
                       key, column.get("rank"), known or "another column", chosen,
                       "as participants saw the old leaderboard sorted" if chosen == known else why, key, key))
    report.add(NOTE, "leaderboard", "CodaLab's editor could change the ranking column after upload (a column's "
               "selection_default, its ordering): if the organizers did, only they know; check the old leaderboard's "
               "default sort")
    return chosen, {"file_order": picks[codalab.FILE], "python27_order": picks[codalab.PYTHON27],
                                  "era": "dump" if context.dump else era, "earliest_start": when,
                                  "codalab_ranked_by": known, "chosen": chosen, "why": short}


def _abbreviation(text):
    words = re.findall(r"[^\W_]+", text)
    return "".join(w[0].upper() for w in words) if len(words) > 1 else text[:8]


def _titles(entries, report):
    """Unique titles of at most 36 characters for [(key, label, prefixes)]: the label after its group's and
    leaderboard's labels, prefixes abbreviated when too long, the key when nothing else is unique."""
    # a prefix too long for one of its columns is abbreviated for all of them, so a group reads alike
    crowded = set(tuple(prefixes) for _, label, prefixes in entries
                  if len(SEPARATOR.join(prefixes + [label])) > MAX_COLUMN_TEXT)
    titles = []
    for key, label, prefixes in entries:
        parts = [_abbreviation(p) for p in prefixes] if tuple(prefixes) in crowded else list(prefixes)
        titles.append(SEPARATOR.join(parts + [label])[:MAX_COLUMN_TEXT].rstrip())
    seen = {}
    for i, title in enumerate(titles):
        seen.setdefault(title.lower(), []).append(i)
    for same in seen.values():
        for i in same[1:] if len(same) > 1 else ():
            key = entries[i][0]
            suffix = " (%s)" % key
            titles[i] = key[:MAX_COLUMN_TEXT] if len(suffix) >= MAX_COLUMN_TEXT else \
                titles[i][:MAX_COLUMN_TEXT - len(suffix)].rstrip() + suffix
    renamed = ["%s %r" % (key, title) for (key, label, _), title in zip(entries, titles) if title != label]
    if renamed:
        report.add(CHANGE, "leaderboard.columns", "titles carry what CodaLab showed above them (group, then "
                   "leaderboard after the first) and are unique within 36 characters: %s" % ", ".join(renamed))
    return titles


def convert(spec, report, context=None):
    """The v2 leaderboard for a v1.5 ``spec``; sets report.leaderboard. ``context``: a Context (the bundle's era,
    whether it is a dump, the organizer's --rank-by); ValueError when --rank-by names no column of the main
    leaderboard."""
    context = context or Context()
    board = spec.get("leaderboard")
    if not isinstance(board, dict) or not isinstance(board.get("columns"), dict) or not board["columns"]:
        report.add(MANUAL, "leaderboard", "no leaderboard columns: Codabench needs a leaderboard with at least "
                   "one column", REFUSED)
        return {"title": "Results", "key": "main", "submission_rule": "Add", "columns": []}
    boards = _board_order(board.get("leaderboards") or {})
    main_key, main = boards[0] if boards else ("main", {"label": "Results"})
    main_label = _label(main, main_key)
    raw_columns = board["columns"]
    raw_groups = board["column_groups"] if isinstance(board.get("column_groups"), dict) else {}
    # The display follows the order of the era the bundle's dates point to (a column's default ordering is its
    # place in CodaLab's iteration); the file's when they cannot tell.
    era = None if context.dump else codalab.era_of(context.first_start)
    column_order, group_order = (codalab.iteration_orders(m)[era or codalab.FILE] for m in (raw_columns, raw_groups))
    if column_order is None or group_order is None:
        column_order, group_order = list(raw_columns), list(raw_groups)
    columns, groups = _in_order(raw_columns, column_order), _in_order(raw_groups, group_order)
    positions = dict((str(k), i) for i, k in enumerate(column_order))

    labels = [_label(b, k) for k, b in boards] or [main_label]
    of_board = dict((label.lower(), []) for label in labels)
    strays = []
    for key, column in columns:
        label = _anchor_label(column, "leaderboard")
        target = of_board.get((label or main_label).lower())
        (target if target is not None else strays).append((key, column))
        if target is None:
            report.add(CHANGE, "leaderboard.columns.%s" % key, "its leaderboard %r does not exist: shown on %r"
                       % (label, main_label))
    of_board[main_label.lower()].extend(strays)
    shown = []  # (key, column, prefixes) in the order CodaLab showed the tables
    for position, label in enumerate(labels):
        table = of_board[label.lower()]
        for key, column, group in _display(table, groups, positions):
            shown.append((key, column, ([label] if position else []) + ([group] if group else [])))
        if position and table:
            report.add(LOSS, "leaderboard.leaderboards", "leaderboard %r: a Codabench phase shows one leaderboard, "
                       "so its columns %s follow those of %r, titled with its label" % (
                           label, ", ".join(k for k, _ in table), main_label))
    if groups:
        report.add(LOSS, "leaderboard.column_groups", "Codabench has no column groups: %s become a prefix of their "
                   "columns' titles, in the order CodaLab showed them" % ", ".join(_label(g, k) for k, g in groups))
    main_table = of_board[main_label.lower()]
    ranking, codalab_ranking = _ranking(main_table, _display(main_table, groups, positions), raw_columns,
                                        raw_groups, context, report)
    as_on_codalab = bool(codalab_ranking) and codalab_ranking["codalab_ranked_by"] == ranking

    # A computed column stays in its place when Codabench can compute it.
    sorts = dict((k, c.get("sort") or "desc") for k, c, _ in shown if not c.get("computed"))
    kept = [(k, c, p) for k, c, p in shown if not c.get("computed") or _mean_of(k, c, sorts, report)]
    index_of = dict((k, i) for i, (k, _, _) in enumerate(kept))
    titles = _titles([(k, _label(c, k), p) for k, c, p in kept], report)
    out_columns = [_column(key, column, index_of[key], title, report)
                   for (key, column, _), title in zip(kept, titles)]
    for out_column, (key, column, _) in zip(out_columns, kept):
        if column.get("computed"):
            fields = _fields(column)
            out_column.update({"sorting": sorts[fields[0]], "computation": "avg",
                               "computation_indexes": [index_of[f] for f in fields]})
    out = {"title": main_label[:MAX_BOARD_TITLE], "key": str(main_key)[:MAX_COLUMN_TEXT],
           "submission_rule": _submission_rule(spec, report), "columns": out_columns}
    if ranking in index_of and index_of[ranking] != 0:
        out["primary_index"] = index_of[ranking]
        report.add(CHANGE, "leaderboard", "%s ranks%s, though it is not the first column shown: written "
                   "primary_index: %d" % (ranking, ", as on CodaLab" if as_on_codalab else " (%s)" %
                                          codalab_ranking["why"], index_of[ranking]))
    elif ranking is not None and ranking not in index_of:
        report.add(LOSS, "leaderboard", "%s the computed column %s, which has no Codabench equivalent: the "
                   "leaderboard is ranked by %s" % ("CodaLab ranked by" if as_on_codalab else "the column chosen "
                                                    "to rank is", ranking, out_columns[0]["key"] if out_columns
                                                    else "-"))
    primary = out.get("primary_index", 0)
    ranked_by = [c for c in out_columns if c["index"] == primary]
    report.leaderboard = {"title": out["title"], "columns": [c["key"] for c in out_columns],
                          "ranked_by": ranked_by[0]["key"] if ranked_by else None,
                          "sorting": ranked_by[0]["sorting"] if ranked_by else None,
                          "codalab_ranking": codalab_ranking}
    return out


def _column(key, column, index, title, report):
    where = "leaderboard.columns.%s" % key
    if len(key) > MAX_COLUMN_TEXT:
        report.add(MANUAL, where, "the key is longer than Codabench's %d characters and must match the program's "
                   "score key: shorten both" % MAX_COLUMN_TEXT, REFUSED)
    sort = column.get("sort") or "desc"
    if sort not in ("asc", "desc"):
        report.add(CHANGE, where, "sort %r is neither asc nor desc: desc (CodaLab's default) is written" % sort)
        sort = "desc"
    try:
        precision = int(column.get("numeric_format", 2))
    except (TypeError, ValueError):
        report.add(CHANGE, where, "numeric_format %r is not a number: 2 is written" % column.get("numeric_format"))
        precision = 2
    out = {"title": title, "key": key, "index": index, "sorting": sort, "precision": precision}
    if column.get("hidden"):
        out["hidden"] = True
        report.add(CHANGE, where, "hidden: true, which CodaLab ignored (it showed the column): Codabench hides it")
    return out


def _fields(column):
    spec = column["computed"] if isinstance(column["computed"], dict) else {}
    return [f.strip() for f in str(spec.get("fields", "")).split(",") if f.strip()]


def _mean_of(key, column, sorts, report):
    """Whether a computed column is kept as the mean of its fields' scores (reported either way).

    CodaLab's Avg is the average *rank* of its fields; Codabench computes on scores only. The closest choice is
    the mean of the scores when the fields are plain columns sorted alike and unweighted; otherwise the column is
    left out."""
    where = "leaderboard.columns.%s" % key
    spec = column["computed"] if isinstance(column["computed"], dict) else {}
    fields = _fields(column)
    label = column.get("label") or key
    directions = set(sorts.get(f) for f in fields)
    if spec.get("operation") == "Avg" and fields and not spec.get("weights") and len(directions) == 1 \
            and None not in directions:
        report.add(LOSS, where, "%r is CodaLab's average rank of %s; Codabench computes on scores, not ranks: "
                   "written as the mean of their scores (computation: avg, sorted %s), which can order "
                   "submissions differently" % (label, ", ".join(fields), directions.pop()))
        return True
    report.add(LOSS, where, "computed column %r (%s of %s%s) has no Codabench equivalent: left out (Codabench's "
               "import would keep it as an always-empty column)" % (label, spec.get("operation"), ", ".join(fields),
                                                                    ", weighted" if spec.get("weights") else ""))
    return False


def _submission_rule(spec, report):
    phases = [p for p in (spec.get("phases") or {}).values() if isinstance(p, dict)]
    best = [p for p in phases if p.get("force_best_submission_to_leaderboard")]
    if spec.get("force_submission_to_leaderboard"):
        report.add(CHANGE, "force_submission_to_leaderboard", "every successful submission went to the "
                   "leaderboard: written submission_rule: Force_Last")
        return "Force_Last"
    if best:
        if len(best) != len(phases):
            report.add(LOSS, "phases", "force_best_submission_to_leaderboard was set on some phases only; "
                       "Codabench's rule covers the whole leaderboard: Force_Best is written for all")
        else:
            report.add(CHANGE, "phases", "force_best_submission_to_leaderboard: submission_rule: Force_Best")
        return "Force_Best"
    if spec.get("disallow_leaderboard_modifying"):
        report.add(CHANGE, "disallow_leaderboard_modifying", "kept as Codabench's default rule, Add: participants "
                   "put a submission on the leaderboard themselves")
    return "Add"
