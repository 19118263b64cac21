"""codabench_model: what Codabench's import stores from a competition.yaml, written from Codabench's own code at the
commit the project pins (codalab/codabench c7dbc756b07b133f8e552ae626fab54817ed93f3):

- src/apps/competitions/tasks.py: ``yaml.safe_load`` of competition.yaml; version "1"/"1.5" -> V15Unpacker,
  "2" -> V2Unpacker; an uncaught exception becomes "Unpacking the bundle failed. Here is the error log: {e}";
- unpackers/utils.py ``get_datetime``: falsy -> None; a ``datetime.date`` (a datetime is one) ->
  ``datetime.combine(field, time())``, midnight of its day; otherwise ``dateutil.parser.parse``; then
  ``.replace(tzinfo=UTC)`` (replaced, not converted);
- unpackers/v1.py ``_unpack_phases``: phases sorted by ``phasenumber``; ``_preprocess_phases`` drops the first when
  any phase has ``is_parallel_parent`` or ``parent_phasenumber`` (a v1.8 bundle); each phase ends at the next
  one's start minus one day; the last at the competition's ``end_date`` when it is truthy and not "null", else
  never; ``auto_migrate_to_this_phase`` comes from ``auto_migration``;
- unpackers/v2.py ``_unpack_phases``: ``sorted(phases, key=lambda p: p.get('index', 0))``, then enumerated; ends as
  written; a phase without ``tasks`` refused; ``auto_migrate_to_this_phase`` read as is;
- base_unpacker.py ``_validate_phase_ordering`` (an end is needed before another phase; "Phases must be
  sequential" when the next starts before; "Phases dates conflict" when at the same instant);
- api/serializers/competitions.py ``validate_phases`` (auto-migration refused with one phase, or into the first),
  reported by tasks.py as "phases: <message>".
"""
import datetime

import pytest
import yaml

from codalab_bundles.platforms.codabench_model import (DAY_BEFORE, ImportRefused, format_instant, stored_datetime,
                                                       stored_phases)

GENERIC = "Unpacking the bundle failed. Here is the error log: "


def dt(*parts):
    return datetime.datetime(*parts)


def stored(yaml_text, version=None):
    spec = yaml.safe_load(yaml_text)
    version = version or str(spec.get("version", "1"))
    return [(p.index, p.name, p.start.stored, p.end.stored) for p in stored_phases(spec, version)]


def refusal(yaml_text, version=None):
    spec = yaml.safe_load(yaml_text)
    with pytest.raises(ImportRefused) as info:
        stored_phases(spec, version or str(spec.get("version", "1")))
    return str(info.value)


# --- get_datetime --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    # Unquoted: YAML gives a date or a datetime, and either keeps only its day.
    ("2026-01-15", dt(2026, 1, 15)),
    ("2026-01-15 10:30:00", dt(2026, 1, 15)),
    ("2026-01-15T23:59:59Z", dt(2026, 1, 15)),
    ("2026-01-15 10:30:00+05:00", dt(2026, 1, 15)),
    # Quoted: dateutil keeps the time; an offset is replaced by UTC, not converted.
    ("'2026-01-15 10:30:00'", dt(2026, 1, 15, 10, 30)),
    ("'2026-01-15T10:30:00+05:00'", dt(2026, 1, 15, 10, 30)),
    ("'2026-01-15'", dt(2026, 1, 15)),
    ("'12-31-2026'", dt(2026, 12, 31)),
    ("'01/02/2026 08:00'", dt(2026, 1, 2, 8)),
    ("'15 January 2026 7pm'", dt(2026, 1, 15, 19)),
])
def test_get_datetime(text, expected):
    value = yaml.safe_load("start: %s" % text)["start"]
    result = stored_datetime(value)
    assert result.stored == expected and result.stored.tzinfo is None
    assert result.written == value


DROPPED = "an unquoted YAML timestamp keeps only its day: the time of day is dropped"


@pytest.mark.parametrize("text, changes", [
    ("2026-01-15 10:30:00", [DROPPED]),
    ("2026-01-15 00:00:00+02:00", [DROPPED]),
    ("'2026-01-15T10:30:00+05:00'", ["the UTC offset is replaced by UTC, not converted"]),
    ("'12-31-2026'", ["read by dateutil as 31 December 2026"]),
    ("'01/02/2026'", ["read by dateutil as 02 January 2026"]),
    ("'1/2/2026 10:00 +01:00'", ["the UTC offset is replaced by UTC, not converted",
                                 "read by dateutil as 02 January 2026"]),
])
def test_what_changed_on_the_way_is_said(text, changes):
    assert stored_datetime(yaml.safe_load("start: %s" % text)["start"]).changes == changes


