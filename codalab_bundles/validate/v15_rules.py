"""The cross-file checks of CodaLab v1.5 bundles (version 1 or 1.5), on both platforms: the files the bundle names,
phase numbers and order (CodaLab), the leaderboard's anchors and computed columns, and what Codabench's v1 import
needs, drops or changes (Codabench's src/apps/competitions/unpackers/v1.py)."""
from __future__ import annotations

import datetime
import re

from ..platforms import codalab_leaderboard
from .contents import page_problem
from .findings import Context

# Codabench's field limits (models at c7dbc756): Task.name and Phase.name 256, Page.title 255.
MAX_TASK_NAME, MAX_PAGE_TITLE = 256, 255


def v1_phases(ctx: Context) -> list:
    """(key, phase) for each phase of the v1 bundle that is a mapping."""
    phases = ctx.spec.get("phases")
    return [(k, p) for k, p in phases.items() if isinstance(p, dict)] if isinstance(phases, dict) else []


def v1_columns(ctx: Context) -> list:
    """(key, column) for each leaderboard column of the v1 bundle that is a mapping."""
    columns = (ctx.spec.get("leaderboard") or {}).get("columns")
    return [(str(k), c) for k, c in columns.items() if isinstance(c, dict)] if isinstance(columns, dict) else []


def v1_files(ctx: Context, platform: str) -> None:
    """Every file the bundle names is in it (a phase's data that is no .zip is a dataset key of the old site), and
    its pages can be read."""
    refs = [("image", ctx.spec.get("image"))]
    refs += [("html.%s" % k, v) for k, v in (ctx.spec.get("html") or {}).items()]
    for key, phase in v1_phases(ctx):
        for field in ("scoring_program", "reference_data", "input_data", "ingestion_program", "public_data",
                      "starting_kit"):
            if phase.get(field) is not None:
                refs.append(("phases.%s.%s" % (key, field), phase[field]))
    for where, name in refs:
        if not isinstance(name, str):
            continue
        if where.startswith("phases.") and not name.endswith(".zip") and not ctx.exists(name):
            if platform == "codabench":  # v1.py -> _get_data_key: 'Cannot find <type> with key: ...'
                ctx.add("error", platform, "files", where, "%r is not in the bundle: a dataset key of the old "
                        "CodaLab site, which Codabench cannot find ('Cannot find dataset')" % name, "put the file "
                        "in the bundle, or upload it to Codabench and use its key in a version 2 bundle")
            else:
                ctx.add("note", platform, "files", where, "%r is not a .zip: it must be the key of a dataset "
                        "already on the site" % name)
        elif not ctx.exists(name):
            ctx.add("error", platform, "files", where, "%s is not in the bundle" % name,
                    "add the file at that path, relative to the zip root")
        elif where.startswith("html.") or where == "html":
            problem = page_problem(ctx, name)
            if problem in ("empty", "blank"):
                ctx.add("note", platform, "files", where, "%s is empty: the tab shows nothing (Codabench's v1 "
                        "import accepts it; a version 2 bundle may not have 0-byte pages)" % name)
            elif problem is not None:
                ctx.add("error", platform, "files", where, problem[0], problem[1])


def v1_phase_numbers(ctx: Context, platform: str) -> None:
    """Phase numbers are consecutive (CodaLab)."""
    numbers = [p.get("phasenumber") for _, p in v1_phases(ctx)]
    # CodaLab looks up the next phase as phasenumber+1; numbering may start anywhere (0 included: the field is a
    # PositiveIntegerField), but gaps or repeats break the schedule.
    if numbers and all(isinstance(n, int) for n in numbers) and \
            sorted(numbers) != list(range(min(numbers), min(numbers) + len(numbers))):
        ctx.add("error", platform, "phases", "phases", "phase numbers are %s: a phase ends when phasenumber+1 "
                "starts, so gaps or repeats break the schedule" % numbers, "number the phases 1, 2, 3, ...")


