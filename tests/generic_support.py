"""Running scoring_programs/generic with a scoring.json written by the test (GENERIC_SCORING_CONFIG)."""
import json
import shutil

from conftest import ROOT, run_scoring_program

GENERIC = ROOT / "scoring_programs" / "generic"
COMMON = ROOT / "scoring_programs" / "common"


def run_generic(workdir, config, ref, res, gold_public=True):
    """Score ``res`` against ``ref`` with ``config`` (a dict, or text written as it is to scoring.json)."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "scoring.json"
    path.write_text(config if isinstance(config, str) else json.dumps(config), encoding="utf-8")
    if gold_public and isinstance(ref, dict):
        ref = dict(ref, **{"gold_is_public.txt": "public\n"})
    return run_scoring_program("generic", ref, res, workdir, env={"GENERIC_SCORING_CONFIG": str(path)})


class Runner(object):
    """A fresh folder per run, under pytest's tmp_path."""

    def __init__(self, tmp_path):
        self.tmp_path, self.count = tmp_path, 0

    def __call__(self, config, ref, res, **options):
        self.count += 1
        return run_generic(self.tmp_path / ("run%d" % self.count), config, ref, res, **options)


def built_program(target, task_files):
    """A scoring program laid out as the builder packs a generic task: generic/*.py, common/*.py and the task's
    own files (scoring.json, metadata, README.md) in one folder."""
    target.mkdir(parents=True, exist_ok=True)
    for folder in (GENERIC, COMMON):
        for source in folder.glob("*.py"):
            shutil.copyfile(str(source), str(target / source.name))
    for name, text in task_files.items():
        (target / name).write_text(text, encoding="utf-8")
    return target


class InProcess(object):
    """score(config, ref, res) -> the generic program's Result, in-process (its Items too): ``ref`` and ``res``
    are {name: text} folders written under pytest's tmp_path; ``defaults`` are laid under each config."""

    def __init__(self, tmp_path, monkeypatch, program, defaults=None):
        self.tmp_path, self.monkeypatch, self.program, self.defaults = tmp_path, monkeypatch, program, defaults or {}
        self.count = 0

    def __call__(self, config, ref, res):
        self.count += 1
        folder = self.tmp_path / ("inproc%d" % self.count)
        for side, files in (("ref", ref), ("res", res)):
            (folder / side).mkdir(parents=True)
            for name, text in files.items():
                (folder / side / name).write_text(text, encoding="utf-8", newline="")
        (folder / "scoring.json").write_text(json.dumps(dict(self.defaults, **config)), encoding="utf-8")
        self.monkeypatch.setenv("GENERIC_SCORING_CONFIG", str(folder / "scoring.json"))
        return self.program.score(str(folder / "ref"), str(folder / "res"))
