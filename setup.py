"""Puts into the wheel what the commands need from this repository's top-level folders, without moving them:
scoring_programs/common, scoring_programs/generic and tools/make_logo.py go to codalab_bundles/_shipped/
(codalab_bundles/resources.py lists them and finds them there). Everything else is in pyproject.toml."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _shipped_files():
    namespace = {}
    with open(os.path.join(HERE, "codalab_bundles", "resources.py")) as handle:
        source = handle.read()
    # only the SHIPPED_FILES table: resources.py itself needs the installed package around it
    start = source.index("SHIPPED_FILES = ")
    exec(source[start:source.index("\n\n", start)], namespace)
    return namespace["SHIPPED_FILES"]


class BuildWithShipped(build_py):
    def run(self):
        super().run()
        target_root = os.path.join(self.build_lib, "codalab_bundles", "_shipped")
        for source, target in _shipped_files():
            source, target = os.path.join(HERE, source), os.path.join(target_root, target)
            if os.path.isdir(source):
                shutil.copytree(source, target, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "tests"))
            else:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(source, target)


setup(cmdclass={"build_py": BuildWithShipped})
