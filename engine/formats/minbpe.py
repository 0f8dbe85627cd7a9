"""minbpe's two files: ``.model`` (what `load` reads) and ``.vocab`` (for people to read).

``.model``, version 1, as written by minbpe's `Tokenizer.save`::

    minbpe v1
    <split pattern, empty for raw bytes>
    <number of special tokens>
    <special> <id>            (one line per special token)
    <left id> <right id>      (one line per merge; line k makes id 256 + k)

Only the merges are stored: byte b is always id b, and every token's bytes
follow from its two parents.  ``.vocab`` prints every token as
``[left][right] -> [merged] id`` with undecodable bytes shown as U+FFFD, so
it is lossy and minbpe never reads it back; neither do we.

`parse_minbpe_model` checks everything minbpe's `load` takes on trust (it
uses `assert` and trusts every id) and raises ValueError naming the file,
the line and the problem.
"""
from __future__ import annotations

import unicodedata

from ..tokenizer.encoding import Encoding
from .limits import (MAX_PATTERN_CHARS, MAX_SPECIAL_TOKEN_CHARS, MAX_SPECIAL_TOKENS, TokenBudget, check_count,
                     check_line_length, check_pattern_size, check_special_tokens_size,
                     check_token_id, count_lines)
from ..tokenizer.patterns import compile_pattern
from ..tokenizer.patterns import RAW_PAT_STR
from ..training.trainer import build_encoding
from .tiktoken_files import parse_natural

VERSION_LINE = "minbpe v1"

# The longest line of a .model file: the split pattern or a special token, at most 4 UTF-8 bytes a character.
MAX_MINBPE_LINE = 4 * max(MAX_PATTERN_CHARS, MAX_SPECIAL_TOKEN_CHARS) + 64


def render_token(token: bytes) -> str:
    """minbpe's printable form: bytes decoded with U+FFFD, control characters as ``\\uXXXX``."""
    text = token.decode("utf-8", errors="replace")
    return "".join(ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}" for ch in text)


def _minbpe_merges(enc: Encoding) -> list[tuple[int, int]]:
    """The merges in id order; ValueError if `enc` does not use minbpe's id scheme."""
    ranks = enc.mergeable_ranks
    if not enc.uses_pair_merges or any(ranks.get(bytes([b])) != b for b in range(256)):
        raise ValueError(
            f"{enc.name} is not a minbpe-style tokenizer (byte b = id b, explicit merges); "
            "save it in tiktoken's rank format instead"
        )
    merges = sorted(enc.merges.items(), key=lambda kv: kv[1])
    for k, (_, new_id) in enumerate(merges):
        if new_id != 256 + k:
            raise ValueError(f"{enc.name}: merge ids are not 256, 257, ... (found {new_id} at position {k})")
    return [pair for pair, _ in merges]


def dump_minbpe_model(enc: Encoding) -> str:
    """The ``.model`` text minbpe's `save` would write for `enc`."""
    merges = _minbpe_merges(enc)
    pattern = "" if enc.pat_str == RAW_PAT_STR else enc.pat_str
    if "\n" in pattern or "\r" in pattern:
        raise ValueError("the split pattern contains a line break; the .model format keeps it on one line")
    lines = [VERSION_LINE, pattern, str(len(enc.special_tokens))]
    lines += [f"{tok} {tid}" for tok, tid in enc.special_tokens.items()]
    lines += [f"{a} {b}" for a, b in merges]
    return "\n".join(lines) + "\n"


def dump_minbpe_vocab(enc: Encoding) -> str:
    """The ``.vocab`` text minbpe's `save` would write: one line per ordinary token, then specials."""
    merges = _minbpe_merges(enc)
    token = enc.decode_single_token_bytes
    lines = [f"[{render_token(token(b))}] {b}" for b in range(256)]
    for k, (a, b) in enumerate(merges):
        new_id = 256 + k
        lines.append(f"[{render_token(token(a))}][{render_token(token(b))}] -> [{render_token(token(new_id))}] {new_id}")
    lines += [f"[{render_token(tok.encode('utf-8'))}] {tid}" for tok, tid in enc.special_tokens.items()]
    return "\n".join(lines) + "\n"


def check_minbpe_lines(data: bytes, source: str) -> int:
    """A .model file's lines counted (all but the 3 of its header are merges or special tokens) and its longest
    measured on the bytes, before it is decoded: the count."""
    n_lines = count_lines(data)
    check_count(n_lines - 3, "merges", source)
    check_line_length(data, MAX_MINBPE_LINE, source, "the longest split pattern or special token allowed needs")
    return n_lines


