"""SentencePiece's ``.model`` file: a protobuf ``ModelProto``, read by a small reader of our own.

A ``.model`` file is one serialized ``sentencepiece.ModelProto`` (see
``sentencepiece_model.proto`` in google/sentencepiece): a list of pieces
(string, score, type), a ``TrainerSpec`` (model type, byte fallback, special
ids ...) and a ``NormalizerSpec`` (dummy prefix, whitespace rules, an optional
precompiled character map).

Why our own reader and not the ``protobuf`` package: the engine's runtime
requirements are ``regex`` and the standard library.  ``protobuf`` happens to
be installed with streamlit, but the engine must work without streamlit, and
the generated ``sentencepiece_model_pb2`` module ships with the
``sentencepiece`` package, which is only a test dependency here.  The wire
format is small (varints, 32/64-bit fixed fields, length-delimited fields) and
we only need a handful of fields, so a ~150-line reader is easier to check than
a dependency.  Unknown fields are skipped, as protobuf does; proto2 defaults
apply to absent fields (e.g. ``add_dummy_prefix`` is true unless the file says
otherwise).  The tests compare what this reader returns with the ``protobuf``
package's parse of the same file.

Every malformed input raises `ValueError` naming the file, the field and what
to do about it; `check_runnable` also refuses, the same way, models that parse
but that the engine cannot encode exactly (Word and Char models, a denormalizer's
character map, a Unigram model with NaN scores).
"""
from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field

from ...errors import UnsupportedModelError, WrongFileKindError
from ...formats.file_kinds import KIND_TITLES, sniff
from ...formats.limits import (MAX_TOKEN_BYTES, MAX_TOKENS, MAX_TOTAL_TOKEN_BYTES, TokenizerTooLargeError, check_count,
                               check_piece_chars)

# ModelProto.SentencePiece.Type
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
PIECE_TYPES = {NORMAL: "normal", UNKNOWN: "unknown", CONTROL: "control",
               USER_DEFINED: "user-defined", UNUSED: "unused", BYTE: "byte"}
# TrainerSpec.ModelType
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}

_FLOAT = struct.Struct("<f")
_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")


@dataclass(frozen=True)
class TrainerSpec:
    """The ``TrainerSpec`` fields that change how text is encoded (proto2 defaults)."""

    model_type: int = 1  # UNIGRAM
    vocab_size: int = 8000
    byte_fallback: bool = False
    split_by_whitespace: bool = True
    treat_whitespace_as_suffix: bool = False
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    pad_id: int = -1
    unk_surface: str = " \u2047 "


@dataclass(frozen=True)
class NormalizerSpec:
    """The ``NormalizerSpec`` fields (proto2 defaults)."""

    name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True


@dataclass(frozen=True)
class ModelProto:
    """A parsed ``.model`` file: ``pieces[i] = (piece, score, type)`` is token id i."""

    pieces: tuple[tuple[str, float, int], ...]
    trainer: TrainerSpec = field(default_factory=TrainerSpec)
    normalizer: NormalizerSpec = field(default_factory=NormalizerSpec)
    denormalizer: NormalizerSpec | None = None


class _Reader:
    """Protobuf wire format over a bytes buffer: (field number, wire type, value) triples."""

    def __init__(self, data: bytes, source: str, where: str) -> None:
        self.data = data
        self.source = source
        self.where = where

    def fail(self, what: str) -> ValueError:
        return ValueError(
            f"{self.source}: {self.where}: {what}. This is not a SentencePiece .model file "
            "(a serialized ModelProto), or it is truncated; re-export it with SentencePiece's trainer "
            "or use the tokenizer.model file shipped with the model"
        )

    def fields(self):
        data, pos, n = self.data, 0, len(self.data)
        while pos < n:
            key, pos = self._varint(pos)
            number, wire = key >> 3, key & 7
            if number == 0:
                raise self.fail("field number 0")
            if wire == 0:
                value, pos = self._varint(pos)
            elif wire == 2:
                length, pos = self._varint(pos)
                if pos + length > n:
                    raise self.fail(f"field {number} runs past the end of the data")
                value, pos = data[pos : pos + length], pos + length
            elif wire == 5:
                if pos + 4 > n:
                    raise self.fail(f"field {number} runs past the end of the data")
                value, pos = data[pos : pos + 4], pos + 4
            elif wire == 1:
                if pos + 8 > n:
                    raise self.fail(f"field {number} runs past the end of the data")
                value, pos = data[pos : pos + 8], pos + 8
            else:
                raise self.fail(f"field {number} has wire type {wire}, which this format never uses")
            yield number, wire, value

    def _varint(self, pos: int) -> tuple[int, int]:
        data, result, shift = self.data, 0, 0
        while True:
            if pos >= len(data):
                raise self.fail("a varint runs past the end of the data")
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if b < 0x80:
                return result, pos
            shift += 7
            if shift > 63:
                raise self.fail("a varint is longer than 10 bytes")


