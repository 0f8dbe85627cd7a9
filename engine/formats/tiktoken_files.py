"""Vocabulary file formats: reading, checking and writing.

Two formats hold the same thing, a map from token bytes to rank (= token id):

* tiktoken's ``.tiktoken`` files: one ``<base64 bytes> <rank>`` line per token.
* GPT-2's "data gym" pair: ``encoder.json`` (printable token -> id) and
  ``vocab.bpe`` (merges, one ``left right`` pair per line, in rank order),
  both written with GPT-2's byte <-> printable-character table.

Every loader checks its input and raises `ValueError` naming the file, the
line and what is wrong, so a user's upload gets a message, not a traceback.
Shipped files are also checked against a sha256 before use.

Two layers: ``parse_*`` / ``dump_*`` work on bytes (an upload, a shipped
file); tiktoken's `load_tiktoken_bpe`, `data_gym_to_mergeable_bpe_ranks` and
`dump_tiktoken_bpe` take paths, with the same names and arguments.  The
engine never downloads: those accept local paths (``.gz`` is unpacked) and
say so for a URL.
"""
from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import itertools
import json
import os
import re
from pathlib import Path

from ..tokenizer.gpt2_bytes import BYTE_TO_CHAR, CHAR_TO_BYTE, OUTSIDE_TABLE_OR_SPACE, TO_LATIN1, decode_printable
from .json_limits import load_json_bounded, scan_json
from .limits import (MAX_MERGE_LINE, MAX_SPECIAL_TOKENS, MAX_TOKEN_BYTES, MAX_TOKENS, MAX_TOTAL_TOKEN_BYTES,
                     TokenBudget, check_count, check_line_length, check_special_tokens_size, check_token_id, count_lines)

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
# The longest line a rank file can need: the longest token in base64, a space, a rank, room for stray blanks.
MAX_RANK_LINE = 4 * ((MAX_TOKEN_BYTES + 2) // 3) + 64
_B64_AND_SPACE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= \t\r\n"


def read_data_file(filename: str, expected_sha256: str | None) -> bytes:
    """Read a file shipped in ``engine/data`` (gunzipped if ``.gz``) and check its sha256."""
    path = DATA_DIR / filename
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"vocabulary file {path} is missing; reinstall the engine package") from None
    data = gzip.decompress(raw) if filename.endswith(".gz") else raw
    if expected_sha256 is not None:
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected_sha256:
            raise ValueError(
                f"{path}: sha256 is {actual}, expected {expected_sha256}; the file is corrupt or was replaced"
            )
    return data


def _check_dense(ranks: dict[bytes, int], source: str) -> None:
    """Ranks must be 0..n-1 with no gap (ids index a table)."""
    if not ranks:
        raise ValueError(f"{source}: no tokens found")
    values = sorted(ranks.values())
    for expected, value in enumerate(values):
        if value != expected:
            raise ValueError(f"{source}: ranks have a gap: rank {expected} is missing (next is {value})")


def parse_natural(text: str, source: str, lineno: int, what: str) -> int:
    """A non-negative integer field of a file, or ValueError naming the file, line and field."""
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{source}, line {lineno}: {what} {text[:20]!r} is not an integer") from None
    if value < 0:
        raise ValueError(f"{source}, line {lineno}: {what} {value} is negative")
    return value


