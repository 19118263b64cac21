"""The detailed results page: aggregates only (participants see it in every phase), never per-query gold."""
from report_html import bar_chart, histogram, page, paragraph, section, table

# Accuracy of the dataset authors' baselines on all 500 queries (from their README), for context.
PUBLISHED_BASELINES = (
    ("Word overlap (stemmed, no stop words)", 0.17),
    ("TF-IDF ranking", 0.206),
    ("Neural IR (TAS-B)", 0.168),
    ("Zero-shot QA (OPT-1.3b)", 0.306),
)


def _group_rows(groups):
    return [[g.label, g.count, g.correct, g.accuracy, g.mrr] for g in groups]


def render(title, evaluation, form):
    overall = evaluation.overall
    summary = section(
        "Summary",
        paragraph("%d queries scored; submission form: %s." % (overall.count, form)),
        table(["Score", "Value"], [["accuracy", overall.accuracy], ["mrr", overall.mrr],
                                   ["correct first choices", overall.correct]]),
        paragraph("With five options, picking at random gives an accuracy of 0.2; a random full ranking gives "
                  "an MRR of about 0.457.", "note"))

    typed = [g for g in evaluation.by_type if g.count]
    by_type = section(
        "Accuracy by query type",
        paragraph("A query can carry several types, or none, so the rows overlap.", "note"),
        table(["Type", "Queries", "Correct", "Accuracy", "MRR"], _group_rows(typed)),
        bar_chart([(g.label, g.accuracy) for g in typed], max_value=1.0))

    by_flags = section(
        "Accuracy by number of type flags",
        table(["Flags", "Queries", "Correct", "Accuracy", "MRR"], _group_rows(evaluation.by_flag_count)),
        bar_chart([("%s flag%s" % (g.label, "" if g.label == 1 else "s"), g.accuracy)
                   for g in evaluation.by_flag_count], max_value=1.0))

    labels = ["rank %d" % k for k in range(1, evaluation.max_options + 1)] + ["not ranked"]
    ranks = section(
        "Rank of the correct option",
        paragraph("How many queries had the correct option at each rank of the submitted ranking. A single "
                  "choice per query ranks only one option, so a wrong choice counts as not ranked.", "note"),
        histogram(evaluation.rank_counts, labels),
        table(["Rank", "Queries"], [[label, count] for label, count in zip(labels, evaluation.rank_counts)]))

    context = section(
        "Published baselines (accuracy on all 500 queries of the dataset)",
        table(["Method", "Accuracy"], [[name, value] for name, value in PUBLISHED_BASELINES], digits=3))

    return page(title, summary, by_type, by_flags, ranks, context)