def _int32(value: int) -> int:
    """A varint read as a (two's complement, 64-bit) signed int32."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _text(value: object, reader: _Reader, name: str) -> str:
    if not isinstance(value, bytes):
        raise reader.fail(f"field {name} should be a string but has a numeric wire type")
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as err:
        raise reader.fail(f"field {name} is not valid UTF-8 ({err.reason} at byte {err.start})") from None


def _check_wire(wire: int, expected: int, reader: _Reader, name: str) -> None:
    if wire != expected:
        raise reader.fail(f"field {name} has wire type {wire}, expected {expected}")


def _piece(data: bytes, index: int, source: str) -> tuple[str, float, int]:
    reader = _Reader(data, source, f"pieces[{index}]")
    piece, score, kind = "", 0.0, NORMAL
    for number, wire, value in reader.fields():
        if number == 1:
            piece = _text(value, reader, "piece")
        elif number == 2:
            _check_wire(wire, 5, reader, "score")
            score = _FLOAT.unpack(value)[0]  # type: ignore[arg-type]
        elif number == 3:
            _check_wire(wire, 0, reader, "type")
            kind = value  # type: ignore[assignment]
            if kind not in PIECE_TYPES:
                raise reader.fail(f"type {kind} is not a piece type (1-6)")
    if not piece:
        raise reader.fail("the piece string is empty; every piece needs text")
    return piece, score, kind


_TRAINER_INTS = {3: "model_type", 4: "vocab_size", 40: "unk_id", 41: "bos_id", 42: "eos_id", 43: "pad_id"}
_TRAINER_BOOLS = {35: "byte_fallback", 22: "split_by_whitespace", 24: "treat_whitespace_as_suffix"}
_NORMALIZER_BOOLS = {3: "add_dummy_prefix", 4: "remove_extra_whitespaces", 5: "escape_whitespaces"}


def _trainer(data: bytes, source: str) -> TrainerSpec:
    reader = _Reader(data, source, "trainer_spec")
    values: dict[str, object] = {}
    for number, wire, value in reader.fields():
        if number in _TRAINER_INTS:
            _check_wire(wire, 0, reader, _TRAINER_INTS[number])
            values[_TRAINER_INTS[number]] = _int32(value)  # type: ignore[arg-type]
        elif number in _TRAINER_BOOLS:
            _check_wire(wire, 0, reader, _TRAINER_BOOLS[number])
            values[_TRAINER_BOOLS[number]] = bool(value)
        elif number == 44:
            values["unk_surface"] = _text(value, reader, "unk_surface")
    return TrainerSpec(**values)  # type: ignore[arg-type]


def _normalizer(data: bytes, source: str, where: str) -> NormalizerSpec:
    reader = _Reader(data, source, where)
    values: dict[str, object] = {}
    for number, wire, value in reader.fields():
        if number == 1:
            values["name"] = _text(value, reader, "name")
        elif number == 2:
            _check_wire(wire, 2, reader, "precompiled_charsmap")
            values["precompiled_charsmap"] = bytes(value)  # type: ignore[arg-type]
        elif number in _NORMALIZER_BOOLS:
            _check_wire(wire, 0, reader, _NORMALIZER_BOOLS[number])
            values[_NORMALIZER_BOOLS[number]] = bool(value)
    return NormalizerSpec(**values)  # type: ignore[arg-type]


def parse_model_proto(data: bytes, source: str = "<sentencepiece model>") -> ModelProto:
    """Parse a serialized ``ModelProto`` (the bytes of a ``.model`` file)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"{source}: expected the file's bytes, got {type(data).__name__}")
    data = bytes(data)
    found = sniff(data)
    if found.kind not in ("sentencepiece", "binary", "text"):  # e.g. Llama 3's tokenizer.model, a rank file
        raise WrongFileKindError(source, KIND_TITLES["sentencepiece"], found.title, found.how_to_upload())
    pieces, pos = _leading_pieces(data, source)
    reader = _Reader(data[pos:], source, "ModelProto")
    _count_other_pieces(reader, len(pieces), sum(map(len, (p for p, _, _ in pieces))), source)
    raw_pieces: list[bytes] = []
    trainer, normalizer, denormalizer = TrainerSpec(), NormalizerSpec(), None
    for number, wire, value in reader.fields():
        if number == 1:
            _check_wire(wire, 2, reader, "pieces")
            raw_pieces.append(value)  # type: ignore[arg-type]
        elif number == 2:
            _check_wire(wire, 2, reader, "trainer_spec")
            trainer = _trainer(value, source)  # type: ignore[arg-type]
        elif number == 3:
            _check_wire(wire, 2, reader, "normalizer_spec")
            normalizer = _normalizer(value, source, "normalizer_spec")  # type: ignore[arg-type]
        elif number == 5:
            _check_wire(wire, 2, reader, "denormalizer_spec")
            denormalizer = _normalizer(value, source, "denormalizer_spec")  # type: ignore[arg-type]
    pieces.extend(_piece(raw, len(pieces) + i, source) for i, raw in enumerate(raw_pieces))
    if not pieces:
        raise reader.fail("it has no pieces (field 1)")
    return ModelProto(tuple(pieces), trainer, normalizer, denormalizer)