def parse_tiktoken_bpe(data: bytes | str, source: str = "<tiktoken file>") -> dict[bytes, int]:
    """Parse tiktoken's format: one ``<base64> <rank>`` per line, ranks 0..n-1.

    A fast pass handles well-formed files (the shipped ones load in a few
    tens of milliseconds); if it finds anything wrong, the careful pass
    re-reads the file line by line to say exactly what and where.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    # every line end tiktoken's splitlines knows (\n, \r\n, a lone \r): a \r-only file is as many tokens
    n_lines = check_rank_lines(data, source)
    try:
        # One space a line (else the careful pass names the line): a line of millions of fields is never split.
        plain = data.count(b" ") == n_lines and b"\t" not in data
        lines = data.split() if plain else []
        # Only the base64 alphabet, digits and whitespace: then plain a2b_base64 cannot skip junk.
        if plain and not data.translate(None, _B64_AND_SPACE):
            ranks = dict(zip(map(binascii.a2b_base64, lines[::2]), map(int, lines[1::2])))
            n = len(ranks)
            if n and max(map(len, ranks)) <= MAX_TOKEN_BYTES and len(lines) == 2 * n and data.count(b"\n") + (not data.endswith(b"\n")) == n and b"" not in ranks:
                values = list(ranks.values())
                if values == list(range(n)):  # the usual case: ranks in file order
                    return ranks
                distinct = set(values)
                if len(distinct) == n and min(distinct) == 0 and max(distinct) == n - 1:
                    return ranks
    except (binascii.Error, ValueError):
        pass
    return _parse_tiktoken_bpe_checked(data, source)


def check_rank_lines(data: bytes, source: str) -> int:
    """A rank file's lines counted and its longest measured on the bytes, before it is split (splitting,
    decoding and base64-decoding a 39 MB line cost over 200 MB only to find its token too long): the count."""
    n_lines = count_lines(data)
    check_count(n_lines, "lines (tokens)", source)
    check_line_length(data, MAX_RANK_LINE, source, f"a '<base64 token> <rank>' line of the longest token allowed "
                      f"({MAX_TOKEN_BYTES:,} bytes) needs; a rank file has one token per line")
    return n_lines


def check_merge_lines(data: bytes, source: str, limit: int = MAX_TOKENS,
                      real: str = "the largest real vocabularies have about 200,000 tokens") -> int:
    """A merges file's (vocab.bpe, merges.txt) lines counted and its longest measured on the bytes, before it is
    decoded: the count."""
    n_lines = count_lines(data)
    check_count(n_lines, "merge lines", source, limit, real=real)
    check_line_length(data, MAX_MERGE_LINE, source, "a merge of the two longest tokens allowed needs")
    return n_lines


def _parse_tiktoken_bpe_checked(data: bytes, source: str) -> dict[bytes, int]:
    """Line-by-line parse that raises ValueError naming the line and the problem."""
    ranks: dict[bytes, int] = {}
    seen_ranks: dict[int, int] = {}
    budget = TokenBudget(source)
    for lineno, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split(None, 2)  # at most 3: a huge line of many fields is refused without splitting it all
        if len(fields) != 2:
            shown = line[:60].decode("utf-8", "replace")
            raise ValueError(f"{source}, line {lineno}: expected '<base64 token> <rank>', got {shown!r}")
        b64, rank_text = (f.decode("utf-8", "replace") for f in fields)
        if not b64.strip("="):
            # Padding alone is the empty token, as tiktoken's base64.b64decode reads it: OpenAI whisper's
            # multilingual.tiktoken gives rank 50256 the line "= 50256".  No merge makes it and no text
            # encodes to it; it decodes to nothing (engine.tokenizer.merges leaves it out of the merges).
            token = b""
        else:
            try:
                token = binascii.a2b_base64(b64.encode("ascii", "replace"), strict_mode=True)
            except (binascii.Error, ValueError):
                raise ValueError(f"{source}, line {lineno}: bad base64 {b64[:40]!r}") from None
        rank = parse_natural(rank_text, source, lineno, "rank")
        budget.add(len(token), f"line {lineno}")
        if token in ranks:
            raise ValueError(f"{source}, line {lineno}: duplicate token {token!r} (first seen with rank {ranks[token]})")
        if rank in seen_ranks:
            raise ValueError(f"{source}, line {lineno}: duplicate rank {rank} (first on line {seen_ranks[rank]})")
        ranks[token] = rank
        seen_ranks[rank] = lineno
    _check_dense(ranks, source)
    return ranks


def dump_tiktoken_bpe(ranks: dict[bytes, int], tiktoken_bpe_file: str | os.PathLike[str] | None = None) -> bytes:
    """Ranks in tiktoken's format (sorted by rank); also written to `tiktoken_bpe_file` when given,
    as tiktoken's ``dump_tiktoken_bpe(bpe_ranks, tiktoken_bpe_file)`` does."""
    if tiktoken_bpe_file is not None:
        data = dump_tiktoken_bpe(ranks)
        with open(tiktoken_bpe_file, "wb") as f:
            f.write(data)
        return data
    # the empty token is written "=" as whisper's file has it: its base64 is "", and a line " 50256" has one
    # field, which neither tiktoken nor `parse_tiktoken_bpe` reads back
    lines = [(base64.b64encode(tok) or b"=") + b" " + str(rank).encode()
             for tok, rank in sorted(ranks.items(), key=lambda kv: kv[1])]
    return b"\n".join(lines) + b"\n"


