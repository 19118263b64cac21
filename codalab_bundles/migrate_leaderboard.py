"""A CodaLab v1.5 leaderboard as one Codabench leaderboard, with the closest choice for what has no equivalent.

What CodaLab showed (codalab-competitions, apps/web/models.py: CompetitionPhase.scores and the unpacker): one table
per leaderboard, in the leaderboards' rank order; in each table, column groups (by the group's rank) and ungrouped
columns (by their own rank) sorted together, ties in the order they were created (groups before columns, computed
columns last), and each group's columns by rank under the group's label. A Codabench phase shows one leaderboard
with no groups, so the columns are written in that order, their titles prefixed with their group's and (after the
first) their leaderboard's label, and kept unique within Codabench's 36 characters.

Ranking: CodaLab ranked each table by the column with the highest selection_default, else by the first column it
created. A CodaLab dump never writes selection_default and lists columns alphabetically, so without it the file
does not say which column ranked: the column with the lowest rank (shown first) is chosen, and the report says so.
CodaLab's Avg is the average *rank* of its fields; Codabench computes on scores only.
"""
import re

from .migration_report import CHANGE, LOSS, MANUAL, NOTE, REFUSED

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


def _display(columns, groups):
    """[(key, column, group label or None)] of one CodaLab table, in the order CodaLab showed them."""
    group_order = dict((_label(g, k).lower(), (_rank(g, i), i)) for i, (k, g) in enumerate(groups))
    written = dict((key, i) for i, (key, _) in enumerate(columns))  # a missing rank is the YAML position
    created = [kc for kc in columns if not kc[1].get("computed")] + [kc for kc in columns if kc[1].get("computed")]
    headers = {}
    for position, (key, column) in enumerate(created):
        member = (_rank(column, written[key]), position, key, column)
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


def _ranking(columns, report):
    """The key CodaLab ranked a table by, and whether the bundle says so (CompetitionPhase.scores: the highest
    selection_default, ties to the first column created)."""
    plain = [(k, c) for k, c in columns if not c.get("computed")]
    candidates = plain + [(k, c) for k, c in columns if c.get("computed")]
    if not candidates:
        return None
    defaults = [c.get("selection_default") for _, c in candidates]
    if any(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in defaults):
        best = max(d for d in defaults if isinstance(d, int))
        return [k for k, c in candidates if c.get("selection_default") == best][0]
    first = candidates[0][0]
    lowest = min(plain or candidates, key=lambda kc: (_rank(kc[1], 1), candidates.index(kc)))[0]
    if lowest == first:
        report.add(CHANGE, "leaderboard", "no column has selection_default: CodaLab ranked by the first column "
                   "created, %s, which is also the one with the lowest rank; it still ranks" % first)
    else:
        report.add(NOTE, "leaderboard", "no column has selection_default, so this file does not say which column "
                   "ranked: CodaLab ranked by the first column it created (%s in this file's order, but a CodaLab "
                   "dump lists columns alphabetically and drops selection_default). %s, the column with the lowest "
                   "rank (shown first), is chosen: check it against the old leaderboard" % (first, lowest))
    return lowest


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


def convert(spec, report):
    """The v2 leaderboard for a v1.5 ``spec``; sets report.leaderboard."""
    board = spec.get("leaderboard")
    if not isinstance(board, dict) or not isinstance(board.get("columns"), dict) or not board["columns"]:
        report.add(MANUAL, "leaderboard", "no leaderboard columns: Codabench needs a leaderboard with at least "
                   "one column", REFUSED)
        return {"title": "Results", "key": "main", "submission_rule": "Add", "columns": []}
    boards = _board_order(board.get("leaderboards") or {})
    main_key, main = boards[0] if boards else ("main", {"label": "Results"})
    main_label = _label(main, main_key)
    columns = [(str(k), c) for k, c in board["columns"].items() if isinstance(c, dict)]
    groups = [(str(k), g) for k, g in (board.get("column_groups") or {}).items() if isinstance(g, dict)] \
        if isinstance(board.get("column_groups"), dict) else []

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
        for key, column, group in _display(table, groups):
            shown.append((key, column, ([label] if position else []) + ([group] if group else [])))
        if position and table:
            report.add(LOSS, "leaderboard.leaderboards", "leaderboard %r: a Codabench phase shows one leaderboard, "
                       "so its columns %s follow those of %r, titled with its label" % (
                           label, ", ".join(k for k, _ in table), main_label))
    if groups:
        report.add(LOSS, "leaderboard.column_groups", "Codabench has no column groups: %s become a prefix of their "
                   "columns' titles, in the order CodaLab showed them" % ", ".join(_label(g, k) for k, g in groups))
    ranking = _ranking(of_board[main_label.lower()], report)

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
        report.add(CHANGE, "leaderboard", "%s ranks, as on CodaLab, though it is not the first column shown: "
                   "written primary_index: %d" % (ranking, index_of[ranking]))
    elif ranking is not None and ranking not in index_of:
        report.add(LOSS, "leaderboard", "CodaLab ranked by the computed column %s, which has no Codabench "
                   "equivalent: the leaderboard is ranked by %s" % (ranking, out_columns[0]["key"] if out_columns
                                                                    else "-"))
    primary = out.get("primary_index", 0)
    ranked_by = [c for c in out_columns if c["index"] == primary]
    report.leaderboard = {"title": out["title"], "columns": [c["key"] for c in out_columns],
                          "ranked_by": ranked_by[0]["key"] if ranked_by else None,
                          "sorting": ranked_by[0]["sorting"] if ranked_by else None}
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
