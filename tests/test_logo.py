"""tools/make_logo.py: valid 256x256 PNGs, deterministic, distinct per task, committed logos up to date."""
from codalab_bundles.loading import load_file
import struct
import subprocess
import sys
import zlib

import pytest

from codalab_bundles.authoring import taskdef
from conftest import ROOT

TASKS = taskdef.task_names()  # every task: the five have their own motif, any other gets the generic rings
SCRIPT = ROOT / "tools" / "make_logo.py"


def _load():
    return load_file(SCRIPT)


make_logo = _load()


def decode_png(data):
    """Check the PNG structure written by make_logo and return (width, height, RGBA bytes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks.append((kind, body))
        pos += 12 + length
    assert [kind for kind, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour_type, compression, filtering, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour_type, compression, filtering, interlace) == (8, 6, 0, 0, 0)
    raw = zlib.decompress(chunks[1][1])
    stride = width * 4 + 1
    assert len(raw) == height * stride
    assert all(raw[y * stride] == 0 for y in range(height))  # filter type None on every row
    return width, height, b"".join(raw[y * stride + 1:(y + 1) * stride] for y in range(height))


def pixel(rgba, x, y, size=256):
    start = (y * size + x) * 4
    return tuple(rgba[start:start + 4])


@pytest.fixture(scope="module")
def rendered():
    return dict((task, make_logo.render(task)) for task in TASKS)


@pytest.mark.parametrize("task", TASKS)
def test_png_is_256_square_rgba_and_deterministic(task, rendered):
    # A second, independent rendering gives the same file, byte for byte.
    data = make_logo.logo_png(task)
    assert data == make_logo.png_bytes(256, 256, rendered[task])
    width, height, rgba = decode_png(data)
    assert (width, height) == (256, 256)
    # The tile has rounded corners: the corner pixel is transparent, the centre opaque.
    assert pixel(rgba, 0, 0)[3] == 0
    assert pixel(rgba, 128, 128)[3] == 255


def test_hand_checked_pixels(rendered):
    rgba = rendered["toxic-spans"]
    # Background gradient from #26323f (top) to #16202b (bottom), at pixel centre y = 20.5:
    # t = 20.5 / 256 = 0.0801 -> (38 - 16t, 50 - 18t, 63 - 20t) = (36.7, 48.6, 61.4).
    assert pixel(rgba, 128, 20) == (37, 49, 61, 255)
    # The highlighted word of the second line (x 90..154, y 103..117) is solid #ef4a5a.
    assert pixel(rgba, 122, 110) == (0xef, 0x4a, 0x5a, 255)
    # The dot of food-hazard's exclamation mark is #2b2118.
    assert pixel(rendered["food-hazard"], 128, 154) == (0x2b, 0x21, 0x18, 255)


def test_every_task_has_its_own_logo(rendered):
    images = list(rendered.values()) + [make_logo.render("some-new-task")]
    assert len(set(images)) == len(images)
    # Two unknown names get different hues.
    assert make_logo.render("some-new-task") != make_logo.render("another-task")


def test_png_writer_on_a_tiny_image():
    rgba = bytes([255, 0, 0, 255, 0, 255, 0, 128])  # a red and a half-transparent green pixel
    width, height, decoded = decode_png(make_logo.png_bytes(2, 1, rgba))
    assert (width, height, decoded) == (2, 1, rgba)


@pytest.mark.parametrize("task", TASKS)
def test_committed_logo_matches_the_tool(task, rendered):
    width, height, rgba = decode_png((ROOT / "bundles" / task / "logo.png").read_bytes())
    assert (width, height) == (256, 256)
    assert rgba == rendered[task], "run: python3 tools/make_logo.py %s bundles/%s/logo.png" % (task, task)


def test_cli_writes_the_same_bytes_as_the_module(tmp_path):
    out = tmp_path / "sub" / "logo.png"
    proc = subprocess.run([sys.executable, str(SCRIPT), "cheers", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == make_logo.logo_png("cheers")


def test_cli_rejects_incomplete_arguments(tmp_path):
    for args in (["cheers"], ["--all", "cheers"]):
        proc = subprocess.run([sys.executable, str(SCRIPT)] + args, capture_output=True, text=True)
        assert proc.returncode == 2
        assert "usage:" in proc.stderr