def count_pieces(data: bytes, source: str = "<sentencepiece model>") -> int:
    """The pieces of a ``.model`` file, counted on its top-level fields without decoding one, within the limits
    `parse_model_proto` applies (`engine.sources.upload_memory` weighs a file so before it is read)."""
    reader = _Reader(memoryview(data), source, "ModelProto")  # a view: no field is copied out
    count = total = 0
    for number, wire, value in reader.fields():
        if number == 1 and wire == 2:
            count += 1
            if count > MAX_TOKENS:
                _too_many_pieces(count, source)
            total += len(value)
            _too_long(total, f"pieces[0..{count - 1}]", source, MAX_TOTAL_TOKEN_BYTES + 16 * MAX_TOKENS, "pieces in all")
    return count


def _too_many_pieces(count: int, source: str) -> None:
    check_count(count, "pieces (or more)", source, real="real SentencePiece models have at most about 256,000 pieces")


def _too_long(size: int, where: str, source: str, limit: int, what: str) -> None:
    if size > limit:
        raise TokenizerTooLargeError(
            f"{source}, {where}: {size:,} bytes of {what}; the limit is {limit:,} bytes. "
            "The file may be corrupt or built to exhaust memory. Use a smaller tokenizer.")


def _count_other_pieces(reader: _Reader, count: int, total: int, source: str) -> None:
    """Count the pieces the fast reader left (and add up their sizes) before any of them is kept:
    a file of millions of small pieces is refused after `MAX_TOKENS` of them, having built none."""
    for number, wire, value in reader.fields():
        if number == 1 and wire == 2:
            count += 1
            if count > MAX_TOKENS:
                _too_many_pieces(count, source)
            _too_long(len(value), f"pieces[{count - 1}]", source, MAX_TOKEN_BYTES + 16, "one piece")  # + score, type
            total += len(value)
            _too_long(total, f"pieces[0..{count - 1}]", source, MAX_TOTAL_TOKEN_BYTES, "pieces in all")


