"""Checking any competition bundle before upload: ours or third-party, CodaLab v1.5 and/or Codabench.

The rules are data where they can be: a JSON Schema per platform (schemas/*.schema.json, each rule carrying an
``x-fix`` hint), plus the short list of cross-file checks below (CHECKS), and a replay of each phase's
starting-kit submission. See codalab-platforms.md sections 1, 4 and 5 for where each rule comes from.
"""
import codecs
import datetime
import difflib
import functools
import io
import json
import re
import zipfile

import jsonschema
import yaml

from .. import replay as replays, resources
from ..platforms import codabench_model, codalab_leaderboard
from ..zips import safe_zip

SCHEMAS = resources.SCHEMAS
PLATFORMS = ("codabench", "codalab")
DEFAULT_PLATFORMS = ("codabench",)  # CodaLab Competitions stopped taking submissions at the end of 2025
LABELS = {"codalab": "CodaLab v1.5", "codabench": "Codabench"}
SEVERITIES = ("error", "warning", "note")  # notes are printed but do not fail the validation
MAX_PAGE_BYTES = 4 * safe_zip.MIB  # a page is shown inline by both sites; megabytes of HTML are a mistake
# Codabench's field limits (models at c7dbc756): Task.name and Phase.name 256, Page.title 255, and the bundle's
# own file name 64 (Data.file_name: the upload is refused with HTTP 400 beyond it).
MAX_TASK_NAME, MAX_PAGE_TITLE, MAX_BUNDLE_FILE_NAME = 256, 255, 64


# Rules whose errors the platform's import does not see: the bundle is accepted, and its submissions fail.
RUN_TIME_RULES = ("program", "replay")


class Finding(object):
    """One finding. ``accepted``: an error the platform's import accepts (the competition is created, and cannot
    be used as it is: programs that cannot run, a phase nobody can submit to)."""

    def __init__(self, severity, platform, rule, where, message, fix=None, accepted=None):
        self.severity, self.platform, self.rule = severity, platform, rule
        self.where, self.message, self.fix = where, message, fix
        self.accepted = rule in RUN_TIME_RULES if accepted is None else accepted

    def as_dict(self):
        return dict(self.__dict__)

    def __repr__(self):
        return "Finding(%s, %s, %s, %s)" % (self.severity, self.platform, self.rule, self.message)


class Context(object):
    """The opened bundle and what the checks share."""

    def __init__(self, path, archive, spec, version, limits=None):
        self.path, self.zip, self.spec, self.version = str(path), archive, spec, version
        self.names = set(archive.namelist())
        self.findings = []
        self.limits = limits or safe_zip.Limits()

    def read(self, name):
        """An entry's bytes, within the extraction limits (raises safe_zip.ZipRefused)."""
        return safe_zip.read_member(self.zip, name, self.path, self.limits)

    def add(self, severity, platform, rule, where, message, fix=None, accepted=None):
        self.findings.append(Finding(severity, platform, rule, where, message, fix, accepted))

    def exists(self, name):
        """A file in the zip, or (Codabench allows it) a folder."""
        return name in self.names or any(n.startswith(name.rstrip("/") + "/") for n in self.names)


# ---------------------------------------------------------------------------------------------------------------
# Schema rules


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


def check_schema(ctx, platform, schema_name):
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


def check_unknown_keys(ctx, platform, schema_name):
    """Codabench ignores keys it does not read, without a word: a typo silently loses the setting."""
    schema = _load_schema(schema_name)
    found = []
    _unknown_keys(_jsonable(ctx.spec), schema, schema, "", found)
    for where, key, known in found:
        guess = _closest(key, known)
        ctx.add("warning", platform, "unknown-key", where, "Codabench ignores the key %r without a word%s"
                % (key, ": the setting is lost" if guess else ""),
                "did you mean %s?" % guess if guess else "remove it, or check Codabench's competition.yaml keys")


# ---------------------------------------------------------------------------------------------------------------
# Cross-file checks (v1.5 bundles)


def _v1_phases(ctx):
    phases = ctx.spec.get("phases")
    return [(k, p) for k, p in phases.items() if isinstance(p, dict)] if isinstance(phases, dict) else []


