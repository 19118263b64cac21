"""Moving a CodaLab v1.5 competition (its bundle, or a dump of it) to Codabench.

``migrate`` writes a version 2 bundle that keeps what the old one meant on CodaLab, where Codabench's own import of
the unchanged bundle would change it (its v1 unpacker, src/apps/competitions/unpackers/v1.py at
codalab/codabench@c7dbc756b07b, modelled in platforms/codabench_model.py): every phase but the last ends one second
before the next starts (not a day before), dates are quoted UTC strings (Codabench keeps only the day of an unquoted
timestamp and drops offsets), CodaLab's defaults are written out (open registration, 999 submissions a day, 300 s),
the ranking column stays the ranking column. What has no Codabench equivalent gets the closest choice, and is
reported. The report lists every change, every loss and every manual step left, then the checks of the scoring
programs (Python 3 syntax; a replay under the Codabench worker of each task's sample submission).
"""
import datetime
import hashlib
import os
import zipfile

import yaml
from dateutil import parser as date_parser

from .. import loading, replay, resources, validate
from . import leaderboard, program_check, v2_writer
from ..platforms import codabench_model
from ..zips import pack, safe_zip
from .report import CHANGE, CONTENT, INCOMPLETE, LOSS, MANUAL, NOTE, REFUSED, UNSCORED, Report

# CodaLab v1.5's defaults for phase settings a bundle leaves out, and Codabench's (spec 1.4, 4.3).
V15_DEFAULTS = (("max_submissions", 100, 100), ("max_submissions_per_day", 999, 5),
                ("execution_time_limit", 300, 600))
DEFAULT_IMAGE = replay.DEFAULT_IMAGE
DATA_FIELDS = ("scoring_program", "reference_data", "ingestion_program", "input_data")
ONE_SECOND = datetime.timedelta(seconds=1)

# Top-level v1.5 keys and what becomes of them. Keys handled in code are listed with None.
TOP_LEVEL = {
    "title": None, "description": None, "image": None, "has_registration": None, "competition_docker_image": None,
    "enable_detailed_results": None, "enable_forum": None, "end_date": None, "html": None, "phases": None,
    "leaderboard": None, "force_submission_to_leaderboard": None, "disallow_leaderboard_modifying": None,
    "reward": None,
    "start_date": (CHANGE, "not written: CodaLab replaced it with the first phase's start, as Codabench does"),
    "admin_names": (NOTE, "add these organizers as collaborators in Codabench's competition editor"),
    "allow_teams": (LOSS, "no team settings in a Codabench bundle: set up teams in the editor if you need them"),
    "enable_teams": (LOSS, "no team settings in a Codabench bundle: set up teams in the editor if you need them"),
    "require_team_approval": (LOSS, "no team settings in a Codabench bundle"),
    "anonymous_leaderboard": (LOSS, "Codabench has no anonymous leaderboard setting"),
    "allow_public_submissions": (CHANGE, "not written: Codabench lets participants make submissions public by "
                                         "default (can_participants_make_submissions_public)"),
    "published": (NOTE, "a Codabench competition starts unpublished: publish it in the editor when ready"),
    "url_redirect": (LOSS, "no equivalent on Codabench"),
    "hide_top_three": (LOSS, "no equivalent on Codabench"),
    "hide_chart": (LOSS, "no equivalent on Codabench"),
}
PHASE_KEYS = set(["phasenumber", "label", "description", "start_date", "max_submissions", "max_submissions_per_day",
                  "execution_time_limit", "auto_migration", "public_data", "starting_kit", "is_scoring_only",
                  "leaderboard_management_mode", "force_best_submission_to_leaderboard", "phase_never_ends",
                  "ingestion_program_only_during_scoring", "color", "parent_phasenumber",
                  "is_parallel_parent"]) | set(DATA_FIELDS)


class MigrationError(Exception):
    """The input cannot be migrated at all (not a zip, no competition.yaml, no phases...)."""


# ---------------------------------------------------------------------------------------------------------------
# Reading the old bundle


class DumpLoader(yaml.SafeLoader):
    """YAML as CodaLab wrote it: the Python 2 site's competition dumps tag text !!python/unicode (and numbers
    !!python/long), which a safe loader (Codabench's oyaml.safe_load included) refuses. They are read as the plain
    strings and ints they are; nothing else beyond safe YAML is accepted."""

    PYTHON_TAGS = {"tag:yaml.org,2002:python/unicode": "construct_yaml_str",
                   "tag:yaml.org,2002:python/str": "construct_yaml_str",
                   "tag:yaml.org,2002:python/long": "construct_yaml_int",
                   "tag:yaml.org,2002:python/int": "construct_yaml_int",
                   "tag:yaml.org,2002:python/float": "construct_yaml_float",
                   "tag:yaml.org,2002:python/bool": "construct_yaml_bool",
                   "tag:yaml.org,2002:python/none": "construct_yaml_null",
                   "tag:yaml.org,2002:python/tuple": "construct_yaml_seq"}

    @classmethod
    def seen_tags(cls, data):
        return set("!!" + tag.rsplit(":", 1)[1] for tag in cls.PYTHON_TAGS
                   if ("!!" + tag.rsplit(":", 1)[1]).encode() in data)


for _tag, _method in DumpLoader.PYTHON_TAGS.items():
    DumpLoader.add_constructor(_tag, getattr(yaml.SafeLoader, _method))


