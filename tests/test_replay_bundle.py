"""What a replay reads from a bundle when the bundle says nothing: each platform's defaults (mutation survivors)."""
import pytest

from codalab_bundles import replay
from codalab_bundles.zips import pack

V1 = """title: t
phases:
  1:
    phasenumber: 1
    label: Only
    start_date: 2025-01-01
    scoring_program: program.zip
    reference_data: ref.zip
"""
V2 = """version: 2
title: t
tasks:
  - {index: 0, name: T, scoring_program: program.zip, reference_data: ref.zip}
phases:
  - {index: 0, name: Only, start: 2025-01-01, tasks: [0]}
"""


def _bundle(tmp_path, text, name="b.zip"):
    path = tmp_path / name
    path.write_bytes(pack.zip_entries([("competition.yaml", text.encode())]))
    return replay.Bundle(path, platform="codalab" if "version: 2" not in text else "codabench")


@pytest.mark.parametrize("text, limit", [(V1, 300), (V2, 600)])
def test_a_phase_without_a_time_limit_gets_the_platforms_default(tmp_path, text, limit):
    """CodaLab v1.5's CompetitionPhase.execution_time_limit defaults to 300 s, Codabench's phase to 600 s."""
    bundle = _bundle(tmp_path, text)
    assert [(p.number, p.label, p.scoring_program, p.time_limit) for p in bundle.phases] == [
        (1, "Only", "program.zip", limit)]
    assert _bundle(tmp_path, text.replace("start", "execution_time_limit: 42\n    start" if text is V1 else
                                          "execution_time_limit: 42, start"), "c.zip").phases[0].time_limit == 42


@pytest.mark.parametrize("text", [V1, V2])
def test_a_bundle_naming_no_image_runs_in_both_platforms_default_image(tmp_path, text):
    assert _bundle(tmp_path, text).docker_image == "codalab/codalab-legacy:py37"
    named = text.replace("title: t\n", "title: t\n%s: my/image:1\n" % (
        "competition_docker_image" if text is V1 else "docker_image"))
    assert _bundle(tmp_path, named, "named.zip").docker_image == "my/image:1"


@pytest.mark.parametrize("text", ["title: t\nphases: {}\n", "version: 2\ntitle: t\nphases: []\n", "title: t\n"])
def test_a_bundle_without_phases_is_said_so(tmp_path, text):
    with pytest.raises(replay.ReplayError, match="competition.yaml has no phases"):
        _bundle(tmp_path, text)
