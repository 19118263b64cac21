"""Fact sheets: the questions a competition asks with every submission (method name, primary or contrastive run, ...)
and the participants' answers.

task.yaml declares the questions as a list (``fact_sheet:``, see bundles/README.md); the Codabench bundle carries
them in Codabench's own format (its ``Competition.fact_sheet``, a JSON object read by the v2 unpacker and checked by
``CompetitionSerializer.validate_fact_sheet`` at commit c7dbc756)::

    {"<key>": {"key": "<key>", "type": "text" | "select" | "checkbox", "title": "<label>",
               "selection": "" (text) | [true, false] (checkbox) | ["", "choice", ...] (select),
               "is_required": "true" | "false", "is_on_leaderboard": "true" | "false"}}

``is_required`` and ``is_on_leaderboard`` are the *strings* "true" and "false": Codabench compares them with the
string 'true', so a YAML boolean there would never make a question required nor show it on the leaderboard. A
select that is not required starts with the empty choice, as Codabench's editor writes it: the participant's
drop-down then offers "no answer" first.

A submission carries its answers as ``fact_sheet_answers`` ({key: answer}: a string for text and select, true or
false for a checkbox). The site (SubmissionCreationSerializer.validate) refuses answers whose keys are not exactly
the questions' keys, a choice not offered, a required text left empty, a checkbox answered with anything but
true or false, and fails with HTTP 500 on a text answered with anything but a string; it takes a submission with
no answers at all, required questions or not. ``check_answers`` makes the same checks, and more, before sending,
and says every problem in one message.
"""
from __future__ import annotations

import json
from collections import OrderedDict
from typing import Dict, List, Optional

TYPES = ("text", "select", "checkbox")
NO_FACT_SHEET = "no fact sheet"

# The questions an overview paper's systems table needs, ready made: what `new` writes (commented out) into task.yaml.
DEFAULT = [
    {"key": "method_name", "label": "Method name", "type": "text", "required": True, "on_leaderboard": True},
    {"key": "run_type", "label": "Primary or contrastive run", "type": "select",
     "choices": ["primary", "contrastive"], "required": True},
    {"key": "constrained", "label": "Constrained (only the data the task provides)", "type": "checkbox"},
    {"key": "external_data", "label": "External data used (none, or which)", "type": "text"},
    {"key": "pretrained_models", "label": "Pretrained models used (none, or which)", "type": "text"},
    {"key": "paper_url", "label": "System description paper (URL)", "type": "text"},
]


class FactSheetError(Exception):
    pass


class Question(object):
    """One question: ``key``, ``label``, ``type`` (text, select, checkbox), ``choices`` (a select's, without the
    empty one), ``optional_choice`` (a select may be left unanswered: its choices include ""), ``required``,
    ``on_leaderboard``."""

    def __init__(self, key, label, kind, choices=(), required=False, on_leaderboard=False, optional_choice=None):
        self.key, self.label, self.type = key, label, kind
        self.choices = [c for c in choices if c != ""]
        self.required, self.on_leaderboard = bool(required), bool(on_leaderboard)
        self.optional_choice = (not self.required) if optional_choice is None else optional_choice

    def __repr__(self):
        return "Question(%r, %r)" % (self.key, self.type)

    def codabench(self) -> OrderedDict:
        """This question in Codabench's format (see the module's docstring)."""
        if self.type == "checkbox":
            selection = [True, False]
        elif self.type == "select":
            selection = ([""] if self.optional_choice else []) + list(self.choices)
        else:
            selection = ""
        return OrderedDict([("key", self.key), ("type", self.type), ("title", self.label), ("selection", selection),
                            ("is_required", "true" if self.required else "false"),
                            ("is_on_leaderboard", "true" if self.on_leaderboard else "false")])


def from_task(entries) -> List[Question]:
    """task.yaml's ``fact_sheet`` list (already checked by the schema and taskdef) as Questions."""
    return [Question(e["key"], e.get("label", e["key"]), e["type"], e.get("choices") or (), e.get("required", False),
                     e.get("on_leaderboard", False)) for e in entries or []]


def codabench(questions: List[Question]) -> OrderedDict:
    """Codabench's ``fact_sheet`` object, in the questions' order."""
    return OrderedDict((q.key, q.codabench()) for q in questions)


def from_codabench(fact_sheet) -> List[Question]:
    """The questions of a Codabench ``fact_sheet`` (a bundle's, or the site's), in the order given. The site gives
    them in PostgreSQL's jsonb order (shorter keys first), not the bundle's. Anything that is not a question is left
    out (the site refuses such a fact sheet at upload)."""
    questions = []
    if not isinstance(fact_sheet, dict):
        return questions
    for key, value in fact_sheet.items():
        if not isinstance(value, dict) or value.get("type") not in TYPES:
            continue
        selection = value.get("selection")
        choices = [c for c in selection if isinstance(c, str)] if isinstance(selection, list) else []
        questions.append(Question(str(key), str(value.get("title") or key), value["type"], choices,
                                  value.get("is_required") == "true", value.get("is_on_leaderboard") == "true",
                                  optional_choice="" in choices))
    return questions


_TRUE, _FALSE = ("true", "yes", "y", "1", "on"), ("false", "no", "n", "0", "off")