@pytest.mark.parametrize("text", ["2026-01-15", "2026-01-15 00:00:00", "'2026-01-15 10:30:00'", "'2026-01-15'",
                                  "'2026-01-15T10:30:00+00:00'"])
def test_nothing_changed_nothing_said(text):
    assert stored_datetime(yaml.safe_load("start: %s" % text)["start"]).changes == []


@pytest.mark.parametrize("value", [None, "", 0, False])
def test_a_falsy_value_is_no_date(value):
    result = stored_datetime(value)
    assert result.stored is None and result.changes == [] and result.written == value


@pytest.mark.parametrize("value, message", [
    (20260115, "Parser must be a string or character stream, not int"),
    (["2026-01-15"], "Parser must be a string or character stream, not list"),
    ("not a date", "Unknown string format: not a date"),
    ("2026-02-30", "day is out of range for month: 2026-02-30"),
])
def test_what_dateutil_cannot_read_is_refused_with_its_message(value, message):
    with pytest.raises(ImportRefused) as info:
        stored_datetime(value)
    assert str(info.value) == GENERIC + message


def test_format_instant():
    assert format_instant(None) == "no end"
    assert format_instant(dt(2026, 1, 5, 7, 8, 9)) == "2026-01-05 07:08:09 UTC"


# --- v1 phases -----------------------------------------------------------------------------------------------

V1 = """
title: t
%s
phases:
  2:
    phasenumber: 2
    label: Evaluation
    start_date: '2026-02-01 12:00:00'
  1:
    phasenumber: 1
    label: Development
    start_date: '2026-01-01 06:30:00'
  3:
    phasenumber: 3
    label: Post
    start_date: '2026-03-01 00:00:00'
"""


def test_v1_phases_by_phasenumber_each_ending_a_day_before_the_next_starts_the_last_never():
    assert stored(V1 % "") == [
        (0, "Development", dt(2026, 1, 1, 6, 30), dt(2026, 1, 31, 12)),
        (1, "Evaluation", dt(2026, 2, 1, 12), dt(2026, 2, 28)),
        (2, "Post", dt(2026, 3, 1), None)]
    phases = stored_phases(yaml.safe_load(V1 % ""), "1")
    assert [p.where for p in phases] == ["phases.1", "phases.2", "phases.3"]
    assert [p.end.changes for p in phases] == [[DAY_BEFORE], [DAY_BEFORE], []]


@pytest.mark.parametrize("end_date, last_end", [
    ("end_date: '2026-06-30 18:00:00'", dt(2026, 6, 30, 18)),
    ("end_date: 2026-06-30 18:00:00", dt(2026, 6, 30)),       # unquoted: its day only
    ("end_date: 2026-06-30", dt(2026, 6, 30)),
    ("end_date: 'null'", None),                                # the string "null" is no end
    ("end_date: null", None),
    ("end_date: ''", None),
    ("", None),
])
def test_v1_competition_end_date_ends_the_last_phase_only(end_date, last_end):
    phases = stored(V1 % end_date)
    assert [p[3] for p in phases] == [dt(2026, 1, 31, 12), dt(2026, 2, 28), last_end]


def test_v1_end_date_changes_are_said():
    phases = stored_phases(yaml.safe_load(V1 % "end_date: 2026-06-30 18:00:00"), "1")
    assert phases[-1].end.changes == [DROPPED]


def test_v1_end_date_before_the_last_start_is_accepted_and_the_phase_never_opens():
    phases = stored_phases(yaml.safe_load(V1 % "end_date: '2026-02-15 00:00:00'"), "1")
    assert [p.never_opens for p in phases] == [False, False, True]


V18 = """
phases:
  1:
    phasenumber: 1
    label: Parent
    start_date: '2026-01-01 00:00:00'
    %s
  2:
    phasenumber: 2
    label: Track A
    start_date: '2026-01-10 00:00:00'
    %s
  3:
    phasenumber: 3
    label: Track B
    start_date: '2026-02-10 00:00:00'
"""


@pytest.mark.parametrize("first, second", [
    ("is_parallel_parent: true", ""),
    ("", "parent_phasenumber: 1"),
    ("is_parallel_parent: 1", "parent_phasenumber: 1"),
])
def test_v18_drops_the_first_phase_the_parallel_parent(first, second):
    assert stored(V18 % (first, second)) == [(0, "Track A", dt(2026, 1, 10), dt(2026, 2, 9)),
                                             (1, "Track B", dt(2026, 2, 10), None)]