def parse_data_gym(
    vocab_bpe: bytes | str,
    encoder_json: bytes | str | None = None,
    *,
    vocab_source: str = "vocab.bpe",
    encoder_source: str = "encoder.json",
) -> dict[bytes, int]:
    """Ranks from GPT-2's ``vocab.bpe`` (+ optional ``encoder.json`` cross-check).

    Like tiktoken's `data_gym_to_mergeable_bpe_ranks`: the 256 single bytes come
    first in the printable table's order, then one token per merge line.
    """
    if isinstance(vocab_bpe, bytes):
        check_merge_lines(vocab_bpe, vocab_source)
        try:
            vocab_bpe = vocab_bpe.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{vocab_source}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    # Single bytes first: printable ones in byte order, then the rest (tiktoken's order).
    rank_to_byte = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    seen = set(rank_to_byte)
    rank_to_byte += [b for b in range(256) if b not in seen]
    ranks: dict[bytes, int] = {bytes([b]): i for i, b in enumerate(rank_to_byte)}

    check_count(count_lines(vocab_bpe), "merge lines", vocab_source)
    start = len(vocab_bpe.split("\n", 1)[0]) + 1 if vocab_bpe.startswith("#version") else 0
    bulk = _merge_lines_bulk(vocab_bpe[start:], ranks)
    if bulk is not None:
        ranks = bulk
    else:  # not the plain shape, or a check failed: the line loop names the line
        _merge_lines(vocab_bpe.split("\n"), 1 if start else 0, ranks, vocab_source)

    if encoder_json is not None:
        _check_encoder_json(ranks, encoder_json, encoder_source)
    return ranks


# the plain shape of vocab.bpe's merge lines: "left right" on each line, nothing else
_PLAIN_MERGE_LINES = re.compile(r"(?:\S+ \S+\n)*(?:\S+ \S+\n?)?")


def _merge_lines_bulk(body: str, ranks: dict[bytes, int]) -> dict[bytes, int] | None:
    """The merge lines of `body` added to `ranks` with a few whole-file string operations (about a
    third of the line loop's time: GPT-2's 50,000 lines are read on every cold start).

    None when the file is not the plain shape (only GPT-2 table characters, two fields a line) or a
    check fails (a merge of a token no earlier line made, a duplicate merge); `_merge_lines`, the
    line-by-line reference, then gives the error with its line number.
    """
    if OUTSIDE_TABLE_OR_SPACE.search(body) or not _PLAIN_MERGE_LINES.fullmatch(body):
        return None
    fields = body.split()
    # each table character is one byte, so the fields' lengths cut the translated whole
    data = "".join(fields).translate(TO_LATIN1).encode("latin-1")
    cuts = list(itertools.accumulate(map(len, fields), initial=0))
    parts = [data[a:b] for a, b in zip(cuts, cuts[1:])]
    lefts, rights = parts[0::2], parts[1::2]
    base = len(ranks)
    merged = [left + right for left, right in zip(lefts, rights)]
    if max(map(len, merged), default=0) > MAX_TOKEN_BYTES or sum(map(len, merged)) > MAX_TOTAL_TOKEN_BYTES:
        return None  # past a size limit
    out = dict(ranks)
    out.update(zip(merged, range(base, base + len(lefts))))
    if len(out) != base + len(lefts):
        return None  # a duplicate merge
    get, never = out.get, len(out)
    if any(get(left, never) >= base + i or get(right, never) >= base + i
           for i, (left, right) in enumerate(zip(lefts, rights))):
        return None  # a part not made by an earlier line
    return out