def _leading_pieces(data: bytes, source: str = "<sentencepiece model>") -> tuple[list[tuple[str, float, int]], int]:
    """The pieces at the start of the file, read fast while they have the usual layout.

    A trained model writes its pieces first, each as ``0A len 0A n <utf-8> 15
    <float32> [18 type]`` with one-byte lengths.  Finding the offsets with
    plain indexing, then decoding all texts and all scores in one call each,
    loads 32k pieces several times faster than the generic field loop.  At the
    first piece with another layout this stops and returns where, and the
    generic reader (which names the field of any error) takes over.
    """
    starts: list[int] = []  # where each piece's field starts: one cheap loop, checks below in bulk
    pos, n = 0, len(data)
    while pos + 1 < n and data[pos] == 0x0A and data[pos + 1] < 0x80:
        starts.append(pos)
        pos += 2 + data[pos + 1]
        if len(starts) > MAX_TOKENS:  # counted while scanning: refused before any piece is decoded
            _too_many_pieces(len(starts), source)
    ends = starts[1:] + [pos]
    if pos > n:
        del starts[-1], ends[-1]
    # the inner length byte (a piece too short to hold one ends at its end); every index below stays
    # inside the piece's own field, so a truncated last piece goes to the generic reader, which names it
    text_ends = [p + 4 + data[p + 3] if p + 4 <= e else e for p, e in zip(starts, ends)]
    ok = [
        e - p >= 4 and data[p + 2] == 0x0A and 0 < data[p + 3] < 0x80 and (e - t == 5 or e - t == 7) and data[t] == 0x15
        and (e - t == 5 or (data[t + 5] == 0x18 and data[t + 6] in PIECE_TYPES))
        for p, t, e in zip(starts, text_ends, ends)
    ]
    count = ok.index(False) if False in ok else len(ok)
    pos = ends[count - 1] if count else 0
    spans = [x for p, t in zip(starts[:count], text_ends) for x in (p + 4, t)]
    _too_long(sum(spans[1::2]) - sum(spans[::2]), "pieces", source, MAX_TOTAL_TOKEN_BYTES, "pieces in all")
    kinds = [NORMAL if e - t == 5 else data[t + 6] for t, e in zip(text_ends[:count], ends)]
    raw = [data[a:b] for a, b in zip(spans[::2], spans[1::2])]
    try:
        texts: list[str] | None = b"\x00".join(raw).decode("utf-8").split("\x00")  # a NUL in a piece adds a part
    except UnicodeDecodeError:
        texts = None
    if texts is None or len(texts) != count:  # rare: decode one by one up to the first bad piece
        texts = []
        for piece in raw:
            try:
                texts.append(piece.decode("utf-8"))
            except UnicodeDecodeError:
                break
        if len(texts) < count:
            pos = spans[2 * len(texts)] - 4  # the generic reader re-reads the bad piece and names the error
            count = len(texts)
    scores = struct.unpack(f"<{count}f", b"".join([data[e + 1 : e + 5] for e in spans[1 : 2 * count : 2]]))
    pieces = list(zip(texts, scores, kinds[:count]))
    return pieces, pos


def check_scores(pieces: tuple[tuple[str, float, int], ...], source: str) -> None:
    """Refuse a Unigram model with a score that is not a finite number (NaN or infinite): no path could
    be compared with another, and SentencePiece's result would depend on the order of comparisons."""
    for i, (piece, score, kind) in enumerate(pieces):
        if kind in (NORMAL, USER_DEFINED) and not math.isfinite(score):
            raise ValueError(f"{source}: pieces[{i}] {piece!r} has the score {score}; a Unigram model needs finite "
                             "scores (log-probabilities). Re-train or re-export the model")


def check_piece_lengths(model: ModelProto, source: str) -> None:
    """Refuse (`TokenizerTooLargeError`) a piece past `MAX_PIECE_CHARS` that is matched by walking the text:
    any piece a Unigram lattice holds (normal, user-defined, unused: ``unigram.UnigramModel.table``), and
    the user-defined symbols of any model (cut out of the text before the model runs).  sentencepiece
    loads longer pieces, but its trainer makes pieces of at most 16 characters by default and refuses a
    ``max_sentencepiece_length`` past 512; control, unknown and byte pieces are never matched."""
    walked = (NORMAL, USER_DEFINED, UNUSED) if model.trainer.model_type == 1 else (USER_DEFINED,)
    index = [i for i, (_, _, kind) in enumerate(model.pieces) if kind in walked]
    check_piece_chars([model.pieces[i][0] for i in index], source, lambda k: f"pieces[{index[k]}]",
                      "a piece a Unigram model matches against the text" if model.trainer.model_type == 1
                      else "a user-defined symbol")