@pytest.mark.parametrize("first, second", [("", ""), ("is_parallel_parent: false", "parent_phasenumber: 0")])
def test_without_a_parallel_flag_every_phase_stays(first, second):
    assert [p[1] for p in stored(V18 % (first, second))] == ["Parent", "Track A", "Track B"]


def test_v1_phases_less_than_a_day_apart_never_open_but_are_accepted():
    text = """
phases:
  1: {phasenumber: 1, label: A, start_date: '2026-01-01 00:00:00'}
  2: {phasenumber: 2, label: B, start_date: '2026-01-01 12:00:00'}
  3: {phasenumber: 3, label: C, start_date: '2026-01-02 00:00:00'}
"""
    phases = stored_phases(yaml.safe_load(text), "1")
    assert [(p.end.stored, p.never_opens) for p in phases] == [
        (dt(2025, 12, 31, 12), True), (dt(2026, 1, 1), True), (None, False)]


@pytest.mark.parametrize("key", ["phasenumber", "label", "start_date"])
def test_v1_phase_without_a_needed_key_is_refused_naming_it(key):
    phase = {"phasenumber": 1, "label": "A", "start_date": "2026-01-01"}
    del phase[key]
    with pytest.raises(ImportRefused) as info:
        stored_phases({"phases": {1: phase}}, "1")
    assert str(info.value) == GENERIC + repr(key)


@pytest.mark.parametrize("spec", [{"title": "t"}, {"phases": None}, {"phases": {}}])
def test_v1_without_phases_is_refused(spec):
    with pytest.raises(ImportRefused) as info:
        stored_phases(spec, "1")
    assert str(info.value) == "No phases could be found for this competition"


# Phases that are not mappings: Codabench fails on them with an AttributeError of its own wording; the model says
# what is wrong, after the same prefix.
@pytest.mark.parametrize("spec, version, message", [
    ({"phases": ["a", "b"]}, "1", "phases must be a mapping of phase mappings"),
    ({"phases": {1: {"phasenumber": 1, "label": "A", "start_date": "2026-01-01"}, 2: "text"}}, "1",
     "phases must be a mapping of phase mappings"),
    ({"phases": [{"name": "A", "start": "2026-01-01", "tasks": [0]}, "text"]}, "2", "every phase must be a mapping"),
])
def test_phases_that_are_not_mappings_are_refused(spec, version, message):
    with pytest.raises(ImportRefused) as info:
        stored_phases(spec, version)
    assert str(info.value) == GENERIC + message


# --- auto-migration ------------------------------------------------------------------------------------------

MIGRATING_V1 = """
phases:
  1: {phasenumber: 1, label: A, start_date: '2026-01-01', %s}
  2: {phasenumber: 2, label: B, start_date: '2026-02-01', %s}
"""
MIGRATING_V2 = """
version: 2
phases:
  - {index: 0, name: A, start: '2026-01-01', end: '2026-01-31', tasks: [0], %s}
  - {index: 1, name: B, start: '2026-02-01', tasks: [0], %s}
"""
FIRST = "phases: You cannot auto migrate to the first phase of a competition"
ONE = "phases: You cannot auto migrate in a competition with one phase"


@pytest.mark.parametrize("template, key", [(MIGRATING_V1, "auto_migration"),
                                           (MIGRATING_V2, "auto_migrate_to_this_phase")])
def test_auto_migration_into_a_later_phase_is_accepted_into_the_first_refused(template, key):
    assert len(stored(template % ("%s: false" % key, "%s: true" % key))) == 2
    assert refusal(template % ("%s: true" % key, "")) == FIRST


@pytest.mark.parametrize("template, other_key", [(MIGRATING_V1, "auto_migrate_to_this_phase"),
                                                 (MIGRATING_V2, "auto_migration")])
def test_each_version_reads_only_its_own_auto_migration_key(template, other_key):
    assert len(stored(template % ("%s: true" % other_key, ""))) == 2


@pytest.mark.parametrize("text, version", [
    ("phases:\n  1: {phasenumber: 1, label: A, start_date: '2026-01-01', auto_migration: true}\n", "1"),
    ("phases:\n  - {name: A, start: '2026-01-01', tasks: [0], auto_migrate_to_this_phase: true}\n", "2"),
])
def test_auto_migration_with_one_phase_is_refused(text, version):
    assert refusal(text, version) == ONE


# --- v2 phases -----------------------------------------------------------------------------------------------


