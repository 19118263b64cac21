"""What each platform's compute worker does with a submission zip it cannot unzip, or that holds nothing: the
scoring program never runs, so what the participant sees is the worker's own status and message, not the program's.

``check`` sorts the submission's bytes before anything is extracted (not a zip: "bad"; a zip without a single entry:
"empty"); the extraction itself (bundle.safe_extract) raises ``bundle.BrokenZip`` for an entry Python's zipfile
cannot read, as the workers' ``ZipFile.extractall`` would: "bad" for zipfile.BadZipFile (a bad CRC, a bad local
header), "crash" for any other exception (zlib.error on damaged deflate data, an unsupported compression method, an
encrypted entry). ``outcome`` says what each platform then shows.

Codabench (codalab/codabench @ c7dbc756, compute_worker/compute_worker.py; each case checked on the local Codabench
of tools/codabench_local): ``_get_bundle`` catches only BadZipFile, and tries the download and extraction 10 times,
20 s apart, before it fails the submission with "Bad or empty zip file" (no stderr). Any other exception leaves
``run_wrapper`` uncaught: the Celery task dies, nothing reports the submission's end, and it stays "Preparing" for good
(the site's hourly cleanup looks only at "Running" ones). A zip with no entry extracts to nothing, so the prediction
step finds no submission folder and fails ("Metadata file not found"), but it has already told the site it is
"Scoring", which sends the scoring step; that step downloads the empty placeholder the site made for the prediction
result and fails it as above, "Bad or empty zip file" after its 10 tries.

CodaLab v1.5 (codalab/competitions-v1-compute-worker @ 045340126fbf, worker.py ``get_bundle`` and ``run``): nothing is
caught or tried again: any exception of the extraction (or, for a zip with no entry, of listing the ``res`` folder it
never made) fails the submission at once, and the participant sees the worker's Python traceback.
"""
from __future__ import annotations

import io
import zipfile
from typing import Dict, Optional, Tuple

from .bundle import described

CODABENCH_TRIES = 10  # compute_worker.py _get_bundle: max_retries
CODABENCH_PAUSE = 20  # seconds between two tries
CODABENCH_MESSAGE = "Bad or empty zip file"


def check(data: bytes) -> Optional[Tuple[str, str]]:
    """("bad" or "empty", the error as "Type: message") for a submission no worker can unzip into a folder, before any
    extraction; None for a zip with entries (whose extraction may still fail: bundle.BrokenZip)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
    except zipfile.BadZipFile as exc:
        return "bad", described(exc)
    except (EOFError, ValueError, NotImplementedError, zipfile.LargeZipFile) as exc:  # a header zipfile cannot take
        return "crash", described(exc)
    if not names:
        return "empty", "the zip has no entry"
    return None


def outcome(platform: str, kind: str, error: str) -> Dict[str, object]:
    """The report's status, reason and warnings for a submission of ``kind`` ("bad", "empty", "crash", see the module's
    docstring) on ``platform``; ``error`` is the exception as "Type: message"."""
    if platform == "codalab":
        if kind == "empty":
            error = "OSError: [Errno 2] No such file or directory: '<run>/input/res' (%s)" % error
        return {"status": "Failed",
                "reason": "the worker cannot unzip the submission: %s" % error,
                "warnings": ["CodaLab v1.5's worker fails the submission at once, before the scoring program runs; "
                             "the participant sees the worker's Python traceback, which ends with that error"]}
    waited = (CODABENCH_TRIES - 1) * CODABENCH_PAUSE
    if kind == "crash":
        return {"status": "Preparing",
                "reason": "the compute worker's task dies unzipping the submission (%s): nothing reports its end, "
                          "so it stays Preparing for good, with no message" % error,
                "warnings": ["Codabench's worker catches only BadZipFile while unzipping; any other error ends its "
                             "task, and the site's cleanup fails only Running submissions, so this one is never "
                             "final: its organizer cancels or deletes it"]}
    if kind == "empty":
        said = ("the zip has no entry, so the compute worker's prediction step finds no submission folder and fails "
                "(\"Metadata file not found\", for a moment), after telling the site it was Scoring; the scoring "
                "step then gets the site's empty placeholder for the prediction result")
    else:
        said = "the compute worker cannot unzip the submission (%s)" % error
    return {"status": "Failed", "reason": CODABENCH_MESSAGE,
            "warnings": ["%s: it tries %d times, %d s apart, then fails the submission with \"%s\" about %d s after it "
                         "started, with no stderr; the scoring program never runs"
                         % (said, CODABENCH_TRIES, CODABENCH_PAUSE, CODABENCH_MESSAGE, waited)]}
