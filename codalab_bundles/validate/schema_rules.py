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


def check_unknown_keys(ctx: Context, platform: str, schema_name: str) -> None:
    """Codabench ignores keys it does not read, without a word: a typo silently loses the setting."""
    schema = schema_check.load(SCHEMAS / schema_name)
    for where, key, known in schema_check.unknown_keys(schema_check.jsonable(ctx.spec), schema):
        guess = schema_check.closest(key, known)
        ctx.add("warning", platform, "unknown-key", where, "Codabench ignores the key %r without a word%s"
                % (key, ": the setting is lost" if guess else ""),
                "did you mean %s?" % guess if guess else "remove it, or check Codabench's competition.yaml keys")


def unknown_keys(ctx: Context, platform: str) -> None:
    """check_unknown_keys with the schema of the bundle's version (the CHECKS entry)."""
    check_unknown_keys(ctx, platform, "codabench-v2.schema.json" if ctx.version == "2" else
                       "codalab-v1.5.schema.json")
