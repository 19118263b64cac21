"""Reading and checking a task definition (bundles/<task>/task.yaml); see bundles/README.md for the format.

A competition folder holds bundles/<task>/ (the definition), scoring_programs/<task>/ and reference_data/<task>/;
this repository is one (ROOT), and ``new --dir`` writes others anywhere. A task's paths are its folder's.

task.yaml is checked as the bundles are: against a JSON Schema (schemas/task.schema.json, worded by
codalab_bundles/schema_check), each rule carrying the sentence a person reads. What a schema cannot say is checked
here: the files the definition names, and the rules across fields (phase dates, column keys used once, gold_public
naming the phases' splits)."""
from __future__ import annotations

import datetime
import re
from pathlib import Path

import yaml

from .. import schema_check
from ..platforms import fact_sheet
from . import code_submission as code_rules
from . import private_items
from . import tracks as track_rules

ROOT = Path(__file__).resolve().parents[2]  # this repository: the seeded tasks' competition folder
BUNDLES = ROOT / "bundles"
SCORING_PROGRAMS = ROOT / "scoring_programs"
REFERENCE_DATA = ROOT / "reference_data"

SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "task.schema.json"
SCHEMA = schema_check.load(SCHEMA_PATH)
# The keys task.yaml may hold at its top, in a phase, in the leaderboard and in a column (the schema lists them)
TOP_KEYS = set(SCHEMA["properties"])
PHASE_KEYS = set(SCHEMA["$defs"]["phase"]["properties"])
LEADERBOARD_KEYS = set(SCHEMA["$defs"]["leaderboard"]["properties"])
COLUMN_KEYS = set(SCHEMA["$defs"]["column"]["properties"])
PHASE_DEFAULTS = {"max_submissions": 100, "max_submissions_per_day": 5, "execution_time_limit": 300}
# Codabench settings task.yaml passes to the Codabench bundle under the same name, written only when task.yaml sets
# them (an absent key gets Codabench's default, given here as its v2 unpacker has it at c7dbc756). A setting CodaLab
# has a field for goes into the v1.5 bundle under CodaLab's name (V15_NAMES); the others are Codabench only.
CODABENCH_TOP = (("show_detailed_results_in_submission_panel", True), ("auto_run_submissions", True),
                 ("can_participants_make_submissions_public", True), ("make_programs_available", False),
                 ("make_input_data_available", False), ("reward", None))
CODABENCH_PHASE = ("hide_output", "hide_prediction_output", "hide_score_output")  # each false by default
V15_NAMES = {"can_participants_make_submissions_public": "allow_public_submissions"}


class TaskDefinitionError(Exception):
    pass


class UnreadableTaskFile(TaskDefinitionError):
    """task.yaml cannot be read at all (not YAML, not UTF-8): the command could not run (exit status 2)."""


class Phase(object):
    def __init__(self, number, spec):
        self.number = number
        self.label = spec["label"]
        self.description = spec.get("description", "")
        self.start = spec["start"]
        self.split = spec["split"]
        self.end = spec.get("end")  # None: set from the next phase (or end_date) by Task
        self.explicit_end = self.end is not None
        self.options = dict(PHASE_DEFAULTS)  # the v1.5 phase's fields (CodaLab's names)
        self.options.update((k, v) for k, v in spec.items()
                            if k not in ("label", "description", "start", "end", "split", "auto_migrate_to_this_phase",
                                      "tracks")
                            + CODABENCH_PHASE + ("private_scores", "blind"))
        # The Codabench phase's settings beyond dates, limits and data, in the order they are written: task.yaml's
        # auto_migrate_to_this_phase (CodaLab's auto_migration is the same setting: either name, true), and the
        # hide_* keys, hide_output true for CodaLab's hide_results unless task.yaml sets hide_output itself.
        migrate = spec.get("auto_migrate_to_this_phase", spec.get("auto_migration"))
        if "auto_migrate_to_this_phase" in spec:
            self.options["auto_migration"] = migrate
        self.codabench = []
        if "auto_migrate_to_this_phase" in spec or migrate:
            self.codabench.append(("auto_migrate_to_this_phase", bool(migrate)))
        hides = dict((key, spec[key]) for key in CODABENCH_PHASE if key in spec)
        if spec.get("leaderboard_management_mode") == "hide_results":
            hides.setdefault("hide_output", True)
        self.codabench += [(key, hides[key]) for key in CODABENCH_PHASE if key in hides]
        # a phase whose program also writes the private figures (after the deadline), or withholds every score
        self.private_scores = bool(spec.get("private_scores", False))
        self.blind = bool(spec.get("blind", False))
        self.tracks = []  # the task's tracks this phase scores (Task sets them; none for a task without tracks)


