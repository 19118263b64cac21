"""task.yaml's ``queue``: the vhost of an organizer's own Codabench queue (issue 33), written into the Codabench
bundle as ``queue:``, which Codabench's unpacker looks up (base_unpacker._unpack_queue at c7dbc756: an unknown vhost
is refused with "The specified Queue does not exist!"); the v1.5 bundle, which CodaLab has no such key for, goes
without it."""
import zipfile

import pytest
import yaml

from codalab_bundles.authoring import build, taskdef
from toy_task import make_toy

VHOST = "6c1a3f0e-2b7d-4e58-9a41-0f3c2d1b5e77"


def _with(tmp_path, line):
    task = make_toy(tmp_path)
    path = task.folder / "task.yaml"
    path.write_text(path.read_text() + line)
    overrides = dict((split, str(tmp_path / "gold" / split)) for split in ("dev", "test"))
    return taskdef.load_task("toy", overrides, bundles_dir=tmp_path / "bundles")


def _yaml(bundle):
    with zipfile.ZipFile(str(bundle)) as archive:
        return yaml.safe_load(archive.read("competition.yaml"))


def test_the_queue_goes_into_the_codabench_bundle_only(tmp_path):
    task = _with(tmp_path, "queue: %s\n" % VHOST)
    built = build.build_task(task, tmp_path / "dist")
    assert _yaml(built.codabench)["queue"] == VHOST
    assert "queue" not in _yaml(built.codalab)


def test_without_a_queue_the_bundle_names_none(tmp_path):
    built = build.build_task(make_toy(tmp_path), tmp_path / "dist")
    assert "queue" not in _yaml(built.codabench)


def test_a_queue_that_is_not_one_word_is_refused_with_its_fix(tmp_path):
    with pytest.raises(taskdef.TaskDefinitionError) as caught:
        _with(tmp_path, "queue: my queue\n")
    assert "queue must be the vhost of a Codabench queue (one word, a UUID on the site's queue page)" in \
        str(caught.value)
