"""Shared test helpers, for tests/ and bundles/<task>/tests/: paths, the optional real datasets, vermin, and running
a scoring program as CodaLab would."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
SHARED = ROOT.parent / "shared"
DATASETS = SHARED / "datasets"

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scoring_programs" / "common"))
# Test helpers shared by the generic suite (tests/) and each task's own tests (bundles/<task>/tests/).
sys.path.insert(0, str(ROOT / "tests"))


def run_vermin(*paths, **kwargs):
    """vermin with this interpreter (not whatever is on PATH), for Python 3.6: (exit status, output)."""
    script = "import sys, vermin; sys.argv[0] = 'vermin'; sys.exit(vermin.main())"
    proc = subprocess.run([sys.executable, "-c", script, "-t=3.6-", "--violations", "--no-tips"]
                          + [str(p) for p in paths], capture_output=True, text=True, timeout=kwargs.get("timeout", 300))
    return proc


def shared_path(*parts):
    """A file or folder of ../shared/datasets; the test is skipped when it is absent (e.g. outside the workplace)."""
    path = DATASETS.joinpath(*parts)
    if not path.exists():
        pytest.skip("real data not available: %s" % path)
    return path


class ScoringRun(object):
    def __init__(self, proc, output_dir):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.output_dir = Path(output_dir)
        scores_json = self.output_dir / "scores.json"
        self.scores = json.loads(scores_json.read_text()) if scores_json.exists() else None
        # The signature (program, version, gold SHA-256) beside the scores; tests of scores compare the scores alone.
        self.signature = self.scores.pop("signature", None) if self.scores is not None else None
        scores_txt = self.output_dir / "scores.txt"
        self.scores_txt = scores_txt.read_text() if scores_txt.exists() else None

    @property
    def html(self):
        path = self.output_dir / "detailed_results.html"
        return path.read_text(encoding="utf-8") if path.exists() else None

    def assert_rejected(self, *fragments):
        """A bad submission: exit 1, one message on stderr containing every fragment, no scores, no traceback."""
        assert self.returncode == 1, (self.returncode, self.stderr)
        assert self.scores_txt is None and self.scores is None
        assert "Traceback" not in self.stderr
        message = self.stderr.strip()
        assert message and "\n" not in message, self.stderr
        for fragment in fragments:
            assert fragment in message, (fragment, message)
        return message


def _populate(target, content):
    """content: a folder to copy, or a dict {relative path: str|bytes|Path}."""
    target.mkdir(parents=True, exist_ok=True)
    if isinstance(content, (str, Path)):
        shutil.copytree(str(content), str(target), dirs_exist_ok=True)
        return
    for name, data in content.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, Path):
            shutil.copyfile(str(data), str(path))
        elif isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8", newline="")


def public_gold(ref):
    """Reference files with the marker saying their gold is public: the detailed results may then show it."""
    return dict(ref, **{"gold_is_public.txt": "public\n"})


def run_scoring_program(task, ref, res, workdir, program_dir=None, env=None):
    """Run scoring_programs/<task>/evaluate.py (or the one in program_dir) on ref/res as CodaLab lays them out.

    ref and res are folders to copy or dicts {relative path: text|bytes|Path}. The working directory is a
    different, empty folder, to catch programs that read from the current directory.
    """
    workdir = Path(workdir)
    input_dir, output_dir, cwd = workdir / "input", workdir / "output", workdir / "cwd"
    _populate(input_dir / "ref", ref)
    _populate(input_dir / "res", res)
    output_dir.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    program = Path(program_dir) if program_dir else ROOT / "scoring_programs" / task
    proc = subprocess.run(
        [sys.executable, str(program / "evaluate.py"), str(input_dir), str(output_dir)],
        cwd=str(cwd), capture_output=True, text=True, timeout=600,
        env=dict(os.environ, **(env or {})))
    return ScoringRun(proc, output_dir)


@pytest.fixture
def score_submission(tmp_path):
    """score_submission(task, ref, res) -> ScoringRun, in a fresh temporary folder per call."""
    counter = [0]

    def run(task, ref, res, **kwargs):
        counter[0] += 1
        return run_scoring_program(task, ref, res, tmp_path / ("run%d" % counter[0]), **kwargs)
    return run


@pytest.fixture(scope="session")
def built_bundles(tmp_path_factory):
    """Every task built once per test session from the sample data: {task: Built(codabench zip, codalab v1.5 zip)}."""
    from codalab_bundles.authoring import build, taskdef
    dist = tmp_path_factory.mktemp("dist")
    return dict((name, build.build_task(taskdef.load_task(name), dist)) for name in taskdef.task_names())


def load_program(task, program_dir=None, env=None):
    """The evaluate.py of scoring_programs/<task> (or of program_dir) imported as a module, to call its ``score``
    in-process (e.g. to read ``score(ref, res).items``). ``env``: environment variables set while it is imported."""
    import importlib.util
    program = Path(program_dir) if program_dir else ROOT / "scoring_programs" / task
    if str(program) not in sys.path:
        sys.path.insert(0, str(program))
    spec = importlib.util.spec_from_file_location("evaluate_" + task.replace("-", "_"), str(program / "evaluate.py"))
    module = importlib.util.module_from_spec(spec)
    saved = dict((k, os.environ.get(k)) for k in (env or {}))
    os.environ.update(env or {})
    try:
        spec.loader.exec_module(module)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return module


def score_in_process(task, workdir, ref, res):
    """``score`` of the task's program on ``ref`` and ``res`` (folders to copy, or {path: content}) laid out in
    ``workdir``/ref and ``workdir``/res: its Result, with ``items``."""
    workdir = Path(workdir)
    _populate(workdir / "ref", ref)
    _populate(workdir / "res", res)
    return load_program(task).score(str(workdir / "ref"), str(workdir / "res"))
