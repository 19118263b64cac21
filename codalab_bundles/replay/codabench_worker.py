"""The Codabench compute worker, the one organizers use today (the default everywhere).

Modelled on codalab/codabench @ c7dbc756b07b, compute_worker/compute_worker.py: ``_get_bundle`` extracts each zip
as it is (no promotion, no nested zips; "Bad or empty zip file" after its retries), ``_run_program_directory``
reads metadata.yaml before metadata, ``replace_legacy_metadata_command`` substitutes the legacy ``$`` variables
with the /app/... paths, ``start`` sets the alarm at the phase's time limit, and the worker refuses an
output/metadata the program wrote before writing its own. The site's side (src/apps/competitions/tasks.py) adds
the Celery soft time limit. The scores are read as Codabench does (platforms.score_parsing.parse_codabench).
"""
from __future__ import annotations

import os
import shlex
import tempfile
from typing import Dict, List, Optional, Sequence

import yaml

from ..platforms import score_parsing
from .base_worker import Run, Worker, load_metadata, read_optional, write_file
from .bundle import CODABENCH_TIME_LIMIT, Bundle, PhaseInfo, safe_extract

# Codabench's site gives each run a Celery soft time limit of the phase's limit plus 20 minutes; past it the worker
# catches SoftTimeLimitExceeded, the program gets exit status 1 (its container is left running on the host) and the
# submission fails with the details below, not "Soft time limit exceeded!" (seen live on the local Codabench at
# c7dbc756, 27 November 2026: a results submission whose scoring program never ends, limit 5 s, Failed after 20 min).
CODABENCH_SOFT_LIMIT_PADDING = 20 * 60
CODABENCH_SOFT_LIMIT_DETAILS = "Child task failed or non-zero return code"


class CodabenchWorker(Worker):
    """The Codabench compute worker (platform notes 4.4): /app/{program,input,output,shared}, cwd /app/program,
    shlex split, plain extraction (no promotion, no nested zips), scores.json before scores.txt."""

    name = "codabench"
    label = "Codabench"
    timeout_message = None
    APP = {"program": "/app/program", "input": "/app/input", "output": "/app/output", "shared": "/app/shared"}
    limits = None
    writable = ("output", "shared")

    def prepare(self, bundle: Bundle, phase: PhaseInfo, submission: bytes, base: str) -> Run:
        root = tempfile.mkdtemp(prefix="codabench-", dir=base)
        paths = dict((name, os.path.join(root, name)) for name in ("program", "input", "output", "shared"))
        safe_extract(bundle.read(phase.scoring_program, "scoring_program"), paths["program"], "scoring_program",
                     self.limits)
        if phase.reference_data:
            safe_extract(bundle.read(phase.reference_data, "reference_data"),
                         os.path.join(paths["input"], "ref"), "reference_data", self.limits)
        safe_extract(submission, os.path.join(paths["input"], "res"), "submission", self.limits)
        for name in ("input", "output", "shared"):
            if not os.path.isdir(paths[name]):
                os.makedirs(paths[name])
        stdout, stderr = os.path.join(root, "stdout.txt"), os.path.join(root, "stderr.txt")
        write_file(stdout)
        write_file(stderr)
        metadata = load_metadata(paths["program"], ["metadata.yaml", "metadata"])
        command = (metadata or {}).get("command")
        if metadata is None:
            error = "Program directory missing 'metadata.yaml/metadata'"
        elif not isinstance(command, str) or not command.strip():
            error = "Program command is not specified."
        else:
            error = None
        return Run(root, paths["program"], paths["output"], stdout, stderr, [command] if error is None else [],
                   paths, error)

    def tokens(self, run: Run, command: str, in_container: bool = False) -> List[str]:
        """Codabench's legacy substitutions, then a shell-style split (docker-py's shlex.split)."""
        where = self.APP if in_container else run.paths
        values = {"$ingestion_program": where["program"], "$submission_program": "/app/ingested_program",
                  "$predictions": os.path.join(where["input"], "res"),
                  "$hidden": os.path.join(where["input"], "ref"), "$program": where["program"],
                  "$input": where["input"], "$output": where["output"], "$shared": where["shared"],
                  "$tmp": where["output"]}
        for variable in sorted(values, key=len, reverse=True):  # longest first: $ingestion_program before $program
            command = command.replace(variable, values[variable])
        return shlex.split(command)

    def finish(self, run: Run, results: Sequence[Dict[str, float]]) -> Optional[str]:
        if os.path.exists(os.path.join(run.output, "metadata")):
            return ("the scoring program wrote output/metadata: Codabench's worker writes that file itself and "
                    "fails the submission when it already exists")
        with open(os.path.join(run.output, "metadata"), "w") as handle:
            yaml.safe_dump({"exitCode": results[-1]["exitCode"], "elapsedTime": results[-1]["elapsedTime"]}, handle)
        return None

    def time_limit(self, phase: PhaseInfo) -> int:
        # The default queue caps the phase's limit at MAX_EXECUTION_TIME_LIMIT (600 s by default).
        return min(phase.time_limit or CODABENCH_TIME_LIMIT, CODABENCH_TIME_LIMIT)

    def kill_after(self, phase: PhaseInfo) -> int:
        """The worker's alarm at the time limit is caught while it streams the container's logs (its January 2026
        docker-py rewrite), so the program runs on; what stops it is the site's Celery soft time limit."""
        return (phase.time_limit or CODABENCH_TIME_LIMIT) + CODABENCH_SOFT_LIMIT_PADDING

    def parse(self, run: Run, columns: Sequence[str], computed: Sequence[str]) -> score_parsing.ParsedScores:
        return score_parsing.parse_codabench(read_optional(os.path.join(run.output, "scores.json")),
                                             read_optional(os.path.join(run.output, "scores.txt")), columns)
