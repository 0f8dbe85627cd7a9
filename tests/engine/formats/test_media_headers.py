"""engine.formats.media_headers and pdf_pages: sizes read from headers equal Pillow's (the oracle: it reads the
same header lazily), PDF page trees equal what Pillow wrote, and crafted files are refused with a message."""
from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image

from engine.errors import MediaFileError
from engine.formats import pdf_pages
from engine.formats.media_headers import MAX_MEDIA_BYTES, read_media

SIZES = [(1, 1), (17, 3), (384, 384), (1024, 768), (1800, 2400), (4000, 1000)]


def _image(fmt: str, size: tuple[int, int], **kw) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 30, 60)).save(buf, fmt, **kw)
    return buf.getvalue()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("fmt,kw", [("PNG", {}), ("JPEG", {}), ("JPEG", {"progressive": True}), ("GIF", {}),
                                    ("WEBP", {}), ("WEBP", {"lossless": True})])
def test_image_sizes_equal_pillows(fmt, kw, size):
    data = _image(fmt, size, **kw)
    info = read_media(data, "x")
    assert info.kind == "image"
    assert (info.width, info.height) == Image.open(io.BytesIO(data)).size == size


def test_webp_extended_canvas():
    # VP8X: an extended WebP (Pillow writes one for an image with alpha/EXIF); the canvas is 24-bit size minus one
    buf = io.BytesIO()
    Image.new("RGBA", (3000, 20), (0, 0, 0, 10)).save(buf, "WEBP", exif=b"Exif\x00\x00")
    data = buf.getvalue()
    assert data[12:16] == b"VP8X"
    assert (read_media(data).width, read_media(data).height) == (3000, 20)


def test_jpeg_markers_padded_with_fill_bytes():
    data = _image("JPEG", (33, 44))
    padded = data[:2] + b"\xff\xff\xff" + data[2:]  # fill bytes before the first marker are allowed
    assert (read_media(padded).width, read_media(padded).height) == (33, 44)


def _png_header(width: int, height: int, kind: bytes = b"IHDR", length: int = 13) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I4sII", length, kind, width, height) + b"\x08\x02\x00\x00\x00" + b"\0" * 4


@pytest.mark.parametrize("data,says", [
    (_png_header(0, 10), "0×10"),
    (_png_header(10, 2**31), "crafted"),
    (_png_header(10, 10, b"tEXt"), "first chunk must be IHDR"),
    (_png_header(10, 10, length=99), "first chunk must be IHDR"),
    (_png_header(10, 10)[:20], "truncated"),
    (b"\xff\xd8\xff\xda\x00\x08" + b"\0" * 8, "before a frame header"),        # scan data before any frame
    (b"\xff\xd8\xff\xe0\x00\x01" + b"\0" * 8, "at least 2"),                    # a segment shorter than its length field
    (b"\xff\xd8\xff\xc0\x00\x11\x08\x00\x00\x00\x10" + b"\0" * 8, "DNL"),     # height left to a DNL marker
    (b"\xff\xd8\xff\xe0\x00\x10JFIF", "truncated"),                             # ends inside the walk
    (b"\xff\xd8\x00\x00" + b"\0" * 8, "should start a JPEG marker"),
    (b"RIFF\0\0\0\0WEBPABCD" + b"\0" * 20, "first chunk is VP8"),
    (b"RIFF\0\0\0\0WEBPVP8 " + b"\0" * 4 + b"\0\0\0\1\2\3" + b"\0" * 20, "9d 01 2a"),
    (b"RIFF\0\0\0\0WEBPVP8L" + b"\0" * 4 + b"\x00" + b"\0" * 20, "byte 2f"),
    (b"GIF89a\x00\x00\x05\x00", "0×5"),
    (b"hello world", "not a PNG, JPEG, WebP, GIF or PDF"),
    (b"", "not a PNG"),
])
def test_crafted_images_are_refused_with_a_reason(data, says):
    with pytest.raises(MediaFileError, match=says.replace("(", r"\(")):
        read_media(data, "crafted.bin")


def test_a_part_past_the_limit_is_refused_before_reading():
    with pytest.raises(MediaFileError, match="at most"):
        read_media(b"\x89PNG\r\n\x1a\n" + b"\0" * MAX_MEDIA_BYTES, "big.png")


# ------------------------------------------------------------------ PDF
def _pillow_pdf(sizes: list[tuple[int, int]]) -> bytes:
    frames = [Image.new("RGB", s, "white") for s in sizes]
    buf = io.BytesIO()
    frames[0].save(buf, "PDF", save_all=True, append_images=frames[1:], resolution=72)
    return buf.getvalue()


def test_pdf_pages_and_mediaboxes_equal_what_pillow_wrote():
    sizes = [(612, 792), (842, 595), (100, 50)]
    info = read_media(_pillow_pdf(sizes), "doc.pdf")
    assert info.kind == "pdf" and info.page_count == 3
    assert [tuple(round(v) for v in p) for p in info.pages] == sizes


