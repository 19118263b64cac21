"""Where the files the commands need at run time are, besides this package's own modules.

The scoring runtime (scoring_programs/common), the generic scoring programs (scoring_programs/generic) and the logo
maker (tools/make_logo.py) live in this repository's top-level folders, where the seeded tasks use them. A wheel
carries copies of them inside the package, in ``_shipped/`` (the build configuration, setup.py, puts them there), so
an installed tool never reads a source tree. In a checkout (or an editable install) there is no ``_shipped/``, and
the repository's folders are used.
"""
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SCHEMAS = PACKAGE / "platforms" / "schemas"  # the JSON Schemas of both platforms' bundles (validate reads them)
SHIPPED = PACKAGE / "_shipped"
CHECKOUT = PACKAGE.parent
# (path in the repository, path under _shipped/): what setup.py copies into the wheel
SHIPPED_FILES = (("scoring_programs/common", "scoring_programs/common"),
                 ("scoring_programs/generic", "scoring_programs/generic"),
                 ("scoring_programs/ingestion", "scoring_programs/ingestion"),
                 ("tools/make_logo.py", "tools/make_logo.py"))


def _located(relative):
    shipped = SHIPPED / relative
    return shipped if shipped.exists() else CHECKOUT / relative


COMMON = _located("scoring_programs/common")    # the shared scoring runtime, zipped into every scoring program
GENERIC = _located("scoring_programs/generic")  # the generic scoring programs, configured by a task's scoring.json
INGESTION = _located("scoring_programs/ingestion")  # the ingestion program of code-submission tasks
MAKE_LOGO = _located("tools/make_logo.py")       # draws a task's logo (new) and a stand-in logo (migrate)
