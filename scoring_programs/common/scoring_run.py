"""One scoring run and what it leaves, whichever way the program was started (the platform's ``INPUT OUTPUT``, in
scoring_main.py, or two files, in score_files.py): the task's ``score`` called with its errors turned into one
message (run_score), the gold's SHA-256 computed beside it for the signature (GoldHash), the detailed-results page
the gold allows (page_for), ``scores.txt``, ``scores.json`` and ``detailed_results.html`` (write_outputs), and the
lines on stdout and stderr (print_result).

Python 3.6+ and the standard library only, as the rest of the runtime.
"""
import gc
import io
import json
import os
import sys
import threading
from collections import OrderedDict

import signature as signatures
from report_html import add_to_page, page, paragraph, section, table
from scoring_base import (HIDDEN_GOLD_RULE, NOT_GOLD, SCORE_KEY_RE, VERSION, ReferenceDataError, ScoringProgramError,
                          SubmissionError, check_result, format_score, is_stray, plural, result_items)

SCORES_TXT = "scores.txt"
SCORES_JSON = "scores.json"
DETAILED_RESULTS = "detailed_results.html"



def _write_atomic(path, text):
    tmp = path + ".part"
    with io.open(tmp, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    os.replace(tmp, path)


def write_outputs(output_dir, result, signature=None):
    """scores.txt, scores.json (with the signature under "signature": Codabench stores only the keys of its
    leaderboard columns and CodaLab reads scores.txt) and the page in result.html."""
    for key, value in result.scores:
        if not SCORE_KEY_RE.match(key):
            raise ValueError("score key %r must be 1-36 characters of A-Z, a-z, 0-9 and _" % key)
    keys = [key for key, _ in result.scores]
    if len(set(keys)) != len(keys) or "signature" in keys:
        raise ValueError("duplicate or reserved score keys: %s" % keys)
    lines = ["%s: %s\n" % (key, format_score(value)) for key, value in result.scores]
    data = OrderedDict((key, float(value)) for key, value in result.scores)
    if signature is not None:
        data["signature"] = signature
    if result.html is not None:
        _write_atomic(os.path.join(output_dir, DETAILED_RESULTS), result.html)
    _write_atomic(os.path.join(output_dir, SCORES_JSON), json.dumps(data, indent=2) + "\n")
    # scores.txt last: CodaLab treats its presence as success.
    _write_atomic(os.path.join(output_dir, SCORES_TXT), "".join(lines))


def _error_page(title, message):
    return page(title, section("The submission was not scored", paragraph(message)))


def write_error_page(output_dir, title, message):
    """detailed_results.html of a run that scored nothing: ``message``, the one line written on stderr."""
    _write_atomic(os.path.join(output_dir, DETAILED_RESULTS), _error_page(title, message))


def _scores_page(title, scores):
    return page(title, section("Scores", table(["score", "value"], scores)), paragraph(HIDDEN_GOLD_RULE, "note"))


# The public page lists at most this many items that were not right (a page for tens of thousands stays readable).
ITEMS_SHOWN = 200


def items_section(items, limit=ITEMS_SHOWN):
    """What each item that was not right got wrong (scoring_base.Items), for a page whose gold is public."""
    counts = dict((verdict, items.verdicts.count(verdict)) for verdict in items.VERDICTS)
    summary = u"%d %s: %d right, %d partly right, %d wrong." % (
        len(items), plural(items.unit), counts["right"], counts["partly"], counts["wrong"])
    rows = [(item_id, verdict, detail) for item_id, verdict, detail in zip(items.ids, items.verdicts, items.details)
            if verdict != "right"]
    parts = [paragraph(summary)]
    if rows:
        parts.append(table([items.unit, u"verdict", u"what was wrong"], rows[:limit]))
    if len(rows) > limit:
        parts.append(paragraph(u"The first %d are listed; score the files offline with --per-item to see all %d."
                               % (limit, len(rows)), "note"))
    return section(u"Per %s" % items.unit, *parts)


def signature_paragraph(signature):
    """The program, its version and the gold's SHA-256 (GoldHash.signature)."""
    return paragraph(u"Scored by %s %s; gold SHA-256 %s." % (signature["program"], signature["version"],
                                                            signature["gold_sha256"] or u"(none)"), "note")


def page_for(title, result, public, signature=None):
    """The detailed-results page allowed when the gold is (not) ``public`` (see HIDDEN_GOLD_RULE), with the items
    that were not right when it is public, and the signature."""
    if result.html is None:
        return None
    if public:
        html = result.html
        items = result_items(result)
        extra = [items_section(items)] if items is not None else []
    else:
        shown = [(key, value) for key, value in result.scores if key not in result.private_keys]
        html, extra = result.hidden_gold_html or _scores_page(title, shown), []
    if signature is not None:
        extra.append(signature_paragraph(signature))
    return add_to_page(html, extra)


class GoldHash(threading.Thread):
    """The SHA-256 of the gold at ``gold_path`` (file or folder, see signature.py), computed beside the scoring:
    hashlib releases the GIL, so hashing a large gold costs no time on a machine with two cores. ``derived``:
    suffixes of files the builder derives from the gold, left out of its hash."""

    def __init__(self, gold_path, derived=()):
        # Not a daemon: the interpreter waits for it at exit. A daemon thread still reading a file when a rejected
        # submission ends the program can make Python abort ("could not acquire lock ... at interpreter shutdown").
        threading.Thread.__init__(self, name="gold-sha256")
        self.gold_path, self.derived = gold_path, tuple(derived)
        self.value, self.error = None, None
        self.start()

    def _ignored(self, name):
        return name in NOT_GOLD or is_stray(name) or name.endswith(self.derived)

    def run(self):
        try:
            self.value = signatures.gold_sha256(self.gold_path, self._ignored)
        except Exception as exc:  # read again in signature() to raise it in the caller's thread
            self.error = exc

    def signature(self, program):
        """{"program", "version", "gold_sha256"}: the signature of a run of ``program`` on this gold."""
        self.join()
        if self.error is not None:
            raise self.error
        return signatures.make(program, VERSION, self.value)


def run_score(score, ref_dir, res_dir):
    """(Result, None), or (None, the one-line message for stderr) when the submission or gold cannot be scored, or
    the task's ``score`` returns a Result the runtime cannot write (check_result). The caller turns the cyclic
    garbage collector off around it (without_gc)."""
    return run_step(lambda: check_result(score(ref_dir, res_dir)))


# The message of a ScoringProgramError: whose problem it is, then what was wrong.
PROGRAM_ERROR = "Scoring program error (a problem for the organizers, not your submission): %s"


def run_step(step):
    """(step(), None), or (None, the one-line message for stderr) for what the step raised: a step of a run that
    calls the task's code (its ``score``, or the per-item figures it gave as a function)."""
    try:
        return step(), None
    except SubmissionError as exc:
        message = "Submission error: %s" % exc
    except ReferenceDataError as exc:
        message = ("Reference data error (a problem for the organizers, not your submission): %s" % exc)
    except ScoringProgramError as exc:
        message = PROGRAM_ERROR % exc
    except MemoryError:
        message = "Scoring failed: out of memory"
    except Exception as exc:  # a bug: never show a traceback, it could quote gold data
        if os.environ.get("SCORING_DEBUG"):
            raise
        message = ("Scoring failed with an internal error (%s); please report it to the organizers"
                   % type(exc).__name__)
    return None, message.rstrip()


def without_gc(run):
    """``run()`` with the cyclic garbage collector off. Readers make millions of small objects and no cycles: the
    collector's passes over them only cost time (they doubled it on large files), also after scoring, while the
    outputs are written with the parsed data still held (by Result.items)."""
    gc.disable()
    try:
        return run()
    finally:
        gc.enable()


def print_result(result, signature=None):
    """The scores, the notes and the signature on stdout (the platform's scoring log), warnings on stderr."""
    for key, value in result.scores:
        if key not in result.private_keys:
            sys.stdout.write("%s: %s\n" % (key, format_score(value)))
    for note in result.notes:
        sys.stdout.write(note + "\n")
    if signature is not None:
        sys.stdout.write("signature: %s\n" % signatures.text(signature))
    sys.stdout.flush()
    print_warnings(result)


def print_warnings(result):
    for warning in result.warnings:
        sys.stderr.write("Warning: %s\n" % warning)
    sys.stderr.flush()