def _start(phase):
    value = phase.get("start_date")
    if isinstance(value, str):
        try:
            value = datetime.datetime.strptime(value.strip()[:19].replace("T", " "), "%Y-%m-%d %H:%M:%S")
        except ValueError:
            return None
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None) - (value.utcoffset() or datetime.timedelta(0))
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    return None


def v1_phase_order(ctx: Context, platform: str) -> None:
    """CodaLab: a phase ends when phasenumber+1 starts, so a phase that starts with or after the next one never
    opens, unless it never ends (CompetitionPhase.is_active is then always true: phases open side by side).
    Codabench's own view of the same dates is checked with what it stores (codabench_stored)."""
    phases = sorted((p.get("phasenumber", 0), key, p) for key, p in v1_phases(ctx)
                    if isinstance(p.get("phasenumber", 0), int))
    for (_, k1, p1), (_, k2, p2) in zip(phases, phases[1:]):
        s1, s2 = _start(p1), _start(p2)
        if s1 is not None and s2 is not None and s2 <= s1 and not p1.get("phase_never_ends"):
            ctx.add("error", platform, "phases", "phases.%s.start_date" % k2, "phase %s starts before or when "
                    "phase %s starts, so phase %s never opens" % (k2, k1, k1), "give each phase a later start than "
                    "the previous one (or phase_never_ends to keep phases open side by side)", accepted=True)


