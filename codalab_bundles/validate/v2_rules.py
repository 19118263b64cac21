"""The cross-file checks of Codabench version 2 bundles: the files the bundle names (pages may not be empty), task
indexes, phases' tasks and leaderboard columns (unique indexes and keys, computations over other columns), and
Codabench's traps there: computation_indexes written as text, a leaderboard of hidden columns only, leaderboards
after the first (which no phase shows)."""
from __future__ import annotations

from .contents import page_problem
from .findings import Context


def v2_files(ctx: Context, platform: str) -> None:
    """Every file the bundle names is in it; pages and terms hold some content."""
    spec = ctx.spec
    refs = [("image", spec.get("image")), ("terms", spec.get("terms"))]
    refs += [("pages.%d.file" % i, p.get("file")) for i, p in enumerate(spec.get("pages") or []) if isinstance(p, dict)]
    for i, task in enumerate(spec.get("tasks") or []):
        for field in ("scoring_program", "reference_data", "input_data", "ingestion_program"):
            if isinstance(task, dict) and task.get(field):
                refs.append(("tasks.%d.%s" % (i, field), task[field]))
    for i, phase in enumerate(spec.get("phases") or []):
        for field in ("public_data", "starting_kit"):
            if isinstance(phase, dict) and phase.get(field):
                refs.append(("phases.%d.%s" % (i, field), phase[field]))
    for where, name in refs:
        if not isinstance(name, str):
            continue
        if not ctx.exists(name):
            ctx.add("error", platform, "files", where, "%s is not in the bundle ('Cannot find dataset' unless it is"
                    " the key of existing data)" % name, "add the file at that path, relative to the zip root")
        elif (where.startswith("pages") or where == "terms") and name in ctx.names:
            problem = page_problem(ctx, name)
            if problem == "empty":  # v2.py: 'Page ... is empty, it must contain content.'
                ctx.add("error", platform, "files", where, "%s is empty (0 bytes): Codabench refuses empty pages"
                        % name, "write some content")
            elif problem == "blank":
                ctx.add("warning", platform, "files", where, "%s holds only white space: Codabench accepts it, and "
                        "the %s shows nothing" % (name, "terms page" if where == "terms" else "tab"),
                        "write some content")
            elif problem is not None:
                ctx.add("error", platform, "files", where, problem[0], problem[1])


def v2_structure(ctx: Context, platform: str) -> None:
    """Task indexes, each phase's tasks and each leaderboard's columns refer to what exists, once."""
    spec = ctx.spec
    task_indexes = [t.get("index") for t in spec.get("tasks") or [] if isinstance(t, dict)]
    if len(set(task_indexes)) != len(task_indexes):
        ctx.add("error", platform, "tasks", "tasks", "task indexes repeat: %s" % task_indexes, "make them unique")
    phases = [p for p in spec.get("phases") or [] if isinstance(p, dict)]
    for i, phase in enumerate(phases):
        if phase.get("tasks") == []:
            ctx.add("error", platform, "tasks", "phases.%d.tasks" % i, "a phase with no task: Codabench accepts the "
                    "bundle, but every submission to the phase stays 'Submitting' (the worker needs a task)",
                    "give the phase a task, or leave the phase out", accepted=True)
        for t in phase.get("tasks") or []:
            if t not in task_indexes:
                ctx.add("error", platform, "tasks", "phases.%d.tasks" % i, "task %r does not exist" % t,
                        "use an index from tasks")
    for b, board in enumerate(spec.get("leaderboards") or []):
        columns = [c for c in (board or {}).get("columns") or [] if isinstance(c, dict)]
        indexes = [c.get("index") for c in columns]
        keys = [c.get("key") for c in columns]
        for what, values in (("indexes", indexes), ("keys", keys)):
            if len(set(values)) != len(values):
                ctx.add("error", platform, "leaderboard", "leaderboards.%d.columns" % b, "column %s repeat: %s"
                        % (what, values), "make them unique")
        if columns and all(c.get("hidden") is True for c in columns):
            # LeaderboardPhaseSerializer.get_columns: checked on the local Codabench (GET get_leaderboard: 400)
            ctx.add("error", platform, "leaderboard", "leaderboards.%d.columns" % b, "every column is hidden: "
                    "Codabench accepts the bundle, and its leaderboard fails to load for everyone, organizers too "
                    "('No columns exist on the leaderboard')", "leave one column visible (to hide the whole "
                    "leaderboard from participants, set the leaderboard's hidden: true)", accepted=True)
        for c in columns:
            if "computation" in c and "computation_indexes" not in c:
                ctx.add("error", platform, "leaderboard", "leaderboards.%d.columns.%s" % (b, c.get("key")),
                        "'Column with computation must have at least 1 column selected for the computation to act "
                        "upon': a computation key, even null, needs computation_indexes", "remove computation, or "
                        "add computation_indexes")
            refs = c.get("computation_indexes")
            if isinstance(refs, str):
                refs = _text_indexes(ctx, platform, "leaderboards.%d.columns.%s" % (b, c.get("key")), refs)
            for ref in refs if isinstance(refs, list) else []:
                if ref not in indexes or ref == c.get("index"):
                    ctx.add("error", platform, "leaderboard", "leaderboards.%d.columns.%s" % (b, c.get("key")),
                            "computation_indexes names %r, which is not another column" % ref,
                            "list other columns' indexes")
    _later_leaderboards(ctx, platform)
    _several_tasks(ctx, platform)


