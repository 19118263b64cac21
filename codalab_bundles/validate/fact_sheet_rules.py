"""A Codabench bundle's ``fact_sheet`` (the questions asked with every submission), as Codabench at c7dbc756 reads it.

The import (CompetitionSerializer.validate_fact_sheet) refuses a fact sheet that is not a mapping, a question
without exactly the keys key, type, title, selection, is_required, is_on_leaderboard, a question whose ``key`` is not
its own name, and a type other than text, select, checkbox. It accepts the rest, and some of it breaks later:
- ``is_required`` and ``is_on_leaderboard`` are compared with the *string* 'true' (views/competitions.py
  get_leaderboard, serializers/submissions.py): a YAML ``true`` never makes a question required nor shows it;
- a submission's answers are checked against ``selection`` (``value not in selection``): a checkbox's answer is
  true or false, so its selection must hold both; a text's selection must be empty (any text), and a
  non-empty one refuses every answer not in it; a select with no choices gives the web form nothing to send;
- the web form sends every answer under its question's key, except keys starting with ``task-`` (its own task
  checkboxes): such a question is never answered there, and every web submission is refused.
"""
from __future__ import annotations

from .findings import Context

EXPECTED = ("key", "type", "title", "selection", "is_required", "is_on_leaderboard")
TYPES = ("checkbox", "text", "select")


def v2_fact_sheet(ctx: Context, platform: str) -> None:
    sheet = ctx.spec.get("fact_sheet")
    if not sheet:
        return
    if not isinstance(sheet, dict):
        ctx.add("error", platform, "fact-sheet", "fact_sheet", "fact_sheet is not a mapping of questions: Codabench "
                "refuses the bundle ('Not valid JSON')", "map each question's key to its key, type, title, "
                "selection, is_required and is_on_leaderboard")
        return
    for name, question in sheet.items():
        where = "fact_sheet.%s" % name
        if not isinstance(question, dict):
            ctx.add("error", platform, "fact-sheet", where, "the question is not a mapping: Codabench's import "
                    "fails", "give it key, type, title, selection, is_required and is_on_leaderboard")
            continue
        odd = sorted(set(EXPECTED).symmetric_difference(question))
        if odd:
            ctx.add("error", platform, "fact-sheet", where, "Codabench refuses a question without exactly the keys "
                    "%s ('Missing %s values')" % (", ".join(EXPECTED), ", ".join(odd)),
                    "give it exactly those six keys")
            continue
        if question["key"] != name:
            ctx.add("error", platform, "fact-sheet", where, "its key is %r: Codabench refuses a question whose key "
                    "is not its name ('does not match JSON key')" % (question["key"],), "make them the same")
        if question["type"] not in TYPES:
            ctx.add("error", platform, "fact-sheet", where, "type %r: Codabench refuses it ('is not a valid question "
                    "type')" % (question["type"],), "use checkbox, text or select")
            continue
        for field, meaning in (("is_required", "required"), ("is_on_leaderboard", "shown on the leaderboard")):
            if question[field] not in ("true", "false"):
                ctx.add("warning", platform, "fact-sheet", "%s.%s" % (where, field), "%r is not the string 'true' "
                        "or 'false': Codabench compares it with the string 'true', so the question is never %s"
                        % (question[field], meaning), "write \"true\" or \"false\", in quotes")
        _selection(ctx, platform, where, question)
        if str(name).startswith("task-"):
            ctx.add("error", platform, "fact-sheet", where, "the site's submission form leaves out answers whose key "
                    "starts with task- (its own task checkboxes): every submission made on the web page is refused "
                    "('Fact Sheet keys do not match Answer keys')", "rename the question", accepted=True)


def _selection(ctx, platform, where, question):
    selection, kind = question["selection"], question["type"]
    if kind == "checkbox" and not (isinstance(selection, list) and True in selection and False in selection
                                   and all(isinstance(v, bool) for v in selection)):
        ctx.add("error", platform, "fact-sheet", where + ".selection", "a checkbox is answered true or false, and "
                "Codabench refuses an answer not in the selection %r (with a text selection, the site fails with "
                "HTTP 500)" % (selection,), "write selection: [true, false]", accepted=True)
    elif kind == "text" and selection:
        ctx.add("error", platform, "fact-sheet", where + ".selection", "a text question with a selection %r: "
                "Codabench refuses every answer that is not in it, and the web form offers a free text box"
                % (selection,), "write selection: \"\" (or make it a select question)", accepted=True)
    elif kind == "select" and not (isinstance(selection, list) and [v for v in selection if v != ""]):
        ctx.add("error", platform, "fact-sheet", where + ".selection", "a select question without choices: the web "
                "form has nothing to send, and every submission made there is refused", "list the choices, with "
                "\"\" first when it may be left unanswered", accepted=True)
    elif kind == "select" and not all(isinstance(v, str) for v in selection):
        ctx.add("warning", platform, "fact-sheet", where + ".selection", "choices that are not text (%r): the web "
                "form sends text, which is not in the selection and is refused" % (selection,),
                "put the choices in quotes")