def _problem(question, value) -> Optional[str]:
    """Why ``value`` is not an answer to ``question`` (None when it is)."""
    where = "%s (%s)" % (question.key, question.label)
    if question.type == "checkbox":
        return None if isinstance(value, bool) else "%s: %s is not true or false" % (where, json.dumps(value))
    if not isinstance(value, str):
        return "%s: %s is not text (write it in quotes)" % (where, json.dumps(value))
    if question.type == "select":
        if value == "" and question.optional_choice and not question.required:
            return None
        if value not in question.choices:
            return "%s: %s is not one of the choices %s" % (where, json.dumps(value), ", ".join(question.choices))
        return None
    if question.required and not value:
        return "%s is required: give it some text" % where
    return None


def _as_given(question, value):
    """A checkbox's answer written as text (--answer constrained=yes) as true or false; text trimmed as the web
    form trims it."""
    if question.type == "checkbox" and isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    if isinstance(value, str):
        return value.strip()
    return value


def check_answers(questions: List[Question], given: Dict, where: str = "the competition") -> OrderedDict:
    """The answers to send: every question answered (an unanswered question that is not required gets the empty
    answer: "" for text and a select that offers it, false for a checkbox), in the questions' order. FactSheetError
    listing every problem at once: an unknown key, a required question unanswered, a choice not offered, a checkbox
    answer that is not true or false, a text that is not text."""
    if not isinstance(given, dict):
        raise FactSheetError("the fact-sheet answers must be a JSON object {\"key\": answer, ...}")
    if not questions:
        raise FactSheetError("%s has no fact sheet: give no answers (the site would fail with HTTP 500)" % where)
    known = dict((q.key, q) for q in questions)
    problems = ["%s is not a question of %s" % (key, where) for key in given if key not in known]
    answers = OrderedDict()
    for question in questions:
        if question.key not in given:
            if question.required:
                problems.append("%s (%s) is required" % (question.key, question.label))
            elif question.type == "checkbox":
                answers[question.key] = False
            elif question.type == "select" and not question.optional_choice:
                problems.append("%s (%s) has no empty choice: answer one of %s" % (
                    question.key, question.label, ", ".join(question.choices)))
            else:
                answers[question.key] = ""
            continue
        value = _as_given(question, given[question.key])
        problem = _problem(question, value)
        if problem:
            problems.append(problem)
        answers[question.key] = value
    if problems:
        raise FactSheetError("the fact-sheet answers do not fit the questions of %s: %s (its questions: %s)" % (
            where, "; ".join(problems), ", ".join(_describe(q) for q in questions)))
    return answers


def _describe(question) -> str:
    what = {"text": "text", "checkbox": "true or false"}.get(question.type) or "one of %s" % "/".join(
        question.choices)
    return "%s%s: %s" % (question.key, " (required)" if question.required else "", what)


def parse_answer_options(file_path: Optional[str], pairs: List[str]) -> Optional[Dict]:
    """The answers of ``--fact-sheet FILE`` (a JSON object) and ``--answer KEY=VALUE`` (each overriding the file's),
    or None when neither is given. FactSheetError for a file that is not a JSON object, or a pair without '='."""
    if file_path is None and not pairs:
        return None
    given = {}
    if file_path is not None:
        try:
            with open(file_path, encoding="utf-8") as handle:
                given = json.load(handle)
        except OSError as exc:
            raise FactSheetError("%s cannot be read: %s" % (file_path, exc.strerror or exc))
        except ValueError as exc:
            raise FactSheetError("%s is not JSON: %s" % (file_path, exc))
        if not isinstance(given, dict):
            raise FactSheetError("%s must hold a JSON object {\"key\": answer, ...}" % file_path)
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise FactSheetError("--answer %s: write KEY=VALUE" % pair)
        given[key.strip()] = value
    return given


def add_submit_options(parser) -> None:
    """submit's options for the answers."""
    group = parser.add_argument_group("fact sheet (the questions the competition asks with every submission)")
    group.add_argument("--fact-sheet", metavar="FILE", help="the answers, a JSON object {\"method_name\": \"...\", "
                       "\"constrained\": true, ...}; checked against the competition's questions before anything is "
                       "sent")
    group.add_argument("--answer", action="append", default=[], metavar="KEY=VALUE", help="one answer (repeatable; "
                       "overrides the file's): text, a choice, or true/false for a checkbox")
    group.add_argument("--no-fact-sheet", action="store_true", help="submit without answers to a competition whose "
                       "fact sheet has required questions (the site takes it; the organizers' systems table says "
                       "'%s')" % NO_FACT_SHEET)


def answers_for(competition: dict, given: Optional[Dict], no_fact_sheet: bool = False) -> Optional[OrderedDict]:
    """The ``fact_sheet_answers`` to send with a submission to ``competition`` (the site's record of it), or None to
    send none. FactSheetError when the answers do not fit, and when none are given but some are required (unless
    ``no_fact_sheet``)."""
    questions = from_codabench(competition.get("fact_sheet"))
    where = "competition %s" % competition.get("id")
    if given is None:
        required = [q.key for q in questions if q.required]
        if required and not no_fact_sheet:
            raise FactSheetError(
                "%s asks a fact sheet with every submission (required: %s; all its questions: %s): give the answers "
                "with --fact-sheet FILE or --answer KEY=VALUE, or submit without them with --no-fact-sheet (the site "
                "takes that, and the organizers' systems table then says '%s')"
                % (where, ", ".join(required), ", ".join(_describe(q) for q in questions), NO_FACT_SHEET))
        return None
    if no_fact_sheet:
        raise FactSheetError("--no-fact-sheet and answers (--fact-sheet, --answer): give one or the other")
    return check_answers(questions, given, where)


def shown(value) -> str:
    """An answer as a table shows it: yes/no for true/false (a checkbox's), the text as given ('' when
    unanswered)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
