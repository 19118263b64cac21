#!/usr/bin/env python3
"""Build, validate and replay competition bundles; start a task; move a CodaLab competition to Codabench.

This repository is the competition folder of the five seeded tasks: ``python3 build_bundle.py`` builds them all
into dist/, and ``python3 build_bundle.py COMMAND`` runs the same commands as the installed ``codalab-bundles``
(new, build, validate, replay, migrate, rescore; each with --help), with this folder as the competition folder.
"""
import os
import sys

from codalab_bundles.cli import main

if __name__ == "__main__":
    sys.exit(main(command="python3 build_bundle.py", folder=os.path.dirname(os.path.abspath(__file__)),
                  default_command="build"))
