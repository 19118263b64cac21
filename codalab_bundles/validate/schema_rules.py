"""The JSON Schema checks: a bundle's competition.yaml against its platform's schema (platforms/schemas/), each
error with the schema's fix hint (x-fix), and the keys Codabench ignores without a word, with the closest key it
reads."""
from __future__ import annotations

import datetime
import difflib
import functools
import json

import jsonschema

from .. import resources
from .findings import Context

SCHEMAS = resources.SCHEMAS


def _jsonable(value):
    """YAML values as JSON Schema sees them: dates become tagged strings, mapping keys become strings."""
    if isinstance(value, datetime.datetime):
        return "<datetime %s>" % value.isoformat()
    if isinstance(value, datetime.date):
        return "<date %s>" % value.isoformat()
    if isinstance(value, dict):
        return dict((str(k), _jsonable(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _closest(key, known):
    found = difflib.get_close_matches(str(key), sorted(known), n=1, cutoff=0.6)
    return found[0] if found else None


def _fix_hint(error):
    hint = None
    for schema in [error.schema] + [e.schema for e in (error.context or [])]:
        if isinstance(schema, dict) and schema.get("x-fix"):
            hint = schema["x-fix"]
            break
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        guesses = ["%s -> %s" % (k, _closest(k, known)) for k in error.instance
                   if k not in known and _closest(k, known)]
        if guesses:
            hint = "did you mean %s? %s" % (", ".join(guesses), hint or "")
    return hint


@functools.lru_cache(maxsize=None)
def _load_schema(schema_name):  # read once: each bundle is checked against it for errors and for unknown keys
    return json.loads((SCHEMAS / schema_name).read_text())


def check_schema(ctx: Context, platform: str, schema_name: str) -> None:
    """An error for each rule of the platform's schema that competition.yaml breaks, with the rule's x-fix."""
    schema = _load_schema(schema_name)
    validator = jsonschema.Draft202012Validator(schema)
    for error in sorted(validator.iter_errors(_jsonable(ctx.spec)), key=lambda e: list(map(str, e.absolute_path))):
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        ctx.add("error", platform, "schema", where, error.message, _fix_hint(error))


def _resolve(schema, root):
    while isinstance(schema, dict) and "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema if isinstance(schema, dict) else {}


def _unknown_keys(value, schema, root, where, found):
    """Walk ``value`` with ``schema``; collect (where, key, known keys) for keys of closed objects that the schema
    does not list. An object is closed when it says additionalProperties: false or x-unknown-keys."""
    schema = _resolve(schema, root)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        closed = schema.get("additionalProperties") is False or "x-unknown-keys" in schema
        for key, item in value.items():
            path = "%s.%s" % (where, key) if where else str(key)
            if key in properties:
                _unknown_keys(item, properties[key], root, path, found)
            elif closed:
                found.append((where or "(top level)", key, properties))
            elif isinstance(schema.get("additionalProperties"), dict):
                _unknown_keys(item, schema["additionalProperties"], root, path, found)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            _unknown_keys(item, schema["items"], root, "%s.%d" % (where, i), found)


def check_unknown_keys(ctx: Context, platform: str, schema_name: str) -> None:
    """Codabench ignores keys it does not read, without a word: a typo silently loses the setting."""
    schema = _load_schema(schema_name)
    found = []
    _unknown_keys(_jsonable(ctx.spec), schema, schema, "", found)
    for where, key, known in found:
        guess = _closest(key, known)
        ctx.add("warning", platform, "unknown-key", where, "Codabench ignores the key %r without a word%s"
                % (key, ": the setting is lost" if guess else ""),
                "did you mean %s?" % guess if guess else "remove it, or check Codabench's competition.yaml keys")


def unknown_keys(ctx: Context, platform: str) -> None:
    """check_unknown_keys with the schema of the bundle's version (the CHECKS entry)."""
    check_unknown_keys(ctx, platform, "codabench-v2.schema.json" if ctx.version == "2" else
                       "codalab-v1.5.schema.json")