class Column(object):
    def __init__(self, rank, spec):
        self.rank = rank
        self.key = spec["key"]
        self.label = spec.get("label", spec["key"])
        self.sort = spec.get("sort", "desc")
        self.numeric_format = int(spec.get("numeric_format", 4))
        self.hidden = spec.get("hidden")  # None: not set (Codabench shows it); the v1.5 bundle leaves hidden ones out
        self.computation = spec.get("computation")  # avg, sum, min, max (Codabench) or avg_rank (results only)
        self.of = list(spec.get("of") or [])  # the keys of the columns it is computed from
        if self.computation == "avg_rank" and "sort" not in spec:
            self.sort = "asc"  # an average rank: lower is better


class Task(object):
    """A checked task definition. ``split_dirs`` maps each split a phase uses to its gold folder."""

    def __init__(self, name, spec, folder, split_dirs):
        self.name = name
        self.folder = folder
        self.root = folder.parent.parent  # the competition folder
        self.spec = spec
        self.title = spec["title"]
        self.description = spec.get("description", "")
        self.docker_image = spec.get("docker_image", "codalab/codalab-legacy:py37")
        self.has_registration = bool(spec.get("has_registration", False))
        self.enable_detailed_results = bool(spec.get("enable_detailed_results", True))
        self.end_date = spec.get("end_date")
        self.competition_type = spec.get("competition_type", "competition")
        self.contact_email = spec.get("contact_email")
        self.queue = (spec.get("queue") or "").strip() or None  # Codabench only: the vhost of a custom queue
        self.max_submission_mb = spec.get("max_submission_mb")  # None: no limit (scoring_limits.py)
        self.forum_enabled = bool(spec.get("forum_enabled", True))
        self.show_detailed_results_in_leaderboard = bool(spec.get("show_detailed_results_in_leaderboard", True))
        # [(key, value)] of CODABENCH_TOP that task.yaml sets (reward: null is the default, not written)
        self.codabench_settings = [(key, spec[key]) for key, _ in CODABENCH_TOP if spec.get(key) is not None]
        self.codalab_settings = [(V15_NAMES[key], value) for key, value in self.codabench_settings if key in V15_NAMES]
        self.pages = spec["pages"]
        self.logo = folder / spec.get("logo", "logo.png")
        self.scoring_program = self.root / "scoring_programs" / spec.get("scoring_program", name)
        self.phases = [Phase(i, p) for i, p in enumerate(spec["phases"], 1)]
        # Codabench needs explicit ends, each strictly before the next start; CodaLab ends a phase at the next start.
        for phase, following in zip(self.phases, self.phases[1:]):
            if phase.end is None:
                phase.end = following.start - datetime.timedelta(seconds=1)
        if self.phases[-1].end is None:
            self.phases[-1].end = self.end_date  # None: the last phase never ends
        self.leaderboard_label = spec["leaderboard"]["label"]
        self.submission_rule = spec["leaderboard"].get("submission_rule", "Add")
        self.leaderboard_hidden = spec["leaderboard"].get("hidden")  # None: not set (Codabench: false, shown)
        self.columns = [Column(i, c) for i, c in enumerate(spec["leaderboard"]["columns"], 1)]
        self.split_dirs = split_dirs
        # Tracks (authoring/tracks.py): each phase's, the leaderboard's columns on Codabench, the ranking column,
        # the Codabench tasks. A task without tracks has one task per split, and its columns as listed.
        self.tracks = track_rules.read_tracks(spec, self.columns, self.root)
        for number, (phase, phase_spec) in enumerate(zip(self.phases, spec["phases"]), 1):
            phase.tracks = track_rules.phase_tracks(phase_spec, self.tracks, number)
        self.board = track_rules.board(self.columns, self.tracks)
        self.primary = track_rules.primary(spec["leaderboard"], self.board)
        self.codabench_tasks = track_rules.codabench_tasks(self)
        track_rules.check_rule(self)
        # A CodaLab v1.5 bundle: one program per phase, so only when one run writes every track's columns
        self.built_v15 = not self.tracks or track_rules.one_run_writes_every_track(self)
        # A code-submission task (code_submission.py): no v1.5 bundle, and its phases hide the prediction output
        self.code_submission = code_rules.read(spec, folder, spec["phases"], self.queue,
                                               _shown(folder / "task.yaml"), _check)
        if self.code_submission is not None:
            self.built_v15 = False
            for phase in self.phases:
                hides = code_rules.hide_predictions(phase.codabench)
                phase.codabench = [(key, hides[key]) for key in ("auto_migrate_to_this_phase",) + CODABENCH_PHASE
                                   if key in hides]
        # Splits whose gold participants may see: their detailed results may show gold items (the scoring
        # runtime's rule otherwise); the builder marks their reference zip with GOLD_PUBLIC_MARKER.
        self.gold_public = dict((split, bool((spec.get("gold_public") or {}).get(split, False)))
                                for split in split_dirs)
        # Codabench only: the questions asked with every submission (codalab_bundles/platforms/fact_sheet.py)
        self.fact_sheet = fact_sheet.from_task(spec.get("fact_sheet"))
        # Public and private items of a split's gold, and the reveal (bundles/README.md, "Private test scores"):
        # {split: the private items' ids} (private_items.py reads them), and whether the organizer has revealed
        # the private columns and the blind phases.
        self.private_ids = {}
        self.reveal = bool(spec.get("reveal", False))
        # a private column is hidden until the reveal, unless task.yaml says otherwise
        for column in list(self.columns) + list(self.board):
            if column.hidden is None and column.key.startswith("private_") and spec.get("private") and not self.reveal:
                column.hidden = True
        for phase in self.phases:  # a blind phase hides its outputs until the reveal, unless task.yaml says otherwise
            hides = dict(phase.codabench)
            if phase.blind and not self.reveal:
                for key in ("hide_prediction_output", "hide_score_output"):
                    hides.setdefault(key, True)
            phase.codabench = [(key, hides[key]) for key in ("auto_migrate_to_this_phase",) + CODABENCH_PHASE
                               if key in hides]

    @property
    def splits(self):
        """Distinct splits in phase order."""
        seen = []
        for phase in self.phases:
            if phase.split not in seen:
                seen.append(phase.split)
        return seen


