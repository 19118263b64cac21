"""A size limit on submissions, set by the organizer (task.yaml ``max_submission_mb``), checked before anything of
the submission is read: Codabench sets none, and one participant's huge file lands on a compute worker shared with
everyone's runs.

The builder writes the limit as ``submission_limit.json`` ({"max_mb": N}) beside ``evaluate.py`` in the scoring
program; without that file (the default, and every program built before) there is no limit. A megabyte here is
1,000,000 bytes, the sizes of every file of the submission (the unzipped INPUT/res) added up.

Python 3.6+ and the standard library only, as the rest of the runtime.
"""
import io
import json
import os

LIMIT_FILE = "submission_limit.json"
HERE = os.path.dirname(os.path.abspath(__file__))  # a built program's folder: evaluate.py and the runtime
MB = 1000 * 1000


def read_limit(folder=HERE):
    """The limit in MB of the program in ``folder``, or None (no submission_limit.json)."""
    path = os.path.join(folder, LIMIT_FILE)
    if not os.path.isfile(path):
        return None
    with io.open(path, encoding="utf-8") as handle:
        limit = json.load(handle).get("max_mb")
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
        raise ValueError("%s: max_mb must be a positive number" % LIMIT_FILE)
    return limit


def _size_text(size):
    """Bytes in MB, exactly (to the byte): 1000001 bytes is '1.000001 MB', not '1.0 MB' (over a limit of 1 MB)."""
    return "%s MB" % ("%d.%06d" % divmod(size, MB)).rstrip("0").rstrip(".")


def oversized(res_dir, folder=HERE):
    """The one-line message for a submission whose files add up to more than the limit, or None (within it, or no
    limit). Only the files' sizes are read."""
    try:
        limit = read_limit(folder)
    except (OSError, ValueError) as exc:
        return "Scoring program error (a problem for the organizers, not your submission): %s" % exc
    if limit is None:
        return None
    total, largest, largest_name = 0, -1, None
    for root, dirs, files in os.walk(res_dir):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            size = os.path.getsize(path)
            total += size
            if size > largest:
                largest, largest_name = size, os.path.relpath(path, res_dir).replace(os.sep, "/")
    if total <= limit * MB:
        return None
    return ("Submission error: the submission's files add up to %s, more than this task's limit of %g MB (the "
            "largest is %s, %s); nothing of it was read" % (_size_text(total), limit, largest_name,
                                                             _size_text(largest)))