class OldBundle(object):
    """The v1.5 competition.yaml and the files beside it, re-rooted when the yaml sits in a folder."""

    def __init__(self, path, report):
        try:
            archive = zipfile.ZipFile(str(path))
        except (OSError, zipfile.BadZipFile) as exc:
            raise MigrationError("cannot open %s as a zip: %s" % (path, exc))
        with archive:
            limits = safe_zip.Limits()
            budget = limits.budget()  # every member read below counts against one extraction budget
            try:
                safe_zip.check_archive(archive, str(path), limits)
            except safe_zip.ZipRefused as exc:
                raise MigrationError(str(exc))
            names = [i.filename for i in archive.infolist() if not i.is_dir()]
            # CodaLab read the first entry whose name contains '.yaml'; a dump puts competition.yaml at the root
            yamls = [n for n in names if ".yaml" in n and not n.startswith("__MACOSX/")]
            if not yamls:
                raise MigrationError("%s holds no competition.yaml: is it a CodaLab bundle?" % path)
            self.yaml_name = "competition.yaml" if "competition.yaml" in yamls else yamls[0]
            prefix = self.yaml_name.rsplit("/", 1)[0] + "/" if "/" in self.yaml_name else ""
            if prefix:
                report.add(CHANGE, "(zip)", "the bundle's files are in the folder %s: they are moved to the zip "
                           "root, where Codabench looks for them" % prefix)
            try:
                self.files = [(n[len(prefix):], safe_zip.read_member(archive, n, str(path), limits, budget))
                              for n in names
                              if n.startswith(prefix) and n != self.yaml_name and not n.startswith("__MACOSX/")]
            except safe_zip.ZipRefused as exc:
                raise MigrationError(str(exc))
            self.text = archive.read(self.yaml_name)
        try:
            self.spec = yaml.load(self.text.decode("utf-8"), Loader=DumpLoader)
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise MigrationError("%s is not readable YAML: %s" % (self.yaml_name, exc))
        if not isinstance(self.spec, dict):
            raise MigrationError("%s is not a mapping" % self.yaml_name)
        if str(self.spec.get("version", "1")) == "2":
            raise MigrationError("%s is already a Codabench (version 2) bundle: check it with "
                                 "'build_bundle.py validate' instead" % path)
        self.python_tags = sorted(DumpLoader.seen_tags(self.text))
        self.table = dict(self.files)

    @property
    def codabench_style(self):
        """An early Codabench bundle: a list of phases with tasks, but no 'version: 2' (so Codabench reads it as
        v1.5 and refuses it)."""
        return "version" not in self.spec and isinstance(self.spec.get("phases"), list)

    def read(self, name):
        return self.table.get(name) if isinstance(name, str) else None


def read_date(value, where, report):
    """A v1.5 date as naive UTC, read the way CodaLab did where it could: a date is midnight, an offset is
    converted to UTC. Strings CodaLab's parse_datetime refused (no time of day, month-first) are read with
    dateutil, and the report says how."""
    if isinstance(value, datetime.datetime):
        if value.utcoffset():
            utc = value.replace(tzinfo=None) - value.utcoffset()
            report.add(CHANGE, where, "%s has a UTC offset: converted to %s UTC (Codabench would drop the offset, "
                       "not convert it)" % (value.isoformat(" "), _when(utc)))
            return utc
        value = value.replace(tzinfo=None)
        if value.time() != datetime.time():
            report.add(CHANGE, where, "unquoted timestamp %s: written as a quoted string, so Codabench keeps its "
                       "time of day (it keeps only the day of an unquoted one)" % _when(value))
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    if isinstance(value, str) and value.strip():
        try:
            parsed = date_parser.parse(value)
        except (ValueError, OverflowError):
            raise MigrationError("%s: %r is not a date" % (where, value))
        utc = parsed.replace(tzinfo=None) - (parsed.utcoffset() or datetime.timedelta(0))
        text = value.strip()
        iso = len(text) >= 16 and text[4] == "-" and text[7] == "-" and text[10] in " T" and text[:4].isdigit()
        if not iso:
            report.add(CHANGE, where, "%r read as %s UTC (dateutil, month first when ambiguous; CodaLab v1.5 "
                       "itself refused a date string without a time of day): check it" % (value, _when(utc)))
        elif parsed.utcoffset():
            report.add(CHANGE, where, "%r converted to %s UTC (Codabench would drop the offset, not convert it)"
                       % (value, _when(utc)))
        return utc
    raise MigrationError("%s: %r is not a date" % (where, value))


def _when(value):
    return value.strftime("%Y-%m-%d %H:%M:%S")


def _digest(data):
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------------------------------------------------
# Competition, pages


def _competition(old, report):
    spec = old.spec
    out = {"version": 2, "title": str(spec.get("title") or ""), "description": spec.get("description")}
    if not out["title"]:
        report.add(MANUAL, "title", "the bundle has no title: add one (Codabench requires it)", REFUSED)
    out["image"], files = _logo(old, report)
    if "has_registration" in spec:
        out["registration_auto_approve"] = not spec["has_registration"]
    else:
        out["registration_auto_approve"] = True
        report.add(CHANGE, "has_registration", "absent, which on CodaLab meant open registration: written "
                   "registration_auto_approve: true (Codabench's import would have required your approval)")
    image = spec.get("competition_docker_image")
    out["docker_image"] = image.strip() if isinstance(image, str) and image.strip() else DEFAULT_IMAGE
    if out["docker_image"] != image:
        report.add(CHANGE, "competition_docker_image", "blank: the platforms' default image %s is written "
                   "(it runs Python 3.7)" % DEFAULT_IMAGE)
    for old_key, new_key in (("enable_detailed_results", "enable_detailed_results"),
                             ("enable_forum", "forum_enabled"), ("reward", "reward")):
        if old_key in spec:
            out[new_key] = spec[old_key]
    for key in spec:
        known = TOP_LEVEL.get(key, (LOSS, "not a CodaLab v1.5 key Codabench reads: dropped"))
        if key in TOP_LEVEL and known is None:
            continue
        report.add(known[0], str(key), known[1])
    return out, files


