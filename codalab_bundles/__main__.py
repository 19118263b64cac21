"""``python3 -m codalab_bundles ...``: the same commands as build_bundle.py and codalab-bundles."""
import sys

from .cli import main

sys.exit(main())
