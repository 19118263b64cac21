"""Reading and checking a task definition (bundles/<task>/task.yaml); see bundles/README.md for the format.

A competition folder holds bundles/<task>/ (the definition), scoring_programs/<task>/ and reference_data/<task>/;
this repository is one (ROOT), and ``new --dir`` writes others anywhere. A task's paths are its folder's."""
import datetime
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]  # this repository: the seeded tasks' competition folder
BUNDLES = ROOT / "bundles"
SCORING_PROGRAMS = ROOT / "scoring_programs"
REFERENCE_DATA = ROOT / "reference_data"

REQUIRED_PAGES = ("overview", "evaluation", "terms", "data")
TOP_KEYS = {"title", "description", "docker_image", "has_registration", "enable_detailed_results", "end_date",
            "pages", "splits", "phases", "leaderboard", "logo", "scoring_program", "competition_type",
            "contact_email", "forum_enabled", "show_detailed_results_in_leaderboard", "gold_public"}
PHASE_KEYS = {"label", "description", "start", "end", "split", "max_submissions", "max_submissions_per_day",
              "execution_time_limit", "color", "auto_migration", "leaderboard_management_mode",
              "force_best_submission_to_leaderboard"}
PHASE_DEFAULTS = {"max_submissions": 100, "max_submissions_per_day": 5, "execution_time_limit": 300}
COLUMN_KEYS = {"key", "label", "sort", "numeric_format"}
LEADERBOARD_KEYS = {"label", "columns", "submission_rule"}
COMPETITION_TYPES = ("competition", "benchmark")
# Codabench's Leaderboard.submission_rule choices; Add (the participant picks what goes on the board) is its default.
SUBMISSION_RULES = ("Add", "Add_And_Delete", "Add_And_Delete_Multiple", "Force_Last", "Force_Latest_Multiple",
                    "Force_Best")
COLORS = {"white", "orange", "yellow", "green", "blue", "purple"}
_SCORE_KEY = re.compile(r"^[A-Za-z0-9_]{1,36}$")


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
        self.options = dict(PHASE_DEFAULTS)
        self.options.update((k, v) for k, v in spec.items()
                            if k not in ("label", "description", "start", "end", "split"))


class Column(object):
    def __init__(self, rank, spec):
        self.rank = rank
        self.key = spec["key"]
        self.label = spec.get("label", spec["key"])
        self.sort = spec.get("sort", "desc")
        self.numeric_format = int(spec.get("numeric_format", 4))


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
        self.forum_enabled = bool(spec.get("forum_enabled", True))
        self.show_detailed_results_in_leaderboard = bool(spec.get("show_detailed_results_in_leaderboard", True))
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
        self.columns = [Column(i, c) for i, c in enumerate(spec["leaderboard"]["columns"], 1)]
        self.split_dirs = split_dirs
        # Splits whose gold participants may see: their detailed results may show gold items (the scoring
        # runtime's rule otherwise); the builder marks their reference zip with GOLD_PUBLIC_MARKER.
        self.gold_public = dict((split, bool((spec.get("gold_public") or {}).get(split, False)))
                                for split in split_dirs)

    @property
    def splits(self):
        """Distinct splits in phase order."""
        seen = []
        for phase in self.phases:
            if phase.split not in seen:
                seen.append(phase.split)
        return seen


def _as_datetime(value, where):
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


def task_names(bundles_dir=BUNDLES):
    return sorted(p.parent.name for p in Path(bundles_dir).glob("*/task.yaml"))


