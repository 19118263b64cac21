"""A CodaLab v1.5 leaderboard as one Codabench leaderboard, with the closest choice for what has no equivalent.

CodaLab could show several leaderboards, group columns, and compute a column as the average *rank* of others; a
Codabench phase shows one leaderboard, and computes on scores. The columns keep CodaLab's rank order, sort,
precision and hidden flag; the column CodaLab ranked by (highest selection_default; ties to the first plain column)
still ranks (primary_index).
"""
from .migration_report import CHANGE, LOSS, MANUAL

MAX_COLUMN_TEXT = 36  # Codabench's limit on column titles and keys


def _board_order(boards):
    items = [(k, b) for k, b in boards.items() if isinstance(b, dict)]
    return sorted(items, key=lambda kb: (kb[1].get("rank") if isinstance(kb[1].get("rank"), int) else 0,
                                         items.index(kb)))


def _columns_in_rank_order(columns):
    items = [(str(k), c) for k, c in columns.items() if isinstance(c, dict)]
    return sorted(items, key=lambda kc: (kc[1].get("rank") if isinstance(kc[1].get("rank"), int)
                                         else items.index(kc) + 1, items.index(kc)))


def _ranking_key(columns):
    """CodaLab ranked by the highest selection_default; ties go to the first column created, plain ones first."""
    plain = [kc for kc in columns if not kc[1].get("computed")]
    created = plain + [kc for kc in columns if kc[1].get("computed")]
    if not created:
        return None
    return max(created, key=lambda kc: (kc[1].get("selection_default") or 0, -created.index(kc)))[0]


def convert(spec, report):
    """The v2 leaderboard for a v1.5 ``spec``; sets report.leaderboard."""
    board = spec.get("leaderboard")
    if not isinstance(board, dict) or not isinstance(board.get("columns"), dict):
        report.add(MANUAL, "leaderboard", "no leaderboard columns: Codabench needs a leaderboard with at least "
                   "one column")
        return {"title": "Results", "key": "main", "submission_rule": "Add", "columns": []}
    boards = _board_order(board.get("leaderboards") or {})
    main_key, main = boards[0] if boards else ("main", {"label": "Results"})
    main_label = str(main.get("label") or main_key).strip()
    yaml_order = [(str(k), c) for k, c in board["columns"].items() if isinstance(c, dict)]
    ranked = _columns_in_rank_order(board["columns"])
    ranking = _ranking_key(yaml_order)

    def board_of(column):
        anchor = column.get("leaderboard")
        label = anchor.get("label") if isinstance(anchor, dict) else None
        return str(label).strip() if label is not None else None

    others = [str(b.get("label") or k).strip() for k, b in boards[1:]]
    chosen = [kc for kc in ranked if board_of(kc[1]) is None or board_of(kc[1]).lower() == main_label.lower()]
    for label in others:
        moved = [kc for kc in ranked if board_of(kc[1]) and board_of(kc[1]).lower() == label.lower()]
        chosen += moved
        report.add(LOSS, "leaderboard.leaderboards", "leaderboard %r: a Codabench phase shows one leaderboard, so "
                   "its columns %s are appended to %r" % (label, ", ".join(k for k, _ in moved) or "(none)",
                                                          main_label))
    for key, column in ranked:
        if (key, column) not in chosen:
            chosen.append((key, column))
            report.add(CHANGE, "leaderboard.columns.%s" % key, "its leaderboard %r does not exist: shown on %r"
                       % (board_of(column), main_label))
    if board.get("column_groups"):
        report.add(LOSS, "leaderboard.column_groups", "Codabench has no column groups: %s dropped, the columns "
                   "keep their own titles" % ", ".join(str(g.get("label", k)) if isinstance(g, dict) else str(k)
                                                       for k, g in board["column_groups"].items()))

    # Display order is rank order; a computed column stays in its place when Codabench can compute it.
    sorts = dict((k, c.get("sort") or "desc") for k, c in chosen if not c.get("computed"))
    kept = [(k, c) for k, c in chosen if not c.get("computed") or _mean_of(k, c, sorts, report)]
    index_of = dict((k, i) for i, (k, _) in enumerate(kept))
    columns = [_column(key, column, index_of[key], report) for key, column in kept]
    for out_column, (key, column) in zip(columns, kept):
        if column.get("computed"):
            fields = _fields(column)
            out_column.update({"sorting": sorts[fields[0]], "computation": "avg",
                               "computation_indexes": [index_of[f] for f in fields]})
    out = {"title": main_label[:64], "key": str(main_key)[:MAX_COLUMN_TEXT], "submission_rule":
           _submission_rule(spec, report), "columns": columns}
    if ranking in index_of and index_of[ranking] != 0:
        out["primary_index"] = index_of[ranking]
        report.add(CHANGE, "leaderboard", "CodaLab ranked by %s (selection_default), which is not the first column:"
                   " written primary_index: %d" % (ranking, index_of[ranking]))
    elif ranking is not None and ranking not in index_of:
        report.add(LOSS, "leaderboard", "CodaLab ranked by the computed column %s, which has no Codabench "
                   "equivalent: the leaderboard is ranked by %s" % (ranking, columns[0]["key"] if columns else "-"))
    primary = out.get("primary_index", 0)
    ranked_by = [c for c in columns if c["index"] == primary]
    report.leaderboard = {"title": out["title"], "columns": [c["key"] for c in columns],
                          "ranked_by": ranked_by[0]["key"] if ranked_by else None,
                          "sorting": ranked_by[0]["sorting"] if ranked_by else None}
    return out


def _column(key, column, index, report):
    where = "leaderboard.columns.%s" % key
    title = str(column.get("label") or key)
    if len(title) > MAX_COLUMN_TEXT:
        report.add(LOSS, where, "title %r is longer than Codabench's %d characters: shortened to %r"
                   % (title, MAX_COLUMN_TEXT, title[:MAX_COLUMN_TEXT]))
        title = title[:MAX_COLUMN_TEXT]
    if len(key) > MAX_COLUMN_TEXT:
        report.add(MANUAL, where, "the key is longer than Codabench's %d characters and must match the program's "
                   "score key: shorten both" % MAX_COLUMN_TEXT)
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
