"""Scoring programs run in codalab/codalab-legacy:py37 and older images: every module must parse and run on 3.6."""
import ast
import glob
import io
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT, run_vermin

SCORING_PROGRAMS = ROOT / "scoring_programs"


def vermin(*paths):
    return run_vermin(*paths)


def test_scoring_programs_target_python36():
    files = sorted(SCORING_PROGRAMS.rglob("*.py"))
    assert any(f.parent.name == "common" for f in files)
    run = vermin(SCORING_PROGRAMS)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Analyzing %d files" % len(files) in run.stdout, run.stdout


def test_built_scoring_programs_target_python36(built_bundles, tmp_path):
    """What participants and the platform actually run: each bundle's scoring_program.zip, runtime included."""
    for name, built in built_bundles.items():
        bundle = built.codabench
        target = tmp_path / name
        with zipfile.ZipFile(str(bundle)) as outer:
            zipfile.ZipFile(io.BytesIO(outer.read("scoring_program.zip"))).extractall(str(target))
        assert (target / "scoring_runtime.py").is_file() and (target / "evaluate.py").is_file()
    run = vermin(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Minimum required versions: 3." in run.stdout


def test_scoring_programs_import_only_the_standard_library():
    """The platform images have numpy/pandas/sklearn of their own vintage; the programs must need none of them."""
    local = set(p.stem for p in SCORING_PROGRAMS.rglob("*.py"))
    for module in SCORING_PROGRAMS.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top in local, (module, name)


def test_built_starting_kits_target_python36(built_bundles, tmp_path):
    """The kits' baselines and helpers run on the participants' machines and in the platform images too."""
    count = 0
    for name, built in built_bundles.items():
        with zipfile.ZipFile(str(built.codabench)) as outer:
            for kit in [n for n in outer.namelist() if n.startswith("starting_kit_")]:
                inner = zipfile.ZipFile(io.BytesIO(outer.read(kit)))
                for member in inner.namelist():
                    if member.endswith(".py") and not member.startswith("scoring_program/"):
                        target = tmp_path / name / kit / member
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(inner.read(member))
                        count += 1
    assert count >= len(built_bundles)  # every task ships a baseline
    run = vermin(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("source", [
    "if (n := 3):\n    pass\n",                        # 3.8
    "from dataclasses import dataclass\n",              # 3.7
    "x = 1\nprint(f'{x=}')\n",                          # 3.8
    "from __future__ import annotations\n",             # 3.7
])
def test_vermin_catches_newer_syntax(tmp_path, source):
    """The check above can fail: vermin rejects what 3.6 lacks."""
    (tmp_path / "new.py").write_text(source)
    assert vermin(tmp_path).returncode != 0


def _python36():
    """A Python 3.6 interpreter if this machine has one (pyenv keeps it outside PATH), else None."""
    candidates = [shutil.which("python3.6")] + sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.6*/bin/python3")))
    for exe in candidates:
        if not exe:
            continue
        try:
            out = subprocess.run([exe, "-c", "import sys; print(sys.version_info[:2] == (3, 6))"],
                                 capture_output=True, text=True, timeout=60).stdout
        except OSError:
            continue
        if out.strip() == "True":
            return exe
    return None


def test_toxic_spans_runs_on_python36(tmp_path):
    """Beyond syntax: the program runs on a real 3.6 and gives the same scores as on this interpreter."""
    exe = _python36()
    if exe is None:
        pytest.skip("no Python 3.6 interpreter on this machine")
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "res").mkdir()
    (tmp_path / "in" / "ref" / "spans-gold.txt").write_text("0\t[0, 1, 6]\n1\t[]\n2\t[10, 11, 12]\n")
    (tmp_path / "in" / "res" / "spans-pred.txt").write_bytes(b"\xef\xbb\xbf2\t[]\r\n0\t[0, 1, 4, 5,]\r\n1\t[]\r\n")
    program = ROOT / "scoring_programs" / "toxic-spans" / "evaluate.py"
    scores = []
    for python in (exe, sys.executable):
        out = tmp_path / ("out-" + os.path.basename(os.path.dirname(os.path.dirname(python))))
        run = subprocess.run([python, str(program), str(tmp_path / "in"), str(out)], capture_output=True, text=True,
                             timeout=120, env=dict(os.environ, LC_ALL="C", LANG="C"))
        assert run.returncode == 0, run.stderr
        scores.append((out / "scores.txt").read_text())
    assert scores[0] == scores[1]
    values = [float(line.split(": ")[1]) for line in scores[0].splitlines()]
    assert scores[0].startswith("spans_F1: ") and values == pytest.approx([11 / 21, 0.5, 5 / 9], abs=1e-14)