def _v1_columns(ctx):
    columns = (ctx.spec.get("leaderboard") or {}).get("columns")
    return [(str(k), c) for k, c in columns.items() if isinstance(c, dict)] if isinstance(columns, dict) else []


def v1_files(ctx, platform):
    refs = [("image", ctx.spec.get("image"))]
    refs += [("html.%s" % k, v) for k, v in (ctx.spec.get("html") or {}).items()]
    for key, phase in _v1_phases(ctx):
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


def page_problem(ctx, name):
    """None, "empty" (0 bytes), "blank" (only white space), or (message, fix) for a page, read in bounded
    chunks: a page can be a zip bomb too."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    blank, size = True, 0
    try:
        info = ctx.zip.getinfo(name)
        for chunk in safe_zip.iter_member(ctx.zip, info, "%s/%s" % (ctx.path, name), ctx.limits.budget()):
            size += len(chunk)
            if size > MAX_PAGE_BYTES:
                return ("%s is larger than %s" % (name, safe_zip.size_text(MAX_PAGE_BYTES)),
                        "keep pages to text and small inline images; link to anything larger")
            try:
                blank = not decoder.decode(chunk).strip() and blank
            except UnicodeDecodeError:
                return "%s is not UTF-8" % name, "save the page as UTF-8"
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return "%s is not UTF-8" % name, "save the page as UTF-8"
    except safe_zip.ZipRefused as exc:
        return str(exc), "make the page a plain file of a few kilobytes"
    except (KeyError, zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
        return "%s cannot be read: %s" % (name, exc), "rebuild the zip"
    return "empty" if size == 0 else "blank" if blank else None


def v1_phase_numbers(ctx, platform):
    numbers = [p.get("phasenumber") for _, p in _v1_phases(ctx)]
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


def v1_phase_order(ctx, platform):
    """CodaLab: a phase ends when phasenumber+1 starts, so a phase that starts with or after the next one never
    opens, unless it never ends (CompetitionPhase.is_active is then always true: phases open side by side).
    Codabench's own view of the same dates is checked with what it stores (codabench_stored)."""
    phases = sorted((p.get("phasenumber", 0), key, p) for key, p in _v1_phases(ctx)
                    if isinstance(p.get("phasenumber", 0), int))
    for (_, k1, p1), (_, k2, p2) in zip(phases, phases[1:]):
        s1, s2 = _start(p1), _start(p2)
        if s1 is not None and s2 is not None and s2 <= s1 and not p1.get("phase_never_ends"):
            ctx.add("error", platform, "phases", "phases.%s.start_date" % k2, "phase %s starts before or when "
                    "phase %s starts, so phase %s never opens" % (k2, k1, k1), "give each phase a later start than "
                    "the previous one (or phase_never_ends to keep phases open side by side)", accepted=True)


def v1_leaderboard(ctx, platform):
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
    columns = _v1_columns(ctx)
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


def v1_codabench_import(ctx, platform):
    """What Codabench's v1 unpacker drops or changes (spec 4.3)."""
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
    for key, phase in _v1_phases(ctx):
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


def v1_codabench_names(ctx, platform):
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


def _closed_phase(ctx, platform, where, phase, *fields):
    """A limit of 0 refused every submission on CodaLab; Codabench skips a falsy limit, so it means no limit
    (Phase.can_user_make_submissions: 'if self.max_submissions_per_day:')."""
    zero = [f for f in fields if phase.get(f) == 0 and not isinstance(phase.get(f), bool)]
    if zero:
        ctx.add("warning", platform, "limits", where, "%s: 0 means no limit at all on Codabench (on CodaLab it "
                "refused every submission)" % " and ".join(zero), "to close the phase, leave no phase open in that "
                "interval (or end it when it starts); otherwise give the real limit")


# ---------------------------------------------------------------------------------------------------------------
# Cross-file checks (v2 bundles)


def v2_files(ctx, platform):
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


def v2_structure(ctx, platform):
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


# ---------------------------------------------------------------------------------------------------------------
# What Codabench stores (both bundle versions): dates after its conversion, phase order, the ordering column


