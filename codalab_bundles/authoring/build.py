"""Building dist/<task>.zip: task definition -> derived files -> rendered YAML -> deterministic zips, then each
split's sample submission replayed as a check.

``build`` is the whole build of one task, as the ``build`` command runs it: load task.yaml, write both bundles, read
back the phase dates Codabench stores from each, replay the samples, and remove the task's zips from dist/ when any
of it fails (so no zip of an older build, or of one whose own sample fails, is taken for current and published).
``build_task`` is only the writing of the two zips, for callers that check nothing else (tests, ``new``'s trial).
"""
from __future__ import annotations

import collections
import concurrent.futures
import json
import os
import re
import tempfile
import types
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import jinja2
import yaml

from .. import loading, replay, resources
from . import code_run, code_submission, private_items, render, taskdef, tracks
from ..platforms import codabench_model
from ..zips import pack
from .taskdef import ROOT

COMMON = resources.COMMON
GOLD_PUBLIC_MARKER = "gold_is_public.txt"  # read by scoring_runtime.gold_is_public
GOLD_PUBLIC_TEXT = b"The gold of this split is public: detailed results may show gold items.\n"
METADATA = "command: python3 $program/evaluate.py $input $output\n"
LIMIT_FILE = "submission_limit.json"  # scoring_limits.LIMIT_FILE
# Kept out of the built program: tests, and the score keys it declares for the build (the program knows its keys).
_PROGRAM_SKIP = re.compile(r"(^|/)(tests?|__pycache__)(/|$)|\.pyc$|^score_keys\.txt$")
GENERIC = resources.GENERIC  # the generic scoring programs, configured by a task's scoring.json


class BuildError(Exception):
    pass


def declared_score_keys(task):
    """The score keys the task's scoring program writes: its score_keys.txt (one per line), or for a generic
    program the ``keys`` of its scoring.json."""
    folder = task.scoring_program
    config = folder / "scoring.json"
    if config.is_file():
        try:
            keys = json.loads(config.read_text(encoding="utf-8")).get("keys")
        except ValueError as exc:
            raise BuildError("%s is not valid JSON: %s" % (config, exc))
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise BuildError("%s: keys must be a list of score keys" % config)
        return keys
    listing = folder / "score_keys.txt"
    if not listing.is_file():
        raise BuildError("%s declares no score keys: list the keys evaluate.py writes in %s, one per line"
                         % (folder, listing.name))
    return listing.read_text(encoding="utf-8").split()


def check_columns_scored(task):
    """Every leaderboard column must be a key the program writes (but the columns computed from others): else it
    stays empty for every submission."""
    declared = declared_score_keys(task)
    if task.private_ids:  # a split with private items: the ranking score's private figure (private_items.py)
        declared = declared + [private_items.PRIVATE_PREFIX + task.columns[0].key]
    empty = [column.key for column in task.columns if column.key not in declared and not column.computation]
    if empty:
        raise BuildError("leaderboard column(s) %s get no score: the scoring program writes %s"
                         % (", ".join(empty), ", ".join(declared)))


def program_entries(task):
    """Files of the scoring program zip: the task's folder plus the shared runtime, at the zip root."""
    folder = task.scoring_program
    metadata = folder / "metadata"
    if not metadata.is_file() or metadata.read_text() != METADATA:
        raise BuildError("%s must contain exactly %r (CodaLab reads every other key as a URL to download)"
                         % (metadata, METADATA))
    entries = dict((name, data) for name, data in pack.directory_entries(folder) if not _PROGRAM_SKIP.search(name))
    if task.max_submission_mb is not None:  # read by the runtime's scoring_limits before any of a submission
        if LIMIT_FILE in entries:
            raise BuildError("%s/%s is written by the build from task.yaml's max_submission_mb: remove the file"
                             % (folder, LIMIT_FILE))
        entries[LIMIT_FILE] = (json.dumps({"max_mb": task.max_submission_mb}) + "\n").encode("utf-8")
    shared = [COMMON] + ([GENERIC] if (folder / "scoring.json").is_file() else [])
    for name, data in [entry for source in shared for entry in pack.directory_entries(source)]:
        if name.endswith(".py"):
            if name in entries:
                raise BuildError("%s/%s clashes with the shared code's %s" % (folder, name, name))
            entries[name] = data
    if task.code_submission is not None:  # scores only what the prediction step made (ingestion_gate.py)
        return code_submission.gated(entries.items())
    return sorted(entries.items())


