"""The size of an image and the pages of a PDF, read from their headers: no pixel is ever decoded.

A vision model bills an image by its pixel size (and a PDF by its pages), so the Chat page needs
only those numbers.  Each reader looks at a few bytes where its format's specification puts them:

- PNG: the IHDR chunk, which must come first (width, height: 4 bytes each, big-endian, 1 .. 2**31-1).
- GIF: the logical screen descriptor after ``GIF87a``/``GIF89a`` (2 bytes each, little-endian).
- WebP: the first chunk of the RIFF container -- ``VP8 `` (lossy: 14-bit sizes after the start code
  ``9d 01 2a``), ``VP8L`` (lossless: 14-bit sizes minus one after the 0x2f signature) or ``VP8X``
  (extended: the canvas, 24-bit sizes minus one).
- JPEG: the marker segments are walked from SOI to the first start-of-frame (SOF0-SOF15 but DHT, JPG
  and DAC), which holds height then width; every segment's length is checked against the file.
- PDF: the page tree (engine.formats.pdf_pages).

Traps: a JPEG's height 0 means "given later by a DNL marker" (refused, rarely written); a PNG whose
first chunk is not IHDR is not a PNG a decoder reads; sizes of 0 are refused everywhere.  Every
refusal is a `MediaFileError` whose message says what is wrong.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from engine.errors import MediaFileError
from engine.formats.pdf_pages import read_pdf_pages

MAX_MEDIA_BYTES = 32 * 1024 * 1024  # one part: Anthropic's and Google's request limits are 32 MB and 20 MB inline
IMAGE_FORMATS = ("png", "jpeg", "webp", "gif")
# Start-of-frame markers hold the frame's size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_STANDALONE = frozenset(range(0xD0, 0xD8)) | {0x01}  # RSTn and TEM: no length follows


@dataclass(frozen=True)
class MediaInfo:
    """What a part's header says: ``kind`` "image" or "pdf"; an image's ``width`` and ``height``; a PDF's
    ``pages``, each page's (width, height) in points from its MediaBox, or None where the file gives none."""

    kind: str
    format: str
    width: int = 0
    height: int = 0
    pages: tuple[tuple[float, float] | None, ...] = ()

    @property
    def page_count(self) -> int:
        return len(self.pages)