def v1_leaderboard(ctx: Context, platform: str) -> None:
    """The leaderboard: what Codabench's v1 import requires, labels, each column's leaderboard, computed columns,
    key lengths, and the column each platform ranks by."""
    board = ctx.spec.get("leaderboard")
    if not isinstance(board, dict):
        if platform == "codabench":
            ctx.add("error", platform, "leaderboard", "leaderboard", "'Could not find leaderboard in the competition "
                    "yaml': Codabench's v1 import needs one", "add leaderboard.leaderboards and leaderboard.columns")
        else:
            ctx.add("warning", platform, "leaderboard", "leaderboard", "no leaderboard: scores are computed but "
                    "nothing is shown", "add leaderboard.leaderboards and leaderboard.columns")
        return
    if platform == "codabench":
        for key, message in (("leaderboards", "Could not find leaderboards declared on the competition "
                              "leaderboard"), ("columns", "Could not find columns declared on the competition "
                                               "leaderboard")):
            if key not in board:
                ctx.add("error", platform, "leaderboard", "leaderboard", "'%s': Codabench refuses the bundle"
                        % message, "add leaderboard.%s" % key)
                return
    boards = board.get("leaderboards") or {}
    labels = [b.get("label") for b in boards.values() if isinstance(b, dict)]
    for label in labels:
        if isinstance(label, str) and label != label.strip():
            ctx.add("error", platform, "leaderboard", "leaderboard.leaderboards", "label %r has surrounding spaces:"
                    " the site strips it when creating the leaderboard but not when looking it up" % label,
                    "remove the spaces")
    if len(labels) > 1:
        severity = "warning" if platform == "codabench" else "note"
        ctx.add(severity, platform, "leaderboard", "leaderboard.leaderboards", "%d leaderboards: Codabench "
                "attaches only the first to the phases" % len(labels), "use one leaderboard")
    columns = v1_columns(ctx)
    computed = set(k for k, c in columns if c.get("computed"))
    for key, column in columns:
        anchor = column.get("leaderboard")
        if not isinstance(anchor, dict) or not isinstance(anchor.get("label"), str):
            # both unpackers look the column's leaderboard up by its label: Codabench's v1.py
            # (column['leaderboard']['label'].lower()) and CodaLab's (leaderboards[vals['leaderboard']['label']])
            ctx.add("error", platform, "leaderboard", "leaderboard.columns.%s" % key, "no leaderboard label %s: the "
                    "upload fails looking it up (%s)" % (
                        "(it has 'group:', the key of 2013 bundles)" if "group" in column and anchor is None else
                        "(no 'leaderboard:' key)" if anchor is None else "(%r)" % (anchor,),
                        "KeyError: 'leaderboard'" if anchor is None else "the leaderboard is not a mapping with a "
                        "label"), "point it at a leaderboard, e.g. leaderboard: *RESULTS")
        elif anchor.get("label") not in labels:
            ctx.add("error", platform, "leaderboard", "leaderboard.columns.%s" % key, "its leaderboard label %r "
                    "matches no leaderboard (%s)" % (anchor.get("label"), ", ".join(map(str, labels))),
                    "point it at a leaderboard, e.g. leaderboard: *RESULTS")
        spec = column.get("computed")
        if isinstance(spec, dict):
            fields = [f.strip() for f in str(spec.get("fields", "")).split(",") if f.strip()]
            bad = [f for f in fields if f not in dict(columns) or f in computed]
            if bad:
                ctx.add("error", platform, "leaderboard", "leaderboard.columns.%s.computed" % key, "fields %s are "
                        "not plain columns (KeyError on upload)" % ", ".join(bad), "list plain column keys")
            if platform == "codabench":
                ctx.add("warning", platform, "leaderboard", "leaderboard.columns.%s" % key, "computed columns are "
                        "dropped by Codabench's v1 import: the column stays empty", "remove it, or build a v2 "
                        "bundle with a computation")
            elif spec.get("operation") == "Avg":
                ctx.add("note", platform, "leaderboard", "leaderboard.columns.%s" % key, "Avg is the average "
                        "rank of %s, not their mean score" % ", ".join(fields))
        for field, limit in (("key", 36), ("label", 36)):
            value = key if field == "key" else column.get("label", "")
            if platform == "codabench" and isinstance(value, str) and len(value) > limit:
                ctx.add("error", platform, "leaderboard", "leaderboard.columns.%s" % key, "column %s is longer "
                        "than %d characters" % (field, limit), "shorten it to %d characters" % limit)
        _key_note(ctx, platform, "leaderboard.columns.%s" % key, key)
    if columns:
        if platform == "codalab":
            # CodaLab v1.5 reads the file in its order (codalab_leaderboard): the first column created with the
            # highest selection_default ranks the first table
            ranked = [kc for kc in boards.items() if isinstance(kc[1], dict)]
            first = min(ranked, key=lambda kb: (kb[1].get("rank", 0) if isinstance(kb[1].get("rank", 0), int)
                                                else 0, ranked.index(kb)))[1].get("label") if ranked else None
            table = [(k, c) for k, c in columns if isinstance(c.get("leaderboard"), dict)
                     and c["leaderboard"].get("label") == first] or columns
            groups = board.get("column_groups")
            groups = [(str(k), g) for k, g in groups.items() if isinstance(g, dict)] if isinstance(groups, dict) \
                else []
            ctx.add("note", platform, "leaderboard", "leaderboard.columns.%s" % codalab_leaderboard.ranked_by(
                table, groups), "CodaLab ranks the leaderboard by this column")
        else:
            first = min(columns, key=lambda kc: kc[1].get("rank", 1) if isinstance(kc[1].get("rank", 1), int) else 1)
            if first[0] in computed:
                ctx.add("warning", platform, "leaderboard", "leaderboard.columns.%s" % first[0], "Codabench orders "
                        "by the column with the lowest rank, and this computed column will be empty",
                        "give a plain column the lowest rank")


