"""The public files of tests/data_manifests/text.json, read from fetched mirrors (git directories) with git show;
``None`` with the reason when a mirror or its commit is absent (the tests then skip)."""
import bz2
import io
import json
import os
import pickle
import subprocess

from conftest import ROOT

MANIFEST = json.loads((ROOT / "tests" / "data_manifests" / "text.json").read_text(encoding="utf-8"))


def _mirror(repo):
    folders = [os.environ.get("TEXT_MIRRORS"), str(ROOT.parent / ".mirror"), str(ROOT.parent.parent / ".mirror")]
    for folder in filter(None, folders):
        path = os.path.join(folder, repo.replace("/", "+"), "repo")
        if os.path.isdir(path):
            return path
    return None


def read(entry, path):
    """(bytes, None) of ``path`` of manifest ``entry``, or (None, why not)."""
    spec = MANIFEST[entry]
    mirror = _mirror(spec["repo"])
    if mirror is None:
        return None, "no mirror of %s (fetch it; see tests/data_manifests/text.json)" % spec["repo"]
    proc = subprocess.run(["git", "--git-dir", mirror, "show", "%s:%s" % (spec["commit"], path)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        return None, "%s@%s:%s is not in the mirror" % (spec["repo"], spec["commit"][:10], path)
    return proc.stdout, None


class _PlainUnpickler(pickle.Unpickler):
    """Loads only what needs no class (tuples, lists, strings, numbers): a public pickle runs no code here."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError("the pickle names %s.%s: refused" % (module, name))


def wmt17():
    """({system name: [segments]}, [reference segments]) of newstest2017 en-de, or (None, why not)."""
    data, why = read("wmt17", "test/wmt17_en_de_systems.pkl.bz2")
    if data is None:
        return None, why
    pairs = _PlainUnpickler(io.BytesIO(bz2.decompress(data))).load()
    systems = dict(pairs)
    reference = systems.pop("reference")[0]
    return (systems, reference), None
