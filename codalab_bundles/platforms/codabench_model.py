"""What Codabench's import stores from a competition.yaml: phase dates, ends and order.

Modelled on Codabench's unpackers (src/apps/competitions/unpackers/{utils,v1,v2,base_unpacker}.py, commit
c7dbc756b07b) and checked against that code run on real bundles (../shared/tools/codabench-import):
- ``get_datetime``: a YAML date *or timestamp* keeps only its day (the isinstance(date) test comes first, and a
  datetime is a date); a string goes through dateutil (month first for '12-31-2026') and keeps its time; any
  UTC offset is replaced by UTC, not converted; a falsy value is "no date".
- v1 bundles: phases sorted by phasenumber; each phase ends one day before the next starts; the last ends at
  the competition's end_date, or never.
- v2 bundles: phases sorted by ``index`` (0 when absent), ends as written.
- the ordering check: a phase followed by another needs an end; the next start must not be before that end, nor
  equal to it ("Phases dates conflict"). A phase whose end is before its own start is accepted and never opens.
Everything here returns naive datetimes in UTC.
"""
from __future__ import annotations

import datetime

from dateutil import parser as date_parser

DAY_BEFORE = "one day before the next phase starts"  # how the v1 import ends every phase but the last
GENERIC = "Unpacking the bundle failed. Here is the error log: %s"  # Codabench's wording for uncaught errors


class ImportRefused(Exception):
    """Codabench refuses the bundle; the message is what the organizer sees."""


class StoredDate(object):
    """A date as written in the YAML and as Codabench stores it, with what changed on the way."""

    def __init__(self, written, stored, changes):
        self.written, self.stored, self.changes = written, stored, changes


def stored_datetime(value: object) -> StoredDate:
    """Codabench's get_datetime: returns a StoredDate (stored None for "no date"); raises ImportRefused."""
    changes = []
    if not value:
        return StoredDate(value, None, changes)
    if isinstance(value, datetime.date):
        if isinstance(value, datetime.datetime) and (value.time() != datetime.time() or value.tzinfo):
            changes.append("an unquoted YAML timestamp keeps only its day: the time of day is dropped")
        return StoredDate(value, datetime.datetime(value.year, value.month, value.day), changes)
    if not isinstance(value, str):
        raise ImportRefused(GENERIC % ("Parser must be a string or character stream, not %s"
                                       % type(value).__name__))
    try:
        parsed = date_parser.parse(value)
    except (ValueError, OverflowError) as exc:
        raise ImportRefused(GENERIC % exc)
    if parsed.utcoffset():
        changes.append("the UTC offset is replaced by UTC, not converted")
    iso_like = len(value) >= 10 and value[4] == "-" and value[:4].isdigit()
    if not iso_like:
        changes.append("read by dateutil as %s" % parsed.strftime("%d %B %Y"))
    return StoredDate(value, parsed.replace(tzinfo=None), changes)


class StoredPhase(object):
    def __init__(self, index, name, where, start, end, source):
        self.index, self.name, self.where = index, name, where
        self.start, self.end = start, end  # StoredDate each
        self.source = source  # the phase's mapping in competition.yaml

    @property
    def never_opens(self):
        return self.end.stored is not None and self.end.stored <= self.start.stored


def _key_error(key):
    return ImportRefused(GENERIC % repr(key))


def _v1_phases(spec):
    phases = spec.get("phases")
    if not phases:
        raise ImportRefused("No phases could be found for this competition")
    if not isinstance(phases, dict) or not all(isinstance(p, dict) for p in phases.values()):
        raise ImportRefused(GENERIC % "phases must be a mapping of phase mappings")
    for phase in phases.values():
        for key in ("phasenumber", "label", "start_date"):
            if key not in phase:
                raise _key_error(key)
    keyed = sorted(phases.items(), key=lambda kv: kv[1]["phasenumber"])
    if any(p.get("is_parallel_parent") or p.get("parent_phasenumber") for p in phases.values()):
        keyed = keyed[1:]  # a v1.8 bundle: the first phase is the parallel parent, which is dropped
    starts = [stored_datetime(p["start_date"]) for _, p in keyed]
    found = []
    for index, ((key, phase), start) in enumerate(zip(keyed, starts)):
        if index + 1 < len(keyed):
            following = starts[index + 1]
            end = StoredDate(None, following.stored - datetime.timedelta(days=1) if following.stored else None,
                             [DAY_BEFORE])
        else:
            written = spec.get("end_date")
            end = stored_datetime(written) if written and written != "null" else StoredDate(written, None, [])
        found.append(StoredPhase(index, phase["label"], "phases.%s" % key, start, end, phase))
    return found


def _v2_phases(spec):
    phases = spec.get("phases")
    if not isinstance(phases, list):
        raise ImportRefused("Unable to find any phases for this competition")
    if not all(isinstance(p, dict) for p in phases):
        raise ImportRefused(GENERIC % "every phase must be a mapping")
    numbered = sorted(enumerate(phases), key=lambda ip: ip[1].get("index", 0))  # stable, as sorted() there
    found = []
    for index, (position, phase) in enumerate(numbered):
        if "tasks" not in phase:
            raise ImportRefused("Phases must contain at least one task to be valid")
        found.append(StoredPhase(index, phase.get("name"), "phases.%d" % position,
                                 stored_datetime(phase.get("start")), stored_datetime(phase.get("end")), phase))
    return found


def _label(phase):
    return phase.name if phase.name else phase.index


def check_order(phases: list[StoredPhase]) -> None:
    """base_unpacker._validate_phase_ordering, then the statuses step (which compares every start with now)."""
    for phase in phases:
        if phase.start.stored is None:
            raise ImportRefused(GENERIC % "'<' not supported between instances of 'NoneType' and 'datetime.datetime'")
    for first, second in zip(phases, phases[1:]):
        if first.end.stored is None:
            raise ImportRefused("Phase: %s must have an end time because it has a phase after it." % _label(first))
        if second.start.stored < first.end.stored:
            raise ImportRefused("Phases must be sequential. Phase: %sstarts before Phase: %s has ended"
                                % (_label(second), _label(first)))
        if second.start.stored == first.end.stored:
            raise ImportRefused("Phases dates conflict. Phase: %s should start after Phase: %s has ended"
                                % (_label(second), _label(first)))


def check_auto_migration(version: str, phases: list[StoredPhase]) -> None:
    """CompetitionSerializer.validate_phases: no auto-migration into the first phase, nor with one phase."""
    key = "auto_migrate_to_this_phase" if version == "2" else "auto_migration"
    flags = [bool(phase.source.get(key)) for phase in phases]
    if any(flags) and len(flags) == 1:
        raise ImportRefused("phases: You cannot auto migrate in a competition with one phase")
    if flags and flags[0]:
        raise ImportRefused("phases: You cannot auto migrate to the first phase of a competition")


def stored_phases(spec: dict, version: str) -> list[StoredPhase]:
    """The phases Codabench stores from ``spec`` (version "1" or "2"), in its order; raises ImportRefused."""
    phases = _v2_phases(spec) if version == "2" else _v1_phases(spec)
    check_order(phases)
    check_auto_migration(version, phases)
    return phases


def format_instant(value: datetime.datetime | None) -> str:
    return "no end" if value is None else value.strftime("%Y-%m-%d %H:%M:%S UTC")