def test_v2_phases_by_index_absent_as_0_in_a_stable_order():
    text = """
version: 2
phases:
  - {name: Third, index: 2, start: '2026-03-01 00:00:00', tasks: [0]}
  - {name: NoIndex, start: '2026-01-01 00:00:00', end: '2026-01-10 00:00:00', tasks: [0]}
  - {name: Zero, index: 0, start: '2026-01-11 00:00:00', end: '2026-01-20 00:00:00', tasks: [0]}
  - {name: One, index: 1, start: '2026-02-01 00:00:00', end: '2026-02-20 00:00:00', tasks: [0]}
"""
    assert stored(text) == [(0, "NoIndex", dt(2026, 1, 1), dt(2026, 1, 10)),
                            (1, "Zero", dt(2026, 1, 11), dt(2026, 1, 20)),
                            (2, "One", dt(2026, 2, 1), dt(2026, 2, 20)),
                            (3, "Third", dt(2026, 3, 1), None)]
    phases = stored_phases(yaml.safe_load(text), "2")
    assert [p.where for p in phases] == ["phases.1", "phases.2", "phases.3", "phases.0"]


def test_v2_ends_are_as_written_and_unquoted_ones_keep_their_day():
    text = """
version: 2
phases:
  - {name: A, start: 2026-01-01 09:00:00, end: 2026-01-31 17:00:00, tasks: [0]}
  - {name: B, start: '2026-02-01 09:00:00', end: '2026-02-28 17:00:00', tasks: [0]}
"""
    assert stored(text) == [(0, "A", dt(2026, 1, 1), dt(2026, 1, 31)),
                            (1, "B", dt(2026, 2, 1, 9), dt(2026, 2, 28, 17))]


def test_v2_phase_without_tasks_is_refused():
    assert refusal("version: 2\nphases:\n  - {name: A, start: '2026-01-01'}\n") == \
        "Phases must contain at least one task to be valid"


def test_v2_without_phases_is_refused():
    assert refusal("version: 2\ntitle: t\n") == "Unable to find any phases for this competition"


# --- _validate_phase_ordering --------------------------------------------------------------------------------


def v2(*phases):
    return "version: 2\nphases:\n" + "".join(
        "  - {name: %s, start: '%s', %stasks: [0]}\n" % (name, start, "end: '%s', " % end if end else "")
        for name, start, end in phases)


def test_a_phase_followed_by_another_needs_an_end():
    assert refusal(v2(("A", "2026-01-01", None), ("B", "2026-02-01", None))) == \
        "Phase: A must have an end time because it has a phase after it."


def test_the_next_phase_may_not_start_before_the_end():
    # Codabench's message has no space between the name and "starts".
    assert refusal(v2(("A", "2026-01-01", "2026-02-01 00:00:01"), ("B", "2026-02-01", None))) == \
        "Phases must be sequential. Phase: Bstarts before Phase: A has ended"


def test_the_next_phase_may_not_start_when_the_previous_ends():
    assert refusal(v2(("A", "2026-01-01", "2026-02-01 00:00:00"), ("B", "2026-02-01", None))) == \
        "Phases dates conflict. Phase: B should start after Phase: A has ended"


def test_one_second_apart_is_accepted():
    assert stored(v2(("A", "2026-01-01", "2026-01-31 23:59:59"), ("B", "2026-02-01", None)))[1][2] == dt(2026, 2, 1)


def test_a_phase_without_a_name_is_named_by_its_index():
    text = ("version: 2\nphases:\n  - {start: '2026-01-01', tasks: [0]}\n"
            "  - {name: '', start: '2026-02-01', tasks: [0]}\n  - {start: '2026-03-01', tasks: [0]}\n")
    assert refusal(text) == "Phase: 0 must have an end time because it has a phase after it."


def test_a_phase_without_a_start_fails_as_codabench_compares_it():
    assert refusal(v2(("A", "", None))) == \
        GENERIC + "'<' not supported between instances of 'NoneType' and 'datetime.datetime'"


def test_an_end_before_the_start_is_accepted_and_never_opens():
    phases = stored_phases(yaml.safe_load(v2(("A", "2026-01-10", "2026-01-05"), ("B", "2026-02-01", None))), "2")
    assert [p.never_opens for p in phases] == [True, False]
    # An end at the very start leaves no instant to submit either; the last phase without an end is always open.
    same = stored_phases(yaml.safe_load(v2(("A", "2026-01-10", "2026-01-10"))), "2")
    assert same[0].never_opens