def _as_datetime(value, where):
    """A date of task.yaml (YAML has read it: the schema checked that it is one) as a naive datetime in UTC."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    raise TaskDefinitionError("%s: %r is not a date (write YYYY-MM-DD HH:MM:SS, unquoted, in UTC)" % (where, value))


def _check(condition, message):
    if not condition:
        raise TaskDefinitionError(message)


_QUOTED_VALUE = re.compile(r"""^\s*(?:-\s+)?(?:[^'"#\s][^:#]*:\s+)?(["'])""")


def _unclosed_quote(text, last):
    """(line, column), 1-based, of the first value up to line ``last`` (0-based) that opens a quote and does not
    close it on its line: YAML reads on into the next lines and gives up further down."""
    for number, line in enumerate(text.splitlines()[:last + 1]):
        match = _QUOTED_VALUE.match(line)
        if not match:
            continue
        quote, rest = match.group(1), line[match.end():]
        rest = rest.replace("\\\\", "").replace('\\"', "") if quote == '"' else rest.replace("''", "")
        if quote not in rest:
            return number + 1, match.end()
    return None


def _read_yaml(path, where):
    """The parsed task.yaml; UnreadableTaskFile naming the line and column where YAML gives up, with the fix."""
    try:
        text = path.read_text(encoding="utf-8")
        return yaml.safe_load(text)
    except UnicodeDecodeError as exc:
        raise UnreadableTaskFile("%s: byte %d is not UTF-8 text: save the file as UTF-8" % (where, exc.start + 1))
    except OSError as exc:
        raise UnreadableTaskFile("%s cannot be read: %s" % (where, exc.strerror or exc))
    except yaml.YAMLError as exc:
        mark, problem = getattr(exc, "problem_mark", None), getattr(exc, "problem", None) or str(exc)
        context, begun = getattr(exc, "context", None) or "", getattr(exc, "context_mark", None)
        unclosed = _unclosed_quote(text, mark.line if mark is not None else len(text))
        if unclosed:
            fix = "close the quote opened on line %d, column %d" % unclosed
        elif "'\\t'" in problem:  # PyYAML writes the tab as backslash-t
            fix = "indent with spaces, not tabs"
        elif "flow" in context and begun is not None:
            fix = "close the brackets opened on line %d, column %d" % (begun.line + 1, begun.column + 1)
        else:
            fix = ("check the indentation, and put in quotes a value that holds ': ' or ' #' or starts with one of "
                   "[ ] { } & * ! | > ' \" % @ `")
        raise UnreadableTaskFile("%s%s: not valid YAML (%s): %s" % (
            where, ", line %d, column %d" % (mark.line + 1, mark.column + 1) if mark is not None else "", problem, fix))


def _place(path, data):
    """How a message names a place in task.yaml, from the path of keys and indexes jsonschema gives: 'phase 2:
    start', 'column f1: sort' (a column by its key), 'leaderboard.label', 'pages.overview'; '' for the file."""
    path = list(path)
    head = None
    if path[:1] == ["phases"] and len(path) > 1:
        head, path = "phase %d" % (path[1] + 1), path[2:]
    elif path[:2] == ["leaderboard", "columns"] and len(path) > 2:
        column = data["leaderboard"]["columns"][path[2]]
        key = column.get("key") if isinstance(column, dict) else None
        head, path = "column %s" % (key if isinstance(key, str) else path[2] + 1), path[3:]
    elif path[:1] == ["fact_sheet"] and len(path) > 1:
        question = data["fact_sheet"][path[1]]
        key = question.get("key") if isinstance(question, dict) else None
        head, path = "fact_sheet question %s" % (key if isinstance(key, str) else path[1] + 1), path[2:]
    return ": ".join(part for part in (head, ".".join(map(str, path))) if part)


