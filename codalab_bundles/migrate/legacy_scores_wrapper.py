"""Run an unchanged CodaLab v1.5 scoring program on Codabench and hand Codabench its scores.

Shipped inside a migrated scoring program by ``build_bundle.py migrate --wrap-scores``. Its metadata command is

    python3 $program/legacy_scores_wrapper.py $output -- <the old command, unchanged>

so the Codabench worker makes its own substitutions in the old command, as it would without the wrapper. The
wrapper then:
- runs the old command from the folder holding program/, input/ and output/ (CodaLab's working directory was
  that run folder; Codabench's is program/), and passes on its exit status;
- reads output/scores.txt with CodaLab's rules (``label, value = line.split(":")``, label stripped, value read
  with float(), empty lines skipped) and writes output/scores.json, which Codabench reads first. Codabench reads
  scores.txt as YAML, so ``key:value`` without a space gives it no score at all;
- removes an output/metadata the old program wrote: CodaLab's worker appended to it, Codabench's refuses to
  overwrite it and fails the submission.
Python 3.6+ and the standard library only: it runs in codalab/codalab-legacy:py37.
"""
import json
import os
import subprocess
import sys


def codalab_scores(text):
    """{label: float} from scores.txt text, as CodaLab's site read it; raises ValueError as it failed."""
    scores = {}
    for number, line in enumerate(text.split("\n"), 1):
        if len(line) == 0:
            continue
        parts = line.split(":")
        if len(parts) != 2:
            raise ValueError("scores.txt line %d %r: CodaLab needs exactly one ':' per line" % (number, line))
        label, value = parts
        try:
            scores[label.strip()] = float(value)
        except ValueError:
            raise ValueError("scores.txt line %d: %r is not a number" % (number, value.strip()))
    return scores


def main(argv):
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: legacy_scores_wrapper.py OUTPUT -- COMMAND...\n")
        return 2
    output, command = argv[0], argv[2:]
    run_folder = os.path.dirname(os.path.abspath(output))
    sys.stdout.flush()
    try:
        status = subprocess.call(command, cwd=run_folder)
    except OSError as exc:
        sys.stderr.write("%s: %s\n" % (command[0], exc.strerror or exc))
        return 127
    metadata = os.path.join(output, "metadata")
    if os.path.isfile(metadata):
        os.remove(metadata)
    if status != 0:
        return status
    scores_json = os.path.join(output, "scores.json")
    scores_txt = os.path.join(output, "scores.txt")
    if os.path.exists(scores_json) or not os.path.isfile(scores_txt):
        return 0  # the program already speaks Codabench's format, or wrote no scores (Codabench says so)
    with open(scores_txt, encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    try:
        scores = codalab_scores(text)
    except ValueError as exc:
        sys.stderr.write("%s\n" % exc)
        return 1
    with open(scores_json, "w") as handle:
        json.dump(scores, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
