"""The entry point of every scoring program: ``sys.exit(main(score, TITLE, program=...))`` at the end of its
``evaluate.py``.

A program runs in one of two ways, chosen by its arguments:
- the platform's: ``python3 evaluate.py INPUT OUTPUT``, gold in ``INPUT/ref``, submission in ``INPUT/res``, scores
  written to ``OUTPUT`` (here);
- two files: ``python3 evaluate.py --gold GOLD --pred PRED ...``, the scores printed (score_files.py).

Python 3.6+ and the standard library only, as the rest of the runtime.
"""
import os
import sys

import scoring_limits
import scoring_private
import scoring_run
import scoring_tracks
from scoring_base import gold_is_public

USAGE = ("usage: python3 evaluate.py INPUT_DIR OUTPUT_DIR\n"
         "  INPUT_DIR/ref holds the gold data, INPUT_DIR/res the submission; scores go to OUTPUT_DIR/scores.txt.\n"
         "   or: python3 evaluate.py --gold GOLD --pred PRED [--json] [--per-item] [--ci] [--compare PRED2]\n"
         "  scores the two files (or folders, or zips) and prints the scores; --help says more.\n")


def main(score, title="Scoring", argv=None, program="scoring", derived=()):
    """Run ``score(ref_dir, res_dir)`` as a CodaLab scoring program, or on two files given with --gold and --pred
    (score_files); returns the exit status. ``program`` names it in the signature; ``derived``: suffixes of files
    the builder adds to the gold (left out of the gold's hash)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0].startswith("-"):
        # Imported here, not at the top, for speed: only the two-file way needs it, and what it loads (argparse,
        # tempfile, zipfile, random) adds some 20 ms to every platform run. No cycle: score_files never imports
        # this module (tests/test_common_layering.py).
        import score_files
        return scoring_run.without_gc(lambda: score_files.main(score, title, program, derived, argv))
    if len(argv) != 2:
        sys.stderr.write(USAGE)
        return 2
    return scoring_run.without_gc(lambda: _platform_main(score, title, program, derived, argv))


def _platform_main(score, title, program, derived, argv):
    input_dir, output_dir = argv
    ref_dir = os.path.join(input_dir, "ref")
    res_dir = os.path.join(input_dir, "res")
    if not os.path.isdir(output_dir):
        os.makedirs(output_dir)
    # A rerun in the same folder must not leave an earlier run's scores behind a failure.
    for stale in (scoring_run.SCORES_TXT, scoring_run.SCORES_JSON):
        if os.path.exists(os.path.join(output_dir, stale)):
            os.remove(os.path.join(output_dir, stale))
    gold_hash = scoring_run.GoldHash(ref_dir, derived)
    oversized = scoring_limits.oversized(res_dir)  # the task's max_submission_mb, before anything is read
    result, message = (None, oversized) if oversized else scoring_run.run_score(score, ref_dir, res_dir)
    result, message = scoring_private.split(result, message, ref_dir, title)  # public/private items, blind
    result, message = scoring_tracks.keep_track(result, message)  # a track's program keeps its track's scores
    gold_hash.join()
    if result is not None:
        signature = gold_hash.signature(result.program or program)
        # the page may build the per-item figures: the task's code, run with its errors turned into one message
        html, message = scoring_run.run_step(
            lambda: scoring_run.page_for(title, result, gold_is_public(ref_dir), signature))
    if message is None:
        result.html = html
        scoring_run.write_outputs(output_dir, result, signature)
        scoring_run.print_result(result, signature)
        return 0
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    try:
        scoring_run.write_error_page(output_dir, title, message)
    except Exception:  # the message on stderr is what matters
        pass
    return 1
