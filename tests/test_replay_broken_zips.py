"""Submissions the workers cannot unzip, or that hold nothing: the replay reports the worker's own status and message
(the scoring program never runs), as each was seen on the local Codabench (tools/codabench_local) and read in the
CodaLab v1.5 worker; zips that unzip to folders or empty files still reach the program and get its message."""
import functools
import io
import struct
import subprocess
import sys
import zipfile
import zlib

import pytest

from codalab_bundles import replay
from codalab_bundles.authoring import build
from codalab_bundles.replay import broken_zip
from conftest import ROOT
from toy_task import make_toy

v15 = functools.partial(replay.replay, platform="codalab")


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("toy")
    return build.build_task(make_toy(tmp, limit=2), tmp / "dist")


def handmade(entries):
    """A zip from (name, stored bytes, method, crc, uncompressed size) written field by field (APPNOTE 4.3)."""
    out, central = b"", b""
    for name, stored, method, crc, size in entries:
        local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(stored), size,
                            len(name), 0) + name.encode()
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc, len(stored), size,
                               len(name), 0, 0, 0, 0, 0o40755 << 16 if name.endswith("/") else 0o100644 << 16,
                               len(out)) + name.encode()
        out += local + stored
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(out), 0)
    return out + central + end


def deflated(data):
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


GOOD = b"a b a\n"
EMPTY = b"PK\x05\x06" + b"\0" * 18  # an end-of-central-directory record and nothing else: what zip -d leaves
FOLDERS = handmade([("answers/", b"", 0, 0, 0), ("answers/more/", b"", 0, 0, 0)])
ZERO_BYTES = handmade([("answers.txt", b"", 0, 0, 0)])
BAD_CRC = handmade([("answers.txt", GOOD, 0, zlib.crc32(GOOD) ^ 1, len(GOOD))])
# the deflate stream's first byte says "dynamic Huffman block, last", the rest is not a valid code-length table
BAD_DEFLATE = handmade([("answers.txt", b"\x05\xff\xff\xff\xff" + deflated(GOOD)[5:], 8, zlib.crc32(GOOD), len(GOOD))])


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_the_handmade_zips_are_what_python_says(tmp_path):
    # what the workers' ZipFile(...).extractall does with each (Codabench's and v1.5's own unzipping)
    assert zipfile.ZipFile(io.BytesIO(EMPTY)).namelist() == []
    assert zipfile.ZipFile(io.BytesIO(FOLDERS)).namelist() == ["answers/", "answers/more/"]
    good = handmade([("answers.txt", deflated(GOOD), 8, zlib.crc32(GOOD), len(GOOD))])
    assert zipfile.ZipFile(io.BytesIO(good)).read("answers.txt") == GOOD  # the writer itself is right
    with pytest.raises(zipfile.BadZipFile, match="Bad CRC-32 for file 'answers.txt'"):
        zipfile.ZipFile(io.BytesIO(BAD_CRC)).extractall(str(tmp_path / "crc"))
    with pytest.raises(zlib.error, match="Error -3"):
        zipfile.ZipFile(io.BytesIO(BAD_DEFLATE)).extractall(str(tmp_path / "deflate"))
    zipfile.ZipFile(io.BytesIO(EMPTY)).extractall(str(tmp_path / "empty"))
    assert not (tmp_path / "empty").exists()  # no entry: not even the folder is made


def test_a_zip_with_no_entry_fails_as_codabench_fails_it(bundles, tmp_path):
    # seen on the local Codabench (submission 565): prediction step "Metadata file not found", then the scoring step
    # fails on the empty prediction result after 10 tries 20 s apart: Failed "Bad or empty zip file", no stderr
    report = replay.replay(bundles.codabench, write(tmp_path, "empty.zip", EMPTY))
    assert report["status"] == "Failed" and report["reason"] == "Bad or empty zip file"
    assert report["stderr"] == "" and report["exit_code"] is None and report["command"] == []
    assert report["scores"] == {}
    (warning,) = report["warnings"]
    assert "no entry" in warning and "Metadata file not found" in warning and "10 times, 20 s apart" in warning
    assert "about 180 s" in warning
    text = replay.format_report(report)
    assert "reason: Bad or empty zip file" in text and "stderr (what the participant sees" in text