def v1_codabench_import(ctx: Context, platform: str) -> None:
    """What Codabench's v1 unpacker (unpackers/v1.py) requires, drops or changes."""
    spec = ctx.spec
    if "html" not in spec:
        ctx.add("error", platform, "codabench-import", "html", "'HTML pages could not be found in the yaml file':"
                " Codabench's v1 import needs html", "add html: with overview, evaluation, terms and data pages")
    elif not isinstance(spec["html"], dict) or "terms" not in spec["html"]:
        ctx.add("error", platform, "codabench-import", "html", "'A file containing the terms of the competition "
                "could not be located for this competition'", "add html.terms: terms.html")
    if not spec.get("image"):
        ctx.add("error", platform, "codabench-import", "image", "Codabench requires a logo ('An image for this "
                "competition could not be found')", "add image: logo.png and the file")
    if "has_registration" not in spec:
        ctx.add("warning", platform, "codabench-import", "has_registration",
                "has_registration absent: CodaLab lets everyone in, Codabench defaults to requiring the "
                "organizer's approval", "set has_registration explicitly")
    if not spec.get("competition_docker_image"):
        ctx.add("warning", platform, "codabench-import", "competition_docker_image",
                "competition_docker_image absent: each platform uses its own default image",
                "set competition_docker_image, e.g. codalab/codalab-legacy:py37")
    for key, phase in v1_phases(ctx):
        where = "phases.%s" % key
        if not phase.get("label"):
            ctx.add("error", platform, "codabench-import", where, "Codabench requires a label on every phase",
                    "add label:")
        if "max_submissions_per_day" not in phase:
            ctx.add("warning", platform, "codabench-import", where, "max_submissions_per_day absent: CodaLab allows"
                    " 999 a day, Codabench 5", "set max_submissions_per_day")
        limit = phase.get("execution_time_limit")
        if limit is None:
            ctx.add("warning", platform, "codabench-import", where, "execution_time_limit absent: 300 s on CodaLab,"
                    " 600 s on Codabench", "set execution_time_limit")
        elif isinstance(limit, int) and limit > 600:
            ctx.add("warning", platform, "codabench-import", where, "execution_time_limit %d s: Codabench's default"
                    " queue stops programs at 600 s" % limit, "keep scoring under 600 s or use a custom queue")
        if len(str(phase.get("label", ""))) > MAX_TASK_NAME - len(" Task"):
            ctx.add("error", platform, "codabench-import", where, "label longer than %d characters: the v1 import "
                    "names the phase's task '<label> Task', and a task name holds %d ('name: Ensure this field has "
                    "no more than %d characters.')" % (MAX_TASK_NAME - len(" Task"), MAX_TASK_NAME, MAX_TASK_NAME),
                    "shorten the label")


def v1_codabench_names(ctx: Context, platform: str) -> None:
    """Lengths the v1 import meets in Codabench's models: page titles are the html keys, each leaderboard's YAML
    key becomes its title and key (v1.py:185-192)."""
    html = ctx.spec.get("html")
    for key in html if isinstance(html, dict) else ():
        if len(str(key)) > MAX_PAGE_TITLE:
            ctx.add("error", platform, "codabench-import", "html.%s" % key, "the page title (its key) is longer "
                    "than %d characters" % MAX_PAGE_TITLE, "shorten the key")
    board = ctx.spec.get("leaderboard")
    boards = board.get("leaderboards") if isinstance(board, dict) else None
    for key in boards if isinstance(boards, dict) else ():
        if len(str(key)) > 36:
            ctx.add("error", platform, "codabench-import", "leaderboard.leaderboards.%s" % key, "Codabench makes "
                    "the leaderboard's key from this YAML key, and a key holds 36 characters", "shorten the key")


def _key_note(ctx, platform, where, key):
    """Codabench matches score keys to column keys as exact strings (any characters); only a key that YAML would
    misread as a scores.txt line needs care."""
    text = str(key)
    if re.search(r"[:#\s]", text) or text[:1] in "-?!&*[]{}|>'\"%@`,":
        ctx.add("note", platform, "leaderboard", where, "the key %r cannot be written as a plain 'key: value' line of"
                " scores.txt (Codabench reads that file as YAML)" % text, "write scores.json, or quote the key")

