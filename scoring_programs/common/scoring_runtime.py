"""The shared runtime under one name: what a task's scoring program imports (``from scoring_runtime import
SubmissionError, Result, main``), the same names as before the runtime was layered.

The runtime itself is in modules that import one another one way only (tests/test_common_layering.py): scoring_base
(errors, Result, Items, reading files and values), scoring_run (the steps of a run: scoring, writing the scores and
the detailed results), scoring_main (``main``, the entry point). This module sits above all of them and defines
nothing: no runtime module imports it, so it cannot close a cycle. Python 3.6+, standard library only.
"""
from scoring_base import (GOLD_PUBLIC_MARKER, HIDDEN_GOLD_RULE, MAX_INTEGER_DIGITS, MAX_JSON_DEPTH,  # noqa: F401
                          QUOTE_LIMIT, STANDS_IN, STOOD_FOR, VERSION, Items, ReferenceDataError, Result,
                          ScoringProgramError, SubmissionError, canonical_integer, check_result, find_file,
                          find_reference_file, find_submission_file, format_score, gold_is_public, is_integer,
                          iter_lines, load_json, mean, numbered_lines, parse_integer, plural, predicted_only, quote,
                          read_csv, read_text, shorten, stream_lines)
from scoring_run import (DETAILED_RESULTS, SCORES_JSON, SCORES_TXT, GoldHash, page_for, print_result,  # noqa: F401
                         print_warnings, run_score, without_gc, write_outputs)
from scoring_main import USAGE, main  # noqa: F401

# What ``from scoring_runtime import *`` gives, as before
__all__ = [
    "SubmissionError", "ReferenceDataError", "ScoringProgramError", "Result", "Items", "main", "VERSION",
    "find_submission_file", "find_reference_file", "find_file",
    "read_text", "stream_lines", "iter_lines", "read_csv", "format_score", "mean",
    "quote", "shorten", "is_integer", "parse_integer", "canonical_integer", "load_json", "gold_is_public",
]
