"""What is inside the files a bundle names: its pages and its logo.

A page must be UTF-8, hold some text and stay small (it is read in bounded chunks: a page can be a zip bomb too);
the logo must be an image Codabench's logo field opens, and not a CMYK JPEG, of which Codabench cannot make its PNG
icon. is_image and is_cmyk_jpeg are also used by migrate, to keep or replace an old bundle's logo.
"""
from __future__ import annotations

import codecs
import zipfile

from ..zips import safe_zip
from .findings import Context

MAX_PAGE_BYTES = 4 * safe_zip.MIB  # a page is shown inline by both sites; megabytes of HTML are a mistake


def page_problem(ctx: Context, name: str) -> str | tuple[str, str] | None:
    """None, "empty" (0 bytes), "blank" (only white space), or (message, fix) for a page, read in bounded
    chunks: a page can be a zip bomb too."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    blank, size = True, 0
    try:
        info = ctx.zip.getinfo(name)
        for chunk in safe_zip.iter_member(ctx.zip, info, "%s/%s" % (ctx.path, name), ctx.limits.budget()):
            size += len(chunk)
            if size > MAX_PAGE_BYTES:
                return ("%s is larger than %s" % (name, safe_zip.size_text(MAX_PAGE_BYTES)),
                        "keep pages to text and small inline images; link to anything larger")
            try:
                blank = not decoder.decode(chunk).strip() and blank
            except UnicodeDecodeError:
                return "%s is not UTF-8" % name, "save the page as UTF-8"
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return "%s is not UTF-8" % name, "save the page as UTF-8"
    except safe_zip.ZipRefused as exc:
        return str(exc), "make the page a plain file of a few kilobytes"
    except (KeyError, zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
        return "%s cannot be read: %s" % (name, exc), "rebuild the zip"
    return "empty" if size == 0 else "blank" if blank else None


# Signatures of image formats Pillow opens (Codabench stores the logo through an image field).
_IMAGE_SIGNATURES = ((b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR", 0), (b"\xff\xd8\xff", 0), (b"GIF87a", 0), (b"GIF89a", 0),
                     (b"BM", 0), (b"WEBP", 8))


def is_image(head: bytes) -> bool:
    """Whether the file beginning with ``head`` (32 bytes) is an image Codabench's logo field opens."""
    return any(head[offset:offset + len(magic)] == magic for magic, offset in _IMAGE_SIGNATURES)


_SOF_MARKERS = set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}  # start of frame (DHT, JPG and DAC are not)


def jpeg_components(data: bytes) -> int | None:
    """The number of colour components of a JPEG's frame (1 grey, 3 colour, 4 CMYK or YCCK), or None."""
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, 0xD8) or 0xD0 <= marker <= 0xD7:  # markers without a length
            at += 2
            continue
        length = int.from_bytes(data[at + 2:at + 4], "big")
        if marker in _SOF_MARKERS:
            return data[at + 9] if at + 9 < len(data) else None
        at += 2 + length
    return None


def is_cmyk_jpeg(data: bytes) -> bool:
    """Whether an image is a four-component (CMYK) JPEG: Codabench makes a PNG icon of every logo
    (Competition.make_logo_icon), and Pillow cannot write CMYK as PNG, so the upload fails."""
    return data[:3] == b"\xff\xd8\xff" and jpeg_components(data) == 4


def logo_image(ctx: Context, platform: str) -> None:
    """The logo is an image Codabench opens, and (on Codabench) not a CMYK JPEG."""
    name = ctx.spec.get("image")
    if not isinstance(name, str) or name not in ctx.names:
        return  # a missing logo is reported with the other files
    with ctx.zip.open(name) as handle:
        head = handle.read(32)
    if not is_image(head):
        ctx.add("error", platform, "files", "image", "%s is not an image Codabench can open ('logo: Please upload a"
                " valid image.')" % name, "use a PNG, JPEG or GIF logo")
    elif platform == "codabench" and head[:3] == b"\xff\xd8\xff" and is_cmyk_jpeg(ctx.zip.read(name)):
        ctx.add("error", platform, "files", "image", "%s is a CMYK JPEG: Codabench makes a PNG icon of the logo and "
                "refuses the bundle ('cannot write mode CMYK as PNG')" % name, "save the logo in RGB (PNG or JPEG)")

