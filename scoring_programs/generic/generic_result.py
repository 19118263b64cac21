"""What every generic kind returns: the configured score keys in order, and a page for public and hidden gold."""
from report_html import page, paragraph, section, table
from scoring_runtime import HIDDEN_GOLD_RULE, Result

DEFAULT_TITLE = "Detailed results"


def make_result(config, values, render, notes=(), warnings=(), items=None):
    """``values``: every metric of the kind by key; ``render(scores, gold_public)`` -> the page's sections;
    ``warnings`` go to stderr and, as a section, on both pages; ``items(key)``: the Items of the ranking key (the
    first configured), called only when the runtime asks for them."""
    scores = [(key, values[key]) for key in config["keys"]]
    ranking = config["keys"][0]
    title = config.get("title") or DEFAULT_TITLE
    shown = [section("Warnings", *[paragraph(w, "note") for w in warnings])] if warnings else []
    return Result(scores, html=page(title, *(shown + render(scores, True))), notes=notes, warnings=warnings,
                  hidden_gold_html=page(title, *(shown + render(scores, False) +
                                                 [paragraph(HIDDEN_GOLD_RULE, "note")])),
                  items=(lambda: items(ranking)) if items else None, program="generic-" + config["kind"])


def scores_section(scores, totals=()):
    """The scores (the first ranks the leaderboard) and figures over the whole set."""
    rows = [(key + (" (ranks the leaderboard)" if i == 0 else ""), value) for i, (key, value) in enumerate(scores)]
    return section("Scores", table(["measure", "value"], rows + list(totals)))
