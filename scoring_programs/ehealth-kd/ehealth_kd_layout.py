"""Where the files of each scenario are, in the gold data and in a submission.

The file names carry the scenario number, so files are found by name anywhere in the first three folder levels:
this tolerates a wrapper folder (a zip made of a folder) and renamed scenario folders without any ambiguity.
"""
import os

SCENARIOS = ((1, "scenario1-main"), (2, "scenario2-taskA"), (3, "scenario3-taskB"))

# Sentence file names in order of preference: participants return the sentences as output_scenarioN.txt.
SENTENCE_NAMES = ("output_scenario%d.txt", "input_scenario%d.txt")
A_NAME = "output_a_scenario%d.txt"
B_NAME = "output_b_scenario%d.txt"

_MAX_DEPTH = 3


def _skipped(name):
    return name.startswith((".", "__MACOSX", "._"))


def _walk(root):
    """(folder relative to root, file names) for the first folder levels, in a stable order."""
    root_depth = root.rstrip(os.sep).count(os.sep)
    for folder, dirs, files in os.walk(root):
        depth = folder.rstrip(os.sep).count(os.sep) - root_depth
        dirs[:] = sorted(d for d in dirs if not _skipped(d)) if depth < _MAX_DEPTH else []
        relative = os.path.relpath(folder, root)
        yield ("" if relative == os.curdir else relative.replace(os.sep, "/") + "/"), set(files)


class ScenarioFiles(object):
    """The files found for one scenario: ``sentences``, ``a`` and ``b`` are paths or None; ``names`` the labels
    used in messages (paths relative to the root of the submission or reference data)."""

    def __init__(self, number, root, folder, files):
        self.number = number
        self.folder = folder
        self.paths = {}
        self.names = {}
        for kind, candidates in (("sentences", SENTENCE_NAMES), ("a", (A_NAME,)), ("b", (B_NAME,))):
            for pattern in candidates:
                name = pattern % number
                if name in files:
                    self.paths[kind] = os.path.join(root, folder, name)
                    self.names[kind] = folder + name
                    break

    def missing(self):
        return [kind for kind in ("sentences", "a", "b") if kind not in self.paths]


def find_scenarios(root, error, what):
    """Scenario number -> ScenarioFiles for the scenarios that have at least one file under ``root``.

    Raises ``error`` when one scenario's files are spread over several folders.
    """
    if not os.path.isdir(root):
        raise error("the %s folder %s does not exist" % (what, root))
    found = {}
    for folder, files in _walk(root):
        for number, _ in SCENARIOS:
            names = [p % number for p in SENTENCE_NAMES + (A_NAME, B_NAME)]
            if not any(name in files for name in names):
                continue
            if number in found:
                raise error("the %s has files of scenario %d in two folders, %s and %s: keep one"
                            % (what, number, found[number].folder or "the top level", folder or "the top level"))
            found[number] = ScenarioFiles(number, root, folder, files)
    return found


def expected_layout():
    return ", ".join("%s/{output_scenario%d.txt, output_a_scenario%d.txt, output_b_scenario%d.txt}"
                     % (folder, n, n, n) for n, folder in SCENARIOS)