def _when(value):
    return codabench_model.format_instant(value)


def codabench_stored(ctx, platform):
    try:
        phases = codabench_model.stored_phases(ctx.spec, ctx.version)
    except codabench_model.ImportRefused as exc:
        ctx.add("error", platform, "phases", "phases", "Codabench refuses the bundle: %s" % exc,
                "give every phase a start and, when another phase follows, an end before that phase's start")
        return
    for phase in phases:
        gap = " (one day before the next phase starts: no submissions in between)" \
            if codabench_model.DAY_BEFORE in phase.end.changes else ""
        ctx.add("note", platform, "stored-dates", phase.where, "Codabench stores phase %d (%s): %s to %s%s"
                % (phase.index + 1, phase.name, _when(phase.start.stored), _when(phase.end.stored), gap))
        for field, date in (("start", phase.start), ("end", phase.end)):
            written = date.written
            for change in date.changes:
                if change == codabench_model.DAY_BEFORE:
                    continue
                elif change.startswith("read by dateutil"):
                    ctx.add("note", platform, "stored-dates", phase.where, "%r is %s (month first when ambiguous)"
                            % (written, change))
                else:
                    ctx.add("warning", platform, "stored-dates", phase.where, "%s %s: %s, so Codabench stores %s"
                            % (field, written, change, _when(date.stored)),
                            'quote the date in UTC with its time: "%s"' % (
                                written.strftime("%Y-%m-%d %H:%M:%S") if isinstance(written, datetime.datetime)
                                else "YYYY-MM-DD HH:MM:SS"))
        migrated_to = phase.source.get("auto_migrate_to_this_phase" if ctx.version == "2" else "auto_migration")
        if phase.never_opens and migrated_to and phase.index > 0:
            ctx.add("note", platform, "stored-dates", phase.where, "phase %d (%s) ends when it starts: it takes no "
                    "submission of its own, and shows the submissions auto-migration brings from the phase before"
                    % (phase.index + 1, phase.name))
        elif phase.never_opens:
            ctx.add("error", platform, "stored-dates", phase.where, "phase %d (%s) ends (%s) before or when it "
                    "starts (%s): Codabench accepts it, but nobody can ever submit to it" % (
                        phase.index + 1, phase.name, _when(phase.end.stored), _when(phase.start.stored)),
                    "end it after its start" if ctx.version == "2" else
                    "start the next phase at least one day after this one", accepted=True)
        else:
            _closed_phase(ctx, platform, phase.where, phase.source, "max_submissions", "max_submissions_per_day")
    _ordering_column(ctx, platform)
    _pages(ctx, platform)


def _pages(ctx, platform):
    """The tabs Codabench makes: v1 html keys become page titles as written, in order; terms is its own page."""
    if ctx.version == "2":
        titles = [str(p.get("title")) for p in ctx.spec.get("pages") or [] if isinstance(p, dict)]
    else:
        html = ctx.spec.get("html")
        titles = [str(k) for k in html if k != "terms"] if isinstance(html, dict) else []
    if titles:
        ctx.add("note", platform, "pages", "pages" if ctx.version == "2" else "html", "Codabench shows the pages %s"
                " (in this order) and the terms" % ", ".join(repr(t) for t in titles))


def _ordering_column(ctx, platform):
    """Codabench orders a leaderboard by the column whose index is primary_index (0 unless set)."""
    if ctx.version == "2":
        boards = [b for b in ctx.spec.get("leaderboards") or [] if isinstance(b, dict)]
        if not boards:
            return
        primary = boards[0].get("primary_index", 0)
        keys = [c.get("key") for c in boards[0].get("columns") or [] if isinstance(c, dict)
                and c.get("index") == primary]
        if keys:
            ctx.add("note", platform, "leaderboard", "leaderboards.0", "Codabench ranks the leaderboard by %s"
                    % keys[0])
        else:
            ctx.add("warning", platform, "leaderboard", "leaderboards.0", "no column has index %s (the "
                    "leaderboard's primary_index): the leaderboard is ordered by no column" % primary,
                    "give the ranking column index 0")
    else:
        columns = _v1_columns(ctx)
        if columns:
            first = min(columns, key=lambda kc: kc[1].get("rank", 1) if isinstance(kc[1].get("rank", 1), int) else 1)
            ctx.add("note", platform, "leaderboard", "leaderboard.columns.%s" % first[0], "Codabench ranks the "
                    "leaderboard by this column (the lowest rank)")


