#!/usr/bin/env python3
"""Build, validate and replay competition bundles; start a task; move a CodaLab competition to Codabench.

Run ``python3 build_bundle.py --help``, or a subcommand's ``--help`` (replay, validate, new, migrate, rescore);
the commands are described in codalab_bundles/cli.py and the README. The same commands are installed as
``codalab-bundles`` by ``python3 -m pip install -e .``.
"""
import sys

from codalab_bundles.cli import main

if __name__ == "__main__":
    sys.exit(main())