def _check_schema(spec, where):
    """TaskDefinitionError naming the file, the place and the rule, for the first rule of the schema (in its order)
    that ``spec`` breaks."""
    data = schema_check.jsonable(spec)
    for error in schema_check.errors(SCHEMA, data, yaml_integers=True):
        raise TaskDefinitionError("%s: %s" % (where, schema_check.message(error, SCHEMA, lambda p: _place(p, data))))


def _shown(path):
    """A path as a message shows it: relative to the current folder when inside it."""
    path = Path(path)
    return str(path.relative_to(Path.cwd())) if Path.cwd() in path.parents else str(path)


def _check_fact_sheet(questions, where):
    """What the schema cannot say of the fact sheet: keys once, choices for a select only (each once), and no
    required checkbox (always answered: true or false)."""
    seen = set()
    for question in questions:
        qwhere = "%s: fact_sheet question %s" % (where, question["key"])
        _check(question["key"] not in seen, "%s: the key appears twice" % qwhere)
        seen.add(question["key"])
        choices = question.get("choices")
        if question["type"] == "select":
            _check(bool(choices), "%s: a select question needs its choices (choices: [a, b])" % qwhere)
            twice = sorted(set(c for c in choices if choices.count(c) > 1))
            _check(not twice, "%s: choices appear twice: %s" % (qwhere, ", ".join(twice)))
        else:
            _check(choices is None, "%s: choices are for a select question (this one is %s)"
                   % (qwhere, question["type"]))
        _check(not (question["type"] == "checkbox" and question.get("required")),
               "%s: a checkbox is always answered (true or false), so it cannot be required: leave out required"
               % qwhere)


def task_names(bundles_dir=BUNDLES) -> list[str]:
    """The tasks of a competition folder's bundles/: each folder with a task.yaml."""
    return sorted(p.parent.name for p in Path(bundles_dir).glob("*/task.yaml"))