# Signatures of image formats Pillow opens (Codabench stores the logo through an image field).
_IMAGE_SIGNATURES = ((b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR", 0), (b"\xff\xd8\xff", 0), (b"GIF87a", 0), (b"GIF89a", 0),
                     (b"BM", 0), (b"WEBP", 8))


def is_image(head):
    """Whether the file beginning with ``head`` (32 bytes) is an image Codabench's logo field opens."""
    return any(head[offset:offset + len(magic)] == magic for magic, offset in _IMAGE_SIGNATURES)


_SOF_MARKERS = set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # start of frame (DHT, JPG and DAC are not)


def jpeg_components(data):
    """The number of colour components of a JPEG's frame (1 grey, 3 colour, 4 CMYK or YCCK), or None."""
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:  # markers without a length
            at += 2
            continue
        length = int.from_bytes(data[at + 2:at + 4], "big")
        if marker in _SOF_MARKERS:
            return data[at + 9] if at + 9 < len(data) else None
        at += 2 + length
    return None


def is_cmyk_jpeg(data):
    """Whether an image is a four-component (CMYK) JPEG: Codabench makes a PNG icon of every logo
    (Competition.make_logo_icon), and Pillow cannot write CMYK as PNG, so the upload fails."""
    return data[:3] == b"\xff\xd8\xff" and jpeg_components(data) == 4


def logo_image(ctx, platform):
    name = ctx.spec.get("image")
    if not isinstance(name, str) or name not in ctx.names:
        return  # a missing logo is reported with the other files
    with ctx.zip.open(name) as handle:
        head = handle.read(32)
    if not is_image(head):
        ctx.add("error", platform, "files", "image", "%s is not an image Codabench can open ('logo: Please upload a"
                " valid image.')" % name, "use a PNG, JPEG or GIF logo")
    elif platform == "codabench" and head[:3] == b"\xff\xd8\xff" and is_cmyk_jpeg(ctx.zip.read(name)):
        ctx.add("error", platform, "files", "image", "%s is a CMYK JPEG: Codabench makes a PNG icon of the logo and "
                "refuses the bundle ('cannot write mode CMYK as PNG')" % name, "save the logo in RGB (PNG or JPEG)")


def unknown_keys(ctx, platform):
    check_unknown_keys(ctx, platform, "codabench-v2.schema.json" if ctx.version == "2" else
                       "codalab-v1.5.schema.json")


# ---------------------------------------------------------------------------------------------------------------
# Scoring programs

_SHELL = re.compile(r"[|&;<>`\"'*?~()]|\$(?!(program|input|output|tmp|shared|predictions|hidden|ingestion_program|"
                    r"submission_program)\b)")


def check_program(ctx, platform, name, where):
    if not isinstance(name, str) or not name.endswith(".zip") or name not in ctx.names:
        return
    try:
        program = safe_zip.open_archive(io.BytesIO(ctx.read(name)), name)
        safe_zip.check_archive(program, name, ctx.limits)
    except safe_zip.ZipRefused as exc:
        ctx.add("error", platform, "program", where, str(exc), "zip the program's files, within the limits")
        return
    names = [n for n in program.namelist() if not n.startswith("__MACOSX/")]
    metadata_names = [n for n in names if n.rsplit("/", 1)[-1] in ("metadata", "metadata.yaml")]
    at_root = [n for n in metadata_names if "/" not in n]
    if not metadata_names:
        ctx.add("error", platform, "program", where, "%s has no metadata file: 'Program command is not "
                "specified.'" % name, "add a file named metadata with command: python3 $program/evaluate.py "
                "$input $output")
        return
    if not at_root:
        severity = "error" if platform == "codabench" else "warning"
        ctx.add(severity, platform, "program", where, "%s keeps its files in a folder (%s): CodaLab promotes it, "
                "Codabench does not" % (name, metadata_names[0]), "zip the files themselves, not their folder")
    chosen = sorted(metadata_names, key=lambda n: (n.count("/"), n.endswith(".yaml") != (platform == "codabench")))[0]
    if platform == "codalab" and chosen.endswith(".yaml"):
        plain = [n for n in metadata_names if n.endswith("/metadata") or n == "metadata"]
        if not plain:
            ctx.add("error", platform, "program", where, "CodaLab reads only a file named metadata, not "
                    "metadata.yaml", "rename it to metadata")
            return
        chosen = plain[0]
    try:
        metadata_data = safe_zip.read_member(program, chosen, name, ctx.limits)
        metadata = yaml.safe_load(metadata_data)
    except safe_zip.ZipRefused as exc:
        ctx.add("error", platform, "program", where, str(exc), None)
        return
    except yaml.YAMLError as exc:
        ctx.add("error", platform, "program", where, "%s/%s is not YAML: %s" % (name, chosen, exc), None)
        return
    if not isinstance(metadata, dict) or not metadata.get("command"):
        ctx.add("error", platform, "program", where, "%s/%s has no command" % (name, chosen),
                "write command: python3 $program/evaluate.py $input $output")
        return
    extra = sorted(set(metadata) - {"command", "description"})
    if extra and platform == "codalab":
        ctx.add("error", platform, "program", where, "%s/%s has keys %s: the v1.5 worker downloads every other "
                "string value as a URL" % (name, chosen, ", ".join(extra)), "keep only command (and description)")
    commands = metadata["command"] if isinstance(metadata["command"], list) else [metadata["command"]]
    prefix = chosen.rsplit("/", 1)[0] + "/" if "/" in chosen else ""
    for command in commands:
        command = str(command)
        if _SHELL.search(command) or "  " in command or command != command.strip():
            ctx.add("error", platform, "program", where, "command %r needs a shell, but no shell runs it (v1.5 "
                    "splits on single spaces; Codabench splits like a shell but runs no shell)" % command,
                    "one program with plain arguments separated by single spaces; no pipes, redirections, "
                    "quotes or variables other than $program $input $output $tmp $shared")
        for token in command.split(" "):
            if token.startswith("$program/") and prefix + token[len("$program/"):] not in names:
                ctx.add("error", platform, "program", where, "the command runs %s, which is not in %s"
                        % (token, name), "fix the file name in the command or add the file")


def programs(ctx, platform):
    if ctx.version == "2":
        seen = set()
        for i, task in enumerate(ctx.spec.get("tasks") or []):
            if isinstance(task, dict) and task.get("scoring_program") not in seen:
                seen.add(task.get("scoring_program"))
                check_program(ctx, platform, task.get("scoring_program"), "tasks.%d.scoring_program" % i)
    else:
        seen = set()
        for key, phase in _v1_phases(ctx):
            name = phase.get("scoring_program")
            if name not in seen:
                seen.add(name)
                check_program(ctx, platform, name, "phases.%s.scoring_program" % key)


# ---------------------------------------------------------------------------------------------------------------
# Replaying the starting kits' sample submissions


def sample_replays(ctx, platform):
    try:
        bundle = replays.Bundle(ctx.path, ctx.limits)
    except replays.ReplayError as exc:
        ctx.add("error", platform, "replay", "(bundle)", "the sample submissions cannot be replayed: %s" % exc,
                None)
        return
    seen = set()
    computed = bundle.columns()[1]
    for phase in bundle.phases:
        key = (phase.scoring_program, phase.reference_data, phase.starting_kit)
        if key in seen or not phase.starting_kit:
            continue
        seen.add(key)
        where = "phase %s (%s)" % (phase.number, phase.label)
        try:
            if bundle.sample_submission(phase) is None:
                ctx.add("note", platform, "replay", where, "the starting kit has no sample_submission.zip to replay")
                continue
            report = replays.replay(ctx.path, None, phase.number, platform=platform, limits=ctx.limits,
                                    executor=ctx.executor)
        except (replays.ReplayError, zipfile.BadZipFile, OSError) as exc:
            ctx.add("error", platform, "replay", where, "the scoring step could not run: %s" % exc, None)
            continue
        if report["status"] != "Finished":
            ctx.add("error", platform, "replay", where, "the starting kit's sample submission fails (run with %s): %s; "
                    "stderr: %s" % (replays.ran_with(ctx.executor), report["reason"], report["stderr"].strip()[-300:]),
                    "fix the scoring program or the kit%s" % ("" if ctx.executor else "; or check it in the "
                                                              "platform's image with --docker"))
            continue
        empty = [key for key in report["columns_without_score"] if key not in computed]
        if empty:  # a computed column is filled by the site from the others
            ctx.add("warning", platform, "replay", where, "the sample submission's scores leave columns %s empty"
                    % ", ".join(empty), "write these keys, or remove the columns")
        if report["keys_without_column"]:
            ctx.add("note", platform, "replay", where, "score keys %s match no column and are dropped"
                    % ", ".join(report["keys_without_column"]))


# (rule, bundle version, platforms, function): the cross-file checks, in the order they run.
CHECKS = [
    ("v1-files", "1", PLATFORMS, v1_files),
    ("v1-phase-numbers", "1", ("codalab",), v1_phase_numbers),
    ("v1-phase-order", "1", ("codalab",), v1_phase_order),
    ("v1-leaderboard", "1", PLATFORMS, v1_leaderboard),
    ("v1-codabench-import", "1", ("codabench",), v1_codabench_import),
    ("v1-codabench-names", "1", ("codabench",), v1_codabench_names),
    ("v2-files", "2", ("codabench",), v2_files),
    ("v2-structure", "2", ("codabench",), v2_structure),
    ("codabench-stored", None, ("codabench",), codabench_stored),
    ("unknown-keys", None, ("codabench",), unknown_keys),
    ("logo-image", None, ("codabench",), logo_image),
    ("programs", None, PLATFORMS, programs),
]


def _zip_layout(path, archive, platforms):
    """Findings about where competition.yaml is; returns (findings, the yaml entry to check or None).

    Codabench reads only the root competition.yaml; CodaLab reads the first entry whose name contains '.yaml'.
    """
    findings = []
    names = archive.namelist()
    yamls = [n for n in names if ".yaml" in n]
    if not yamls:
        for p in platforms:
            findings.append(Finding("error", p, "zip", "(zip)", "no competition.yaml in the bundle",
                                    "put competition.yaml at the root of the zip"))
        return findings, None
    if "competition.yaml" not in names:
        for p in platforms:
            message = ("competition.yaml is not at the root (%s): %s" % (yamls[0], "every file path is then wrong "
                       "('There is no item named overview.html')" if p == "codalab" else
                       "'competition.yaml is missing from zip'"))
            findings.append(Finding("error", p, "zip", "(zip)", message, "zip the bundle's files, not their folder"))
        return findings, (yamls[0] if "codabench" not in platforms else None)
    if yamls[0] != "competition.yaml" and "codalab" in platforms:
        findings.append(Finding("error", "codalab", "zip", "(zip)", "CodaLab reads the first entry whose name "
                                "contains '.yaml', which is %s" % yamls[0], "write competition.yaml first and "
                                "avoid other names containing .yaml"))
    return findings, "competition.yaml"


def _unsafe_entries(path, archive, platforms, limits):
    """Findings for a bundle whose entries escape, are links, clash or exceed the extraction limits: no platform
    should be handed such a zip, whatever its competition.yaml says."""
    try:
        safe_zip.check_archive(archive, path, limits)
    except safe_zip.ZipRefused as exc:
        return [Finding("error", p, "zip", "(zip)", str(exc), "rebuild the bundle from plain files with relative "
                        "names") for p in platforms]
    return []


def validate(path, platforms=None, replay=True, limits=None, executor=None):
    """Check a bundle. Returns (version, findings); ``platforms`` defaults to Codabench, where bundles go now.
    ``limits`` (safe_zip.Limits) bounds what is read from the bundle and extracted by the sample replays."""
    path = str(path)
    platforms = tuple(platforms or DEFAULT_PLATFORMS)
    limits = limits or safe_zip.Limits()
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as exc:
        return None, [Finding("error", p, "zip", "(zip)", "cannot open %s: %s" % (path, exc), None)
                      for p in platforms]
    with archive:
        findings, yaml_name = _zip_layout(path, archive, platforms)
        findings += _unsafe_entries(path, archive, platforms, limits)
        if yaml_name is None:
            return None, findings
        try:
            spec = yaml.safe_load(safe_zip.read_member(archive, yaml_name, path, limits).decode("utf-8"))
        except safe_zip.ZipRefused as exc:
            return None, findings + [Finding("error", p, "yaml", yaml_name, str(exc), None)
                                     for p in platforms or PLATFORMS]
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            return None, findings + [Finding("error", p, "yaml", yaml_name, "not readable YAML: %s" % exc, None)
                                     for p in platforms]
        if not isinstance(spec, dict):
            return None, findings + [Finding("error", p, "yaml", yaml_name, "not a mapping", None)
                                     for p in platforms]
        version = str(spec.get("version", "1"))
        if version in ("1", "1.5"):
            version = "1"
        elif version != "2":
            return version, findings + [Finding("error", "codabench", "schema", "version", "version %r is neither "
                                                "1, 1.5 nor 2" % spec.get("version"), "write version: 2 or leave it "
                                                "out for a v1.5 bundle")]
        chosen = list(platforms)
        ctx = Context(path, archive, spec, version, limits)
        ctx.findings = findings
        ctx.executor = executor  # how the sample replays run: this machine's python3 (None), or replay.DockerExecutor
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        if "codabench" in chosen and len(name) > MAX_BUNDLE_FILE_NAME:
            ctx.add("error", "codabench", "zip", "(zip)", "the file name %s has %d characters: Codabench's upload "
                    "refuses a name longer than %d ('file_name: Ensure this field has no more than %d characters.')"
                    % (name, len(name), MAX_BUNDLE_FILE_NAME, MAX_BUNDLE_FILE_NAME), "rename the zip")
        if version == "2" and "codalab" in chosen:
            ctx.add("error", "codalab", "schema", "version", "a version 2 bundle cannot be uploaded to CodaLab "
                    "v1.5 ('version' is not a Competition field)", "build the v1.5 bundle for CodaLab")
            chosen.remove("codalab")
        for platform in chosen:
            if version == "1" and platform == "codalab":
                check_schema(ctx, platform, "codalab-v1.5.schema.json")
            if version == "2":
                check_schema(ctx, platform, "codabench-v2.schema.json")
        for _, for_version, for_platforms, check in CHECKS:
            for platform in chosen:
                if platform in for_platforms and for_version in (None, version):
                    check(ctx, platform)
        if replay and not any(f.severity == "error" for f in ctx.findings):
            for platform in chosen:
                sample_replays(ctx, platform)
        elif replay:
            for platform in chosen:
                ctx.add("note", platform, "replay", "(bundle)", "the sample submissions were not replayed: fix the "
                        "errors above first")
        return version, ctx.findings


def format_findings(path, version, findings):
    failing = [f for f in findings if f.severity != "note"]
    lines = ["%s: %s" % (path, {"1": "CodaLab v1.5 bundle (version 1)", "2": "Codabench bundle (version 2)"}.get(
        version, "not a readable bundle"))]
    for f in sorted(findings, key=lambda f: (SEVERITIES.index(f.severity), f.platform)):
        lines.append("  %-7s [%s] %s: %s" % (f.severity, LABELS.get(f.platform, f.platform), f.where, f.message))
        if f.fix:
            lines.append("          what to change: %s" % f.fix)
    lines.append("OK: nothing to change" if not failing else "%d finding(s) to fix" % len(failing))
    return "\n".join(lines)


def imports(findings, platform="codabench"):
    """Whether the platform's import accepts the bundle: no error but those it accepts (see Finding)."""
    return not any(f.severity == "error" and f.platform == platform and not f.accepted for f in findings)


def passed(findings):
    return not any(f.severity != "note" for f in findings)
