"""GGUF files (llama.cpp, Ollama, LM Studio): the header and its key-value metadata, nothing else.

The published format (ggml's ``docs/gguf.md``; the ``gguf`` Python package by
the llama.cpp authors reads it the same way)::

    "GGUF"  version: u32 (2 or 3)  tensor_count: u64  kv_count: u64
    kv_count times:  key: string  value_type: u32  value
    ... tensor infos, padding, tensor data (never read here)

    string = length: u64, UTF-8 bytes
    value types: 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool, 8 string,
                 9 array (item type: u32, count: u64, items), 10 u64, 11 i64, 12 f64

A model's tokenizer lives entirely in that metadata (``tokenizer.ggml.model``,
``.tokens``, ``.scores``, ``.merges`` ...), so `read_gguf` stops after the last
key: the first megabytes of a 40 GB model file are enough (``head -c 32M
model.gguf > model-header.gguf``, as the upload page says), and a file cut inside the metadata is refused
naming the key it stops in.  Files written big-endian (a version whose low 16
bits are zero when read little-endian, as the ``gguf`` package checks) are read
too.

**Why our own reader and not the ``gguf`` package.**  Measured on llama.cpp's
``ggml-vocab-gemma-4.gguf`` (262,144 tokens and 514,906 merges, 15.8 MB) on
this shared 2-core machine: this module reads the file and its metadata in
0.5-1.0 s; ``gguf`` 0.19.0's ``GGUFReader`` took 87-94 s to build its fields
(several numpy views for every one of the 777,050 strings) before one string
was turned into a Python ``str``.  It also needs numpy and memory-maps the
whole file expecting its tensors, while the engine runs on the standard
library.  Every key and value this reader returns was compared with
``gguf``'s on all 19 vocab files of llama.cpp's test set: no difference.

**Bounded.**  Every count is checked against the bytes that are left before
anything is allocated (each array item and string takes at least one byte, a
string's length field eight), and against `MAX_ARRAY_ITEMS` / `MAX_STRING_BYTES`
/ `MAX_KV`: a header claiming 2**40 tokens is refused at once.  Arrays of arrays
are refused (no tokenizer key uses them, and each level would multiply the
claim).  Numeric arrays become `array.array` (4 bytes a score), string arrays
lists of `str`.

**Only the keys asked for.**  A header is a whole model's metadata: its
architecture, training settings, sometimes a copy of the tokenizer.json as one
string, and any key a converter chose to add.  `read_gguf` with `keys` decodes
only those keys and *skips* every other value as it walks past it (a string's
bytes, an array's items: lengths read, nothing built), so an unused array of
3.9 million strings costs a walk, not the 500 MB its Python strings would take.
Each kept key has a `KeyLimit` -- the most items and bytes it may hold --
checked before its value is built (`TokenizerTooLargeError`).  Every key's size
is recorded in `GgufHeader.sizes`; with ``values=False`` nothing at all is
built, which is how `engine.sources.upload_memory` weighs a file before it is read.
"""
from __future__ import annotations

import struct
import sys
from array import array
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Mapping

from .limits import TokenizerTooLargeError, check_count

__all__ = ["GgufError", "GgufHeader", "KeyLimit", "read_gguf", "is_gguf", "MAX_ARRAY_ITEMS", "MAX_STRING_BYTES",
           "MAX_KV"]

MAGIC = b"GGUF"
VERSIONS = (2, 3)  # version 1 (2023) used 32-bit lengths; llama.cpp itself no longer reads it
MAX_KV = 100_000  # real files: a few dozen keys
MAX_ARRAY_ITEMS = 4_000_000  # real: 262,144 tokens (Gemma), about 500,000 merges
MAX_STRING_BYTES = 64 << 20  # one string (a chat template is tens of kB; a tokenizer.json copy a few MB)

UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)
TYPE_NAMES = ("u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64")
# scalar type -> (struct code, array typecode, size)
_SCALARS = {UINT8: ("B", "B", 1), INT8: ("b", "b", 1), UINT16: ("H", "H", 2), INT16: ("h", "h", 2),
            UINT32: ("I", "I", 4), INT32: ("i", "i", 4), FLOAT32: ("f", "f", 4), BOOL: ("?", "B", 1),
            UINT64: ("Q", "Q", 8), INT64: ("q", "q", 8), FLOAT64: ("d", "d", 8)}


class GgufError(ValueError):
    """A GGUF file that is not one, is cut inside its metadata, or claims more than it holds."""

    def __init__(self, source: str, what: str, fix: str = "") -> None:
        super().__init__(f"{source}: {what}. {fix or 'The file is not a GGUF file or is damaged; download it again'}")


@dataclass(frozen=True)
class KeyLimit:
    """The most one kept key may hold: `items` (1 for a scalar or a string) and `nbytes` (a string's UTF-8 bytes,
    an array's bytes of values or of all its strings); `what` names the items and `real` says what real files
    hold, for the message."""

    items: int
    nbytes: int
    what: str = "items"
    real: str = "real files hold far less"