def _load_derive(task):
    path = task.folder / "derive.py"
    return loading.load_file(path, "derive_%s" % task.name.replace("-", "_")) if path.is_file() else None


def split_seed(task, split):
    """A fixed seed per task and split, so derived files are the same at every build."""
    return zlib.crc32(("%s/%s" % (task.name, split)).encode("utf-8"))


def _split_context(task, split):
    return types.SimpleNamespace(task=task.name, split=split, reference_dir=task.split_dirs[split],
                                 program_dir=task.scoring_program, seed=split_seed(task, split))


def _hook_failed(ctx, what, exc):
    # An organizer's gold that the hooks cannot read: say which split.
    return BuildError("split %r (%s): deriving %s failed: %s: %s"
                      % (ctx.split, ctx.reference_dir, what, type(exc).__name__, exc))


def derive_split(task, split, derive, program, workdir):
    """Run the task's hooks for one split; returns (public data zip bytes or None, starting kit zip bytes or None).
    A code-submission task's public data is its input data, and its kit is made from task.yaml (code_submission)."""
    ctx = _split_context(task, split)
    try:
        return _run_hooks(ctx, derive, program, workdir, kit=task.code_submission is None)
    except Exception as exc:
        raise _hook_failed(ctx, "the public data and starting kit", exc)


def _run_hooks(ctx, derive, program, workdir, kit=True):
    public = None
    ctx.public_dir = ctx.out_dir = Path(tempfile.mkdtemp(prefix="public-", dir=workdir))
    if hasattr(derive, "public_data"):
        derive.public_data(ctx)
        if any(ctx.public_dir.iterdir()):
            public = pack.zip_directory(ctx.public_dir)
    if not kit:
        return public, None
    kit = None
    if hasattr(derive, "starting_kit"):
        ctx.out_dir = Path(tempfile.mkdtemp(prefix="kit-", dir=workdir))
        ctx.submission_dir = Path(tempfile.mkdtemp(prefix="submission-", dir=workdir))
        derive.starting_kit(ctx)
        entries = pack.directory_entries(ctx.out_dir)
        if any(ctx.submission_dir.iterdir()):
            entries.append(("sample_submission.zip", pack.zip_directory(ctx.submission_dir)))
        entries.extend(("scoring_program/" + name, data) for name, data in program)
        kit = pack.zip_entries(sorted(entries))
    return public, kit


def reference_entries(task, split, derive=None, folder=None, mode=""):
    """The files of the split's reference zip: the gold as it is, plus GOLD_PUBLIC_MARKER when task.yaml says
    gold_public: true for it, plus the files the task's ``reference_files`` hook derives from it (replacing files of
    the same name), plus the marks of its private items and of the phases' ``mode`` (private_items.py).
    ``folder``: a track's own gold for the split, instead of the task's."""
    entries = pack.directory_entries(folder or task.split_dirs[split])
    if hasattr(derive, "reference_files"):
        ctx = _split_context(task, split)
        if folder is not None:
            ctx.reference_dir = folder
        try:
            derived = dict(derive.reference_files(ctx))
        except Exception as exc:
            raise _hook_failed(ctx, "reference files", exc)
        entries = sorted([(name, data) for name, data in entries if name not in derived] + list(derived.items()))
    marked = any(name.rsplit("/", 1)[-1] == GOLD_PUBLIC_MARKER for name, _ in entries)
    if marked and not task.gold_public[split]:
        raise BuildError("split %r: %s holds %s but task.yaml does not say gold_public: {%s: true}; remove the file "
                         "or set it" % (split, folder or task.split_dirs[split], GOLD_PUBLIC_MARKER, split))
    if task.gold_public[split] and not marked:
        entries = sorted(entries + [(GOLD_PUBLIC_MARKER, GOLD_PUBLIC_TEXT)])
    marks = private_items.reference_marks(task, split, mode)
    clash = sorted(set(name for name, _ in marks) & set(name.rsplit("/", 1)[-1] for name, _ in entries))
    if clash:
        raise BuildError("split %r: %s holds %s, which the build writes from task.yaml (private:, private_scores, "
                         "blind): remove the file" % (split, folder or task.split_dirs[split], ", ".join(clash)))
    return sorted(entries + marks) if marks else entries