def parse_minbpe_model(data: bytes | str, source: str = "tokenizer.model", name: str | None = None) -> Encoding:
    """An `Encoding` from minbpe ``.model`` text (as saved by minbpe or `dump_minbpe_model`)."""
    if isinstance(data, bytes):
        check_minbpe_lines(data, source)
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            lineno = data[: exc.start].count(b"\n") + 1
            raise ValueError(f"{source}, line {lineno}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    # Count before splitting: a million-line file must be refused without building a million strings.
    # minbpe reads the file in text mode, so \r\n and a lone \r end lines too: count and split all three.
    check_count(count_lines(data) - 3, "merges", source)
    lines = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()

    def line(lineno: int, what: str) -> str:
        if lineno > len(lines):
            raise ValueError(f"{source}, line {lineno}: expected {what}, but the file ends after {len(lines)} lines")
        return lines[lineno - 1]

    version = line(1, f"{VERSION_LINE!r}").strip()
    if version != VERSION_LINE:
        raise ValueError(f"{source}, line 1: expected {VERSION_LINE!r}, got {version[:40]!r}; is this a minbpe .model file?")
    pattern = line(2, "the split pattern (an empty line for raw bytes)")
    check_pattern_size(pattern, source, "line 2")
    if pattern.strip():
        try:
            compile_pattern(pattern)
        except ValueError as exc:
            raise ValueError(f"{source}, line 2: {exc}") from None
    n_special = parse_natural(line(3, "the number of special tokens").strip(), source, 3, "number of special tokens")
    check_count(n_special, "special tokens", source, MAX_SPECIAL_TOKENS)

    specials: dict[str, int] = {}
    special_lines: dict[int, int] = {}
    for lineno in range(4, 4 + n_special):
        fields = line(lineno, f"special token {lineno - 3} of {n_special} ('<token> <id>')").split(None, 2)
        if len(fields) != 2:
            raise ValueError(f"{source}, line {lineno}: expected '<special token> <id>', got {lines[lineno - 1][:60]!r}")
        tok, tid = fields[0], parse_natural(fields[1], source, lineno, "special token id")
        check_token_id(tid, source, f"line {lineno}")
        if tok in specials:
            raise ValueError(f"{source}, line {lineno}: special token {tok!r} is listed twice")
        if tid in special_lines:
            raise ValueError(f"{source}, line {lineno}: id {tid} is already used by the special token on line {special_lines[tid]}")
        specials[tok] = tid
        special_lines[tid] = lineno
    check_special_tokens_size(specials, source, "special tokens")

    vocab = [bytes([b]) for b in range(256)]
    seen_bytes = {tok: i for i, tok in enumerate(vocab)}
    merges: list[tuple[int, int]] = []
    seen_pairs: dict[tuple[int, int], int] = {}
    budget = TokenBudget(source)
    for lineno in range(4 + n_special, len(lines) + 1):
        text = lines[lineno - 1]
        if not text.strip():
            continue
        fields = text.split(None, 2)
        if len(fields) != 2:
            raise ValueError(f"{source}, line {lineno}: expected a merge '<left id> <right id>', got {text[:60]!r}")
        a = parse_natural(fields[0], source, lineno, "left id")
        b = parse_natural(fields[1], source, lineno, "right id")
        new_id = len(vocab)
        for part in (a, b):
            if part >= new_id:
                raise ValueError(
                    f"{source}, line {lineno}: unknown id {part}: this line makes id {new_id}, "
                    f"so it can only merge ids 0..{new_id - 1}"
                )
        budget.add(len(vocab[a]) + len(vocab[b]), f"line {lineno}")  # before the bytes are built
        if (a, b) in seen_pairs:
            raise ValueError(f"{source}, line {lineno}: merge ({a}, {b}) repeats line {seen_pairs[(a, b)]}")
        tok = vocab[a] + vocab[b]
        if tok in seen_bytes:
            raise ValueError(f"{source}, line {lineno}: merge ({a}, {b}) makes {tok!r} again (already id {seen_bytes[tok]})")
        vocab.append(tok)
        seen_bytes[tok] = new_id
        seen_pairs[(a, b)] = lineno
        merges.append((a, b))

    for tok, tid in specials.items():
        if tid < len(vocab):
            raise ValueError(
                f"{source}, line {special_lines[tid]}: special token {tok!r} has id {tid}, "
                f"which an ordinary token uses (ids 0..{len(vocab) - 1}); use {len(vocab)} or more"
            )
    if name is None:
        stem = source.rsplit("/", 1)[-1].removesuffix(".model") or "model"
        name = f"minbpe-{stem}"
    return build_encoding(merges, pat_str=pattern if pattern.strip() else None, special_tokens=specials, name=name)
