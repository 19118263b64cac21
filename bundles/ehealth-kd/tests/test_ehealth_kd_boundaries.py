"""eHealth-KD at its boundaries: where a partial match starts and stops (the official ``partial_match``: a span of
one key phrase *starts* inside a span of the other, END exclusive, either way round), and how many missing key
phrases a sentence's detail names."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scoring_programs" / "ehealth-kd"))

from ehealth_kd_matching import overlaps  # noqa: E402
from ehealth_kd_metric import NAMED_MISSING, Counts, sentence_items  # noqa: E402


@pytest.mark.parametrize("a, b, expected", [
    # score.py: any(start <= x < end for start, end in kp1.spans for x, _ in kp2.spans), or the same the other way.
    (((3, 3),), ((3, 5),), True),       # an empty span at the start of the other: only 3 <= 3 < 5 holds
    (((3, 5),), ((3, 3),), True),
    (((5, 9),), ((0, 5),), False),      # b ends where a starts: END is exclusive, both ways round
    (((0, 5),), ((5, 9),), False),
    (((0, 2), (5, 9)), ((9, 12),), False),
    (((0, 2), (5, 9)), ((8, 12),), True),
    (((7, 7),), ((7, 7),), False),      # two empty spans: nothing starts inside nothing
])
def test_partial_overlap_boundaries(a, b, expected):
    assert overlaps(a, b) is expected


class Phrase(object):
    def __init__(self, *spans):
        self.spans = spans


TEXT = "uno dos tres cuatro cinco"   # uno 0-3, dos 4-7, tres 8-12, cuatro 13-19, cinco 20-25
WORDS = [Phrase((0, 3)), Phrase((4, 7)), Phrase((8, 12)), Phrase((13, 19)), Phrase((20, 25))]


@pytest.mark.parametrize("missing, detail", [
    (1, "1 key phrase missing ('uno')"),
    (NAMED_MISSING, "3 key phrases missing ('uno', 'dos', 'tres')"),
    (NAMED_MISSING + 1, "4 key phrases missing ('uno', 'dos', 'tres', ...)"),
    (5, "5 key phrases missing ('uno', 'dos', 'tres', ...)"),
])
def test_a_detail_names_at_most_three_missing_key_phrases(missing, detail):
    items = sentence_items([(7, TEXT, WORDS[:missing], Counts(missing=missing), Counts())], "main_score")
    assert items.details == [detail] and items.verdicts == ["wrong"] and items.ids == ["7"]


def test_a_detail_without_missing_key_phrases_does_not_mention_them():
    items = sentence_items([(2, TEXT, [], Counts(correct=1, spurious=2), Counts(missing=1))], "main_score")
    assert items.details == ["2 key phrases spurious; 1 relation missing"] and items.verdicts == ["partly"]


# The per-label table of the detailed results (label_table): recall over the gold items of a label, precision over
# the submitted items of a label; a partial match earns half on both sides, whatever the two labels are.
from test_ehealth_kd_metric import match_one  # noqa: E402
from ehealth_kd_metric import label_table  # noqa: E402

TWO = "aa bb cc dd\n"   # aa 0-2, bb 3-5, cc 6-8, dd 9-11


def test_a_partial_match_across_labels_credits_each_label_on_its_side():
    # Gold "aa bb" (Concept) and submitted "bb" (Action) overlap: partial. Gold "cc" (Action) is missing, and the
    # submitted "dd" (Predicate) is spurious.
    match = match_one(TWO, "1\t0 5\tConcept\tx\n2\t6 8\tAction\tx\n", "",
                      "1\t3 5\tAction\tx\n2\t9 11\tPredicate\tx\n", "")
    table = label_table([match])
    # Concept: 1 gold item, credited 0.5 (recall 0.5); no submitted Concept (precision 0).
    assert table["Concept"][:4] == (1, 0, 0.0, 0.5)
    # Action: 1 gold item (cc, missing: recall 0) and 1 submitted (bb, credited 0.5: precision 0.5); the partial
    # credit on the gold side went to the gold Concept.
    assert table["Action"][:4] == (1, 1, 0.5, 0.0)
    # Predicate: only submitted, spurious: no gold item, so recall 0 (not 1), precision 0.
    assert table["Predicate"] == (0, 1, 0.0, 0.0, 0.0)
