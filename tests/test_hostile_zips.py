"""Hostile and huge zips in the replay and the validator: refused with the entry named, bounded extraction,
nothing left behind in the temp folder, nothing world-writable."""
import io
import os
import stat
import subprocess
import sys
import tempfile
import zipfile
import zlib

import pytest

from codalab_bundles import replay, validate
from codalab_bundles.authoring import build, taskdef
from codalab_bundles.zips import pack, safe_zip
from conftest import ROOT
from toy_task import make_toy

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def toy_bundle(tmp_path_factory):
    root = tmp_path_factory.mktemp("toy")
    task = make_toy(root, limit=5)
    path = root / "bundles" / "toy" / "task.yaml"
    path.write_text(path.read_text().replace("    - {key: never_written, label: Unused}\n", ""))
    task = taskdef.load_task("toy", task.split_dirs, bundles_dir=root / "bundles")
    return build.build_task(task, root / "dist").codalab


def raw_zip(entries):
    """Zip bytes from (ZipInfo or name, bytes) pairs, written as they are (no sanitising)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return buffer.getvalue()


def symlink(name, target):
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target


class _RepeatedDeflate(object):
    """Deflates 4 MiB blocks of zeros by repeating one fully flushed block: a full flush resets the compressor,
    so every block compresses to the same bytes. Writing a 1 GiB bomb then takes a second, not fifteen."""

    CHUNK = b"\0" * (4 * MIB)

    def __init__(self):
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
        self.block = compressor.compress(self.CHUNK) + compressor.flush(zlib.Z_FULL_FLUSH)
        self.tail = compressor.flush()

    def compress(self, data):
        assert data == self.CHUNK
        return self.block

    def flush(self):
        return self.tail


def zeros_zip(name, size, extra=()):
    """A zip holding ``size`` zero bytes under ``name`` (it compresses about 1000:1)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for extra_name, data in extra:
            archive.writestr(extra_name, data)
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as handle:
            handle._compressor = _RepeatedDeflate()
            for _ in range(size // len(_RepeatedDeflate.CHUNK)):
                handle.write(_RepeatedDeflate.CHUNK)
    return buffer.getvalue()


def test_zeros_zip_is_what_it_says():
    with zipfile.ZipFile(io.BytesIO(zeros_zip("z", 12 * MIB))) as archive:
        assert archive.read("z") == b"\0" * (12 * MIB)


@pytest.fixture(scope="module")
def gigabyte_bomb():
    return zeros_zip("answers.txt", 1024 * MIB)


HOSTILE = {
    "dot-dot": ([("../evil.txt", b"x")], "zip entry '../evil.txt' escapes"),
    "absolute": ([("/tmp/evil.txt", b"x")], "zip entry '/tmp/evil.txt' escapes"),
    "symlink": ([symlink("answers.txt", b"/etc/passwd")], "zip entry 'answers.txt' is a symbolic link"),
    "clash": ([("a", b"x"), ("a/b", b"y")], "zip entry 'a' is both a file and a folder"),
    "long name": ([("x" * 300 + ".txt", b"a")], "has a name part longer than 255 bytes"),
}


def _run_temp(tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    return temp


@pytest.mark.parametrize("platform", ["codalab", "codabench"])
@pytest.mark.parametrize("case", sorted(HOSTILE) + ["not a zip"])
def test_refused_submission_leaves_nothing_behind(toy_bundle, tmp_path, case, platform):
    # Before: the run folder (gold in run/input/ref, mode 0o777) and an empty second folder stayed in the temp dir.
    entries, message = HOSTILE.get(case, (None, None))
    sub = tmp_path / "sub.zip"
    sub.write_bytes(raw_zip(entries) if entries else b"this is not a zip")
    temp = _run_temp(tmp_path)
    if message is None:  # not a zip: both workers fail the submission (issue 11), and nothing is extracted
        report = replay.replay(toy_bundle, sub, temp_dir=str(temp), platform=platform)
        assert report["status"] == "Failed" and report["run_dir"] is None
    else:
        with pytest.raises(replay.ReplayError) as info:
            replay.replay(toy_bundle, sub, temp_dir=str(temp), platform=platform)
        assert message in str(info.value)
    assert os.listdir(str(temp)) == []
    assert not (tmp_path / "evil.txt").exists()


def test_refused_submission_with_keep_leaves_nothing_either(toy_bundle, tmp_path):
    sub = tmp_path / "sub.zip"
    sub.write_bytes(raw_zip([("../evil.txt", b"x")]))
    temp = _run_temp(tmp_path)
    with pytest.raises(replay.ReplayError):
        replay.replay(toy_bundle, sub, temp_dir=str(temp), keep=True, platform="codalab")
    assert os.listdir(str(temp)) == []


@pytest.mark.parametrize("platform", ["codalab", "codabench"])
def test_finished_and_failed_runs_leave_nothing_behind(toy_bundle, tmp_path, platform):
    temp = _run_temp(tmp_path)
    good = replay.replay(toy_bundle, None, temp_dir=str(temp), platform=platform)
    bad = tmp_path / "bad.zip"
    bad.write_bytes(pack.zip_entries([("answers.txt", b"a\n")]))
    failed = replay.replay(toy_bundle, bad, temp_dir=str(temp), platform=platform)
    assert (good["status"], failed["status"]) == ("Finished", "Failed")
    assert os.listdir(str(temp)) == []


@pytest.mark.parametrize("platform", ["codalab", "codabench"])
def test_run_folder_is_never_world_writable(toy_bundle, tmp_path, platform):
    # Before: the run root, program/, input/ref, input/res, output/ and temp/ were chmod 0o777.
    temp = _run_temp(tmp_path)
    report = replay.replay(toy_bundle, None, temp_dir=str(temp), keep=True, platform=platform)
    assert report["status"] == "Finished"
    (holder,) = os.listdir(str(temp))
    assert stat.S_IMODE(os.stat(str(temp / holder)).st_mode) == 0o700
    writable = []
    for root, dirs, files in os.walk(str(temp)):
        for name in dirs + files:
            if os.stat(os.path.join(root, name)).st_mode & stat.S_IWOTH:
                writable.append(os.path.relpath(os.path.join(root, name), str(temp)))
    assert writable == []


@pytest.mark.parametrize("where", ["submission file", "extra file", "nested zip"])
def test_gigabyte_bomb_is_refused_before_writing_it(toy_bundle, tmp_path, gigabyte_bomb, where):
    # Before: 1 GB written to disk in every case, and the scoring program read it (2 GB of memory).
    if where == "submission file":
        data, entry = gigabyte_bomb, "answers.txt"
    elif where == "extra file":
        data, entry = zeros_zip("zeros.bin", 1024 * MIB, [("answers.txt", b"a a a\n")]), "zeros.bin"
    else:
        data, entry = raw_zip([("answers.txt", b"a a a\n"), ("inner.zip", gigabyte_bomb)]), "answers.txt"
    assert len(data) < 2 * MIB
    sub = tmp_path / "bomb.zip"
    sub.write_bytes(data)
    temp = _run_temp(tmp_path)
    with pytest.raises(replay.ReplayError) as info:
        replay.replay(toy_bundle, sub, temp_dir=str(temp), platform="codalab")
    # 1 GiB from 1,043,000 bytes or so: a ratio near 1029:1 (the limit is 200).
    assert ("zip entry %r inflates 10" % entry) in str(info.value)
    assert " times (1024 MiB from 10" in str(info.value) and "the limit is 200 times)" in str(info.value)
    assert os.listdir(str(temp)) == []


def test_total_size_counts_nested_zips_too(toy_bundle, tmp_path):
    # 400 KiB of incompressible bytes three times (one copy in the nested zip): 1.2 MB where 1088 KiB are allowed.
    noise = os.urandom(400 * 1024)
    inner = pack.zip_entries([("noise.bin", noise)])
    sub = tmp_path / "sub.zip"
    sub.write_bytes(pack.zip_entries([("answers.txt", b"a a a\n"), ("extra.bin", noise), ("inner.zip", inner)]))
    limits = safe_zip.Limits(max_bytes=MIB + 64 * 1024)
    with pytest.raises(replay.ReplayError) as info:
        replay.replay(toy_bundle, sub, temp_dir=str(_run_temp(tmp_path)), limits=limits, platform="codalab")
    assert str(info.value) == ("submission/inner.zip: more than 1114112 bytes once extracted (the limit; a zip "
                               "bomb or a file too large for scoring)")


def test_entry_count_is_bounded(toy_bundle, tmp_path):
    sub = tmp_path / "sub.zip"
    sub.write_bytes(pack.zip_entries([("answers.txt", b"a a a\n")] + [("f%02d" % i, b"") for i in range(30)]))
    with pytest.raises(replay.ReplayError) as info:
        replay.replay(toy_bundle, sub, temp_dir=str(_run_temp(tmp_path)), limits=safe_zip.Limits(max_entries=30), platform="codalab")
    assert str(info.value) == "submission: more than 30 entries (the limit)"


def test_forged_header_cannot_exceed_the_limit(tmp_path):
    # A header claiming 10 bytes for 2 MiB of data: the bytes are counted as they inflate, not trusted.
    data = zeros_zip("z.bin", 4 * MIB)
    archive = zipfile.ZipFile(io.BytesIO(data))
    info = archive.getinfo("z.bin")
    info.file_size = 10
    budget = safe_zip.Limits(max_bytes=MIB).budget()
    with pytest.raises((safe_zip.ZipRefused, zipfile.BadZipFile)):
        for _ in safe_zip.iter_member(archive, info, "forged", budget):
            pass
    assert budget.bytes <= MIB + 64 * 1024


def test_cli_limit_options(toy_bundle, tmp_path):
    sub = tmp_path / "sub.zip"
    sub.write_bytes(pack.zip_entries([("answers.txt", b"a a a\n"), ("big.txt", b"a b\n" * MIB)]))
    done = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "replay", str(toy_bundle), str(sub),
                           "--max-extract-mb", "1"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "more than 1 MiB once extracted" in done.stderr


# ---------------------------------------------------------------------------------------------------------------
# The validator


def rebuilt(source, target, extra=(), replace=None):
    """A copy of a bundle with ``extra`` raw entries added and entries replaced ({name: bytes})."""
    replace = replace or {}
    with zipfile.ZipFile(str(source)) as src:
        entries = [(n, replace.get(n, src.read(n))) for n in src.namelist()]
    target.write_bytes(raw_zip(entries + list(extra)))
    return target


@pytest.mark.parametrize("extra, named", [
    ([("../escape.txt", b"x")], "zip entry '../escape.txt' escapes the folder it is extracted into"),
    ([("/etc/cron.d/evil", b"x")], "zip entry '/etc/cron.d/evil' escapes the folder it is extracted into"),
    ([symlink("pages/link.html", b"/etc/passwd")], "zip entry 'pages/link.html' is a symbolic link"),
])
def test_validate_fails_a_bundle_whose_entries_escape(toy_bundle, tmp_path, extra, named):
    # Before: exit 0; the replay's error was swallowed and the sample replays skipped without a word.
    path = rebuilt(toy_bundle, tmp_path / "evil.zip", extra)
    _, findings = validate.validate(str(path), platforms=("codabench", "codalab"), replay=False)
    errors = [f for f in findings if f.severity == "error"]
    assert sorted(f.platform for f in errors) == ["codabench", "codalab"]
    assert all(f.rule == "zip" and f.message == "%s: %s" % (path, named) for f in errors)
    assert not validate.passed(findings)
    done = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "validate", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 1 and named in done.stdout


def test_validate_names_a_hostile_sample_submission_and_leaves_nothing(toy_bundle, tmp_path, monkeypatch):
    temp = _run_temp(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    with zipfile.ZipFile(str(toy_bundle)) as src:
        kit = src.read("starting_kit_dev.zip")
    with zipfile.ZipFile(io.BytesIO(kit)) as inner:
        kit_entries = [(n, inner.read(n)) for n in inner.namelist()]
    evil_sample = raw_zip([("answers.txt", b"a a a\n"), ("../../evil.txt", b"x")])
    kit = raw_zip([(n, evil_sample if n == "sample_submission.zip" else d) for n, d in kit_entries])
    path = rebuilt(toy_bundle, tmp_path / "kit.zip", replace={"starting_kit_dev.zip": kit})
    _, findings = validate.validate(str(path), platforms=("codalab",))
    replays = [f for f in findings if f.rule == "replay" and f.severity == "error"]
    assert [f.message for f in replays] == ["the scoring step could not run: submission: zip entry "
                                            "'../../evil.txt' escapes the folder it is extracted into"]
    assert os.listdir(str(temp)) == []


def test_validate_reads_a_page_bomb_in_bounded_chunks(toy_bundle, tmp_path):
    # Before: a 1 GB overview.html (1 MB compressed) was read whole (2 GB of memory) and passed.
    with zipfile.ZipFile(str(toy_bundle)) as src:
        entries = [(n, src.read(n)) for n in src.namelist() if n != "overview.html"]
    buffer = io.BytesIO(zeros_zip("overview.html", 1024 * MIB))
    with zipfile.ZipFile(buffer, "a", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    path = tmp_path / "page-bomb.zip"
    path.write_bytes(buffer.getvalue())
    _, findings = validate.validate(str(path), replay=False)
    errors = sorted(set(f.message for f in findings if f.severity == "error"))
    assert len(errors) == 2
    assert errors[0].startswith("%s: zip entry 'overview.html' inflates 10" % path)
    assert errors[1] == "overview.html is larger than 4 MiB"  # read 4 MiB in 64 KiB chunks, then stopped
    assert not validate.passed(findings)


def test_page_over_the_page_limit_is_reported_not_read_whole(toy_bundle, tmp_path, monkeypatch):
    monkeypatch.setattr(validate.contents, "MAX_PAGE_BYTES", 100 * 1024)
    page = os.urandom(150 * 1024).hex().encode()  # 300 KiB of text, compressing 2:1
    path = rebuilt(toy_bundle, tmp_path / "big-page.zip", replace={"overview.html": page})
    _, findings = validate.validate(str(path), platforms=("codabench", "codalab"), replay=False)
    assert sorted((f.platform, f.message) for f in findings if f.severity == "error") == [
        ("codabench", "overview.html is larger than 102400 bytes"),
        ("codalab", "overview.html is larger than 102400 bytes")]


def test_validate_replays_the_samples_within_the_limits_it_was_given(toy_bundle, tmp_path):
    """A bundle with an 8 MiB entry of zeros (it inflates about 1000:1): refused under the default ratio (200),
    accepted with --max-ratio 2000, and then its samples are replayed under that limit too, on both platforms.
    Before: the sample replays opened the bundle with the limits in place of the platform, so the default ratio
    refused it ("the sample submissions cannot be replayed") whatever the organizer allowed."""
    path = rebuilt(toy_bundle, tmp_path / "padded.zip", [("data/padding.bin", b"\0" * (8 * MIB))])
    _, findings = validate.validate(str(path), platforms=("codabench", "codalab"))
    assert {(f.platform, f.rule) for f in findings if f.severity == "error"} >= {("codabench", "zip"),
                                                                              ("codalab", "zip")}
    _, findings = validate.validate(str(path), platforms=("codabench", "codalab"),
                                    limits=safe_zip.Limits(max_ratio=2000))
    assert [f for f in findings if f.rule in ("zip", "replay") and f.severity != "note"] == []