def track_programs(task, program):
    """[(scoring_program_<track>.zip, bytes)]: the program with the track's track.json, one per track."""
    return [(name, pack.zip_entries(sorted(program + [("track.json", track.track_json())])))
            for name, track in sorted(set((t.scoring_program, t.track) for t in task.codabench_tasks if t.track),
                                      key=lambda pair: pair[0])]


def _track_references(task, derive):
    """[(reference_<track>_<split>.zip, bytes)]: the gold of tracks that have their own."""
    return [(t.reference_data, pack.zip_entries(reference_entries(task, t.split, derive, t.reference_dir)))
            for t in task.codabench_tasks if t.track is not None and t.split in t.track.split_dirs]


def bundle_files(task):
    """Everything but competition.yaml: ({split files by kind}, [(name, bytes)]), shared by both platforms."""
    program = program_entries(task)
    derive = _load_derive(task)
    files = {"reference": {}, "public": {}, "kit": {}, "input_data": {}}
    code = task.code_submission
    ingestion = code_submission.ingestion_entries(code) if code is not None else None
    modes = private_items.reference_modes(task)
    data = []
    # the task's gold of a split, with each mark its phases use (private_items.py): for the CodaLab bundle, and for
    # the Codabench tasks that score against it
    used = set((t.split, t.mode) for t in task.codabench_tasks
               if t.reference_data == private_items.reference_name(t.split, t.mode))
    if task.built_v15:
        used = set((p.split, private_items.phase_mode(p)) for p in task.phases)
    with tempfile.TemporaryDirectory(prefix="build-%s-" % task.name) as workdir, \
            concurrent.futures.ThreadPoolExecutor(1) as pool:
        for split in task.splits:
            # The reference zip is compressed in another thread while this one runs the derive hooks (zlib lets
            # it): a large gold takes seconds to compress. The hooks themselves run one at a time, in order.
            first = [mode for mode in modes[split] if (split, mode) in used][:1]
            reference = pool.submit(pack.zip_entries, reference_entries(task, split, derive, mode=first[0])) \
                if first else None
            public, kit = derive_split(task, split, derive, program, workdir) if derive is not None else (None, None)
            if reference is not None:
                files["reference"][split] = private_items.reference_name(split, first[0])
                data.append((files["reference"][split], reference.result()))
            for mode in [m for m in modes[split] if (split, m) in used and m not in first]:  # the split's other marks
                data.append((private_items.reference_name(split, mode),
                             pack.zip_entries(reference_entries(task, split, derive, mode=mode))))
            if code is not None:  # the inputs go to the ingestion program only; the kit is task.yaml's
                try:
                    data.append(("input_data_%s.zip" % split, code_submission.input_data(code, split, public)))
                except ValueError as exc:
                    raise BuildError(str(exc))
                files["input_data"][split] = "input_data_%s.zip" % split
                public, kit = None, pack.zip_entries(code_submission.kit_entries(code, program, ingestion))
            if public is not None:
                files["public"][split] = "public_data_%s.zip" % split
                data.append((files["public"][split], public))
            if kit is not None:
                files["kit"][split] = "starting_kit_%s.zip" % split
                data.append((files["kit"][split], kit))
    files["phase_reference"] = dict((p.number, private_items.reference_name(p.split, private_items.phase_mode(p)))
                                    for p in task.phases)  # the v1.5 bundle's phases
    entries = [("logo.png", task.logo.read_bytes())]
    for key, name in render.page_files(task):
        try:
            entries.append((name, render.page_bytes(task, key)))
        except (jinja2.TemplateError, ValueError) as exc:
            raise BuildError("page %s (pages/%s): %s" % (key, task.pages[key], exc))
    entries.append(("scoring_program.zip", pack.zip_entries(program)))
    if ingestion is not None:
        entries.append(("ingestion_program.zip", pack.zip_entries(ingestion)))
    entries.extend(track_programs(task, program))
    entries.extend(data)
    entries.extend(_track_references(task, derive))
    return files, entries


