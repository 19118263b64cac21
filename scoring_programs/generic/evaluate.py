"""Generic scoring program: classification, multilabel, spans, ranking, text, regression or sequence, configured
by scoring.json.

    python3 evaluate.py INPUT OUTPUT

INPUT/ref holds the gold, INPUT/res the submission. The config is the scoring.json beside this file (a built
scoring program), or the file named by the GENERIC_SCORING_CONFIG environment variable (running from the
repository: GENERIC_SCORING_CONFIG=scoring_programs/<task>/scoring.json). See README.md for each kind.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# In the repository the shared runtime sits in ../common; in a built scoring program it sits beside this file.
sys.path.append(os.path.join(HERE, os.pardir, "common"))

from scoring_runtime import ReferenceDataError, main, read_text, load_json  # noqa: E402
from generic_config import CONFIG_ENV, CONFIG_NAME, check_config, with_defaults  # noqa: E402

TITLE = "Detailed results"


def config_path():
    return os.environ.get(CONFIG_ENV) or os.path.join(HERE, CONFIG_NAME)


def load_config(path=None):
    """The validated config with defaults filled in; a ReferenceDataError (an organizer's problem) otherwise."""
    path = path or config_path()
    label = "scoring config " + os.path.basename(path)
    if not os.path.isfile(path):
        raise ReferenceDataError("%s not found beside evaluate.py (or set %s)" % (label, CONFIG_ENV))
    config = load_json(read_text(path, label, ReferenceDataError), label, ReferenceDataError)
    problems = check_config(config)
    if problems:
        raise ReferenceDataError("%s: %s" % (label, "; ".join(problems)))
    return with_defaults(config)


def score(ref_dir, res_dir):
    config = load_config()
    # Only the configured kind's module is imported.
    module = __import__("generic_" + config["kind"])
    return module.score(ref_dir, res_dir, config)


if __name__ == "__main__":
    sys.exit(main(score, TITLE, program="generic"))
