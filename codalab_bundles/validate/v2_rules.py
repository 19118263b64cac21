"""The cross-file checks of Codabench version 2 bundles: the files the bundle names (pages may not be empty), task
indexes, phases' tasks and leaderboard columns (unique indexes and keys, computations over other columns)."""
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
        for c in columns:
            if "computation" in c and "computation_indexes" not in c:
                ctx.add("error", platform, "leaderboard", "leaderboards.%d.columns.%s" % (b, c.get("key")),
                        "'Column with computation must have at least 1 column selected for the computation to act "
                        "upon': a computation key, even null, needs computation_indexes", "remove computation, or "
                        "add computation_indexes")
            for ref in c.get("computation_indexes") or []:
                if ref not in indexes or ref == c.get("index"):
                    ctx.add("error", platform, "leaderboard", "leaderboards.%d.columns.%s" % (b, c.get("key")),
                            "computation_indexes names %r, which is not another column" % ref,
                            "list other columns' indexes")
    if len(spec.get("leaderboards") or []) > 1:
        ctx.add("note", platform, "leaderboard", "leaderboards", "several leaderboards: check that each phase shows"
                " the one you expect")