def load_task(name: str, reference_overrides: dict | None = None, bundles_dir=BUNDLES) -> Task:
    """Load bundles/<name>/task.yaml; ``reference_overrides`` maps split names to gold folders."""
    folder = Path(bundles_dir).resolve() / name
    root = folder.parent.parent
    path = folder / "task.yaml"
    _check(path.exists(), "no task definition %s" % path)
    where = str(path.relative_to(Path.cwd())) if Path.cwd() in path.parents else str(path)
    spec = _read_yaml(path, where)
    _check_schema(spec, where)
    for key, page in spec["pages"].items():
        _check((folder / "pages" / page).is_file(), "%s: page %s: no file pages/%s" % (where, key, page))
    _check((folder / spec.get("logo", "logo.png")).is_file(), "%s: no logo file" % where)
    if spec.get("end_date") is not None:
        spec["end_date"] = _as_datetime(spec["end_date"], where + ": end_date")

    phases = spec["phases"]
    previous = previous_end = None
    for number, phase in enumerate(phases, 1):
        pwhere = "%s: phase %d" % (where, number)
        phase["start"] = _as_datetime(phase["start"], pwhere + ": start")
        if previous is not None:
            # CodaLab ends a phase when the next starts; Codabench's v1 import ends it one day before the next
            # start, so a shorter phase would never open there.
            _check(phase["start"] - previous >= datetime.timedelta(days=1),
                   "%s: starts less than one day after the previous phase" % pwhere)
            if previous_end is not None:
                _check(phase["start"] > previous_end, "%s: starts before the previous phase's end" % pwhere)
        if phase.get("end") is not None:
            phase["end"] = _as_datetime(phase["end"], pwhere + ": end")
            _check(phase["end"] > phase["start"], "%s: end is not after start" % pwhere)
        previous, previous_end = phase["start"], phase.get("end")
    if spec.get("end_date") is not None:
        _check(spec["end_date"] > previous, "%s: end_date is before the last phase starts" % where)
        _check(previous_end is None, "%s: the last phase has an end and end_date is set: keep one" % where)

    for number, phase in enumerate(phases, 1):
        both = [phase[k] for k in ("auto_migration", "auto_migrate_to_this_phase") if k in phase]
        _check(len(set(both)) < 2, "%s: phase %d: auto_migration and auto_migrate_to_this_phase disagree: they are one "
               "setting (auto_migrate_to_this_phase is Codabench's name, auto_migration CodaLab's): keep one"
               % (where, number))
        _check(not (number == 1 and any(both)), "%s: phase 1: auto_migrate_to_this_phase: no phase comes before the "
               "first to migrate submissions from (Codabench refuses the bundle: 'You cannot auto migrate to the first "
               "phase of a competition'): remove it" % where)
    _check(not all(c.get("hidden") for c in spec["leaderboard"]["columns"]),
           "%s: every leaderboard column is hidden: Codabench's leaderboard then fails to load ('No columns exist on "
           "the leaderboard'): leave one column visible (hide the whole leaderboard with leaderboard.hidden)" % where)

    seen = set()
    for column in spec["leaderboard"]["columns"]:
        _check(column["key"] not in seen, "%s: column key %s appears twice" % (where, column["key"]))
        seen.add(column["key"])
        _check(bool(column.get("computation")) == bool(column.get("of")),
               "%s: column %s: computation and of go together (a computed column names the columns it is computed "
               "of)" % (where, column["key"]))
        _check(column["key"] not in (column.get("of") or []), "%s: column %s is computed of itself" % (
            where, column["key"]))

    _check_fact_sheet(spec.get("fact_sheet") or [], where)

    unknown = sorted(set(spec.get("gold_public") or {}) - set(p["split"] for p in phases))
    _check(not unknown, "%s: gold_public names splits no phase uses: %s" % (where, ", ".join(unknown)))
    private_items.check_declaration(spec, where, _check)

    overrides = dict(reference_overrides or {})
    declared = spec.get("splits") or {}
    split_dirs = {}
    for phase in phases:
        split = phase["split"]
        if split in overrides:
            target = Path(overrides[split]).expanduser()
        elif split in declared:
            target = Path(declared[split])
        else:
            target = root / "reference_data" / name / split
        target = target if target.is_absolute() else root / target
        _check(target.is_dir(), "%s: the gold data of split %r is not a folder: %s" % (where, split, target))
        split_dirs[split] = target.resolve()
    try:
        task = Task(name, spec, folder, split_dirs)
    except track_rules.TrackError as exc:
        raise TaskDefinitionError("%s: %s" % (where, exc))
    try:
        private_items.load(task, where)
    except private_items.PrivateItemsError as exc:
        raise TaskDefinitionError(str(exc))
    if not task.tracks:  # one Codabench task per split and mark (private_items.py)
        task.codabench_tasks = private_items.codabench_tasks(task, track_rules.CodabenchTask)
    _check(not ((task.scoring_program / "evaluate.py").is_file() and (task.scoring_program / "scoring.json").is_file()),
           "%s holds both scoring.json (the generic program's configuration) and evaluate.py (a program of its own), "
           "and only one can score: remove scoring.json to score with evaluate.py, or evaluate.py to keep the generic "
           "program" % _shown(task.scoring_program))
    _check((task.scoring_program / "evaluate.py").is_file() or (task.scoring_program / "scoring.json").is_file(),
           "%s: no scoring program %s/evaluate.py (or scoring.json for a generic one)"
           % (where, task.scoring_program))
    return task
