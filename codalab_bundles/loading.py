"""Importing a Python file by its path: derive hooks, kit baselines, sample-data generators, benchmark inputs.

These files live in folders that are not packages (bundles/<task>/, tools/), and several tasks have
files of the same name (baseline.py), so each gets a module name made from its path.
"""
import importlib.util
import re
import sys
from pathlib import Path

from . import resources

ROOT = resources.CHECKOUT
COMMON = resources.COMMON


def load_file(path, name=None):
    """Import the file at ``path`` as a fresh module (named after its path unless ``name`` is given)."""
    path = Path(path).resolve()
    if name is None:
        relative = path.relative_to(ROOT) if ROOT in path.parents else Path(path.name)
        name = "loaded_" + re.sub(r"\W", "_", relative.with_suffix("").as_posix())
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scoring_module(task, name, programs=ROOT / "scoring_programs"):
    """A module of scoring_programs/<task>/ (e.g. its gold reader), imported with the shared runtime reachable, so
    derive hooks read gold exactly as the scorer does."""
    folder = Path(programs) / task
    for path in (str(COMMON), str(folder)):
        if path not in sys.path:
            sys.path.append(path)
    return load_file(folder / (name + ".py"))
