"""``publish``: a bundle onto a Codabench site, as its upload page does, and a check that the competition the site
made is the one the bundle means.

The upload (Codabench's own sequence, src/apps/api/views/datasets.py and competitions.py): create a dataset of type
competition_bundle (POST /api/datasets/), PUT the zip to the presigned storage URL it returns, mark the upload
complete (PUT /api/datasets/completed/<key>/), which starts the unpacking, then poll
GET /api/competitions/<status id>/creation_status/ until it is Finished or Failed. The competition is then read
back (GET /api/competitions/<id>/) and its phases compared with what codabench_model says the bundle means: a
difference is an error.
"""
import datetime
import os
import zipfile

import yaml

from ..platforms import codabench_model
from .codabench_api import ApiError, wait_for

CREATION_TIMEOUT = 600  # seconds: Codabench's unpack task has a one-hour soft limit; a bundle rarely needs minutes


class PublishError(Exception):
    """Publishing stopped; the message says which step failed and what is left on the site, if anything."""


class Interrupted(PublishError):
    """Publishing was interrupted (Ctrl-C); the message says what is left on the site."""


def bundle_phases(path):
    """[(name, start, end)] that Codabench should store from the bundle (naive UTC datetimes)."""
    with zipfile.ZipFile(str(path)) as archive:
        spec = yaml.safe_load(archive.read("competition.yaml").decode("utf-8"))
    version = "2" if str(spec.get("version", "1")) == "2" else "1"
    return [(p.name, p.start.stored, p.end.stored) for p in codabench_model.stored_phases(spec, version)]


def api_instant(text):
    """A Codabench API datetime ('2021-01-09T23:59:59Z' or with +00:00) as naive UTC; None stays None."""
    if not text:
        return None
    value = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


def live_phases(competition):
    """[(name, start, end)] of a competition as the API returns it, in phase order."""
    phases = sorted(competition.get("phases") or [], key=lambda p: p.get("index", 0))
    return [(p.get("name"), api_instant(p.get("start")), api_instant(p.get("end"))) for p in phases]


def phase_differences(expected, stored):
    """Lines saying where the stored phases differ from the bundle's."""
    lines = []
    if len(expected) != len(stored):
        lines.append("the bundle has %d phases, the site %d" % (len(expected), len(stored)))
    for number, (want, got) in enumerate(zip(expected, stored), 1):
        for field, a, b in zip(("name", "start", "end"), want, got):
            if a != b:
                lines.append("phase %d %s: the bundle says %s, the site stored %s" % (number, field, show(a), show(b)))
    return lines


def show(value):
    """A stored date as reports print it (codabench_model's form: 'no end' for None); other values as repr."""
    if value is None or isinstance(value, datetime.datetime):
        return codabench_model.format_instant(value)
    return repr(value)


def upload(client, path, kind, progress=None, name=None, on_created=None, **fields):
    """Create a dataset of ``kind`` for the file at ``path`` (and ``fields``, e.g. a submission's competition),
    upload it, mark it complete; returns (the site's answer to the creation: key, sassy_url; the answer to the
    completion). ``name``: the file's name on the site (default: its own). On failure after the dataset exists, the
    ApiError's text says what is left."""
    name = name or os.path.basename(str(path))
    with open(str(path), "rb") as handle:
        data = handle.read()
    created = client.call("creating the %s dataset" % kind, "POST", "/api/datasets/",
                          # unnamed, as the site's own pages do (a name must be unique in the account)
                          dict(fields, type=kind, request_sassy_file_name=name, file_name=name, file_size=len(data)))
    if on_created:
        on_created(created)
    try:
        client.upload("uploading %s to storage" % name, created["sassy_url"], data, "application/zip", progress)
        done = client.call("marking the upload complete", "PUT", "/api/datasets/completed/%s/" % created.get("key"))
    except ApiError as exc:
        # An unnamed dataset (as the site's pages make them) is in no list and its API will not delete it
        # (DataViewSet.get_queryset excludes name=None): say what is left rather than pretend.
        raise ApiError(exc.step, exc.status, "%s (the dataset record %s was made before this step; it holds no "
                       "file, and Codabench offers no way to delete it)" % (exc.text, created.get("key")))
    return created, done or {}


