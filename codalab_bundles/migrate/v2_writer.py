"""Writing a Codabench (version 2) competition.yaml from plain data: mappings, lists, strings, numbers, booleans.

The text is deterministic (keys in the order given), strings are JSON-quoted (a valid YAML double-quoted scalar,
whatever they hold), so a date string stays a string: Codabench keeps the time of a string but only the day of an
unquoted YAML timestamp. None values are left out (Codabench's defaults apply).
"""
import yaml

from ..authoring.render import yaml_quote


def _scalar(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return yaml_quote(value)


def _flow_list(values):
    return "[%s]" % ", ".join(_scalar(v) for v in values)


def _lines(value, indent):
    pad = " " * indent
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            if item is None:
                continue
            if isinstance(item, dict) and not item:
                out.append("%s%s: {}" % (pad, key))
            elif isinstance(item, dict):
                out.append("%s%s:" % (pad, key))
                out.extend(_lines(item, indent + 2))
            elif isinstance(item, list) and item and any(isinstance(v, (dict, list)) for v in item):
                out.append("%s%s:" % (pad, key))
                out.extend(_lines(item, indent + 2))
            elif isinstance(item, list):
                out.append("%s%s: %s" % (pad, key, _flow_list(item)))
            else:
                out.append("%s%s: %s" % (pad, key, _scalar(item)))
    else:
        for item in value:
            inner = _lines(item, indent + 2)
            out.append("%s- %s" % (pad, inner[0].lstrip()))
            out.extend(inner[1:])
    return out


def render(spec, header=""):
    """competition.yaml text for ``spec``; checks that it reads back as ``spec`` (None values dropped)."""
    text = "".join("# %s\n" % line for line in header.splitlines()) + "\n".join(_lines(spec, 0)) + "\n"
    if yaml.safe_load(text) != _without_none(spec):
        raise ValueError("competition.yaml does not read back as written")  # a writer bug, never the input's
    return text


def _without_none(value):
    if isinstance(value, dict):
        return dict((k, _without_none(v)) for k, v in value.items() if v is not None)
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value
