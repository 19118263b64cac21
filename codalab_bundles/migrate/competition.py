"""The competition itself, as Codabench gets it: its top-level settings (title, registration, image, forum...),
what becomes of each other top-level v1.5 key, its logo (or a stand-in Codabench can open), and its pages and
terms (re-encoded as UTF-8, a stand-in where the terms are empty or missing).
"""
from __future__ import annotations

from .. import loading, replay, resources, validate
from .old_bundle import OldBundle
from .report import CHANGE, CONTENT, LOSS, MANUAL, NOTE, REFUSED, Report

DEFAULT_IMAGE = replay.DEFAULT_IMAGE

# Top-level v1.5 keys and what becomes of them. Keys handled in code are listed with None.
TOP_LEVEL = {
    "title": None, "description": None, "image": None, "has_registration": None, "competition_docker_image": None,
    "enable_detailed_results": None, "enable_forum": None, "end_date": None, "html": None, "phases": None,
    "leaderboard": None, "force_submission_to_leaderboard": None, "disallow_leaderboard_modifying": None,
    "reward": None,
    "start_date": (CHANGE, "not written: CodaLab replaced it with the first phase's start, as Codabench does"),
    "admin_names": (NOTE, "add these organizers as collaborators in Codabench's competition editor"),
    "allow_teams": (LOSS, "no team settings in a Codabench bundle: set up teams in the editor if you need them"),
    "enable_teams": (LOSS, "no team settings in a Codabench bundle: set up teams in the editor if you need them"),
    "require_team_approval": (LOSS, "no team settings in a Codabench bundle"),
    "anonymous_leaderboard": (LOSS, "Codabench has no anonymous leaderboard setting"),
    "allow_public_submissions": (CHANGE, "not written: Codabench lets participants make submissions public by "
                                         "default (can_participants_make_submissions_public)"),
    "published": (NOTE, "a Codabench competition starts unpublished: publish it in the editor when ready"),
    "url_redirect": (LOSS, "no equivalent on Codabench"),
    "hide_top_three": (LOSS, "no equivalent on Codabench"),
    "hide_chart": (LOSS, "no equivalent on Codabench"),
}


def settings(old: OldBundle, report: Report) -> tuple[dict, dict[str, bytes]]:
    """(the competition's top-level v2 settings, {file: bytes} to add: a stand-in logo); every other top-level
    key is reported by what becomes of it (TOP_LEVEL)."""
    spec = old.spec
    out = {"version": 2, "title": str(spec.get("title") or ""), "description": spec.get("description")}
    if not out["title"]:
        report.add(MANUAL, "title", "the bundle has no title: add one (Codabench requires it)", REFUSED)
    out["image"], files = _logo(old, report)
    if "has_registration" in spec:
        out["registration_auto_approve"] = not spec["has_registration"]
    else:
        out["registration_auto_approve"] = True
        report.add(CHANGE, "has_registration", "absent, which on CodaLab meant open registration: written "
                   "registration_auto_approve: true (Codabench's import would have required your approval)")
    image = spec.get("competition_docker_image")
    out["docker_image"] = image.strip() if isinstance(image, str) and image.strip() else DEFAULT_IMAGE
    if out["docker_image"] != image:
        report.add(CHANGE, "competition_docker_image", "blank: the platforms' default image %s is written "
                   "(it runs Python 3.7)" % DEFAULT_IMAGE)
    for old_key, new_key in (("enable_detailed_results", "enable_detailed_results"),
                             ("enable_forum", "forum_enabled"), ("reward", "reward")):
        if old_key in spec:
            out[new_key] = spec[old_key]
    for key in spec:
        known = TOP_LEVEL.get(key, (LOSS, "not a CodaLab v1.5 key Codabench reads: dropped"))
        if key in TOP_LEVEL and known is None:
            continue
        report.add(known[0], str(key), known[1])
    return out, files