def publish(client, path, progress=None, timeout=CREATION_TIMEOUT):
    """Upload the bundle and wait for the competition; returns {"id", "url", "phases": stored, "differences"}."""
    expected = bundle_phases(path)
    say = progress or (lambda text: None)
    shown = set()
    left = {"dataset": None, "status": None, "sent": 0}

    def sent(count, total):  # a line at each quarter
        left["sent"] = count
        quarter = 4 * count // max(total, 1)
        if quarter not in shown:
            shown.add(quarter)
            say("  sent %d of %d bytes (%d%%)" % (count, total, 100 * count // max(total, 1)))
    try:
        say("uploading %s (%d bytes)" % (os.path.basename(str(path)), os.path.getsize(str(path))))
        created, done = upload(client, path, "competition_bundle", sent,
                               on_created=lambda answer: left.update(dataset=answer.get("key")))
        status_id = done.get("status_id")
        if status_id is None:
            raise PublishError("marking the upload complete: Codabench did not start unpacking the bundle "
                               "(answer: %r)" % done)
        left["status"] = status_id
        say("Codabench is unpacking the bundle (status %s)" % status_id)
        status = wait_for("waiting for the competition to be created", lambda: client.call(
            "reading the creation status", "GET", "/api/competitions/%s/creation_status/" % status_id),
            lambda s: (s or {}).get("status") in ("Finished", "Failed"), timeout,
            progress=lambda waited: say("  still unpacking after %d s" % waited))
    except KeyboardInterrupt:
        raise Interrupted("interrupted: %s" % left_on_site(client, left))
    except ApiError as exc:
        if left["status"] is None:
            raise  # upload's own text says what is left
        raise PublishError("%s; %s" % (exc, left_on_site(client, left)))
    if status.get("status") != "Finished":
        # unpack_competition deletes the uploaded bundle when it fails (mark_status_as_failed_and_delete_dataset)
        raise PublishError("Codabench refused the bundle: %s (no competition was made, and the site deleted the "
                           "upload)" % (status.get("details") or "no details"))
    competition_id = status.get("resulting_competition")
    competition = client.call("reading the new competition", "GET", "/api/competitions/%s/" % competition_id)
    stored = live_phases(competition)
    return {"id": competition_id, "url": "%s/competitions/%s/" % (client.server, competition_id),
            "title": competition.get("title"), "phases": stored,
            "differences": phase_differences(expected, stored)}


def left_on_site(client, left):
    """What an interrupted publish leaves on the site, and what to do about it."""
    if left["status"] is not None:
        return ("the bundle was uploaded and Codabench is unpacking it (creation status %s): the competition "
                "appears among your competitions if the site accepts it, unpublished (%s/api/competitions/%s/"
                "creation_status/ says how it ended). Publishing again makes a second competition: look first"
                % (left["status"], client.server, left["status"]))
    if left["dataset"] is not None:
        return ("no competition was made; the site keeps the dataset record %s of the upload (%d bytes of the "
                "bundle were sent), which nothing will unpack (Codabench offers no way to delete it). Publishing "
                "again is safe" % (left["dataset"], left["sent"]))
    return "nothing was made on the site. Publishing again is safe"


def format_published(result):
    lines = ["published: %s (competition %s): %s" % (result["title"], result["id"], result["url"]),
             "phases as the site stored them (UTC):"]
    for number, (name, start, end) in enumerate(result["phases"], 1):
        lines.append("  %d. %s: %s to %s" % (number, name, show(start), show(end)))
    if result["differences"]:
        lines.append("ERROR: the site stored phases that differ from the bundle:")
        lines.extend("  - %s" % line for line in result["differences"])
    else:
        lines.append("the stored phases are the bundle's, to the second")
    lines.append("the competition is not published yet: check it on the site, then publish it there")
    return "\n".join(lines)
