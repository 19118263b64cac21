"""Public and private items of one gold (Kaggle's public and private leaderboards), and phases whose scores are
withheld (a blind test): what the builder's marks in the reference data make a scoring run write.

The builder writes these files into a split's reference zip (task.yaml's ``private:``, a phase's
``private_scores`` and ``blind``); none of them is part of the gold's SHA-256.
- ``private_ids.txt``: the ids of the private items, one per line (the ids of the program's per-item figures,
  ``Result.items``). With it, the run writes the ranking score computed over the public items only, under its own
  key, and nothing else: the program's other figures cover every item, so they would tell something of the
  private ones, and are left out (as are its notes, which may count gold items).
- ``private_scoring.txt`` (beside private_ids.txt): the run also writes ``private_<key>``, the ranking score over
  the private items, into scores.txt and scores.json only, which the platform stores. It never appears on
  standard output, standard error or the detailed-results page: participants read those.
- ``scores_withheld.txt``: the submission is read and scored as usual (a bad one fails with its message), but no
  figure is written anywhere: scores.txt and scores.json hold no score, and the log and the page say that the
  scores are withheld. A later phase (Codabench's migration of the submissions) scores it for real.

Nothing private can reach a participant from a phase whose reference lacks private_scoring.txt: the figure is
never computed there. Python 3.6+, standard library only.
"""
import math
import os

from report_html import page, paragraph, section, table
from scoring_base import (GOLD_PUBLIC_MARKER, PRIVATE_IDS, PRIVATE_SCORING, SCORES_WITHHELD, Items,
                          ReferenceDataError, Result, ScoringProgramError, gold_is_public, is_stray,
                          plural, read_text, result_items)

PRIVATE_PREFIX = "private_"

WITHHELD_NOTE = ("The submission was read and scored, but this phase withholds its scores: they are shown when the "
                 "organizers reveal them, after the phase.")


def _marked(ref_dir, name):
    """The path of ``name`` at the top of ``ref_dir`` or in its single wrapper folder, else None."""
    path = os.path.join(ref_dir, name)
    if os.path.isfile(path):
        return path
    entries = [e for e in os.listdir(ref_dir) if not is_stray(e)] if os.path.isdir(ref_dir) else []
    if len(entries) == 1 and os.path.isdir(os.path.join(ref_dir, entries[0])):
        path = os.path.join(ref_dir, entries[0], name)
        return path if os.path.isfile(path) else None
    return None


def read_private_ids(path):
    """[(line number, id)] of a private_ids.txt: one id per line; blank lines and lines starting with # skipped."""
    found = []
    for number, line in enumerate(read_text(path, PRIVATE_IDS, ReferenceDataError).splitlines(), 1):
        text = line.strip()
        if text and not text.startswith("#"):
            found.append((number, text))
    return found


def subset(items, keep, key=None):
    """The Items of ``items`` whose position is in ``keep`` (a set of positions), in order, ranked under ``key``."""
    part = Items(items.unit, key or items.key, items.finish)
    for position, item_id in enumerate(items.ids):
        if position in keep:
            part.add(item_id, items.stats[position], items.verdicts[position], items.details[position])
    return part


def _figure(items, what):
    try:
        value = items.score()
    except Exception as exc:  # the metric of a subset: whose problem it is, never its values
        raise ReferenceDataError("the %s %s cannot be scored on their own (%s)"
                                 % (what, plural(items.unit), type(exc).__name__))
    if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isnan(value) or math.isinf(value):
        raise ReferenceDataError("the %s %s give no finite score on their own" % (what, plural(items.unit)))
    return float(value)


def _page(title, scores, lines):
    return page(title, section("Scores", table(["score", "value"], scores)), *[paragraph(t, "note") for t in lines])


def split(result, message, ref_dir, title="Scoring"):
    """(result, message) of a run, as the reference data's marks make it (see the module's docstring); as given
    when there is no mark, or when the run already failed. A mark the run cannot follow gives (None, the one-line
    message for stderr)."""
    if result is None or message is not None:
        return result, message
    withheld = _marked(ref_dir, SCORES_WITHHELD) is not None
    ids_path = _marked(ref_dir, PRIVATE_IDS)
    if ids_path is None and not withheld:
        return result, message
    try:
        return _split(result, ref_dir, title, ids_path, withheld), None
    except ReferenceDataError as exc:
        return None, "Reference data error (a problem for the organizers, not your submission): %s" % exc
    except ScoringProgramError as exc:
        return None, "Scoring program error (a problem for the organizers, not your submission): %s" % exc


def _split(result, ref_dir, title, ids_path, withheld):
    if withheld:
        shown = Result([], html=_page(title, [], [WITHHELD_NOTE]), notes=[WITHHELD_NOTE], warnings=result.warnings,
                       program=result.program)
        shown.hidden_gold_html = shown.html
        return shown
    if gold_is_public(ref_dir):
        raise ReferenceDataError("the reference data holds both %s and %s: a gold that participants may see has no "
                                 "private items" % (GOLD_PUBLIC_MARKER, PRIVATE_IDS))
    items = result_items(result)
    if items is None:
        raise ScoringProgramError("this program gives no per-item figures (Result.items), so it cannot score the "
                                  "public and the private items of the gold apart")
    private_key = PRIVATE_PREFIX + items.key
    if len(private_key) > 36:
        raise ScoringProgramError("the private score key %s is longer than 36 characters" % private_key)
    positions = dict((item_id, position) for position, item_id in enumerate(items.ids))
    private = set()
    for number, item_id in read_private_ids(ids_path):
        if item_id not in positions:
            raise ReferenceDataError("%s, line %d: not the id of a %s the program scored" % (PRIVATE_IDS, number,
                                                                                             items.unit))
        private.add(positions[item_id])
    public = set(range(len(items))) - private
    if not public or not private:
        raise ReferenceDataError("%s makes %s of the %d %s private: a leaderboard needs both public and private "
                                 "items" % (PRIVATE_IDS, "all" if not public else "none", len(items),
                                            plural(items.unit)))
    public_items = subset(items, public)
    scores = [(items.key, _figure(public_items, "public"))]
    lines = ["%s scored on the %d public %s of %d; the private %s are scored after the phase." % (
        items.key, len(public), plural(items.unit), len(items), plural(items.unit))]
    if _marked(ref_dir, PRIVATE_SCORING) is not None:
        private_items = subset(items, private, private_key)
        scores.append((private_key, _figure(private_items, "private")))
        lines[0] = "%s scored on the %d public %s of %d; %s, on the %d private ones, is in scores.txt only." % (
            items.key, len(public), plural(items.unit), len(items), private_key, len(private))
        kept = private_items
    else:
        kept = public_items
    lines.append("The program's other figures and notes cover every %s, public and private, and are left out."
                 % items.unit)
    # The page and the log show the public figure only: participants read them.
    html = _page(title, scores[:1], lines)
    shown = Result(scores, html=html, notes=lines, warnings=result.warnings, items=kept, program=result.program)
    shown.hidden_gold_html = html
    shown.private_keys = tuple(key for key, _ in scores[1:])
    return shown
