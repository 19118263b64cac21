"""Codabench's own import (../shared/tools/codabench-import/run.py) on bundles, printing also the fields of the stored
Competition that run.py's summary leaves out.

    $CBI_ROOT/venv/bin/python tests/codabench_import_fields.py --field fact_sheet A.zip B.zip ...

One JSON object per bundle, as run.py prints it, plus ``"fields": {name: the stored value}``. It imports run.py as a
module, so the import is exactly run.py's (the organizer's upload path through unpack_competition); it only reads
the stored competition back. Run by tests (see test_fact_sheet.py) with the import tool's own interpreter.
"""
import argparse
import json
import os
import sys

TOOL = os.environ.get("CODABENCH_IMPORT_TOOL") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "tools", "codabench-import")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--field", action="append", default=[], help="a field of the stored Competition")
    parser.add_argument("bundles", nargs="+")
    args = parser.parse_args()
    sys.path.insert(0, os.path.abspath(TOOL))
    argv, sys.argv = sys.argv, [os.path.join(TOOL, "run.py")]  # run.py reads nothing else of its arguments at import
    import run  # noqa: E402  (sets Django up, starts its S3 stand-in)
    sys.argv = argv
    from competitions.models import Competition
    from profiles.models import User
    from rest_framework.test import APIClient

    name = "organizer-fields-%d" % os.getpid()
    user = User.objects.filter(username=name).first() or User.objects.create_user(
        username=name, email="%s@example.org" % name, password="x")
    client = APIClient()
    client.force_authenticate(user)
    failed = 0
    for path in args.bundles:
        out = run.import_bundle(path, client)
        if out.get("ok"):
            competition = Competition.objects.get(id=out["competition"]["id"])
            out["fields"] = dict((field, getattr(competition, field)) for field in args.field)
        failed |= not out.get("ok")
        print(json.dumps(dict({"bundle": path}, **out), default=str), flush=True)
    return failed


if __name__ == "__main__":
    os._exit(main())
