"""The CodaLab v1.5 compute worker, for bundles run on a self-hosted CodaLab Competitions.

Modelled on codalab/competitions-v1-compute-worker, worker.py @ 045340126fbf ("W" below, line numbers of that
commit): its ``run`` lays out the run directory (W L312-413), ``get_bundle`` unzips each input (W L112-182; here
bundle.get_bundle), the command is substituted and split (W L483-492), the time limit is an alarm around the
polling loop (W L619-656), and the worker appends the exit code and time to output/metadata (W L680-695). The
scores are read afterwards by the CodaLab site's parser (platforms.score_parsing.parse_codalab).
"""
from __future__ import annotations

import os
import tempfile
from typing import Dict, List, Optional, Sequence

import yaml

from ..platforms import score_parsing
from .base_worker import Run, Worker, load_metadata, read_optional, write_file
from .bundle import Bundle, PhaseInfo, get_bundle
from .docker_run import TIME_LIMIT_MESSAGE


def _input_metadata(phase_number):
    return ("submitted-by: replay\nsubmitted-at: 2000-01-01T00:00:00\ncompetition-submission: 1\n"
            "competition-phase: %s\nautomatic-submission: False\n" % phase_number)


class CodalabWorker(Worker):
    """The v1.5 worker (platform notes 2.1-2.8): <run> at the same path inside the container, split(' '), no shell."""

    name = "codalab"
    label = "CodaLab v1.5"
    timeout_message = TIME_LIMIT_MESSAGE  # appended to stderr.txt when the worker kills the step
    limits = None  # safe_zip.Limits for every zip extracted; None: the defaults
    writable = ("output", "temp")  # folders the program writes (opened up only for a container, see DockerExecutor)

    def prepare(self, bundle: Bundle, phase: PhaseInfo, submission: bytes, base: str) -> Run:
        root = tempfile.mkdtemp(prefix="tmp", dir=base)
        shared = tempfile.mkdtemp(prefix="tmp", dir=base)
        run = os.path.join(root, "run")
        os.makedirs(run)
        write_file(os.path.join(run, "metadata"),
                   "program: scoring_program.zip\ninput: input.txt\nstdout: \nstderr: \n")
        get_bundle(bundle.read(phase.scoring_program, "scoring_program"), os.path.join(run, "program"),
                   "scoring_program", run, self.limits)
        input_dir = os.path.join(run, "input")
        os.makedirs(input_dir)
        write_file(os.path.join(input_dir, "metadata"), _input_metadata(phase.number))
        if phase.reference_data:
            get_bundle(bundle.read(phase.reference_data, "reference_data"), os.path.join(input_dir, "ref"),
                       "reference_data", input_dir, self.limits)
        get_bundle(submission, os.path.join(input_dir, "res"), "submission", input_dir, self.limits)
        for name in ("history", "scores"):
            os.makedirs(os.path.join(input_dir, name))
            write_file(os.path.join(input_dir, name, "metadata"))
        output = os.path.join(run, "output")
        for folder in (output, os.path.join(run, "temp")):
            os.makedirs(folder)
        write_file(os.path.join(output, "detailed_results.html"))
        stdout, stderr = os.path.join(run, "stdout.txt"), os.path.join(run, "stderr.txt")
        write_file(stdout)
        write_file(stderr)
        metadata = load_metadata(os.path.join(run, "program"), ["metadata"]) or {}
        command = metadata.get("command")
        commands = [command] if isinstance(command, str) else [c for c in command or [] if isinstance(c, str)]
        error = None if commands else "Program command is not specified."
        return Run(root, run, output, stdout, stderr, commands,
                   {"run": run, "shared": shared, "output": output, "temp": os.path.join(run, "temp")}, error)

    def tokens(self, run: Run, command: str, in_container: bool = False) -> List[str]:
        """The worker's substitutions, in its order, then split(' ') (W L483-492). Same paths inside and out."""
        base = run.paths["run"]
        for variable, value in (("$program", os.path.join(base, "program")),
                                ("$predictions", os.path.join(base, "input", "res")),
                                ("$input", os.path.join(base, "input")),
                                ("$output", os.path.join(base, "output")),
                                ("$tmp", os.path.join(base, "temp")),
                                ("$shared", run.paths["shared"])):
            command = command.replace(variable, value)
        return command.split(" ")

    def finish(self, run: Run, results: Sequence[Dict[str, float]]) -> Optional[str]:
        """After the program: the worker appends its own output/metadata (exit code and time)."""
        with open(os.path.join(run.output, "metadata"), "a") as handle:
            yaml.safe_dump(results[0] if len(results) == 1 else results, handle, default_flow_style=False)
        return None

    def time_limit(self, phase: PhaseInfo) -> Optional[int]:
        return phase.time_limit

    def kill_after(self, phase: PhaseInfo) -> Optional[int]:
        """Seconds after which the step is stopped: the time limit itself on v1.5."""
        return phase.time_limit

    def parse(self, run: Run, columns: Sequence[str], computed: Sequence[str]) -> score_parsing.ParsedScores:
        return score_parsing.parse_codalab(read_optional(os.path.join(run.output, "scores.txt")), columns,
                                           computed)
