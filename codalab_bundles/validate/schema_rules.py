"""The JSON Schema checks: a bundle's competition.yaml against its platform's schema (platforms/schemas/), each
error with the schema's fix hint (x-fix), and the keys Codabench ignores without a word, with the closest key it
reads. How a schema is read and its errors worded is shared with task.yaml's check (codalab_bundles/schema_check)."""
from __future__ import annotations

from .. import resources, schema_check
from .findings import Context

SCHEMAS = resources.SCHEMAS


def check_schema(ctx: Context, platform: str, schema_name: str) -> None:
    """An error for each rule of the platform's schema that competition.yaml breaks, with the rule's x-fix."""
    schema = schema_check.load(SCHEMAS / schema_name)
    for error in sorted(schema_check.errors(schema, schema_check.jsonable(ctx.spec)),
                        key=lambda e: list(map(str, e.absolute_path))):
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        ctx.add("error", platform, "schema", where, error.message, schema_check.fix_hint(error))


# Keys of a v2 bundle that are other names of what the v2 unpacker reads (CodaLab v1.5's, or the stored field's):
# {place: {key: (the v2 key, what the import does instead)}}; the place as check_unknown_keys sees it.
V2_NAMES = {
    "phase": {
        "max_submissions_per_person": ("max_submissions", "the v2 unpacker reads max_submissions (and stores it as "
                                       "the phase's max_submissions_per_person), so the limit is max_submissions' "
                                       "(100 when absent)"),
        "auto_migration": ("auto_migrate_to_this_phase", "CodaLab's name: no submission migrates into the phase"),
        "label": ("name", "CodaLab's name: the phase has no name"),
        "start_date": ("start", "CodaLab's name"),
        "end_date": ("end", "CodaLab's name"),
        "phasenumber": ("index", "CodaLab's name: the phases are ordered by index"),
        "leaderboard_management_mode": ("hide_output", "CodaLab's blind phase: hide_output (and "
                                        "hide_score_output) are Codabench's nearest settings"),
    },
    "top": {
        "has_registration": ("registration_auto_approve", "CodaLab's name (inverted: registration_auto_approve: "
                             "false requires approval); Codabench's v2 default is false, approval required"),
        "competition_docker_image": ("docker_image", "CodaLab's name: the image is codalab/codalab-legacy:py37"),
        "enable_forum": ("forum_enabled", "CodaLab's name"),
        "allow_public_submissions": ("can_participants_make_submissions_public", "CodaLab's name"),
    },
    "leaderboard": {"label": ("title", "CodaLab's name")},
    "column": {"label": ("title", "CodaLab's name"), "sort": ("sorting", "CodaLab's name: the column sorts desc"),
               "numeric_format": ("precision", "CodaLab's name: 2 decimals are shown"),
               "rank": ("index", "CodaLab's name")},
}


def _place(where: str) -> str:
    """'(top level)', 'phases.0', 'leaderboards.0', 'leaderboards.0.columns.1', ... as top, phase, leaderboard,
    column (or the first part of where for the rest)."""
    parts = [p for p in where.split(".") if not p.isdigit()]
    return {"(top level)": "top", "phases": "phase", "leaderboards": "leaderboard",
            "leaderboards.columns": "column"}.get(".".join(parts), ".".join(parts))


def check_unknown_keys(ctx: Context, platform: str, schema_name: str) -> None:
    """Codabench ignores keys it does not read, without a word: a typo silently loses the setting."""
    schema = schema_check.load(SCHEMAS / schema_name)
    for where, key, known in schema_check.unknown_keys(schema_check.jsonable(ctx.spec), schema):
        named = V2_NAMES.get(_place(where), {}).get(key) if ctx.version == "2" else None
        if named:
            ctx.add("warning", platform, "unknown-key", where, "Codabench's v2 import ignores the key %r without a "
                    "word: %s" % (key, named[1]), "write %s: %s" % (named[0], "the v2 key"))
            continue
        guess = schema_check.closest(key, known)
        ctx.add("warning", platform, "unknown-key", where, "Codabench ignores the key %r without a word%s"
                % (key, ": the setting is lost" if guess else ""),
                "did you mean %s?" % guess if guess else "remove it, or check Codabench's competition.yaml keys")


def unknown_keys(ctx: Context, platform: str) -> None:
    """check_unknown_keys with the schema of the bundle's version (the CHECKS entry)."""
    check_unknown_keys(ctx, platform, "codabench-v2.schema.json" if ctx.version == "2" else
                       "codalab-v1.5.schema.json")