def load_task(name, reference_overrides=None, bundles_dir=BUNDLES):
    """Load bundles/<name>/task.yaml; ``reference_overrides`` maps split names to gold folders."""
    folder = Path(bundles_dir).resolve() / name
    root = folder.parent.parent
    path = folder / "task.yaml"
    _check(path.exists(), "no task definition %s" % path)
    where = str(path.relative_to(Path.cwd())) if Path.cwd() in path.parents else str(path)
    spec = _read_yaml(path, where)
    _check(isinstance(spec, dict), "%s: expected a mapping" % where)
    unknown = set(spec) - TOP_KEYS
    _check(not unknown, "%s: unknown keys %s (allowed: %s)" % (where, sorted(unknown), sorted(TOP_KEYS)))
    _check(isinstance(spec.get("title"), str) and 0 < len(spec["title"]) <= 100,
           "%s: title must be text of 1-100 characters" % where)
    pages = spec.get("pages") or {}
    for page in REQUIRED_PAGES:
        _check(page in pages, "%s: pages.%s is required by CodaLab" % (where, page))
    for key, page in pages.items():
        _check((folder / "pages" / page).is_file(), "%s: page %s: no file pages/%s" % (where, key, page))
    _check((folder / spec.get("logo", "logo.png")).is_file(), "%s: no logo file" % where)
    if spec.get("end_date") is not None:
        spec["end_date"] = _as_datetime(spec["end_date"], where + ": end_date")
    _check(spec.get("competition_type", "competition") in COMPETITION_TYPES,
           "%s: competition_type is one of %s" % (where, ", ".join(COMPETITION_TYPES)))
    for key in ("forum_enabled", "show_detailed_results_in_leaderboard", "has_registration",
                "enable_detailed_results"):
        _check(isinstance(spec.get(key, True), bool), "%s: %s is true or false" % (where, key))
    email = spec.get("contact_email")
    _check(email is None or (isinstance(email, str) and "@" in email and " " not in email.strip()),
           "%s: contact_email must be an e-mail address" % where)

    phases = spec.get("phases") or []
    _check(phases, "%s: at least one phase is required" % where)
    previous = previous_end = None
    for number, phase in enumerate(phases, 1):
        pwhere = "%s: phase %d" % (where, number)
        unknown = set(phase) - PHASE_KEYS
        _check(not unknown, "%s: unknown keys %s (allowed: %s)" % (pwhere, sorted(unknown), sorted(PHASE_KEYS)))
        for key in ("label", "start", "split"):
            _check(key in phase, "%s: %s is required" % (pwhere, key))
        _check(len(phase["label"]) <= 36, "%s: label longer than 36 characters" % pwhere)
        _check(len(phase.get("description", "")) <= 1000, "%s: description longer than 1000 characters" % pwhere)
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
        _check(phase.get("color", "white") in COLORS, "%s: color must be one of %s" % (pwhere, sorted(COLORS)))
        for key in ("max_submissions", "max_submissions_per_day", "execution_time_limit"):
            if key in phase:
                _check(isinstance(phase[key], int) and phase[key] > 0, "%s: %s must be a positive integer"
                       % (pwhere, key))
    if spec.get("end_date") is not None:
        _check(spec["end_date"] > previous, "%s: end_date is before the last phase starts" % where)
        _check(previous_end is None, "%s: the last phase has an end and end_date is set: keep one" % where)

    board = spec.get("leaderboard") or {}
    unknown = set(board) - LEADERBOARD_KEYS
    _check(not unknown, "%s: leaderboard: unknown keys %s (allowed: %s)" % (where, sorted(unknown),
                                                                          sorted(LEADERBOARD_KEYS)))
    _check(board.get("submission_rule", "Add") in SUBMISSION_RULES,
           "%s: leaderboard.submission_rule is one of %s" % (where, ", ".join(SUBMISSION_RULES)))
    _check(isinstance(board.get("label"), str) and board["label"] == board["label"].strip() and board["label"],
           "%s: leaderboard.label must be non-empty text without surrounding spaces" % where)
    columns = board.get("columns") or []
    _check(columns, "%s: leaderboard.columns must list at least one score" % where)
    seen = set()
    for column in columns:
        unknown = set(column) - COLUMN_KEYS
        _check(not unknown, "%s: column %s: unknown keys %s" % (where, column.get("key"), sorted(unknown)))
        key = column.get("key", "")
        _check(_SCORE_KEY.match(key), "%s: column key %r must be 1-36 characters of A-Z a-z 0-9 _" % (where, key))
        _check(key not in seen, "%s: column key %s appears twice" % (where, key))
        seen.add(key)
        _check(len(column.get("label", key)) <= 36, "%s: column %s: label longer than 36 characters" % (where, key))
        _check(column.get("sort", "desc") in ("asc", "desc"), "%s: column %s: sort is asc or desc" % (where, key))

    public = spec.get("gold_public") or {}
    _check(isinstance(public, dict) and all(isinstance(v, bool) for v in public.values()),
           "%s: gold_public must map split names to true or false" % where)
    unknown = sorted(set(public) - set(p["split"] for p in phases))
    _check(not unknown, "%s: gold_public names splits no phase uses: %s" % (where, ", ".join(unknown)))

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
    task = Task(name, spec, folder, split_dirs)
    _check((task.scoring_program / "evaluate.py").is_file() or (task.scoring_program / "scoring.json").is_file(),
           "%s: no scoring program %s/evaluate.py (or scoring.json for a generic one)"
           % (where, task.scoring_program))
    return task
