"""What a replay reads: the competition bundle, its phases, the zips inside it, and the submission to score.

``Bundle`` opens a CodaLab v1.5 (version 1) or Codabench (version 2) bundle within the extraction limits and gives
each phase as a ``PhaseInfo``; ``safe_extract`` unzips bytes as both workers do (plain extraction, through
safe_zip); ``get_bundle`` is the v1.5 worker's own unzipping (promotion of the folder holding ``metadata``, nested
zips extracted), in codalab/competitions-v1-compute-worker worker.py @ 045340126fbf ("W" below);
``read_submission`` gives the zip to score: a file, a folder zipped as a participant would, or the phase's
starting-kit sample.
"""
from __future__ import annotations

import io
import lzma
import os
import tempfile
import zipfile
import zlib
from typing import List, Optional, Tuple, Union

import yaml

from ..zips import pack
from ..zips import safe_zip

DEFAULT_TIME_LIMIT = 300  # CompetitionPhase.execution_time_limit default on v1.5
CODABENCH_TIME_LIMIT = 600  # Codabench's phase default, and the default queue's cap
DEFAULT_IMAGE = "codalab/codalab-legacy:py37"  # both platforms' default when a bundle names none


class ReplayError(Exception):
    """The bundle or submission cannot be replayed at all (as opposed to a submission that fails)."""


class BrokenZip(ReplayError):
    """A zip Python's zipfile cannot extract, as the workers' own unzipping could not: ``source`` names it, ``kind``
    is "bad" (zipfile.BadZipFile) or "crash" (any other error), ``error`` the exception as "Type: message"
    (broken_zip says what each platform then does with a submission)."""

    def __init__(self, source: str, exc: Exception) -> None:
        self.source = source
        self.kind = "bad" if isinstance(exc, zipfile.BadZipFile) else "crash"
        self.error = described(exc)
        super().__init__("%s cannot be unzipped: %s" % (source, self.error))


def described(exc: BaseException) -> str:
    """An exception as the last line of Python's traceback says it: "zlib.error: Error -3 ..."."""
    kind = type(exc)
    name = kind.__name__ if kind.__module__ == "builtins" else "%s.%s" % (kind.__module__, kind.__name__)
    return "%s: %s" % (name, exc)


# What zipfile raises on a damaged entry: BadZipFile (a bad CRC or local header), damaged deflate or LZMA data, a
# member cut short, an unsupported compression method, an encrypted entry. (Damaged bzip2 data raises a bare OSError,
# which cannot be told from the disk's own errors: it stays a crash of the replay.)
UNZIP_ERRORS = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, RuntimeError)


# ---------------------------------------------------------------------------------------------------------------
# Zips


def safe_extract(data: bytes, target: str, source: str, limits: Optional[safe_zip.Limits] = None,
                 budget: Optional[safe_zip.Budget] = None) -> None:
    """Extract zip bytes into ``target``, refusing unsafe entries and more than ``limits`` allow (safe_zip)."""
    limits = limits or safe_zip.Limits()
    try:
        with safe_zip.open_archive(io.BytesIO(data), source) as archive:
            safe_zip.extract(archive, target, source, limits, budget)
    except safe_zip.ZipRefused as exc:
        raise ReplayError(str(exc))
    except UNZIP_ERRORS as exc:
        raise BrokenZip(source, exc)


def _find_only_folder_with_metadata(path):
    """The worker's promotion rule: the first subfolder holding a file called 'metadata' (W L41-54)."""
    entries = sorted(os.listdir(path))
    if len(entries) > 2 and "metadata" in entries:
        return None
    for entry in entries:
        sub = os.path.join(path, entry)
        if os.path.isdir(sub) and os.path.isfile(os.path.join(sub, "metadata")):
            return sub
    return None


