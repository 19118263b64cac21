"""The eHealth-KD 2019 participants' real test runs and the organizers' published results, from a snapshot of
knowledge-learning/ehealthkd-2019 (its git directory: $EHEALTHKD_2019_REPO, or ../.mirror/ beside the project,
where the workplace's ``fetch`` puts it). Tests that use them skip, saying so, when no snapshot is here."""
import csv
import io
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from conftest import ROOT

PUBLISHED = "data/eHealth-KD 2019 Final Results.csv"
RANKING_OF_SCENARIO = {1: ("main_score", "m_prec", "m_rec"), 2: ("a_f1", "a_prec", "a_rec"),
                       3: ("b_f1", "b_prec", "b_rec")}


def snapshot():
    """The snapshot's git directory; skips the test when there is none."""
    path = Path(os.environ.get("EHEALTHKD_2019_REPO") or
                ROOT.parent / ".mirror" / "knowledge-learning+ehealthkd-2019" / "repo")
    if not (path / "HEAD").exists() and not (path / ".git").exists():
        pytest.skip("the eHealth-KD 2019 participants' runs are not here: fetch knowledge-learning/ehealthkd-2019 "
                    "and set EHEALTHKD_2019_REPO to its git directory (looked in %s)" % path)
    return path


def _git(repo, *args):
    return subprocess.run(["git", "--git-dir", str(repo)] + list(args), capture_output=True, check=True).stdout


def runs_folder(repo, target):
    """A folder of runs as ``results`` reads it: <team>/<submission id>/ for every run of data/submissions/all,
    and baseline/baseline/ for the organizers' baseline. Returns ``target``."""
    with tarfile.open(fileobj=io.BytesIO(_git(repo, "archive", "HEAD", "data/submissions"))) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if not member.isfile() or len(parts) < 4:
                continue
            if parts[2] == "all" and len(parts) >= 6:
                path = Path(target, parts[3], parts[4], *parts[5:])
            elif parts[2] == "baseline":
                path = Path(target, "baseline", "baseline", *parts[3:])
            else:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(archive.extractfile(member).read())
    return target


def published_tables(repo):
    """{scenario: [(rank, team, f1, precision, recall)]} of the organizers' published results."""
    text = _git(repo, "show", "HEAD:" + PUBLISHED).decode("utf-8")
    tables, scenario = {}, None
    for row in csv.reader(io.StringIO(text)):
        if len(row) > 1 and row[1].startswith("Scenario "):
            scenario = int(row[1].split()[1])
            tables[scenario] = []
        elif scenario and row and row[0].strip():
            tables[scenario].append((int(row[0]), row[1], float(row[2]), float(row[3]), float(row[4])))
    return tables