def _logo(old, report):
    """(image name, {file: bytes}): the logo, or a stand-in where Codabench would refuse the bundle for want of
    one it can open (a missing logo, an SVG, which CodaLab showed and Codabench's image field refuses, or a CMYK
    JPEG, which it cannot turn into its PNG icon)."""
    name = old.spec.get("image")
    data = old.read(name)
    if data is not None and validate.is_image(data[:32]) and not validate.is_cmyk_jpeg(data):
        return name, {}
    why = ("no logo" if not name else "%s is not in the bundle" % name if data is None else
           "%s is a CMYK JPEG, of which Codabench cannot make its PNG icon (save it in RGB)" % name
           if validate.is_image(data[:32]) else "%s is not an image Codabench can open (PNG, JPEG, GIF)" % name)
    stand_in = "logo_codabench.png"
    maker = loading.load_file(resources.MAKE_LOGO, "make_logo_for_migrate")
    report.add(MANUAL, "image", "%s, and Codabench requires one: a stand-in logo %s is written; replace it with the "
               "competition's own" % (why, stand_in), CONTENT)
    return stand_in, {stand_in: maker.logo_png(str(old.spec.get("title") or "competition"))}


STAND_IN_TERMS = """<h3>Terms and conditions</h3>
<p>The terms of this competition have not been written yet: its CodaLab bundle had {why}. Until the
organizers replace this page, ask them before you use the data or submit.</p>
"""


