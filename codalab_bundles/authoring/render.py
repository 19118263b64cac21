"""Rendering competition.yaml from a task definition with jinja2."""
import datetime
import json
from pathlib import Path

import jinja2
import yaml

from . import tracks

TEMPLATES = Path(__file__).resolve().parent / "templates"
PAGE_ORDER = ("overview", "evaluation", "terms", "data")


def yaml_quote(value):
    # A JSON string is a valid YAML double-quoted scalar, whatever it contains (colons, quotes, '#', unicode).
    return json.dumps("" if value is None else str(value))


def _when(value):
    """A quoted "YYYY-MM-DD HH:MM:SS" in UTC.

    Quoted, because Codabench keeps only the day of an unquoted YAML timestamp (its get_datetime tests for a date
    first, and a datetime is a date) but parses a string with its time. CodaLab v1.5 reads the same string with
    Django's parse_datetime, which needs the time part that is always written here, as naive UTC.
    """
    if not isinstance(value, datetime.datetime):
        raise ValueError("not a datetime: %r" % (value,))
    return '"%s"' % value.strftime("%Y-%m-%d %H:%M:%S")


def _bool(value):
    return "true" if value else "false"


def _scalar(value):
    if isinstance(value, bool):
        return _bool(value)
    if isinstance(value, int):
        return str(value)
    return yaml_quote(value)


def _flow(value):
    """A value as one line of YAML (JSON is YAML's flow style): [true, false], ["", "a"], ""."""
    return json.dumps(value)


def _environment():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, trim_blocks=False, lstrip_blocks=False,
                             autoescape=False)
    env.filters.update(q=yaml_quote, when=_when, b=_bool, scalar=_scalar, flow=_flow)
    return env


def _long_when(value):
    """'31 July 2020, 00:00': how pages show a UTC instant."""
    return "%d %s" % (value.day, value.strftime("%B %Y, %H:%M"))


def _long_day(value):
    return "%d %s" % (value.day, value.strftime("%B %Y"))


def _page_environment(task):
    # Pages are HTML: values from task.yaml are escaped. A page can include the shared partials (schedule.html.j2).
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([str(task.folder / "pages"), str(TEMPLATES / "pages")]),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=True)
    env.filters.update(when=_long_when, day=_long_day)
    return env


def _phase_by_label(task):
    def phase(label):
        for candidate in task.phases:
            if candidate.label == label:
                return candidate
        raise ValueError("no phase labelled %r in task.yaml" % label)
    return phase


def page_bytes(task, key):
    """The page for html key ``key``: a .html file as it is, or a .j2 template rendered from the task definition
    (``task``, ``phase(label)``, and the shared partials), so dates, limits and score keys are written once."""
    name = task.pages[key]
    if not name.endswith(".j2"):
        return (task.folder / "pages" / name).read_bytes()
    template = _page_environment(task).get_template(name)
    return template.render(task=task, phase=_phase_by_label(task), program=_program(task)).encode("utf-8")


def _program(task):
    """A generic task's scoring.json with its defaults (file names, columns for the pages), else None."""
    if not (task.scoring_program / "scoring.json").is_file():
        return None
    from . import generic_kits  # only generic tasks need the generic programs' configuration
    return generic_kits.program_config(task.scoring_program)


def page_files(task):
    """(html key, file name in the bundle) in the order CodaLab shows the tabs: the fixed four, then the rest."""
    keys = [k for k in PAGE_ORDER if k in task.pages] + [k for k in task.pages if k not in PAGE_ORDER]
    return [(key, "%s.html" % key) for key in keys]


def render_v15(task, files):
    """competition.yaml text for CodaLab v1.5. ``files`` names the data zips per split (reference/public/kit)."""
    text = _environment().get_template("competition-v1.5.yaml.j2").render(
        task=task, phases=task.phases, pages=page_files(task), files=files, v15_columns=tracks.v15_columns(task))
    yaml.safe_load(text)  # a rendering mistake must fail the build, not the upload
    return text


def render_v2(task, files):
    """competition.yaml text for Codabench (version 2), from the same task definition and files."""
    text = _environment().get_template("competition-v2.yaml.j2").render(
        task=task, phases=task.phases, pages=page_files(task), files=files,
        phase_tasks=lambda phase: tracks.phase_task_indexes(task, phase))
    yaml.safe_load(text)
    return text