# (platform, file name pattern, renderer): one bundle per platform, the same files, competition.yaml first in
# each. Codabench first: it is where competitions are uploaded since CodaLab Competitions closed (end of 2025).
PLATFORMS = (("codabench", "%s.zip", render.render_v2), ("codalab", "%s-v1.5.zip", render.render_v15))
Built = collections.namedtuple("Built", [platform for platform, _, _ in PLATFORMS])


def check_stored_dates(task, yaml_text):
    """The phases Codabench will store from a version 2 competition.yaml must be task.yaml's, to the second."""
    try:
        stored = codabench_model.stored_phases(yaml.safe_load(yaml_text), "2")
    except codabench_model.ImportRefused as exc:
        raise BuildError("Codabench would refuse the bundle: %s" % exc)
    for phase, kept in zip(task.phases, stored):
        if (kept.start.stored, kept.end.stored) != (phase.start, phase.end):
            raise BuildError("phase %d (%s): Codabench would store %s to %s instead of %s to %s" % (
                phase.number, phase.label, kept.start.stored, kept.end.stored, phase.start, phase.end))
    return stored


def stored_schedule(yaml_text, version):
    """[(phase name, start, end)] as Codabench stores them from this competition.yaml (v1 or v2)."""
    stored = codabench_model.stored_phases(yaml.safe_load(yaml_text), version)
    return [(p.name, p.start.stored, p.end.stored) for p in stored]


def bundle_paths(name, dist):
    """Where the task's bundles go: [dist/<task>.zip (Codabench), dist/<task>-v1.5.zip (CodaLab v1.5)]."""
    return [Path(dist) / (pattern % name) for _, pattern, _ in PLATFORMS]


def remove_bundles(name, dist):
    """Remove the task's bundles (and a half-written .part) from ``dist``, so that a build that failed leaves no
    zip that looks current; returns the bundles that were there."""
    removed = []
    for path in bundle_paths(name, dist):
        for target in (path, path.with_name(path.name + ".part")):
            if target.is_file():
                target.unlink()
                if target == path:
                    removed.append(path)
    return removed


def build_task(task: taskdef.Task, dist) -> Built:
    """Write dist/<task>.zip (Codabench, version 2) and dist/<task>-v1.5.zip (CodaLab v1.5); returns their paths
    as Built(codabench, codalab). A task whose tracks one program run cannot score (tracks.one_run_writes_every_track)
    has no CodaLab bundle: Built.codalab is None, and an older dist/<task>-v1.5.zip is removed."""
    check_columns_scored(task)
    dist = Path(dist)
    dist.mkdir(parents=True, exist_ok=True)
    files, entries = bundle_files(task)
    paths = []
    for platform, pattern, render_yaml in PLATFORMS:
        target = dist / (pattern % task.name)
        partial = target.with_name(target.name + ".part")
        if platform == "codalab" and not task.built_v15:
            for stale in (target, partial):
                if stale.is_file():
                    stale.unlink()
            paths.append(None)
            continue
        text = render_yaml(task, files)
        if platform == "codabench":
            check_stored_dates(task, text)
        partial.write_bytes(pack.zip_entries([("competition.yaml", text.encode("utf-8"))] + entries))
        os.replace(str(partial), str(target))
        paths.append(target)
    return Built(*paths)


DIST = ROOT / "dist"  # this repository's; a competition folder's bundles go to its own dist/
STORED_FROM = (("Codabench stores", "codabench", "2"), ("from the v1.5 bundle, Codabench's v1 import stores", "codalab", "1"))


@dataclass
class SampleRun:
    """One starting-kit sample replayed on one platform's bundle and worker (error: why none was replayed)."""
    phase: int
    label: str
    platform: str
    status: Optional[str] = None
    scores: dict = field(default_factory=dict)
    reason: str = ""
    stderr: str = ""
    error: Optional[str] = None

    @property
    def failed(self) -> bool:
        return self.error is None and self.status != "Finished"