def _page_text(data):
    """(text, encoding): pages CodaLab served as they were; Codabench reads them as UTF-8."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return None, None


def _pages(old, report):
    """(terms file, [{title, file}], {file: new bytes}) in the html mapping's order. Empty pages are left out
    (Codabench's v2 import refuses them); an empty or missing terms page gets a stand-in, since the v2 import
    refuses a bundle without terms (v1 accepted a 0-byte one). Pages that are not UTF-8 are re-encoded."""
    html = old.spec.get("html")
    html = html if isinstance(html, dict) else {}
    terms, pages, replaced = None, [], {}
    for key, name in html.items():
        where = "html.%s" % key
        data = old.read(name)
        if data is None:
            report.add(MANUAL, where, "%r is not in the bundle, so the page is left out: add it" % (name,), CONTENT)
            continue
        text, encoding = _page_text(data)
        if text is None:
            report.add(MANUAL, where, "%s is neither UTF-8 nor Windows-1252, so it is left out: save it as UTF-8 "
                       "and add it back" % name, CONTENT)
            continue
        if encoding != "utf-8":
            replaced[name] = text.encode("utf-8")
            report.add(CHANGE, where, "%s is not UTF-8: read as Windows-1252 and written as UTF-8, which Codabench "
                       "reads (check its accented letters)" % name)
        if not text.strip():
            if key != "terms":
                report.add(LOSS, where, "%s is empty: Codabench refuses empty pages, so it is left out" % name)
                continue
            replaced[name] = STAND_IN_TERMS.format(why="an empty terms page").encode("utf-8")
            report.add(MANUAL, where, "%s is empty, which Codabench's version 2 import refuses: a short stand-in "
                       "page is written in its place; write the competition's terms there" % name, CONTENT)
        if key == "terms":
            terms = name
        else:
            pages.append({"title": str(key).replace("_", " ").title(), "file": name})
    if terms is None:
        terms = "terms.html" if old.read("terms.html") is None else "terms_codabench.html"
        replaced[terms] = STAND_IN_TERMS.format(why="no terms page").encode("utf-8")
        report.add(MANUAL, "html.terms", "no terms page, which Codabench requires: a short stand-in page %s is "
                   "written; write the competition's terms there" % terms, CONTENT)
    if pages:
        report.add(CHANGE, "html", "pages %s become Codabench pages %s in the same order (titles from their keys; "
                   "terms becomes the terms)" % (", ".join(str(k) for k in html if k != "terms"),
                                                 ", ".join(p["title"] for p in pages)))
    return terms, pages, replaced


# ---------------------------------------------------------------------------------------------------------------
# Phases and tasks


def _ordered_phases(old):
    raw = old.spec.get("phases")
    if not isinstance(raw, dict) or not raw or not all(isinstance(p, dict) for p in raw.values()):
        raise MigrationError("competition.yaml has no phases mapping")
    for key, phase in raw.items():
        if not isinstance(phase.get("phasenumber"), int):
            raise MigrationError("phase %s has no phasenumber" % key)
        if "start_date" not in phase:
            raise MigrationError("phase %s has no start_date" % key)
    return sorted(raw.items(), key=lambda kv: kv[1]["phasenumber"])


def _closed_by(phase):
    """The limit that closes a phase on CodaLab, or None: a limit of 0 refused every submission there (it was
    used for "ceasefire" phases), while Codabench skips a falsy limit (Phase.can_user_make_submissions: 'if
    self.max_submissions_per_day:'), so 0 would open the phase without limit."""
    for field in ("max_submissions", "max_submissions_per_day"):
        value = phase.get(field)
        if value is not None and not isinstance(value, bool) and str(value).strip() == "0":
            return field
    return None


def _schedule(old, ordered, report):
    """The phases Codabench gets, as [(key, phase, start, end)] in UTC: each end one second before the next start;
    the last at end_date, or never.

    A phase closed by a limit of 0 is left out when nothing reaches it (no phase in its interval, so no submissions
    then); one that auto-migration fills keeps its place, its leaderboard and its migrated submissions, and ends
    when it starts, so it never takes a submission of its own."""
    starts = [read_date(p["start_date"], "phases.%s.start_date" % k, report) for k, p in ordered]
    kept, dropped = [], []
    for i, ((key, phase), start) in enumerate(zip(ordered, starts)):
        field = _closed_by(phase)
        if field and not phase.get("auto_migration") and len(dropped) + 1 < len(ordered):
            dropped.append((key, phase, field))
            continue
        if dropped and dropped[-1][0] == ordered[i - 1][0] and phase.get("auto_migration"):
            # CodaLab migrated into this phase what the closed phase before it held: nothing
            phase = dict((k, v) for k, v in phase.items() if k != "auto_migration")
            report.add(CHANGE, "phases.%s.auto_migration" % key, "not written: on CodaLab it brought the submissions "
                       "of the closed phase before (none); on Codabench it would bring those of the phase before that")
        kept.append((i, key, phase, start, field))
    spans = []
    for position, (i, key, phase, start, field) in enumerate(kept):
        if i + 1 < len(starts):
            end = starts[i + 1] - ONE_SECOND  # the next phase on CodaLab, even one left out here
        else:
            end_date = old.spec.get("end_date")
            end = None if phase.get("phase_never_ends") or end_date in (None, "", "null") else \
                read_date(end_date, "end_date", report)
        if field:
            end = start if end is None or end > start else end
        spans.append((key, phase, start, end))
    if len(starts) > 1:
        report.add(CHANGE, "phases", "every phase but the last ends one second before the next one starts, as on "
                   "CodaLab (Codabench's import of the old bundle would end it a day before, a day without "
                   "submissions)")
    for key, phase, field in dropped:
        last = ordered[-1][0] == key
        report.add(CHANGE, "phases.%s" % key, "phase %s (%s) has %s: 0, so CodaLab refused every submission to it; "
                   "Codabench reads 0 as no limit, so the phase is left out: no phase is open from its start%s, "
                   "and the phase before it ends as it did on CodaLab"
                   % (phase["phasenumber"], phase.get("label"), field, " on" if last else
                      " until the next phase starts"))
    for (key, phase, start, _), (_, _, _, _, field) in zip(spans, kept):
        if field:
            report.add(CHANGE, "phases.%s" % key, "phase %s (%s) has %s: 0, so CodaLab refused every submission to "
                       "it%s; Codabench reads 0 as no limit, so the phase ends when it starts (%s): it takes no "
                       "submission of its own%s" % (
                           phase["phasenumber"], phase.get("label"), field,
                           " but filled it by auto-migration" if phase.get("auto_migration") else "",
                           _when(start), ", and still receives the migrated ones" if phase.get("auto_migration") else
                           " (it is kept: every phase of the bundle is closed)"))
    return spans


def _open_together(spans):
    """The phases CodaLab had open at the same time, as Codabench phases: [(members [(key, phase)], start, end)].

    CodaLab's CompetitionPhase.is_active is True for a phase_never_ends phase whatever the dates, so phases that
    start together, all but the last never ending, were open side by side (a common way to run subtasks); so were
    the parallel phases of a CodaLab v1.8 parent (parent_phasenumber), a submission to the parent going to each.
    Codabench's phases cannot overlap, but one phase can hold several tasks: each group becomes one phase."""
    groups = []
    for key, phase, start, end in spans:
        if groups:
            members, group_start, _ = groups[-1]
            parent = phase.get("parent_phasenumber")
            child = parent is not None and any(m.get("phasenumber") == parent for _, m in members)
            beside = start == group_start and all(m.get("phase_never_ends") for _, m in members)
            if child or beside:
                groups[-1] = (members + [(key, phase)], group_start, end)
                continue
        groups.append(([(key, phase)], start, end))
    return groups


def _scored_members(members, report):
    """The phases of a group whose programs score its submissions: a parallel parent's program only gathered its
    children's scores, which Codabench's phase does itself, one column set per task."""
    if len(members) > 1 and members[1][1].get("parent_phasenumber") is not None:
        key, parent = members[0]
        if parent.get("scoring_program"):
            report.add(LOSS, "phases.%s.scoring_program" % key, "the parallel parent's program %s gathered the scores "
                       "of its phases; Codabench shows each task's own scores instead, so it is not used"
                       % parent["scoring_program"])
        return members[1:]
    return members


def _group_name(labels):
    """The labels' common part ('Dev - AR', 'Dev - Br' -> 'Dev'), else them all."""
    common = labels[0]
    for label in labels[1:]:
        while not label.startswith(common):
            common = common[:-1]
    common = common.rstrip(" -_:/([")
    name = common if len(common) >= 3 else " + ".join(labels)
    return name[:validate.MAX_TASK_NAME]


def _report_groups(groups, report):
    """Report what merging and phase_never_ends did; returns the positions of the phases the report says never
    open (closed by a limit of 0, or ending before they start)."""
    explained = set()
    for position, (members, start, end) in enumerate(groups):
        if end is not None and (end < start or (end == start and all(_closed_by(m) for _, m in members))):
            explained.add(position)
        key, phase = members[0]
        last_key, last = members[-1]
        labels = [str(m.get("label") or k) for k, m in members]
        where = "phases.%s" % key
        if len(members) > 1:
            parent = members[1][1].get("parent_phasenumber") is not None
            report.add(CHANGE, where, "phases %s were open at the same time on CodaLab (%s): Codabench's phases "
                       "cannot overlap, so they are one phase with a task each; a submission is scored on each task "
                       "of the phase (or those the participant picks) and counts once against its limits" % (
                           ", ".join(labels), "parallel phases of %s" % labels[0] if parent else
                           "phase_never_ends, and the same start"))
            limits = set((m.get("max_submissions"), m.get("max_submissions_per_day")) for _, m in members)
            if len(limits) > 1:
                report.add(LOSS, where, "the phases had different submission limits (%s): the first's are written"
                           % "; ".join("%s: %s total, %s a day" % (l, m.get("max_submissions"),
                                                                  m.get("max_submissions_per_day"))
                                       for l, (_, m) in zip(labels, members)))
        if last.get("phase_never_ends") and position + 1 < len(groups):
            report.add(LOSS, "phases.%s" % last_key, "%s %s %s phase_never_ends: on CodaLab %s open for good, beside "
                       "the phases after %s. Codabench's phases cannot overlap (its import refuses it: 'Phases must "
                       "be sequential'), so %s %s, one second before the next phase starts%s. To let participants "
                       "go on submitting, add a phase with the same task(s) after the last one" % (
                           "phase" if len(members) == 1 else "phases", ", ".join(labels),
                           "has" if len(members) == 1 else "have", "it stayed" if len(members) == 1 else "they stayed",
                           "it" if len(members) == 1 else "them",
                           "it ends" if len(members) == 1 else "their phase ends",
                           _when(end), ": it never opens" if end < start else ""))
        elif end is not None and end < start:
            report.add(LOSS, where, "phase %s (%s) starts when or after the next one does: it never opens (nor did "
                       "it on CodaLab, where a phase is open until the next one starts); give it an earlier start, or "
                       "leave it out" % (phase["phasenumber"], ", ".join(labels)))
    return explained


def _data_signature(old, phase):
    """What makes two phases' tasks the same: the bytes of their programs and data (or the dataset key)."""
    signature = []
    for field in DATA_FIELDS:
        value = phase.get(field)
        data = old.read(value)
        signature.append(_digest(data) if data is not None else value)
    return tuple(signature)


def _task_name(labels, report):
    """'<labels> task', within Codabench's 256 characters (Task.name): a task shared by many phases is named after
    its first and last."""
    name = "%s task" % " + ".join(labels)
    if len(name) > validate.MAX_TASK_NAME:
        short = "%s ... %s task (%d phases)" % (labels[0][:100], labels[-1][:100], len(labels))
        report.add(CHANGE, "tasks", "the task of phases %s would be named with %d characters, more than Codabench's "
                   "%d: named %r" % (", ".join(labels), len(name), validate.MAX_TASK_NAME, short))
        name = short
    return name


def _tasks(old, ordered, report, programs):
    """v2 tasks, one per distinct (program, reference data, ingestion program, input data); returns
    (tasks, {phase key: task index})."""
    groups, of_phase = [], {}
    for key, phase in ordered:
        if phase.get("scoring_program") is None:
            report.add(MANUAL, "phases.%s" % key, "phase %s (%s) has no scoring program (on CodaLab its submissions "
                       "failed): Codabench needs one in every task, so the phase is written with none; add a task "
                       "in the competition editor, or leave the phase out" % (phase.get("phasenumber"),
                                                                              phase.get("label")), UNSCORED)
            continue
        signature = _data_signature(old, phase)
        for index, (sig, _, _) in enumerate(groups):
            if sig == signature:
                break
        else:
            index = len(groups)
            groups.append((signature, phase, []))
        groups[index][2].append(phase.get("label") or str(key))
        of_phase[key] = index
    tasks = []
    for index, (_, phase, labels) in enumerate(groups):
        task = {"index": index, "name": _task_name(labels, report),
                "description": "Scoring program and gold data of %s %s." % (
                    "phase" if len(labels) == 1 else "phases", ", ".join(labels))}
        for field in DATA_FIELDS:
            value = phase.get(field)
            if value is None:
                if field == "reference_data":
                    report.add(MANUAL, "task %s" % task["name"], "no %s: Codabench cannot score without it" % field,
                               UNSCORED)
                continue
            if old.read(value) is None:
                what = ("a dataset key of the old CodaLab site: upload the file to Codabench and use its key, or "
                        "put the zip in the bundle" if not str(value).endswith(".zip") else "not in the bundle")
                report.add(MANUAL, "task %s.%s" % (task["name"], field), "%r is %s" % (value, what), REFUSED)
            task[field] = programs.get(value, value)
        if phase.get("ingestion_program_only_during_scoring"):
            task["ingestion_only_during_scoring"] = True
        tasks.append(task)
    shared = [t["name"] for t in tasks if " + " in t["name"]]
    report.add(CHANGE, "tasks", "%d task(s) from %d phase(s)%s" % (
        len(tasks), len(ordered), ": phases with the same program and data bytes share one (%s)" % "; ".join(shared)
        if shared else ""))
    return tasks, of_phase


def _phase_settings(key, phase, number, report, missing):
    where = "phases.%s" % key
    out = {}
    for field, codalab, _ in V15_DEFAULTS:
        value = phase.get(field)
        if value is None:
            missing.setdefault(field, []).append(str(number))
            value = codalab
        out[field] = value
    if isinstance(out["execution_time_limit"], int) and out["execution_time_limit"] > 600:
        report.add(NOTE, where, "execution_time_limit %d s: Codabench's default queue caps the limit at 600 s "
                   "(MAX_EXECUTION_TIME_LIMIT); a scoring run that needs longer needs a queue with a higher limit"
                   % out["execution_time_limit"])
    if phase.get("auto_migration"):
        if number == 1:
            report.add(LOSS, where, "auto_migration on the first phase: CodaLab ignored it and Codabench refuses "
                       "it, so it is left out")
        else:
            out["auto_migrate_to_this_phase"] = True
    mode = phase.get("leaderboard_management_mode")
    if mode == "hide_results":
        out["hide_output"] = True
        report.add(LOSS, where, "leaderboard_management_mode: hide_results (a blind phase): written hide_output: "
                   "true, which hides the submissions' output; CodaLab also hid the results and put each "
                   "participant's last successful submission on the leaderboard. On Codabench the leaderboard "
                   "and its rule are shared by all phases: hide the leaderboard by hand during this phase")
    if phase.get("is_scoring_only") is False:
        report.add(CHANGE, where, "is_scoring_only: false (code submissions): Codabench runs a submission as code "
                   "when it holds a metadata file, and the ingestion program is kept in the phase's task")
    if phase.get("color"):
        missing.setdefault("color", []).append(str(number))
    if phase.get("datasets"):
        report.add(MANUAL, where, "datasets (links on CodaLab's Get Data page) are not in a Codabench bundle: put "
                   "the links on the Data page", CONTENT)
    for extra in sorted(set(phase) - PHASE_KEYS - {"datasets"}, key=str):
        report.add(LOSS, "%s.%s" % (where, extra), "no Codabench equivalent: dropped")
    return out


def _phases(old, groups, task_of, report):
    phases, missing = [], {}
    for number, (members, start, end) in enumerate(groups, 1):
        key, phase = members[0]
        settings = _phase_settings(key, phase, number, report, missing)
        labels = [str(m.get("label") or "Phase %d" % number) for _, m in members]
        parallel = len(members) > 1 and members[1][1].get("parent_phasenumber") is not None
        out = {"index": number - 1, "name": labels[0] if len(members) == 1 or parallel else _group_name(labels),
               "description": phase.get("description"), "start": _when(start),
               "end": _when(end) if end else None}
        if not phase.get("label"):
            report.add(CHANGE, "phases.%s" % key, "no label: named %s" % out["name"])
        out.update(settings)
        out["tasks"] = sorted(set(task_of[k] for k, _ in members if task_of.get(k) is not None))
        for field in ("public_data", "starting_kit"):
            value = next((m.get(field) for _, m in members if m.get(field) is not None), None)
            if value is None:
                continue
            if old.read(value) is None:  # Codabench would refuse the bundle: 'Cannot find dataset'
                report.add(MANUAL, "phases.%s.%s" % (key, field), "%r is not in the bundle, so it is left out "
                           "(Codabench refuses a bundle naming data it cannot find): add the file to the bundle and "
                           "the key back, or upload it in the editor" % (value,), INCOMPLETE)
                continue
            out[field] = value
        phases.append(out)
    if "color" in missing:
        report.add(LOSS, "phases", "color in phase(s) %s: Codabench has no phase colours" % ", ".join(missing["color"]))
    for field, codalab, codabench in V15_DEFAULTS:
        if field in missing:
            report.add(CHANGE, "phases", "%s absent in phase(s) %s: CodaLab's default %d is written (%sa CodaLab "
                       "dump leaves it out even when it was set: check the old site)" % (
                           field, ", ".join(missing[field]), codalab,
                           "Codabench's would be %d; " % codabench if codabench != codalab else ""))
    return phases


# ---------------------------------------------------------------------------------------------------------------
# Scoring programs


def _programs(old, ordered, report, wrap):
    """{old program file: new program file} for the programs that change (re-rooted or wrapped), and the new
    files {name: bytes}. Python 3 syntax is checked on every program."""
    renamed, files, seen = {}, {}, set()
    for key, phase in ordered:
        name = phase.get("scoring_program")
        data = old.read(name)
        if data is None or name in seen:
            continue
        seen.add(name)
        where = "scoring program %s" % name
        try:
            entries = program_check.entries(data, name)
        except program_check.ProgramError as exc:
            report.add(MANUAL, where, str(exc), UNSCORED)
            continue
        for file, line, message, text in program_check.syntax_errors(entries):
            report.add(MANUAL, where, "%s:%s: SyntaxError under Python 3: %s%s. Codabench's image runs Python 3.7"
                       ": port the program to Python 3 (e.g. print(...); 2to3 does most of it)"
                       % (file, line, message, " (%s)" % text if text else ""), UNSCORED)
        entries, folder = program_check.reroot(entries)
        changed = bool(folder)
        if folder:
            report.add(CHANGE, where, "its files are in the folder %s/: CodaLab moved them up, Codabench does not,"
                       " so they are put at the zip root" % folder)
        _, meta = program_check.metadata(entries)
        command = (meta or {}).get("command")
        if isinstance(command, list):  # a missing metadata file is validate's finding on the new bundle
            report.add(MANUAL, where, "its metadata has a list of commands: Codabench runs one command string",
                       UNSCORED)
        if wrap and isinstance(command, str):
            entries = program_check.wrap_scores(entries)
            changed = True
            report.add(CHANGE, where, "--wrap-scores: the unchanged program now runs through %s, which writes "
                       "scores.json from its scores.txt with CodaLab's rules and removes an output/metadata it "
                       "wrote" % program_check.WRAPPER_NAME)
        if changed:
            new_name = name if name.lower().endswith(".zip") else name + ".zip"
            renamed[name] = new_name
            files[new_name] = program_check.zipped(entries)
    return renamed, files


def _check_replays(target, report, submission, wrapped, executor=None):
    """Replay each task's sample submission (or the organizer's) under the Codabench worker."""
    try:
        bundle = replay.Bundle(target)
    except replay.ReplayError as exc:
        report.add(MANUAL, "replay", "the migrated bundle cannot be replayed: %s" % exc, UNSCORED)
        return
    seen = set()
    computed = bundle.columns()[1]  # filled by the site from the others
    for phase in bundle.phases:
        key = (phase.scoring_program, phase.reference_data)
        if key in seen:
            continue
        if submission is None and bundle.sample_submission(phase) is None:
            continue
        seen.add(key)
        where = "phase %s (%s)" % (phase.number, phase.label)
        if any(isinstance(name, str) and not name.endswith(".zip") for name in key):
            # a dataset key of the old site: its manual step names it already
            report.add(NOTE, where, "not replayed: its program or gold is a dataset key, not a file of the bundle")
            continue
        try:
            result = replay.replay(target, submission, phase.number, platform="codabench", executor=executor)
            report.ran_with = replay.ran_with(executor)
        except (replay.ReplayError, OSError) as exc:
            report.checks.append({"where": where, "status": "not run", "scores": {}, "message": str(exc)})
            report.add(MANUAL, where, "the scoring program could not be replayed: %s" % exc, UNSCORED)
            continue
        _judge_replay(where, result, report, wrapped, computed, executor)
    if not seen:
        report.add(NOTE, "replay", "no starting kit holds a sample_submission.zip: nothing checks the scoring "
                   "program; name a past submission with --submission")


def _judge_replay(where, result, report, wrapped, computed, executor=None):
    stderr = [line for line in result["stderr"].splitlines() if line.strip()]
    check = {"where": where, "status": result["status"], "scores": result["scores"],
             "submission": result["submission"], "message": result["reason"] or ""}
    report.checks.append(check)
    text_scores = [w for w in result["score_warnings"] if "not a mapping" in w]
    wrote_metadata = result["reason"] and "output/metadata" in result["reason"]
    fix = "rerun migrate with --wrap-scores (no change to the program)" if not wrapped else "fix the program"
    if text_scores:
        report.add(MANUAL, where, "the program writes scores.txt as key:value without a space: Codabench shows the "
                   "submission Finished with no score at all. Fix: %s, or write 'key: value'" % fix, UNSCORED)
    if wrote_metadata:
        report.add(MANUAL, where, "the program writes output/metadata: Codabench's worker fails the submission "
                   "(its scores are stored). Fix: %s, or stop writing that file" % fix, UNSCORED)
    if result["status"] != "Finished" and not wrote_metadata:
        report.add(MANUAL, where, "the sample submission fails under the Codabench worker, run with %s: %s%s%s" % (
            replay.ran_with(executor), result["reason"], "; stderr ends: %s" % stderr[-1] if stderr else "",
            "" if executor else " (check it in the platform's image: rerun migrate with --docker)"), UNSCORED)
    empty = [key for key in result["columns_without_score"] if key not in computed]
    if result["status"] == "Finished" and result["scores"] and empty:
        report.add(MANUAL, where, "leaderboard columns get no score from the program: %s" % ", ".join(empty))
    for warning in result["score_warnings"] + result["warnings"]:
        if warning not in text_scores:
            report.add(MANUAL, where, warning)


# ---------------------------------------------------------------------------------------------------------------
# The whole migration


HEADER = ("Codabench (version 2) bundle written by build_bundle.py migrate from the CodaLab bundle %s.\n"
          "Dates are UTC and quoted: Codabench keeps the time of a string, but only the day of an unquoted timestamp.")


SUFFIX = "-codabench.zip"


def default_output(source, folder=None):
    """OLD-codabench.zip beside OLD.zip (or in ``folder``), within the 64 characters Codabench's upload takes."""
    base = os.path.basename(str(source).rstrip("/"))
    stem = base[:-4] if base.lower().endswith(".zip") else base
    stem = stem[:validate.MAX_BUNDLE_FILE_NAME - len(SUFFIX)]
    return os.path.join(str(folder) if folder is not None else os.path.dirname(str(source)), stem + SUFFIX)


def _with_version_2(text):
    """An early Codabench competition.yaml with 'version: 2' added after any leading comments and '---'."""
    lines = text.splitlines(True)
    at = 0
    while at < len(lines) and (not lines[at].strip() or lines[at].lstrip().startswith(("#", "%")) or
                               lines[at].strip() == "---"):
        at += 1
    return "".join(lines[:at] + ["version: 2\n"] + lines[at:])


def _convert_codabench_style(old, report):
    """An early Codabench bundle that lacks 'version: 2': Codabench's upload then reads it as v1.5 and refuses it
    ('HTML pages could not be found in the yaml file'). Adding the version is the whole migration."""
    report.add(CHANGE, "version", "a Codabench-style competition.yaml (a list of phases with tasks) without "
               "'version: 2', which Codabench reads as CodaLab v1.5 and refuses: 'version: 2' is added, nothing "
               "else is changed")
    text = _with_version_2(old.text.decode("utf-8"))
    replaced, terms = {}, old.spec.get("terms")
    if not isinstance(terms, str) or not (old.read(terms) or b"").strip():
        if not isinstance(terms, str):
            terms = "terms.html" if old.read("terms.html") is None else "terms_codabench.html"
            text = _with_version_2(text.replace("version: 2\n", "terms: %s\n" % terms, 1))
        replaced[terms] = STAND_IN_TERMS.format(why="no terms page").encode("utf-8")
        report.add(MANUAL, "terms", "no terms page, which Codabench requires: a short stand-in page %s is written; "
                   "write the competition's terms there" % terms, CONTENT)
    return text, yaml.safe_load(text), replaced


DUMP_COLUMN_KEYS = {"label", "leaderboard", "rank", "sort"}  # all a CodaLab dump writes of a column


def is_dump(old):
    """Whether the file is a CodaLab dump (the "Dump" button: apps/web/tasks.py, yaml.safe_dump of plain dicts):
    Python 2 tags, or columns in sorted order reduced to the four keys a dump writes, sharing their leaderboard
    through PyYAML's own anchor names (&id001)."""
    if old.python_tags:
        return True
    board = old.spec.get("leaderboard")
    columns = board.get("columns") if isinstance(board, dict) else None
    if not isinstance(columns, dict) or not columns:
        return False
    keys = [str(k) for k in columns]
    return (all(isinstance(c, dict) and set(c) <= DUMP_COLUMN_KEYS for c in columns.values())
            and keys == sorted(keys) and b"&id001" in old.text)


def _earliest_start(ordered):
    """The earliest phase start, or None (read quietly: the schedule reports on the dates itself)."""
    starts = []
    for key, phase in ordered:
        try:
            starts.append(read_date(phase["start_date"], "phases.%s.start_date" % key, Report("", "")))
        except MigrationError:
            pass
    return min(starts) if starts else None


def convert(source, target, wrap_scores=False, rank_by=None):
    """(competition.yaml text, zip bytes, report) for the old bundle at ``source``; nothing is written.
    ``rank_by``: the key of the column the migrated leaderboard ranks by, instead of the one CodaLab's rules give
    (or the report's choice where they cannot tell)."""
    report = Report(source, target)
    old = OldBundle(source, report)
    replaced = {}
    explained = set()
    if old.codabench_style:
        text, spec, replaced = _convert_codabench_style(old, report)
        phases, tasks = [p for p in spec["phases"] if isinstance(p, dict)], spec.get("tasks") or []
    else:
        ordered = _ordered_phases(old)
        if old.python_tags:
            report.add(CHANGE, "(yaml)", "a CodaLab dump with %s tags, which Codabench's YAML loader refuses: "
                       "written as plain strings and numbers" % ", ".join(old.python_tags))
        competition, replaced = _competition(old, report)
        terms, pages, page_files = _pages(old, report)
        replaced.update(page_files)
        groups = _open_together(_schedule(old, ordered, report))
        explained = _report_groups(groups, report)
        scored = [kp for members, _, _ in groups for kp in _scored_members(members, report)]
        renamed, program_files = _programs(old, scored, report, wrap_scores)
        replaced.update(program_files)
        tasks, task_of = _tasks(old, scored, report, renamed)
        phases = _phases(old, groups, task_of, report)
        context = leaderboard.Context(_earliest_start(ordered), is_dump(old), rank_by)
        try:
            new_leaderboard = leaderboard.convert(old.spec, report, context)
        except ValueError as exc:
            raise MigrationError(str(exc))
        spec = dict(competition)
        spec.update({"terms": terms, "pages": pages, "tasks": tasks, "phases": phases,
                     "leaderboards": [new_leaderboard]})
        text = v2_writer.render(spec, HEADER % os.path.basename(str(source)))
    entries = [("competition.yaml", text.encode("utf-8"))]
    entries += [(name, replaced.get(name, data)) for name, data in old.files if name != "competition.yaml"]
    entries += sorted((name, data) for name, data in replaced.items() if name not in dict(entries))
    try:
        stored = codabench_model.stored_phases(yaml.safe_load(text), "2")
    except codabench_model.ImportRefused as exc:
        stored = []
        report.add(MANUAL, "phases", "Codabench refuses the phases: %s" % exc, REFUSED)
    _name_phases_that_never_open(stored, report, explained)
    for phase in stored:
        report.schedule.append({"phase": phase.index + 1, "name": phase.name,
                                "start": _when(phase.start.stored),
                                "end": _when(phase.end.stored) if phase.end.stored else None})
    report.tasks = [{"index": t.get("index"), "name": t.get("name"),
                     "phases": [p.get("name") for p in phases if t.get("index") in (p.get("tasks") or [])]}
                    for t in tasks if isinstance(t, dict)]
    return text, pack.zip_entries(entries), report


def _name_phases_that_never_open(stored, report, explained):
    """Every phase Codabench would store ending when or before it starts takes no submission: each must be named by
    the report; ``explained`` holds the positions the report already explains (a closed phase kept for its migrated
    submissions, a phase_never_ends loss, a phase out of order), any other is a manual step."""
    for phase in stored:
        end, start = phase.end.stored, phase.start.stored
        if end is not None and end <= start and phase.index not in explained:
            report.add(MANUAL, "phases.%d" % (phase.index + 1), "phase %d (%s) ends (%s) when or before it starts "
                       "(%s): on Codabench nobody can ever submit to it; change its dates or leave it out"
                       % (phase.index + 1, phase.name, _when(end), _when(start)), INCOMPLETE)


def migrate(source, target=None, wrap_scores=False, submission=None, check=True, executor=None, rank_by=None):
    """Write the Codabench bundle for the CodaLab bundle at ``source``; returns the Report.

    With ``check``, the new bundle is validated (Codabench) and each task's sample submission (or ``submission``)
    is replayed under the Codabench worker; what must still change is added to the report's manual steps."""
    target = str(target or default_output(source))
    _, data, report = convert(source, target, wrap_scores, rank_by)
    partial = target + ".part"
    with open(partial, "wb") as handle:
        handle.write(data)
    os.replace(partial, target)
    if check:
        _, findings = validate.validate(target, ("codabench",), replay=False)
        report.imports = validate.imports(findings)
        for finding in findings:
            if finding.rule == "files" and finding.where.startswith("tasks."):
                continue  # a task's missing data: said once already, with the old site's key explained (_tasks)
            if finding.severity in ("error", "warning"):
                report.add(MANUAL, "validate: %s" % finding.where, "%s%s" % (
                    finding.message, " (what to change: %s)" % finding.fix if finding.fix else ""),
                    INCOMPLETE if finding.severity == "warning" else UNSCORED if finding.accepted else REFUSED)
        _check_replays(target, report, submission, wrap_scores, executor)
    return report


def migrate_many(sources, folder, **options):
    """Migrate each old bundle into ``folder`` (one bundle and one report each, names made unique); returns
    [(source, target, report or None, error or None)], in the order given. ``options`` are migrate's."""
    os.makedirs(str(folder), exist_ok=True)
    done, taken = [], set()
    for source in sources:
        target = default_output(source, folder)
        stem, n = os.path.basename(target)[:-len(SUFFIX)], 2
        while target in taken:  # OLD.zip from two folders
            room = validate.MAX_BUNDLE_FILE_NAME - len(SUFFIX) - len("-%d" % n)
            target = os.path.join(str(folder), "%s-%d%s" % (stem[:room], n, SUFFIX))
            n += 1
        taken.add(target)
        try:
            done.append((str(source), target, migrate(source, target, **options), None))
        except (MigrationError, OSError) as exc:
            done.append((str(source), target, None, str(exc)))
    return done


def original_imports(source):
    """Whether Codabench would import the old bundle as it is (validate's model of its import)."""
    _, findings = validate.validate(str(source), ("codabench",), replay=False)
    return validate.imports(findings)
