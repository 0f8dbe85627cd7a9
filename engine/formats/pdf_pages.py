"""A PDF's page count and each page's size, from its page tree: no content stream is read.

The catalog (``/Type /Catalog``) names the root of the page tree (``/Pages``); each node is a
``/Pages`` node with ``/Kids`` or a ``/Page`` leaf.  A page's size is its ``/MediaBox``
[llx lly urx ury] in points, which it may inherit from any ancestor (PDF 32000-1, 7.7.3.4).

Objects are found by scanning for ``N G obj`` rather than trusting the cross-reference table, which
damaged files often get wrong; objects packed in object streams (PDF 1.5+, ``/Type /ObjStm``,
FlateDecode) are inflated within a budget.  Where an object is defined twice (incremental updates),
the later one wins, as the last xref section would say.

Bounded against crafted files: at most `MAX_PAGES` pages, a tree at most `MAX_DEPTH` deep, a node
visited twice is a cycle, object streams inflate to at most `MAX_INFLATED` bytes in all, and nesting
in one object stops at `MAX_NESTING`.  An encrypted file is refused: its object streams are
ciphertext.  Every refusal is a `MediaFileError` that says why.
"""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

from engine.errors import MediaFileError

MAX_PAGES = 5_000  # Gemini reads up to 1,000 pages, Claude 600
MAX_DEPTH = 64
MAX_INFLATED = 64 * 1024 * 1024
MAX_NESTING = 64
MAX_OBJECTS = 500_000
# Bytes the object parser may walk, over the whole file: a real file's objects are walked about once, but a
# crafted one can start a thousand "N 0 obj (" whose strings each run to the end of the file.
WORK_PER_BYTE = 4

_OBJ = re.compile(rb"(?<![0-9])(\d{1,10})\s+(\d{1,5})\s+obj\b")
_WS = b"\x00\t\n\x0c\r "
_DELIM = b"()<>[]{}/%"
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)")
_SKIP = re.compile(rb"(?:[\x00\t\n\x0c\r ]+|%[^\r\n]*)*")
_STRING_STOP = re.compile(rb"[()\\]")
_REF_TAIL = re.compile(rb"[\x00\t\n\x0c\r ]{1,64}(\d{1,10})[\x00\t\n\x0c\r ]{1,64}R(?![A-Za-z])")  # bounded: no rescans


@dataclass(frozen=True)
class Ref:
    num: int
    gen: int


class Name(str):
    """A PDF name (``/Type``), told apart from a string."""


class _Exhausted(MediaFileError):
    """The parser walked more than its budget: the file is crafted (never skipped as one broken object)."""


