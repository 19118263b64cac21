"""Reading the old CodaLab v1.5 bundle, or a dump of it: the zip and its competition.yaml (Python 2 tags read as
the plain values they are), its dates read the way CodaLab read them, its phases in order, and whether it is a
CodaLab dump. Nothing here writes the new bundle; what cannot be read at all is a MigrationError.
"""
from __future__ import annotations

import datetime
import zipfile
from typing import Any, Optional

import yaml
from dateutil import parser as date_parser

from ..zips import safe_zip
from .report import CHANGE, Report

DATA_FIELDS = ("scoring_program", "reference_data", "ingestion_program", "input_data")
# The phase keys the migration knows (CodaLab's, v1.8's parallel phases included): any other but 'datasets' is
# reported as dropped.
PHASE_KEYS = set(["phasenumber", "label", "description", "start_date", "max_submissions", "max_submissions_per_day",
                  "execution_time_limit", "auto_migration", "public_data", "starting_kit", "is_scoring_only",
                  "leaderboard_management_mode", "force_best_submission_to_leaderboard", "phase_never_ends",
                  "ingestion_program_only_during_scoring", "color", "parent_phasenumber",
                  "is_parallel_parent"]) | set(DATA_FIELDS)
DUMP_COLUMN_KEYS = {"label", "leaderboard", "rank", "sort"}  # all a CodaLab dump writes of a column

# A phase as the old bundle lists it: (its key in the phases mapping, its settings).
OldPhase = tuple[Any, dict]


class MigrationError(Exception):
    """The input cannot be migrated at all (not a zip, no competition.yaml, no phases...)."""


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

    def __init__(self, path, report: Report):
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

    def read(self, name) -> Optional[bytes]:
        return self.table.get(name) if isinstance(name, str) else None


def read_date(value: Any, where: str, report: Report) -> datetime.datetime:
    """A v1.5 date as naive UTC, read the way CodaLab did where it could: a date is midnight, an offset is
    converted to UTC. Strings CodaLab's parse_datetime refused (no time of day, month-first) are read with
    dateutil, and the report says how."""
    if isinstance(value, datetime.datetime):
        if value.utcoffset():
            utc = value.replace(tzinfo=None) - value.utcoffset()
            report.add(CHANGE, where, "%s has a UTC offset: converted to %s UTC (Codabench would drop the offset, "
                       "not convert it)" % (value.isoformat(" "), when(utc)))
            return utc
        value = value.replace(tzinfo=None)
        if value.time() != datetime.time():
            report.add(CHANGE, where, "unquoted timestamp %s: written as a quoted string, so Codabench keeps its "
                       "time of day (it keeps only the day of an unquoted one)" % when(value))
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
                       "itself refused a date string without a time of day): check it" % (value, when(utc)))
        elif parsed.utcoffset():
            report.add(CHANGE, where, "%r converted to %s UTC (Codabench would drop the offset, not convert it)"
                       % (value, when(utc)))
        return utc
    raise MigrationError("%s: %r is not a date" % (where, value))


def when(value: datetime.datetime) -> str:
    """A naive UTC datetime as the report and the new bundle write it: 'YYYY-MM-DD HH:MM:SS'."""
    return value.strftime("%Y-%m-%d %H:%M:%S")


def ordered_phases(old: OldBundle) -> list[OldPhase]:
    """The phases of the old bundle in phasenumber order; a MigrationError when there are none, or one lacks its
    phasenumber or start_date."""
    raw = old.spec.get("phases")
    if not isinstance(raw, dict) or not raw or not all(isinstance(p, dict) for p in raw.values()):
        raise MigrationError("competition.yaml has no phases mapping")
    for key, phase in raw.items():
        if not isinstance(phase.get("phasenumber"), int):
            raise MigrationError("phase %s has no phasenumber" % key)
        if "start_date" not in phase:
            raise MigrationError("phase %s has no start_date" % key)
    return sorted(raw.items(), key=lambda kv: kv[1]["phasenumber"])


def earliest_start(ordered: list[OldPhase]) -> Optional[datetime.datetime]:
    """The earliest phase start, or None (read quietly: the schedule reports on the dates itself)."""
    starts = []
    for key, phase in ordered:
        try:
            starts.append(read_date(phase["start_date"], "phases.%s.start_date" % key, Report("", "")))
        except MigrationError:
            pass
    return min(starts) if starts else None


def is_dump(old: OldBundle) -> bool:
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