@dataclass(frozen=True)
class GgufHeader:
    """The header of a GGUF file: its version, tensor count, the metadata in file order (the kept keys'
    values), every key's type and size, and where the metadata ends (the bytes a cut copy needs)."""

    version: int
    tensor_count: int
    metadata: dict[str, Any]
    types: dict[str, str]  # key -> "string", "u32", "array[string]" ... (every key, kept or skipped)
    metadata_end: int
    byte_order: str = "<"
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)  # key -> (items, bytes of its value)

    def get(self, key: str, default: Any = None) -> Any:
        return self.metadata.get(key, default)


def is_gguf(data: bytes) -> bool:
    return data[:4] == MAGIC


class _Reader:
    def __init__(self, data: bytes | memoryview, source: str) -> None:
        self.raw = bytes(data)  # slicing bytes is the fastest way to cut out many small strings
        self.data = memoryview(self.raw)
        self.n = len(self.data)
        self.pos = 0
        self.source = source
        self.order = "<"
        self.key = "the header"

    def fail(self, what: str, fix: str = "") -> GgufError:
        return GgufError(self.source, what, fix)

    def need(self, size: int) -> None:
        if self.pos + size > self.n:
            raise self.fail(
                f"the file ends at byte {self.n:,}, inside {self.key} (it needs {self.pos + size - self.n:,} more bytes)",
                "A cut copy must hold the whole metadata: cut it bigger (e.g. `head -c 38M model.gguf > "
                "model-header.gguf`, under the 40 MB upload limit) or use the whole file")

    def scalar(self, kind: int) -> Any:
        code, _, size = _SCALARS[kind]
        self.need(size)
        (value,) = struct.unpack_from(self.order + code, self.data, self.pos)
        self.pos += size
        return value

    def u32(self) -> int:
        return self.scalar(UINT32)

    def u64(self) -> int:
        return self.scalar(UINT64)

    def count(self, claimed: int, least: int, limit: int, what: str) -> int:
        """`claimed` items of at least `least` bytes each: refused if the file cannot hold them, or past `limit`."""
        if claimed > limit:
            raise self.fail(f"{self.key} claims {claimed:,} {what}; the limit is {limit:,}",
                            "The file is damaged or built to exhaust memory")
        if claimed * least > self.n - self.pos:
            raise self.fail(f"{self.key} claims {claimed:,} {what} but only {self.n - self.pos:,} bytes follow",
                            "The file is damaged, or cut inside its metadata: cut it bigger or use the whole file")
        return claimed

    def string(self, length: int | None = None) -> str:
        """A string (its length field read here unless `length` was read already)."""
        if length is None:
            length = self.count(self.u64(), 1, MAX_STRING_BYTES, "bytes of string")
        raw = self.data[self.pos : self.pos + length]
        self.pos += length
        try:
            return str(raw, "utf-8")
        except UnicodeDecodeError as err:
            raise self.fail(f"a string in {self.key} is not UTF-8 ({err.reason} at byte {self.pos - length + err.start:,})"
                            ) from None

    def strings(self, count: int, limit: KeyLimit | None = None) -> list[str]:
        """`count` strings in a row: the tokens and merges (hundreds of thousands) -- the hot loop.

        Lengths are read without a check per item: a length past the end only makes the slice short,
        and the position past the end is caught once, after the loop (`count` is already bounded).
        Their bytes in all are checked against `limit` before any is decoded.
        """
        data, pos = self.raw, self.pos
        unpack = struct.Struct(self.order + "Q").unpack_from
        parts: list[bytes] = []
        add = parts.append
        try:
            for _ in range(count):
                (length,) = unpack(data, pos)
                pos += 8
                add(data[pos : pos + length])
                pos += length
        except struct.error:
            pos = self.n + 1
        if pos > self.n:
            self.need(pos - self.pos)
        self.admit(limit, count, pos - self.pos - 8 * count)
        self.pos = pos
        try:  # one decode for all: NUL-free strings joined by NUL and split again; else one by one
            out = b"\x00".join(parts).decode("utf-8").split("\x00")
            if len(out) == count:
                return out
        except UnicodeDecodeError:
            pass
        out = []
        for k, part in enumerate(parts):
            try:
                out.append(part.decode("utf-8"))
            except UnicodeDecodeError as err:
                raise self.fail(f"item {k:,} of {self.key} is not UTF-8 ({err.reason})") from None
        return out

    def skip_strings(self, count: int) -> int:
        """Walk past `count` strings without building any (a skipped key); their bytes in all."""
        data, pos = self.raw, self.pos
        unpack = struct.Struct(self.order + "Q").unpack_from
        try:
            for _ in range(count):
                pos += 8 + unpack(data, pos)[0]
        except struct.error:  # a length field past the end
            pos = self.n + 1
        if pos > self.n:
            self.need(pos - self.pos)
        nbytes, self.pos = pos - self.pos - 8 * count, pos
        return nbytes

    def admit(self, limit: KeyLimit | None, items: int, nbytes: int | None) -> None:
        """`TokenizerTooLargeError` for a kept key's value past its `limit` (None: no limit but the file's)."""
        if limit is None:
            return
        check_count(items, limit.what, self.source, limit.items, real=limit.real)
        if nbytes is not None and nbytes > limit.nbytes:
            raise TokenizerTooLargeError(
                f"{self.source}: {self.key} holds {nbytes:,} bytes; the limit is {limit.nbytes:,} ({limit.real}). "
                "The file may be corrupt or built to exhaust memory. Use a smaller tokenizer.")

    def value(self, kind: int, keep: bool = True, limit: KeyLimit | None = None) -> tuple[Any, str, int, int]:
        """The value of type `kind` at the position -- or None, walked past, when not `keep` -- its type's
        name, its items and its bytes."""
        if kind in _SCALARS:
            value = self.scalar(kind)
            size = _SCALARS[kind][2]
            self.admit(limit, 1, size)
            return value, TYPE_NAMES[kind], 1, size
        if kind == STRING:
            length = self.count(self.u64(), 1, MAX_STRING_BYTES, "bytes of string")
            self.admit(limit, 1, length)
            if keep:
                return self.string(length), "string", 1, length
            self.pos += length
            return None, "string", 1, length
        if kind != ARRAY:
            raise self.fail(f"{self.key} has value type {kind}, which GGUF does not define (0-12)")
        item = self.u32()
        if item == ARRAY:
            raise self.fail(f"{self.key} is an array of arrays; no tokenizer key uses one and it is refused "
                            "before anything is allocated")
        if item not in _SCALARS and item != STRING:
            raise self.fail(f"{self.key} is an array of value type {item}, which GGUF does not define (0-12)")
        if item == STRING:
            count = self.count(self.u64(), 8, MAX_ARRAY_ITEMS, "strings")
            self.admit(limit, count, None)
            if not keep:
                return None, "array[string]", count, self.skip_strings(count)
            start = self.pos
            strings = self.strings(count, limit)
            return strings, "array[string]", count, self.pos - start - 8 * count
        _, typecode, size = _SCALARS[item]
        count = self.count(self.u64(), size, MAX_ARRAY_ITEMS, f"{TYPE_NAMES[item]} values")
        self.admit(limit, count, count * size)
        name = f"array[{TYPE_NAMES[item]}]"
        if not keep:
            self.pos += count * size
            return None, name, count, count * size
        values = array(typecode)
        values.frombytes(self.data[self.pos : self.pos + count * size])
        self.pos += count * size
        if (self.order == "<") != (sys.byteorder == "little") and size > 1:
            values.byteswap()
        if item == BOOL:
            return [bool(v) for v in values], name, count, count
        return values, name, count, count * size