def _logo(old, report):
    """(image name, {file: bytes}): the logo, or a stand-in where Codabench would refuse the bundle for want of
    one it can open (a missing logo, an SVG, which CodaLab showed and Codabench's image field refuses, or a CMYK
    JPEG, which it cannot turn into its PNG icon)."""
    name = old.spec.get("image")
    data = old.read(name)
    if data is not None and validate.is_image(data[:32]) and not validate.is_cmyk_jpeg(data):
        return name, {}
    why = ("no logo" if not name else "%s is not in the bundle" % name if data is None else
           "%s is a CMYK JPEG, of which Codabench cannot make its PNG icon (save it in RGB)" % name
           if validate.is_image(data[:32]) else "%s is not an image Codabench can open (PNG, JPEG, GIF)" % name)
    stand_in = "logo_codabench.png"
    maker = loading.load_file(resources.MAKE_LOGO, "make_logo_for_migrate")
    report.add(MANUAL, "image", "%s, and Codabench requires one: a stand-in logo %s is written; replace it with the "
               "competition's own" % (why, stand_in), CONTENT)
    return stand_in, {stand_in: maker.logo_png(str(old.spec.get("title") or "competition"))}


STAND_IN_TERMS = """<h3>Terms and conditions</h3>
<p>The terms of this competition have not been written yet: its CodaLab bundle had {why}. Until the
organizers replace this page, ask them before you use the data or submit.</p>
"""


def _page_text(data):
    """(text, encoding): pages CodaLab served as they were; Codabench reads them as UTF-8."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return None, None


def pages(old: OldBundle, report: Report) -> tuple[str, list[dict], dict[str, bytes]]:
    """(terms file, [{title, file}], {file: new bytes}) in the html mapping's order. Empty pages are left out
    (Codabench's v2 import refuses them); an empty or missing terms page gets a stand-in, since the v2 import
    refuses a bundle without terms (v1 accepted a 0-byte one). Pages that are not UTF-8 are re-encoded."""
    html = old.spec.get("html")
    html = html if isinstance(html, dict) else {}
    terms, pages, replaced = None, [], {}
    for key, name in html.items():
        where = "html.%s" % key
        data = old.read(name)
        if data is None:
            report.add(MANUAL, where, "%r is not in the bundle, so the page is left out: add it" % (name,), CONTENT)
            continue
        text, encoding = _page_text(data)
        if text is None:
            report.add(MANUAL, where, "%s is neither UTF-8 nor Windows-1252, so it is left out: save it as UTF-8 "
                       "and add it back" % name, CONTENT)
            continue
        if encoding != "utf-8":
            replaced[name] = text.encode("utf-8")
            report.add(CHANGE, where, "%s is not UTF-8: read as Windows-1252 and written as UTF-8, which Codabench "
                       "reads (check its accented letters)" % name)
        if not text.strip():
            if key != "terms":
                report.add(LOSS, where, "%s is empty: Codabench refuses empty pages, so it is left out" % name)
                continue
            replaced[name] = STAND_IN_TERMS.format(why="an empty terms page").encode("utf-8")
            report.add(MANUAL, where, "%s is empty, which Codabench's version 2 import refuses: a short stand-in "
                       "page is written in its place; write the competition's terms there" % name, CONTENT)
        if key == "terms":
            terms = name
        else:
            pages.append({"title": str(key).replace("_", " ").title(), "file": name})
    if terms is None:
        terms = "terms.html" if old.read("terms.html") is None else "terms_codabench.html"
        replaced[terms] = STAND_IN_TERMS.format(why="no terms page").encode("utf-8")
        report.add(MANUAL, "html.terms", "no terms page, which Codabench requires: a short stand-in page %s is "
                   "written; write the competition's terms there" % terms, CONTENT)
    if pages:
        report.add(CHANGE, "html", "pages %s become Codabench pages %s in the same order (titles from their keys; "
                   "terms becomes the terms)" % (", ".join(str(k) for k in html if k != "terms"),
                                                 ", ".join(p["title"] for p in pages)))
    return terms, pages, replaced