def get_bundle(data: bytes, target: str, source: str, temp_parent: str,
               limits: Optional[safe_zip.Limits] = None) -> None:
    """Emulate the worker's get_bundle for a .zip: leave the download behind, extract, promote, extract nested.

    The nested zips share the outer zip's budget, so nesting cannot multiply the extraction limits."""
    handle, _ = tempfile.mkstemp(prefix="tmp", suffix=".zip", dir=temp_parent)
    with os.fdopen(handle, "wb") as raw:
        raw.write(data)  # the worker's NamedTemporaryFile(delete=False) stays in the parent folder
    os.makedirs(target)
    limits = limits or safe_zip.Limits()
    budget = limits.budget()
    safe_extract(data, target, source, limits, budget)
    promoted = _find_only_folder_with_metadata(target)
    if promoted is not None:
        holder = target + ".promote"
        os.rename(promoted, holder)
        safe_zip.remove_tree(target)
        os.rename(holder, target)
    for entry in sorted(os.listdir(target)):
        if entry.endswith(".zip") and os.path.isfile(os.path.join(target, entry)):
            with open(os.path.join(target, entry), "rb") as nested:
                safe_extract(nested.read(), os.path.join(target, entry[:-4]), "%s/%s" % (source, entry), limits,
                             budget)


# ---------------------------------------------------------------------------------------------------------------
# Bundle


class TaskInfo(object):
    """One task a phase runs a submission on: its index and name in the bundle (None in a v1.5 bundle), its
    scoring program and reference data. Codabench runs a submission to a phase of several tasks once per task (a
    child submission each, competitions/tasks.py _run_submission), or on the tasks the submission names."""

    def __init__(self, index: Optional[int], name: Optional[str], scoring_program: Optional[str],
                 reference_data: Optional[str], ingestion_program: Optional[str] = None,
                 input_data: Optional[str] = None, ingestion_only_during_scoring: bool = False) -> None:
        self.index, self.name = index, name
        self.scoring_program, self.reference_data = scoring_program, reference_data
        # a code-submission task (code_submission.py): the ingestion program, the inputs it gives the submission,
        # and whether it runs in the scoring step (beside the scoring program) rather than the prediction step
        self.ingestion_program, self.input_data = ingestion_program, input_data
        self.ingestion_only_during_scoring = bool(ingestion_only_during_scoring)


class PhaseInfo(object):
    """What a replay needs of one phase, whichever the bundle's format. ``scoring_program`` and ``reference_data``
    are its first task's; ``tasks`` all of them."""

    def __init__(self, number: Optional[int], label: Optional[str], scoring_program: Optional[str],
                 reference_data: Optional[str], starting_kit: Optional[str], time_limit: Optional[int],
                 tasks: Optional[List[TaskInfo]] = None) -> None:
        self.number = number
        self.label = label
        self.scoring_program = scoring_program
        self.reference_data = reference_data
        self.starting_kit = starting_kit
        self.time_limit = time_limit
        self.tasks = tasks or [TaskInfo(None, None, scoring_program, reference_data)]

    def for_task(self, task: TaskInfo) -> "PhaseInfo":
        """The phase as one of its tasks' runs sees it: that task's program and reference data."""
        return PhaseInfo(self.number, self.label, task.scoring_program, task.reference_data, self.starting_kit,
                         self.time_limit, [task])

    def chosen_tasks(self, names: Optional[List[str]] = None) -> List[TaskInfo]:
        """The tasks a submission naming ``names`` runs on (None: every task of the phase, as a submission that
        names none). ReplayError for a name that is no task of the phase."""
        if names is None:
            return list(self.tasks)
        known = [t.name for t in self.tasks]
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ReplayError("phase %s has no task named %s (its tasks: %s)" % (
                self.number, ", ".join(unknown), ", ".join(str(n) for n in known)))
        return [t for t in self.tasks if t.name in names]


