"""``detailed_results.html`` for toxic spans: aggregates only.

Participants see this page in test phases, so it shows means, counts and a histogram, never a post's gold offsets.
"""
from report_html import page, section, paragraph, table, histogram
from scoring_runtime import HIDDEN_GOLD_RULE

from toxic_spans_metric import F1_BIN_LABELS, Summary


def _share(count, total):
    return "%.1f%%" % (100.0 * count / total) if total else "-"


def build_report(title, summary, gold_public=True):
    f1, precision, recall = summary.means()
    posts = summary.posts
    overview = section(
        "Scores",
        table(["measure", "value"], [
            ("F1 (spans_F1, ranks the leaderboard)", f1),
            ("precision (spans_precision)", precision),
            ("recall (spans_recall)", recall),
            ("posts scored", posts),
            ("offsets predicted, per post on average", summary.offsets_predicted / float(posts)),
        ]),
        paragraph("Each score is the mean over all posts of a per-post value. A post whose gold has no toxic span "
                  "scores 1 only if nothing is predicted for it, and 0 otherwise; a post with gold spans scores 0 "
                  "when nothing is predicted for it.", "note"))

    rows = []
    for label, gold_empty, pred_empty in Summary.GROUPS:
        group = summary.groups[(gold_empty, pred_empty)]
        g_f1, g_precision, g_recall = group.means()
        rows.append((label, group.count, _share(group.count, posts), g_f1, g_precision, g_recall))
    groups = section(
        "Posts by kind",
        table(["posts", "count", "share", "mean F1", "mean precision", "mean recall"], rows),
        paragraph("The last two rows are posts without any gold span: predicting nothing for them is right, "
                  "predicting anything costs the whole post. The second row is posts with toxic spans for which "
                  "nothing was predicted.", "note"))

    spread = section(
        "Distribution of per-post F1",
        histogram(summary.f1_histogram, F1_BIN_LABELS),
        paragraph("Number of posts per F1 range; the first and last bars are posts scoring exactly 0 and exactly 1.",
                  "note"))
    if not gold_public:  # the groups split the posts by a gold property (with or without spans)
        return page(title, overview, spread, paragraph(HIDDEN_GOLD_RULE, "note"))
    return page(title, overview, groups, spread)