def media_format(data: bytes) -> str | None:
    """The format its first bytes name ("png", "jpeg", "gif", "webp", "pdf"), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8"):
        return "jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if b"%PDF-" in data[:1024]:
        return "pdf"  # readers accept the header anywhere in the first 1024 bytes
    return None


def read_media(data: bytes, name: str = "the file") -> MediaInfo:
    """The size of an image (PNG, JPEG, WebP, GIF) or the pages of a PDF, from its header bytes."""
    if len(data) > MAX_MEDIA_BYTES:
        raise MediaFileError(f"{name} has {len(data):,} bytes; a part holds at most {MAX_MEDIA_BYTES:,}: "
                             "upload a smaller image or PDF")
    kind = media_format(data)
    if kind is None:
        raise MediaFileError(f"{name} is not a PNG, JPEG, WebP, GIF or PDF (its first bytes are "
                             f"{data[:8].hex(' ') or 'empty'}): upload one of those")
    if kind == "pdf":
        return MediaInfo("pdf", "pdf", pages=read_pdf_pages(data, name))
    width, height = _READERS[kind](data, name)
    if width <= 0 or height <= 0:
        raise MediaFileError(f"{name}: its {kind.upper()} header gives a size of {width}×{height} pixels; an image "
                             "has at least one pixel each way: the file is damaged or crafted")
    return MediaInfo("image", kind, width, height)


def _need(data: bytes, end: int, name: str, fmt: str, what: str) -> None:
    if len(data) < end:
        raise MediaFileError(f"{name}: the {fmt} file ends ({len(data):,} bytes) before its {what}: "
                             "it is truncated; upload the whole file")


def _png(data: bytes, name: str) -> tuple[int, int]:
    _need(data, 33, name, "PNG", "IHDR chunk")
    length, kind = struct.unpack(">I4s", data[8:16])
    if kind != b"IHDR" or length != 13:
        raise MediaFileError(f"{name}: a PNG's first chunk must be IHDR of 13 bytes, this one is {kind!r} of "
                             f"{length:,}: the file is damaged or crafted")
    width, height = struct.unpack(">II", data[16:24])
    if width > 2**31 - 1 or height > 2**31 - 1:
        raise MediaFileError(f"{name}: PNG sizes stop at 2,147,483,647 pixels; its IHDR says {width:,}×{height:,}: "
                             "the file is crafted")
    return width, height


def _gif(data: bytes, name: str) -> tuple[int, int]:
    _need(data, 10, name, "GIF", "logical screen descriptor")
    return struct.unpack("<HH", data[6:10])


def _webp(data: bytes, name: str) -> tuple[int, int]:
    _need(data, 30, name, "WebP", "first chunk")
    chunk = data[12:16]
    body = data[20:]
    if chunk == b"VP8 ":
        if body[3:6] != b"\x9d\x01\x2a":
            raise MediaFileError(f"{name}: a lossy WebP (VP8) frame starts with 9d 01 2a after its frame tag; this one "
                                 f"has {body[3:6].hex(' ')}: the file is damaged or crafted")
        width, height = struct.unpack("<HH", body[6:10])
        return width & 0x3FFF, height & 0x3FFF  # the top two bits of each are the upscaling hint
    if chunk == b"VP8L":
        if body[0] != 0x2F:
            raise MediaFileError(f"{name}: a lossless WebP (VP8L) starts with the byte 2f; this one has "
                                 f"{body[0]:02x}: the file is damaged or crafted")
        bits = int.from_bytes(body[1:5], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(body[4:7], "little") + 1, int.from_bytes(body[7:10], "little") + 1
    raise MediaFileError(f"{name}: a WebP's first chunk is VP8, VP8L or VP8X; this one is {chunk!r}: the file is "
                         "damaged or crafted")


def _jpeg(data: bytes, name: str) -> tuple[int, int]:
    i = 2
    while True:
        # Markers may be padded with any number of 0xFF fill bytes.
        _need(data, i + 2, name, "JPEG", "start-of-frame marker")
        if data[i] != 0xFF:
            raise MediaFileError(f"{name}: byte {i:,} should start a JPEG marker (ff) but is {data[i]:02x}: "
                                 "the file is damaged or crafted")
        while data[i + 1] == 0xFF:
            i += 1
            _need(data, i + 2, name, "JPEG", "start-of-frame marker")
        marker = data[i + 1]
        i += 2
        if marker in _STANDALONE:
            continue
        if marker in (0xD9, 0xDA):  # end of image / start of scan before any frame header
            raise MediaFileError(f"{name}: the JPEG reaches its {'end' if marker == 0xD9 else 'image data'} before a "
                                 "frame header gives its size: the file is damaged or crafted")
        _need(data, i + 2, name, "JPEG", "segment length")
        length = struct.unpack(">H", data[i:i + 2])[0]
        if length < 2:
            raise MediaFileError(f"{name}: a JPEG segment at byte {i:,} gives its length as {length}; at least 2 "
                                 "(the length itself): the file is crafted")
        if marker in _SOF:
            _need(data, i + 7, name, "JPEG", "frame header")
            height, width = struct.unpack(">HH", data[i + 3:i + 7])
            if height == 0:
                raise MediaFileError(f"{name}: the JPEG's frame header leaves its height to a later DNL marker, "
                                     "which this reader does not follow: save the image again (any editor writes "
                                     "the height)")
            return width, height
        i += length  # every step moves forward by at least 2 bytes: the walk ends within len(data) steps


_READERS = {"png": _png, "gif": _gif, "webp": _webp, "jpeg": _jpeg}