class Bundle(object):
    """A competition bundle opened for replay: CodaLab v1.5 (version 1) or Codabench (version 2)."""

    def __init__(self, path: Union[str, os.PathLike], platform: str = "codabench",
                 limits: Optional[safe_zip.Limits] = None) -> None:
        self.path = str(path)
        self.limits = limits or safe_zip.Limits()
        try:
            self.zip = zipfile.ZipFile(self.path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise ReplayError("cannot open bundle %s: %s" % (self.path, exc))
        try:
            safe_zip.check_archive(self.zip, self.path, self.limits)
        except safe_zip.ZipRefused as exc:
            raise ReplayError(str(exc))
        # Codabench reads only the root competition.yaml; CodaLab the first entry whose name contains '.yaml'.
        yaml_names = [n for n in self.zip.namelist() if ".yaml" in n]
        if platform == "codabench":
            yaml_names = [n for n in yaml_names if n == "competition.yaml"]
        if not yaml_names:
            raise ReplayError("%s holds no competition.yaml%s" % (self.path, " at its root" if platform ==
                                                                  "codabench" else ""))
        self.spec = yaml.safe_load(self._member(yaml_names[0]).decode("utf-8"))
        if not isinstance(self.spec, dict):
            raise ReplayError("%s: competition.yaml is not a mapping" % self.path)
        self.version = str(self.spec.get("version", "1"))
        self.phases = self._phases_v2() if self.version == "2" else self._phases_v1()
        if not self.phases:
            raise ReplayError("%s: competition.yaml has no phases" % self.path)

    def _phases_v1(self):
        phases = self.spec.get("phases")
        if not isinstance(phases, dict):
            return []
        return [PhaseInfo(p.get("phasenumber"), p.get("label"), p.get("scoring_program"), p.get("reference_data"),
                          p.get("starting_kit"), p.get("execution_time_limit", DEFAULT_TIME_LIMIT),
                          [TaskInfo(None, None, p.get("scoring_program"), p.get("reference_data"),
                                    p.get("ingestion_program"), p.get("input_data"),
                                    p.get("ingestion_program_only_during_scoring"))])
                for p in phases.values() if isinstance(p, dict)]

    def _phases_v2(self):
        tasks = dict((t.get("index"), t) for t in self.spec.get("tasks") or [] if isinstance(t, dict))
        found = []
        for number, p in enumerate(sorted(self.spec.get("phases") or [], key=lambda p: p.get("index", 0)), 1):
            task = tasks.get((p.get("tasks") or [None])[0], {})
            listed = [TaskInfo(i, str(tasks[i].get("name")) if tasks[i].get("name") is not None else None,
                               tasks[i].get("scoring_program"), tasks[i].get("reference_data"),
                               tasks[i].get("ingestion_program"), tasks[i].get("input_data"),
                               tasks[i].get("ingestion_only_during_scoring"))
                      for i in (p.get("tasks") or []) if isinstance(i, int) and i in tasks]
            found.append(PhaseInfo(number, p.get("name"), task.get("scoring_program"), task.get("reference_data"),
                                   p.get("starting_kit"), p.get("execution_time_limit", CODABENCH_TIME_LIMIT),
                                   listed or None))
        return found

    def phase(self, number: Optional[int] = None) -> PhaseInfo:
        if number is None:
            return self.phases[0]
        for phase in self.phases:
            if phase.number == number:
                return phase
        raise ReplayError("no phase %s in %s (phases: %s)"
                          % (number, self.path, ", ".join(str(p.number) for p in self.phases)))

    def read(self, name: str, what: str) -> bytes:
        if isinstance(name, str) and not name.endswith(".zip") and self.version == "2" and self._folder(name):
            return self._folder_zip(name)
        if not isinstance(name, str) or not name.endswith(".zip"):
            raise ReplayError("%s is %r: only zip files inside the bundle can be replayed, not dataset keys"
                              % (what, name))
        try:
            return self._member(name)
        except KeyError:
            raise ReplayError("%s %s is not in the bundle" % (what, name))

    def _folder(self, name: str) -> List[str]:
        """The files of folder ``name`` in the bundle (a version 2 bundle may name a folder for a program or data)."""
        prefix = name.strip("/") + "/"
        return [n for n in self.zip.namelist() if n.startswith(prefix) and not n.endswith("/")]

    def _folder_zip(self, name: str) -> bytes:
        """A folder of the bundle zipped with its files at the root, as Codabench's import does (unpackers/utils.py
        zip_if_directory: shutil.make_archive of the folder)."""
        prefix = name.strip("/") + "/"
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
            for member in sorted(self._folder(name)):
                out.writestr(member[len(prefix):], self._member(member))
        return buffer.getvalue()

    def _member(self, name, archive=None, source=None):
        """An entry's bytes, read within the extraction limits (a bundle's headers may lie about sizes)."""
        try:
            return safe_zip.read_member(archive or self.zip, name, source or self.path, self.limits)
        except safe_zip.ZipRefused as exc:
            raise ReplayError(str(exc))

    def columns(self) -> Tuple[List[str], List[str]]:
        """(column keys in leaderboard order, computed column keys) of the leaderboard the platform uses."""
        if self.version == "2":
            boards = self.spec.get("leaderboards") or [{}]
            columns = boards[0].get("columns") or []
            keys = [str(c.get("key")) for c in sorted(columns, key=lambda c: c.get("index", 0))]
            return keys, [str(c.get("key")) for c in columns if c.get("computation")]
        columns = (self.spec.get("leaderboard") or {}).get("columns") or {}
        computed = [key for key, col in columns.items() if isinstance(col, dict) and col.get("computed")]
        return [str(key) for key in columns], computed

    def computed_columns(self) -> List[Tuple[str, str, List[str]]]:
        """[(key, computation, [keys of the columns it is computed of])] of the leaderboard's computed columns, as
        Codabench fills them (a version 2 bundle; Codabench's v1 import drops computed columns)."""
        if self.version != "2":
            return []
        columns = [c for c in (self.spec.get("leaderboards") or [{}])[0].get("columns") or [] if isinstance(c, dict)]
        by_index = dict((c.get("index"), str(c.get("key"))) for c in columns)
        found = []
        for column in columns:
            if column.get("computation"):
                indexes = column.get("computation_indexes") or []
                if isinstance(indexes, str):  # Codabench's own form in its dumps: "0,3"
                    indexes = [int(i) for i in indexes.split(",") if i.strip().isdigit()]
                found.append((str(column.get("key")), str(column.get("computation")),
                              [by_index[i] for i in indexes if i in by_index]))
        return found

    @property
    def docker_image(self) -> str:
        image = self.spec.get("docker_image" if self.version == "2" else "competition_docker_image")
        return image if isinstance(image, str) and image.strip() else DEFAULT_IMAGE

    def sample_submission(self, phase: PhaseInfo) -> Optional[bytes]:
        """The starting kit's sample_submission.zip for this phase, or None."""
        kit = phase.starting_kit
        if not isinstance(kit, str) or kit not in self.zip.namelist():
            return None
        try:
            inner = safe_zip.open_archive(io.BytesIO(self._member(kit)), "%s/%s" % (self.path, kit))
        except safe_zip.ZipRefused as exc:
            raise ReplayError(str(exc))
        with inner:
            names = [n for n in inner.namelist() if n.rsplit("/", 1)[-1] == "sample_submission.zip"]
            return self._member(sorted(names, key=len)[0], inner, "%s/%s" % (self.path, kit)) if names else None


# ---------------------------------------------------------------------------------------------------------------
# The submission


def read_submission(bundle: Bundle, phase: PhaseInfo, submission: Union[str, os.PathLike, None],
                    limits: safe_zip.Limits) -> Tuple[bytes, str]:
    """(zip bytes, name shown in the report)."""
    if submission is None:
        data = bundle.sample_submission(phase)
        if data is None:
            raise ReplayError("phase %s has no starting kit with a sample_submission.zip: give a submission zip"
                              % phase.number)
        return data, "%s (starting kit sample_submission.zip)" % phase.starting_kit
    if os.path.isdir(str(submission)):  # an unzipped submission: zipped as a participant would (its files, no folder)
        return pack.zip_directory(str(submission)), "%s (the folder's files, zipped)" % submission
    if os.path.getsize(str(submission)) > limits.max_bytes:
        raise ReplayError("%s is larger than %d bytes, the extraction limit" % (submission, limits.max_bytes))
    with open(str(submission), "rb") as handle:
        return handle.read(), str(submission)
