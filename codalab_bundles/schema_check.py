"""Checking what a YAML file says against a JSON Schema, in words a person can act on.

Both definitions this package reads are checked this way: a bundle's competition.yaml against its platform's schema
(platforms/schemas/, by validate) and a task's task.yaml against authoring/schemas/task.schema.json (by
authoring.taskdef). JSON Schema ignores keywords it does not know; the schemas add these:

- ``x-fix``: what to change when a value breaks the rule (validate prints it under the finding);
- ``x-message``: the sentence a person reads when a value breaks the rule, in which ``{key}`` names where the value
  is and ``{value}`` is the value as YAML read it (task.yaml's messages are whole sentences like this);
- ``x-missing``: the same sentence for a required key that is not there ("{key} is required" otherwise);
- ``x-unknown-keys``: an object whose other keys the platform ignores without a word (see unknown_keys).

A key of a closed object (``additionalProperties: false``) that the schema does not list is named with the closest
key it does list: ``did you mean registration_auto_aprove -> registration_auto_approve?``.
"""
from __future__ import annotations

import datetime
import difflib
import functools
import json
from pathlib import Path
from typing import Callable, Iterator

import jsonschema

# JSON Schema's types as YAML reads numbers: an integer is written without a decimal point (5, not 5.0 nor true).
YAML_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda checker, value: isinstance(value, int) and not isinstance(value, bool))
_YAML_VALIDATOR = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=YAML_TYPES)


@functools.lru_cache(maxsize=None)
def load(path: str | Path) -> dict:
    """The schema at ``path``, read once: each file is checked against it for errors and for unknown keys."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def jsonable(value):
    """YAML values as JSON Schema sees them: dates become tagged strings, mapping keys become strings."""
    if isinstance(value, datetime.datetime):
        return "<datetime %s>" % value.isoformat()
    if isinstance(value, datetime.date):
        return "<date %s>" % value.isoformat()
    if isinstance(value, dict):
        return dict((str(k), jsonable(v)) for k, v in value.items())
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


def errors(schema: dict, value, yaml_integers: bool = False) -> Iterator[jsonschema.ValidationError]:
    """The rules ``value`` (already jsonable) breaks, in the order the schema lists them. ``yaml_integers``: an
    integer must be written as one (YAML_TYPES), as task.yaml's limits always were."""
    validator = _YAML_VALIDATOR if yaml_integers else jsonschema.Draft202012Validator
    return validator(schema).iter_errors(value)


def closest(key, known) -> str | None:
    """The known key most like ``key``, if one is close enough to be a typo of it."""
    found = difflib.get_close_matches(str(key), sorted(known), n=1, cutoff=0.6)
    return found[0] if found else None


def _guesses(error: jsonschema.ValidationError) -> list[str]:
    """'typo -> key' for each key a closed object does not list and that is close to one it does."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return []
    known = error.schema.get("properties", {})
    return ["%s -> %s" % (k, closest(k, known)) for k in error.instance if k not in known and closest(k, known)]


def fix_hint(error: jsonschema.ValidationError) -> str | None:
    """What to change: the x-fix of the rule broken (or of the alternative that came closest), preceded for
    unknown keys by the keys they may be typos of."""
    hint = None
    for schema in [error.schema] + [e.schema for e in (error.context or [])]:
        if isinstance(schema, dict) and schema.get("x-fix"):
            hint = schema["x-fix"]
            break
    guesses = _guesses(error)
    if guesses:
        hint = "did you mean %s? %s" % (", ".join(guesses), hint or "")
    return hint


def resolve(schema, root: dict) -> dict:
    """``schema`` with its ``$ref`` (to root's $defs) followed."""
    while isinstance(schema, dict) and "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema if isinstance(schema, dict) else {}


def _dotted(path) -> str:
    return ".".join(str(p) for p in path)


def message(error: jsonschema.ValidationError, root: dict, name: Callable[[list], str] = _dotted) -> str:
    """One sentence for a person about ``error``, whose place in the file ``name`` words (from the path of keys and
    indexes; '' for the whole file): the schema's x-message or x-missing with {key} and {value} filled in; for
    keys the schema does not list, them and the keys it does, with the closest; else jsonschema's own words."""
    path = list(error.absolute_path)
    if error.validator == "additionalProperties" and error.validator_value is False:
        known = error.schema.get("properties", {})
        text = "unknown keys %s (allowed: %s)" % (sorted(k for k in error.instance if k not in known), sorted(known))
        guesses = _guesses(error)
        if guesses:
            text += "; did you mean %s?" % ", ".join(guesses)
        place = name(path)
        return "%s: %s" % (place, text) if place else text
    if error.validator == "required":
        absent = [k for k in error.validator_value if k not in error.instance]
        key = next((k for k in absent if error.message.startswith(repr(k))), absent[0])
        template = resolve(error.schema.get("properties", {}).get(key), root).get("x-missing", "{key} is required")
        return template.replace("{key}", name(path + [key]))
    template = error.schema.get("x-message") if isinstance(error.schema, dict) else None
    if template is None:
        return "%s: %s" % (name(path), error.message) if path else error.message
    return template.replace("{key}", name(path)).replace("{value}", repr(error.instance))


def _walk_unknown(value, schema, root, where, found):
    schema = resolve(schema, root)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        closed = schema.get("additionalProperties") is False or "x-unknown-keys" in schema
        for key, item in value.items():
            path = "%s.%s" % (where, key) if where else str(key)
            if key in properties:
                _walk_unknown(item, properties[key], root, path, found)
            elif closed:
                found.append((where or "(top level)", key, properties))
            elif isinstance(schema.get("additionalProperties"), dict):
                _walk_unknown(item, schema["additionalProperties"], root, path, found)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            _walk_unknown(item, schema["items"], root, "%s.%d" % (where, i), found)


def unknown_keys(value, schema: dict) -> list[tuple[str, str, dict]]:
    """(where, key, the keys listed there) for each key of ``value`` (already jsonable) in a closed object that the
    schema does not list. An object is closed when it says additionalProperties: false or x-unknown-keys."""
    found = []
    _walk_unknown(value, schema, schema, "", found)
    return found