def test_a_zip_with_no_entry_on_codalab_fails_listing_the_folder_it_never_made(bundles, tmp_path):
    report = v15(bundles.codalab, write(tmp_path, "empty.zip", EMPTY))
    assert report["status"] == "Failed" and report["command"] == []
    assert report["reason"] == ("the worker cannot unzip the submission: OSError: [Errno 2] No such file or directory: "
                                "'<run>/input/res' (the zip has no entry)")
    assert "traceback" in report["warnings"][0]


@pytest.mark.parametrize("data,message", [(FOLDERS, "Submission error: no answers.txt in the submission: expected "
                                                    "answers.txt; found nothing. Put it at the root of the zip (zip "
                                                    "the file itself, not a folder of folders)."),
                                          (ZERO_BYTES, "Submission error: answers.txt: 0 answers for 3 questions")])
def test_folders_only_or_an_empty_file_reach_the_program(bundles, tmp_path, data, message):
    # on the local Codabench (submissions 567, 568): Failed with the program's own message, as the replay says
    for report in (replay.replay(bundles.codabench, write(tmp_path, "s.zip", data)),
                   v15(bundles.codalab, write(tmp_path, "s.zip", data))):
        assert report["status"] == "Failed" and report["exit_code"] == 1
        assert report["stderr"] == message + "\n"
        assert report["reason"] == "the scoring program exited with status 1"


def test_a_bad_crc_fails_after_the_tries_on_codabench_and_at_once_on_codalab(bundles, tmp_path):
    path = write(tmp_path, "crc.zip", BAD_CRC)
    report = replay.replay(bundles.codabench, path)
    assert report["status"] == "Failed" and report["reason"] == "Bad or empty zip file" and report["stderr"] == ""
    assert "zipfile.BadZipFile: Bad CRC-32 for file 'answers.txt'" in report["warnings"][0]
    old = v15(bundles.codalab, path)
    assert old["status"] == "Failed"
    assert old["reason"] == "the worker cannot unzip the submission: zipfile.BadZipFile: Bad CRC-32 for file 'answers.txt'"


def test_damaged_deflate_data_leaves_a_codabench_submission_preparing(bundles, tmp_path):
    # seen on the local Codabench (submission 566): the worker's task dies on zlib.error, nothing reports, and the
    # submission stays Preparing
    path = write(tmp_path, "deflate.zip", BAD_DEFLATE)
    report = replay.replay(bundles.codabench, path)
    assert report["status"] == "Preparing" and report["scores"] == {} and report["stderr"] == ""
    assert report["reason"].startswith("the compute worker's task dies unzipping the submission (zlib.error: Error -3 "
                                       "while decompressing data: ")
    assert "stays Preparing for good" in report["reason"]
    old = v15(bundles.codalab, path)
    assert old["status"] == "Failed" and "zlib.error: Error -3" in old["reason"]
    proc = subprocess.run([sys.executable, str(ROOT / "build_bundle.py"), "replay", str(bundles.codabench), str(path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "status: Preparing" in proc.stdout


def test_a_broken_zip_inside_the_bundle_is_still_the_bundles_problem(bundles, tmp_path):
    # only the submission's zip gets the worker's status; a scoring program that cannot be unzipped is a replay error
    with zipfile.ZipFile(str(bundles.codabench)) as archive:
        names = [n for n in archive.namelist() if n.startswith("scoring_program") and n.endswith(".zip")]
        items = [(n, archive.read(n)) for n in archive.namelist()]
    broken = tmp_path / "broken-bundle.zip"
    with zipfile.ZipFile(str(broken), "w") as out:
        for name, data in items:
            out.writestr(name, BAD_CRC if name == names[0] else data)
    with pytest.raises(replay.ReplayError, match="scoring_program cannot be unzipped: zipfile.BadZipFile"):
        replay.replay(broken, write(tmp_path, "ok.zip", handmade([("answers.txt", GOOD, 0, zlib.crc32(GOOD),
                                                                                len(GOOD))])))


def test_outcomes_name_the_platforms_words():
    assert broken_zip.outcome("codabench", "bad", "x: y")["reason"] == "Bad or empty zip file"
    assert broken_zip.outcome("codabench", "crash", "x: y")["status"] == "Preparing"
    assert broken_zip.outcome("codalab", "crash", "x: y")["status"] == "Failed"
    assert broken_zip.check(b"") == ("bad", "zipfile.BadZipFile: File is not a zip file")
    assert broken_zip.check(EMPTY) == ("empty", "the zip has no entry")
    assert broken_zip.check(FOLDERS) is None