@dataclass
class Outcome:
    """What building one task gave: the bundles written (None when not built; see ``removed``), the phase
    dates Codabench stores from each (``schedules``: [(what, [(phase, start, end)])]), the sample replays, why it
    failed (``error``, None for a failing sample: ``samples`` say), whether an input could not be read at all
    (``unreadable``), and the task's zips removed from dist/ because of the failure (``removed``)."""
    name: str
    task: Optional[taskdef.Task] = None
    built: Optional[Built] = None
    schedules: list = field(default_factory=list)
    samples: list = field(default_factory=list)
    error: Optional[str] = None
    unreadable: bool = False
    removed: list = field(default_factory=list)
    notes: list = field(default_factory=list)  # what the bundles cannot hold of task.yaml (tracks.notes)

    @property
    def older(self) -> bool:
        """Whether the zips removed were left by an earlier build (this one wrote none)."""
        return self.built is None

    @property
    def ok(self) -> bool:
        return self.error is None and not any(run.failed for run in self.samples)


def stored_schedules(built: Built) -> list:
    """[(what, [(phase, start, end)])]: the dates Codabench stores from each bundle (the v2 one is task.yaml's:
    build_task checks it)."""
    found = []
    for what, platform, version in STORED_FROM:
        if getattr(built, platform) is None:
            continue
        with zipfile.ZipFile(str(getattr(built, platform))) as archive:
            found.append((what, stored_schedule(archive.read("competition.yaml").decode("utf-8"), version)))
    return found


def check_samples(task: taskdef.Task, built: Built) -> list:
    """Replay the sample submission of the first phase of each split, on Codabench's bundle and worker and then on
    CodaLab's: [SampleRun]. A phase without a sample is said once (its CodaLab replay is not tried)."""
    runs = []
    checked = set()
    for phase in task.phases:
        if phase.split in checked:
            continue
        checked.add(phase.split)
        if task.code_submission is not None:  # both steps, laid out as Codabench's worker lays them out
            report = code_run.run(built.codabench, phase.number)
            runs.append(SampleRun(phase.number, phase.label, "Codabench (code submission, local)", report["status"],
                                  report["scores"], report["reason"], report["ingestion_stderr"] + report["stderr"]))
            continue
        for platform in [p for p in ("codabench", "codalab") if getattr(built, p) is not None]:
            label = replay.WORKERS[platform].label
            try:
                report = replay.replay(getattr(built, platform), None, phase.number, platform=platform)
            except replay.ReplayError as exc:
                runs.append(SampleRun(phase.number, phase.label, label, error=str(exc)))
                break
            failed = replay.failed_tasks(report)  # a phase of several tasks: every task's run must finish
            runs.append(SampleRun(phase.number, phase.label, label, "Failed" if failed else report["status"],
                                  report["scores"], report["reason"] or "", report["stderr"]))
    return runs


def build(name: str, dist, bundles_dir=taskdef.BUNDLES, references: Optional[dict] = None,
          check: bool = True) -> Outcome:
    """Build task ``name`` of ``bundles_dir`` into ``dist`` (``references``: {split: gold folder} instead of
    reference_data/), replay its samples unless ``check`` is false, and remove its zips from ``dist`` if any of it
    fails. Returns an Outcome; raises nothing for a task that cannot be built."""
    dist = Path(dist)
    try:
        task = taskdef.load_task(name, references, bundles_dir=bundles_dir)
        unused = sorted(set(references or {}) - set(task.splits))
        if unused:
            raise taskdef.TaskDefinitionError("--reference names splits no phase of %s uses: %s (splits: %s)"
                                              % (name, ", ".join(unused), ", ".join(task.splits)))
        built = build_task(task, dist)
    except (taskdef.TaskDefinitionError, BuildError, OSError) as exc:
        # an input that cannot be read at all (task.yaml that is not YAML, a file the system refuses) is unreadable
        return Outcome(name, error=str(exc), unreadable=isinstance(exc, (taskdef.UnreadableTaskFile, OSError)),
                       removed=remove_bundles(name, dist))
    outcome = Outcome(name, task, built, stored_schedules(built),
                      notes=tracks.notes(task) + code_submission.notes(task))
    if check:
        outcome.samples = check_samples(task, built)
        if not outcome.ok:  # a bundle whose own sample fails is not finished: leave nothing that looks it
            outcome.removed = remove_bundles(name, dist)
    return outcome