def _text_indexes(ctx: Context, platform: str, where: str, text: str) -> list | None:
    """computation_indexes written as text: Codabench's CharacterSeparatedField joins whatever it is given with
    commas, so a string goes in one character at a time ('0,1' becomes '0,,,1'). Returns the indexes Codabench
    stores when it accepts the text (digits only), else None after an error."""
    stored = ",".join(text)
    bad = [part for part in stored.split(",") if not _is_int(part)]
    if not text:  # as null: the serializer checks only a non-empty value
        return []
    if bad:
        ctx.add("error", platform, "leaderboard", where, "computation_indexes is the text %r, which Codabench reads "
                "one character at a time (%r): it refuses the bundle ('Bad value for index, should be an integer "
                "but received: %s.')" % (text, stored, bad[0] if bad else ""),
                "write a YAML list: computation_indexes: [%s]" % ", ".join(
                    part.strip() for part in text.split(",") if part.strip()))
        return None
    digits = [int(ch) for ch in text]
    if len(text) > 1:
        ctx.add("warning", platform, "leaderboard", where, "computation_indexes is the text %r, which Codabench "
                "reads one character at a time: it stores the columns %s, not column %s" % (
                    text, " and ".join(map(str, digits)), text), "write a YAML list of the columns you mean, such as "
                "[%s]" % ", ".join(map(str, digits)))
    else:
        ctx.add("warning", platform, "leaderboard", where, "computation_indexes is the text %r: Codabench reads it "
                "as [%s] only because it is one digit" % (text, text), "write a YAML list: [%s]" % text)
    return digits


def _is_int(text: str) -> bool:
    try:
        int(text)
        return True
    except ValueError:
        return False


def _later_leaderboards(ctx: Context, platform: str) -> None:
    """Codabench attaches the first leaderboard to every phase (base_unpacker._save_competition: phase['leaderboard']
    = leaderboards[0]); it creates the others, which no phase shows and no score reaches."""
    boards = [b for b in ctx.spec.get("leaderboards") or [] if isinstance(b, dict)]
    if len(boards) > 1:
        later = [str(b.get("title") or b.get("key")) for b in boards[1:]]
        columns = [str(c.get("key")) for b in boards[1:] for c in b.get("columns") or [] if isinstance(c, dict)]
        ctx.add("warning", platform, "leaderboard", "leaderboards", "Codabench attaches only the first leaderboard "
                "(%s) to the phases: it creates %s too, but no phase shows %s and no score reaches %s (columns %s)" % (
                    boards[0].get("title"), ", ".join(repr(t) for t in later), "it" if len(later) == 1 else "them",
                    "it" if len(later) == 1 else "them", ", ".join(columns) or "none"),
                "put every column in the first leaderboard (one leaderboard; a track is a set of its columns)")


def _several_tasks(ctx: Context, platform: str) -> None:
    """What Codabench's leaderboard does with a phase of several tasks (tracks), checked on the local Codabench at
    c7dbc756: a submission runs once per task (child submissions), and each run is a row of its own to the leaderboard
    (api/serializers/leaderboards.py LeaderboardPhaseSerializer): computed columns are filled on the submission only,
    never on its runs' rows; rows are ordered by the runs, a run without the primary column first when it sorts
    descending; and the rules that pick submissions by themselves pick single runs (leaderboards/strategies.py)."""
    phases = [(i, p) for i, p in enumerate(ctx.spec.get("phases") or [])
              if isinstance(p, dict) and isinstance(p.get("tasks"), list) and len(p["tasks"]) > 1]
    boards = [b for b in ctx.spec.get("leaderboards") or [] if isinstance(b, dict)]
    if not phases or not boards:
        return
    board = boards[0]
    where = ", ".join(str(i + 1) for i, _ in phases)
    rule = board.get("submission_rule")
    if rule in ("Force_Last", "Force_Best"):
        ctx.add("warning", platform, "leaderboard", "leaderboards.0.submission_rule", "phase%s %s run%s each "
                "submission on several tasks, and %s applies to each task's run on its own: %s" % (
                    "s" if len(phases) > 1 else "", where, "" if len(phases) > 1 else "s", rule,
                    "only the run that finished last stays on the leaderboard, the submission's other tasks are "
                    "dropped (codabench#1022)" if rule == "Force_Last" else "it keeps one run of one submission, "
                    "the first by the primary column with runs that lack it first: often a run of the worse "
                    "submission, without the ranking score"), "use Add (the participant puts the whole submission on "
                "the leaderboard) or Force_Latest_Multiple", accepted=True)
    columns = [c for c in board.get("columns") or [] if isinstance(c, dict)]
    computed = [str(c.get("key")) for c in columns if c.get("computation")]
    if computed:
        ctx.add("note", platform, "leaderboard", "leaderboards.0.columns", "phase%s %s run%s each submission on "
                "several tasks: Codabench computes %s on the submission (its scores and the API show %s) but the "
                "leaderboard lists each task's run as its row, where %s stay%s empty (n/a); only a submission made "
                "to one task shows %s there" % (
                    "s" if len(phases) > 1 else "", where, "" if len(phases) > 1 else "s", ", ".join(computed),
                    "them" if len(computed) > 1 else "it", "they" if len(computed) > 1 else "it",
                    "" if len(computed) > 1 else "s", "them" if len(computed) > 1 else "it"))
    primary = next((c for c in columns if c.get("index") == board.get("primary_index", 0)), None)
    if primary is not None and (primary.get("sorting") or "desc") == "desc":
        ctx.add("note", platform, "leaderboard", "leaderboards.0.primary_index", "phase%s %s: Codabench orders the "
                "runs of the tasks by %s, descending, a run without it first (PostgreSQL puts a missing value first "
                "in a descending order), and shows a submission where its first run comes: the rows follow the "
                "runs of the tasks that do not write %s, not %s itself (codabench#639); results ranks by %s" % (
                    "s" if len(phases) > 1 else "", where, primary.get("key"), primary.get("key"),
                    primary.get("key"), primary.get("key")))