def _pdf(objects: dict[int, bytes], root: int = 1, trailer_extra: bytes = b"") -> bytes:
    out = b"%PDF-1.7\n"
    for num, body in objects.items():
        out += b"%d 0 obj\n" % num + body + b"\nendobj\n"
    return out + b"trailer\n<< /Root %d 0 R %s>>\n%%%%EOF\n" % (root, trailer_extra)


def test_inherited_mediabox_nested_tree_and_object_streams():
    # Pages 4 and 5 sit in a compressed object stream (PDF 1.5); page 5 inherits its parent's MediaBox.
    inner = b"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 200 100] >> << /Type /Page /Parent 3 0 R >>"
    header = b"4 0 5 %d " % inner.index(b"<< /Type /Page /Parent 3 0 R >>")
    stream = zlib.compress(header + inner)
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [6 0 R 3 0 R] /Count 3 /MediaBox [0 0 612 792] >>",
        3: b"<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 5 0 R] /Count 2 /MediaBox [0 0 300 400] >>",
        6: b"<< /Type /Page /Parent 2 0 R /T (an escaped \\) and (nested) parentheses) >>",
        7: b"<< /Type /ObjStm /N 2 /First %d /Filter /FlateDecode /Length %d >>\nstream\n" % (len(header), len(stream))
           + stream + b"\nendstream",
    }
    info = read_media(_pdf(objects), "packed.pdf")
    assert info.pages == ((612, 792), (200, 100), (300, 400))


@pytest.mark.parametrize("objects,says", [
    ({1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: b"<< /Type /Pages /Kids [3 0 R] >>",
      3: b"<< /Type /Pages /Kids [2 0 R] >>"}, "twice"),
    ({1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: b"<< /Type /Pages /Kids [3 0 R 3 0 R] >>",
      3: b"<< /Type /Page >>"}, "twice"),
    ({1: b"<< /Type /Pages /Kids [] >>"}, "no document catalog"),
    ({1: b"<< /Type /Catalog /Pages 9 0 R >>"}, "missing"),
    ({1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: b"<< /Type /Pages /Kids [] >>"}, "no page"),
    ({1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: b"<< /Type /Pages /Count 3 >>"}, "no /Kids"),
    ({1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: b"<< /Filter /Standard /V 2 /R 3 /O (x) /U (y) /P -4 >>",
      3: b"<< /Encrypt 2 0 R >>"}, "encrypted"),
])
def test_crafted_page_trees_are_refused(objects, says):
    with pytest.raises(MediaFileError, match=says):
        read_media(_pdf(objects), "crafted.pdf")


def test_a_deep_page_tree_is_refused():
    objects = {1: b"<< /Type /Catalog /Pages 2 0 R >>"}
    for n in range(2, 2 + pdf_pages.MAX_DEPTH + 5):
        objects[n] = b"<< /Type /Pages /Kids [%d 0 R] >>" % (n + 1)
    objects[3 + pdf_pages.MAX_DEPTH + 5] = b"<< /Type /Page >>"
    with pytest.raises(MediaFileError, match="levels deep"):
        read_media(_pdf(objects), "deep.pdf")


def test_too_many_pages_are_refused(monkeypatch):
    monkeypatch.setattr(pdf_pages, "MAX_PAGES", 10)
    kids = b" ".join(b"%d 0 R" % n for n in range(3, 3 + 12))
    objects = {1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: b"<< /Type /Pages /Kids [" + kids + b"] >>"}
    objects.update({n: b"<< /Type /Page >>" for n in range(3, 3 + 12)})
    with pytest.raises(MediaFileError, match="more than 10"):
        read_media(_pdf(objects), "many.pdf")


def test_an_object_stream_bomb_is_refused(monkeypatch):
    monkeypatch.setattr(pdf_pages, "MAX_INFLATED", 100_000)
    stream = zlib.compress(b"0" * 1_000_000, 9)
    objects = {1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: b"<< /Type /Pages /Kids [3 0 R] >>", 3: b"<< /Type /Page >>",
               4: b"<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length %d >>\nstream\n" % len(stream)
               + stream + b"\nendstream"}
    with pytest.raises(MediaFileError, match="exhaust"):
        read_media(_pdf(objects), "bomb.pdf")


def test_deeply_nested_arrays_do_not_overflow_the_stack():
    objects = {1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: b"<< /Type /Pages /Kids [3 0 R] >>",
               3: b"<< /Type /Page /X " + b"[" * 100_000 + b" >>"}
    with pytest.raises(MediaFileError):
        read_media(_pdf(objects), "nested.pdf")


def test_objects_that_each_run_to_the_end_of_the_file_are_refused():
    # Each "N 0 obj (" opens a string that runs to the end: read one by one, the walk grows with the square of
    # the file.  The parser's budget (WORK_PER_BYTE times the file) refuses it instead.
    data = b"%PDF-1.7\n" + b"".join(b"%d 0 obj (" % n for n in range(1, 3001)) + b"x" * 200_000
    with pytest.raises(MediaFileError, match="exhaust"):
        read_media(data, "quadratic.pdf")