class _Parser:
    """PDF objects from bytes: dictionaries, arrays, names, numbers, strings, references, booleans, null.
    Every byte walked is charged to one budget for the file (`WORK_PER_BYTE` times its size)."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.name = data, name
        self.budget = WORK_PER_BYTE * len(data) + 1_000_000

    def charge(self, n: int) -> None:
        self.budget -= n
        if self.budget < 0:
            raise _Exhausted(f"{self.name}: reading its objects walked more than {WORK_PER_BYTE} times its size: the "
                             "PDF is crafted to exhaust the server")

    def fail(self, what: str) -> MediaFileError:
        return MediaFileError(f"{self.name}: {what}: the PDF is damaged or crafted")

    def skip(self, i: int) -> int:
        """Past whitespace and comments (one regex: runs are skipped in C, not byte by byte)."""
        end = _SKIP.match(self.data, i).end()
        self.charge(end - i + 1)
        return end

    def value(self, i: int, depth: int = 0):
        if depth > MAX_NESTING:
            raise self.fail(f"objects nested more than {MAX_NESTING} deep")
        data = self.data
        i = self.skip(i)
        if i >= len(data):
            raise self.fail("an object runs past the end of the file")
        c = data[i:i + 1]
        if data.startswith(b"<<", i):
            out, i = {}, i + 2
            while True:
                i = self.skip(i)
                if data.startswith(b">>", i):
                    return out, i + 2
                key, i = self.value(i, depth + 1)
                if not isinstance(key, Name):
                    raise self.fail("a dictionary key is not a name")
                out[str(key)], i = self.value(i, depth + 1)
        if c == b"[":
            out, i = [], i + 1
            while True:
                i = self.skip(i)
                if data[i:i + 1] == b"]":
                    return out, i + 1
                if i >= len(data):
                    raise self.fail("an array runs past the end of the file")
                item, i = self.value(i, depth + 1)
                out.append(item)
        if c == b"/":
            j = i + 1
            while j < len(data) and data[j] not in _WS and data[j] not in _DELIM:
                j += 1
            return Name(data[i + 1:j].decode("latin-1")), j
        if c == b"(":
            level, j = 1, i + 1
            while level:
                m = _STRING_STOP.search(data, j)  # the next parenthesis or backslash, found in C
                if m is None:
                    self.charge(len(data) - i)
                    raise self.fail("a string runs past the end of the file")
                j = m.end()
                ch = data[j - 1]
                if ch == 0x5C:  # backslash: the next byte is escaped
                    j += 1
                    continue
                level += 1 if ch == 0x28 else -1
            self.charge(j - i)
            return data[i + 1:j - 1], j
        if c == b"<":
            j = data.find(b">", i)
            self.charge((j if j >= 0 else len(data)) - i)
            if j < 0:
                raise self.fail("a hex string runs past the end of the file")
            return data[i + 1:j], j + 1
        m = _NUMBER.match(data, i)
        if m:
            text = m.group()
            # "n g R" is a reference: look ahead for a second integer and an R
            if b"." not in text:
                m2 = _REF_TAIL.match(data, m.end())
                if m2:
                    return Ref(int(text), int(m2.group(1))), m2.end()
                return int(text), m.end()
            return float(text), m.end()
        for word, val in ((b"true", True), (b"false", False), (b"null", None)):
            if data.startswith(word, i):
                return val, i + len(word)
        raise self.fail(f"unexpected bytes {data[i:i + 8]!r} at byte {i:,}")


def _objects(data: bytes, name: str) -> dict[int, object]:
    """Every object of the file by number, the object streams' too (the later definition wins)."""
    parser = _Parser(data, name)
    objects: dict[int, object] = {}
    streams: list[tuple[dict, int]] = []
    for count, m in enumerate(_OBJ.finditer(data)):
        if count > MAX_OBJECTS:
            raise parser.fail(f"more than {MAX_OBJECTS:,} objects")
        try:
            obj, end = parser.value(m.end())
        except _Exhausted:
            raise
        except (MediaFileError, IndexError, ValueError):
            continue  # "12 0 obj" inside a content stream or a broken object: not one the page tree needs
        objects[int(m.group(1))] = obj
        if isinstance(obj, dict) and obj.get("Type") == "ObjStm":
            streams.append((obj, end))
    if any(isinstance(o, dict) and "Encrypt" in o for o in objects.values()) or b"/Encrypt" in data[-4096:]:
        raise MediaFileError(f"{name} is encrypted: its pages cannot be read without the password; upload a copy "
                             "saved without encryption")
    budget = MAX_INFLATED
    for head, end in streams:
        raw = _stream_bytes(data, head, end, objects, parser)
        if head.get("Filter") not in ("FlateDecode", ["FlateDecode"]) or "DecodeParms" in head:
            continue  # only plain Flate object streams: others are left out, the tree then says what is missing
        inflater = zlib.decompressobj()
        try:
            body = inflater.decompress(raw, budget + 1)
        except zlib.error:
            raise parser.fail("an object stream does not inflate") from None
        budget -= len(body)
        if budget < 0:
            raise MediaFileError(f"{name}: its object streams inflate to more than {MAX_INFLATED:,} bytes; a real "
                                 "PDF's page tree needs far less: the file is crafted to exhaust the server")
        _unpack_stream(body, head, objects, name)
    return objects


