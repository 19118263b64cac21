"""The old import path of authoring.generic_kits, kept for task folders that ``new`` wrote before the package was
split into rooms (0.4.0 and earlier): their derive.py and sample_data.py say ``codalab_bundles.generic_kits``, and an
organizer who upgrades the tool must not have to edit them. The name is the same module object, not a copy."""
import sys

from .authoring import generic_kits

sys.modules[__name__] = generic_kits