def read_gguf(data: bytes | memoryview | BinaryIO, source: str = "<gguf>", keys: Mapping[str, KeyLimit | None] | None = None,
              *, values: bool = True) -> GgufHeader:
    """The header and metadata of a GGUF file (its bytes, or a binary file object read whole).

    `keys`: decode only these keys' values, each within its `KeyLimit` (None: no limit but the file's); every
    other value is walked past.  None: decode every key.  With `values` False no value is decoded at all (the
    limits are still checked): the header's types and sizes only."""
    if hasattr(data, "read"):
        data = data.read()  # type: ignore[union-attr]
    r = _Reader(data, source)  # type: ignore[arg-type]
    r.need(4)
    if bytes(r.data[:4]) != MAGIC:
        raise r.fail(f"it does not start with 'GGUF' (it starts with {bytes(r.data[:4])!r})",
                     "Upload a .gguf model file (llama.cpp, Ollama's blobs, LM Studio)")
    r.pos = 4
    r.need(4)
    version = struct.unpack_from("<I", r.data, 4)[0]
    if version & 0xFFFF == 0:  # written big-endian, as the gguf package detects it
        r.order = ">"
        version = struct.unpack_from(">I", r.data, 4)[0]
    r.pos = 8
    if version not in VERSIONS:
        raise r.fail(f"GGUF version {version} is not read here (versions 2 and 3 are)",
                     "Convert the model again with a recent llama.cpp (convert_hf_to_gguf.py)")
    tensor_count = r.u64()
    kv_count = r.count(r.u64(), 8 + 4 + 1, MAX_KV, "metadata keys")  # a key: its length, type, a value of >= 1 byte
    metadata: dict[str, Any] = {}
    types: dict[str, str] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for k in range(kv_count):
        r.key = f"metadata key {k:,}"
        key = r.string()
        r.key = f"metadata key {key!r}"
        kind = r.u32()
        if key in types:
            raise r.fail(f"{r.key} appears twice")
        wanted = keys is None or key in keys
        value, type_name, items, nbytes = r.value(kind, values and wanted, keys.get(key) if keys is not None else None)
        if values and wanted:
            metadata[key] = value
        types[key] = type_name
        sizes[key] = (items, nbytes)
    return GgufHeader(version, tensor_count, metadata, types, r.pos, r.order, sizes)