def _stream_bytes(data: bytes, head: dict, end: int, objects: dict, parser: _Parser) -> bytes:
    i = parser.skip(end)
    if not data.startswith(b"stream", i):
        raise parser.fail("an object stream has no data")
    i += 6
    i += 2 if data.startswith(b"\r\n", i) else 1
    length = head.get("Length")
    if isinstance(length, Ref):
        length = objects.get(length.num)
    if isinstance(length, int) and 0 <= length <= len(data) - i:
        return data[i:i + length]
    stop = data.find(b"endstream", i)
    if stop < 0:
        raise parser.fail("an object stream has no end")
    return data[i:stop]


def _unpack_stream(body: bytes, head: dict, objects: dict[int, object], name: str) -> None:
    n, first = head.get("N"), head.get("First")
    if not isinstance(n, int) or not isinstance(first, int) or not 0 <= n <= MAX_OBJECTS or first < 0:
        raise MediaFileError(f"{name}: an object stream's /N or /First is not a count: the PDF is damaged or crafted")
    numbers = body[:first].split()
    if len(numbers) < 2 * n:
        raise MediaFileError(f"{name}: an object stream lists fewer objects than its /N: the PDF is damaged")
    parser = _Parser(body, name)
    for k in range(n):
        try:
            num, offset = int(numbers[2 * k]), int(numbers[2 * k + 1])
            objects.setdefault(num, parser.value(first + offset)[0])
        except _Exhausted:
            raise
        except (MediaFileError, IndexError, ValueError):
            continue


def read_pdf_pages(data: bytes, name: str = "the PDF") -> tuple[tuple[float, float] | None, ...]:
    """Each page's (width, height) in points, in page order; None for a page without a readable MediaBox."""
    objects = _objects(data, name)
    catalogs = [o for o in objects.values() if isinstance(o, dict) and o.get("Type") == "Catalog"]
    if not catalogs:
        raise MediaFileError(f"{name}: no document catalog (/Type /Catalog) was found, so it has no page tree: "
                             "the PDF is damaged, encrypted in a way not seen, or not a PDF")
    root = catalogs[-1].get("Pages")

    def resolve(v):
        return objects.get(v.num) if isinstance(v, Ref) else v

    pages: list[tuple[float, float] | None] = []
    seen: set[int] = set()
    # An explicit stack, not recursion: a crafted tree cannot exhaust Python's stack.
    stack = [(root, None, 0)]
    while stack:
        ref, box, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise MediaFileError(f"{name}: its page tree is more than {MAX_DEPTH} levels deep: the PDF is crafted")
        if isinstance(ref, Ref):
            if ref.num in seen:
                raise MediaFileError(f"{name}: its page tree reaches object {ref.num} twice (a cycle or a shared "
                                     "node): the PDF is damaged or crafted")
            seen.add(ref.num)
        node = resolve(ref)
        if not isinstance(node, dict):
            raise MediaFileError(f"{name}: its page tree names object {getattr(ref, 'num', ref)}, which is missing "
                                 "or not a dictionary: the PDF is damaged")
        box = _box(resolve(node.get("MediaBox")), resolve) or box
        kids = resolve(node.get("Kids"))
        if node.get("Type") == "Page" or (kids is None and node.get("Type") != "Pages"):
            pages.append(box)
            if len(pages) > MAX_PAGES:
                raise MediaFileError(f"{name} has more than {MAX_PAGES:,} pages: no model reads that many in one "
                                     "request; split the document")
            continue
        if not isinstance(kids, list):
            raise MediaFileError(f"{name}: a /Pages node has no /Kids list: the PDF is damaged")
        for kid in reversed(kids):  # the stack pops the first kid first: pages keep their order
            stack.append((kid, box, depth + 1))
        if len(stack) > MAX_PAGES * 2:
            raise MediaFileError(f"{name}: its page tree lists more than {MAX_PAGES:,} pages: split the document")
    if not pages:
        raise MediaFileError(f"{name}: its page tree holds no page")
    return tuple(pages)


def _box(value, resolve) -> tuple[float, float] | None:
    if not isinstance(value, list) or len(value) != 4:
        return None
    nums = [resolve(v) for v in value]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in nums):
        return None
    width, height = abs(nums[2] - nums[0]), abs(nums[3] - nums[1])
    return (width, height) if width > 0 and height > 0 else None