def _merge_lines(lines: list[str], start: int, ranks: dict[bytes, int], source: str) -> None:
    """Add one token per merge line to `ranks`, checking each line (errors name the line)."""
    budget = TokenBudget(source)
    for lineno, line in enumerate(lines[start:], start=start + 1):
        if not line.strip():
            continue
        fields = line.split(None, 2)  # at most 3: a huge line of many fields is refused without splitting it all
        if len(fields) != 2:
            raise ValueError(f"{source}, line {lineno}: expected two tokens 'left right', got {line[:60]!r}")
        try:
            left = decode_printable(fields[0])
            right = decode_printable(fields[1])
        except KeyError as exc:
            raise ValueError(f"{source}, line {lineno}: character {exc.args[0]!r} is not in GPT-2's byte table") from None
        for part, text in ((left, fields[0]), (right, fields[1])):
            if part not in ranks:
                raise ValueError(f"{source}, line {lineno}: merge of unknown token {text!r} (not made by an earlier line)")
        merged = left + right
        budget.add(len(merged), f"line {lineno}")
        if merged in ranks:
            raise ValueError(f"{source}, line {lineno}: duplicate merge {fields[0]!r} + {fields[1]!r}")
        ranks[merged] = len(ranks)


def parse_data_gym_with_specials(
    vocab_bpe: bytes | str, encoder_json: bytes | str, *, vocab_source: str = "vocab.bpe",
    encoder_source: str = "encoder.json",
) -> tuple[dict[bytes, int], dict[str, int]]:
    """`parse_data_gym`'s ranks and ``encoder.json``'s other entries: its special tokens (GPT-2's <|endoftext|>)."""
    ranks = parse_data_gym(vocab_bpe, vocab_source=vocab_source)
    encoder = _read_encoder_json(encoder_json, encoder_source, len(ranks))
    return ranks, _check_encoder_json(ranks, encoder, encoder_source)


def _read_encoder_json(encoder_json: bytes | str, source: str, n_ranks: int = MAX_TOKENS) -> dict[str, int]:
    """encoder.json's {token text: id}, its size and ids checked before any token is decoded.

    Its entries are vocab.bpe's `n_ranks` tokens plus at most `MAX_SPECIAL_TOKENS` special ones: counted
    on the bytes (one ':' per entry) before json.loads builds a dict of them.
    """
    entries = scan_json(encoder_json, source=source).values // 2  # a flat object: one ':' and one ',' per entry
    check_count(entries, "entries (or more)", source, n_ranks + MAX_SPECIAL_TOKENS,
                real=f"vocab.bpe makes {n_ranks:,} tokens, and encoder.json may add at most "
                     f"{MAX_SPECIAL_TOKENS:,} special ones")
    encoder = load_json_bounded(encoder_json, name=source)
    if not isinstance(encoder, dict):
        raise ValueError(f"{source}: expected a JSON object mapping token text to id")
    for key, value in encoder.items():
        if type(value) is not int or value < 0:
            raise ValueError(f"{source}: id of {key!r} is {value!r}, not a non-negative integer")
        check_token_id(value, source, f"token {key[:40]!r}")
    return encoder


def _check_encoder_json(ranks: dict[bytes, int], encoder: bytes | str | dict[str, int], source: str) -> dict[str, int]:
    """Check encoder.json against vocab.bpe's ranks; return its other entries (special tokens, by text)."""
    if not isinstance(encoder, dict):
        encoder = _read_encoder_json(encoder, source, len(ranks))
    # encoder.json also lists special tokens (e.g. <|endoftext|>): text that is no vocab.bpe token, with an id
    # past them.  Only ordinary ones are compared.
    decoded: dict[bytes, int] = {}
    specials: dict[str, int] = {}
    for key, value in encoder.items():
        try:
            token = decode_printable(key)
        except KeyError as exc:
            if value >= len(ranks):
                specials[key] = value
                continue
            raise ValueError(f"{source}: token {key!r} has character {exc.args[0]!r} outside GPT-2's byte table") from None
        if token not in ranks and value >= len(ranks):
            specials[key] = value
        else:
            decoded[token] = value
    check_special_tokens_size(specials, source, "special tokens (entries with ids past vocab.bpe's tokens)")
    for token, rank in ranks.items():
        if token not in decoded:
            raise ValueError(f"{source}: token {token!r} from vocab.bpe (rank {rank}) is missing")
        if decoded[token] != rank:
            raise ValueError(f"{source}: token {token!r} has id {decoded[token]}, but vocab.bpe gives rank {rank}")
    if len(decoded) != len(ranks):
        extra = next(t for t in decoded if t not in ranks)
        raise ValueError(f"{source}: token {extra!r} has id {decoded[extra]}, an id of vocab.bpe's tokens, but "
                         "vocab.bpe does not make it; give it an id past them or remove it")
    if len(set(specials.values())) != len(specials):
        seen: dict[int, str] = {}
        for key, value in specials.items():
            if value in seen:
                raise ValueError(f"{source}: {key!r} and {seen[value]!r} share the id {value}; give each its own")
            seen[value] = key
    return specials