def check_runnable(model: ModelProto, source: str) -> None:
    """Refuse, with the reason and the fix, a model our SentencePiece encoder cannot encode exactly.

    The checks of ``model_interface.cc`` (one ``<unk>``, unique pieces, 256
    byte pieces when ``byte_fallback``), finite scores for Unigram, pieces the
    text is matched against no longer than `MAX_PIECE_CHARS` (`check_piece_lengths`),
    plus what this engine leaves out: Word and Char models, and a denormalizer's
    character map (decoding rules).  A normalizer's ``precompiled_charsmap``
    is checked when it is parsed (`engine.formats.charsmap`).
    """
    trainer = model.trainer
    if trainer.model_type not in (1, 2):
        title = {3: "Word model", 4: "Char model"}.get(trainer.model_type, f"model of type {trainer.model_type}")
        raise UnsupportedModelError(
            source, f"this is a SentencePiece {title} (trainer_spec.model_type {trainer.model_type}): not supported; "
                    "SentencePiece Unigram and BPE models are",
            "use a SentencePiece Unigram or BPE .model file (T5, ALBERT, XLM-R, Llama 2, Mistral v1-v3 style)")
    if model.denormalizer is not None and model.denormalizer.precompiled_charsmap:
        raise ValueError(f"{source}: denormalizer_spec.precompiled_charsmap is set; decoding rules are not supported. "
                         "Use a model without a denormalizer")
    if trainer.model_type == 1:
        check_scores(model.pieces, source)
    check_piece_lengths(model, source)
    strings = [p for p, _, _ in model.pieces]
    types = [t for _, _, t in model.pieces]
    if "" in strings:  # model_interface.cc: "piece must not be empty."
        raise ValueError(f"{source}: pieces[{strings.index('')}] is empty; sentencepiece refuses a model with an "
                         "empty piece. Re-train or re-export the model")
    reserved = {p for p, t in zip(strings, types) if t in (CONTROL, UNKNOWN, BYTE)}
    normal = set(strings) - reserved
    if len(reserved) + len(normal) != len(strings):
        seen: dict[str, int] = {}
        for i, (piece, kind) in enumerate(zip(strings, types)):
            if piece in seen and (kind in (CONTROL, UNKNOWN, BYTE)) == (types[seen[piece]] in (CONTROL, UNKNOWN, BYTE)):
                raise ValueError(f"{source}: pieces[{i}] {piece!r} repeats pieces[{seen[piece]}]; "
                                 "every piece must be unique")
            if piece in seen:
                raise ValueError(f"{source}: pieces[{i}] {piece!r} is both a special (control/unknown/byte) piece "
                                 "and a normal one; SentencePiece cannot encode such a model. Rename one of them")
            seen[piece] = i
    unknown = types.count(UNKNOWN)
    byte_seen = [False] * 256
    for i, (piece, kind) in enumerate(zip(strings, types)):
        if kind == NORMAL:
            continue
        if kind in (CONTROL, UNKNOWN) and len(piece) == 1:
            raise ValueError(f"{source}: pieces[{i}] is the one-character special piece {piece!r}; SentencePiece "
                             "fails on any text holding that character. Rename the piece")
        if kind == BYTE:
            m = _BYTE_PIECE.fullmatch(piece)
            if m is None:
                raise ValueError(f"{source}: pieces[{i}] {piece!r} has type BYTE but is not of the form <0xXX>")
            if not trainer.byte_fallback:
                raise ValueError(f"{source}: pieces[{i}] is a byte piece but trainer_spec.byte_fallback is false")
            byte_seen[int(m.group(1), 16)] = True
    if unknown != 1:
        raise ValueError(f"{source}: the model has {unknown} pieces of type UNKNOWN; it needs exactly one (<unk>)")
    if trainer.byte_fallback and not all(byte_seen):
        raise ValueError(f"{source}: trainer_spec.byte_fallback is true but the 256 byte pieces <0x00>..<0xFF> "
                         f"are incomplete ({sum(byte_seen)} found)")