def dump_data_gym(ranks: dict[bytes, int], merges: dict[tuple[int, int], int]) -> tuple[str, str]:
    """Write (vocab.bpe, encoder.json) for ranks whose merges are known."""
    by_rank = {r: t for t, r in ranks.items()}
    printable = lambda tok: "".join(BYTE_TO_CHAR[b] for b in tok)  # noqa: E731
    lines = ["#version: 0.2"]
    for (left, right), _ in sorted(merges.items(), key=lambda kv: kv[1]):
        lines.append(f"{printable(by_rank[left])} {printable(by_rank[right])}")
    encoder = {printable(tok): rank for tok, rank in sorted(ranks.items(), key=lambda kv: kv[1])}
    return "\n".join(lines) + "\n", json.dumps(encoder, ensure_ascii=False)


# ------------------------------------------------------- tiktoken's path API
def read_file(path: str | os.PathLike[str], expected_hash: str | None = None) -> bytes:
    """The bytes of a local file (gunzipped if ``.gz``), checked against `expected_hash` (sha256 hex)."""
    name = os.fspath(path)
    if name.startswith("file://"):
        name = name[len("file://") :]
    elif "://" in name:
        raise ValueError(
            f"{name}: the engine reads local files only and never downloads; "
            "download the file and pass its path"
        )
    with open(name, "rb") as f:
        data = f.read()
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    if expected_hash is not None:
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected_hash:
            raise ValueError(
                f"Hash mismatch for {name}: sha256 is {actual}, expected {expected_hash}; "
                "the file is corrupt or not the one expected"
            )
    return data


def load_tiktoken_bpe(tiktoken_bpe_file: str | os.PathLike[str], expected_hash: str | None = None) -> dict[bytes, int]:
    """tiktoken's loader: ranks from a ``.tiktoken`` file at a local path (sha256-checked if given)."""
    return parse_tiktoken_bpe(read_file(tiktoken_bpe_file, expected_hash), source=os.fspath(tiktoken_bpe_file))


def data_gym_to_mergeable_bpe_ranks(
    vocab_bpe_file: str | os.PathLike[str],
    encoder_json_file: str | os.PathLike[str],
    vocab_bpe_hash: str | None = None,
    encoder_json_hash: str | None = None,
    clobber_one_byte_tokens: bool = False,
) -> dict[bytes, int]:
    """tiktoken's loader for GPT-2's ``vocab.bpe`` + ``encoder.json`` at local paths.

    ``clobber_one_byte_tokens=True`` takes the single-byte tokens' ids from
    ``encoder.json`` instead of the printable-table order, as tiktoken does.
    """
    vocab_bpe = read_file(vocab_bpe_file, vocab_bpe_hash)
    encoder_json = read_file(encoder_json_file, encoder_json_hash)
    vocab_source, encoder_source = os.fspath(vocab_bpe_file), os.fspath(encoder_json_file)
    if not clobber_one_byte_tokens:
        return parse_data_gym(vocab_bpe, encoder_json, vocab_source=vocab_source, encoder_source=encoder_source)
    ranks = parse_data_gym(vocab_bpe, vocab_source=vocab_source)
    encoder = _read_encoder_json(encoder_json, encoder_source, len(ranks))
    for key, value in encoder.items():
        if len(key) == 1 and key in CHAR_TO_BYTE:
            ranks[bytes([CHAR_TO_BYTE[key]])] = value
    _check_encoder_json(ranks, encoder, encoder_source)
    return ranks

