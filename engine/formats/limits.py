"""Size limits for tokenizer files a user hands the engine, checked before anything big is allocated.

A tokenizer file is small on disk but can describe a huge vocabulary: in
minbpe's ``.model`` format each line merges two earlier tokens, so 26 lines
that each join a token with itself describe a 64 MiB token (2**26 bytes), and
a million short lines describe a million tokens.  The parsers count lines and
add up token lengths *before* building anything, and refuse a file past these
limits with a `TokenizerTooLargeError` that names the limit.

The limits sit well above every real tokenizer: the largest built-in
vocabulary has about 200,000 tokens of at most 128 bytes (o200k_base), about
1.6 MB of token bytes in all.
"""
from __future__ import annotations

from typing import Callable

MAX_TOKENS = 300_000  # ordinary tokens (or merges) in one vocabulary
# Merges of a tokenizer.json: Gemma 3 lists 514,906, GLM-4.7 321,649.  Loading GLM-4.7's file holds
# about 80 MB once built (206 MB at the peak, the JSON included); Gemma 3's about 130 MB (354 MB peak).
MAX_MERGES = 600_000
MAX_TOKEN_BYTES = 4_096  # bytes in one token
MAX_TOTAL_TOKEN_BYTES = 16_000_000  # bytes of all tokens together
MAX_SPECIAL_TOKENS = 10_000
# The largest id a file may give a token: ids index tables, so an id of 10**18 would claim a table that big.
# Real files stay far below (Qwen 3.6's last added token is 248,069).
MAX_TOKEN_ID = MAX_TOKENS + MAX_SPECIAL_TOKENS
# Added/special tokens are matched as literal text before the split: their total length is what costs
# (DeepSeek V4's 1,283 added tokens hold 31 kB; Llama 3's 256 about 7 kB).
MAX_SPECIAL_TOKEN_CHARS = 4_096  # one special/added token
MAX_SPECIAL_TOTAL_CHARS = 1_000_000  # all of them together
# JSON files (tokenizer.json, Tekken .json, encoder.json, a chat export) are scanned before `json.loads`
# (engine.formats.json_limits): deeper nesting overflows the parser's recursion, and the number of values is what
# json.loads turns into Python objects.  Real files: depth <= 8; Mistral's tekken_240911.json (19.3 MB)
# has 150,004 arrays/objects and 1.05 million values; Gemma 3's tokenizer.json (33.4 MB) 521,355 and 2.17 million, the most.
MAX_JSON_DEPTH = 100
# A file's split pattern is compiled before anything runs, and compiling a long alternation costs time and
# memory that grow with its length (a pattern of megabytes takes most of a minute and hundreds of MB).
# Real ones are short (o200k_base's 274 characters, DeepSeek V4's longest Split 126).
MAX_PATTERN_CHARS = 5_000
# A piece that is found by walking the text from each position -- a Unigram piece (SentencePiece's lattice,
# tokenizers' Unigram), a WordPiece token within its words' length, a SentencePiece user-defined symbol --
# costs every position of a text up to its length: one 4,096-character piece made 8,000 "a" take 55 s.
# Bounded, a text costs at most its length x this.  Real files stay far below: sentencepiece and tokenizers
# train Unigram pieces of at most 16 characters by default (sentencepiece's trainer refuses more than 512),
# and the longest seen are 31 (Gemma's whitespace runs), 20 (BERT's "##" tokens), 18 (Mistral's symbols).
MAX_PIECE_CHARS = 256
# The longest line of a merges file (vocab.bpe, merges.txt): two of the longest tokens in GPT-2's printable
# alphabet (up to 2 UTF-8 bytes a byte), a space, room for stray blanks.  Line formats are checked for their
# longest line on the bytes (`check_line_length`), before a file is decoded or split.
MAX_MERGE_LINE = 4 * MAX_TOKEN_BYTES + 64
MAX_JSON_CONTAINERS = 600_000  # arrays + objects (Gemma 3's tokenizer.json: 521,355, one per merge)
MAX_JSON_VALUES = 2_500_000  # separators (commas and colons) + containers: about the number of values
# The largest object and array of a tokenizer file: its vocabulary (ids up to MAX_TOKEN_ID) and its merges.
MAX_JSON_MEMBERS = MAX_TOKEN_ID
MAX_JSON_ITEMS = MAX_MERGES


class TokenizerTooLargeError(ValueError):
    """A tokenizer file past one of the engine's size limits (a ValueError, so old handlers still catch it)."""


def count_lines(data: bytes | str) -> int:
    """Lines in `data` under every line-end convention (\\n, \\r\\n and a lone \\r, as tiktoken's
    `splitlines` and Python's text mode read them): counted without splitting, so a file is measured
    before any line is built."""
    nl, cr, crlf = ("\n", "\r", "\r\n") if isinstance(data, str) else (b"\n", b"\r", b"\r\n")
    ends = data.count(nl) + data.count(cr) - data.count(crlf)
    return ends + (bool(data) and not data.endswith((nl, cr)))


def check_count(count: int, what: str, source: str, limit: int = MAX_TOKENS,
                real: str = "the largest real vocabularies have about 200,000 tokens") -> None:
    """Refuse `count` items of `what` (e.g. 'merges') past `limit`; `real` says what real files have."""
    if count > limit:
        raise TokenizerTooLargeError(
            f"{source}: {count:,} {what} is more than this playground accepts ({limit:,}); "
            f"{real}. Use a smaller tokenizer."
        )


# Line ends kept, every other byte made "a": a line longer than a limit is then a run of "a" that bytes.find
# finds in linear time (a regex tried from every position took seconds on 39 MB).
_LINE_SHAPE = bytes.maketrans(bytes(range(256)), bytes(b if b in b"\r\n" else 0x61 for b in range(256)))


def check_line_length(data: bytes | str, limit: int, source: str, why: str) -> None:
    """Refuse a line of `data` longer than `limit` bytes -- more than `why` says a line of its format needs --
    before the file is decoded or split: one 39 MB line is a 39 MB string, four times that with one emoji, and
    copies of it, only to be refused.  Read a megabyte at a time (a str is not checked: it is decoded already)."""
    if isinstance(data, str):
        return
    needle, step = b"a" * (limit + 1), 1 << 20
    for first in range(0, len(data), step):  # windows overlap by the needle: no run is cut in two
        k = data[first : first + step + limit].translate(_LINE_SHAPE).find(needle)
        if k >= 0:
            start = first + k
            line = data.count(b"\n", 0, start) + data.count(b"\r", 0, start) - data.count(b"\r\n", 0, start) + 1
            raise TokenizerTooLargeError(
                f"{source}, line {line}: longer than {limit:,} bytes, more than {why}. The file may be corrupt or "
                "built to exhaust memory.")


def check_pattern_size(pattern: str, source: str, where: str) -> None:
    """Refuse a split pattern past `MAX_PATTERN_CHARS` before it is compiled."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise TokenizerTooLargeError(
            f"{source}, {where}: the split pattern has {len(pattern):,} characters; the limit is "
            f"{MAX_PATTERN_CHARS:,} (real ones have under 500). Use a shorter pattern.")


def check_token_id(token_id: int, source: str, where: str) -> None:
    """Refuse an id past `MAX_TOKEN_ID` (ids index tables: a huge id would claim a huge table)."""
    if token_id > MAX_TOKEN_ID:
        raise TokenizerTooLargeError(
            f"{source}, {where}: id {token_id:,} is past this playground's largest id ({MAX_TOKEN_ID:,}); "
            "real tokenizers stay under 260,000. The file may be corrupt or built to exhaust memory."
        )


def check_piece_chars(pieces, source: str, field_of: Callable[[int], str],
                      what: str = "a piece the model matches against the text",
                      fix: str = "Use a tokenizer with shorter pieces.") -> None:
    """Refuse the longest of `pieces` (strings) past `MAX_PIECE_CHARS`; `field_of(i)` names piece i's field."""
    pieces = list(pieces)
    if not pieces:
        return
    longest = max(range(len(pieces)), key=lambda i: len(pieces[i]))
    size = len(pieces[longest])
    if size > MAX_PIECE_CHARS:
        raise TokenizerTooLargeError(
            f"{source}, {field_of(longest)}: {pieces[longest][:40]!r}... has {size:,} characters; the limit for "
            f"{what} is {MAX_PIECE_CHARS} (trained pieces have at most 16 by default, real files under 32). "
            f"Each position of a text is matched against pieces that long, so a longer one makes every text slow. {fix}")


def check_special_tokens_size(contents, source: str, where: str) -> None:
    """Refuse special/added tokens past `MAX_SPECIAL_TOKENS`, `MAX_SPECIAL_TOKEN_CHARS` or
    `MAX_SPECIAL_TOTAL_CHARS` (counted on the strings as read, before anything is built from them)."""
    contents = list(contents)
    check_count(len(contents), f"{where}", source, MAX_SPECIAL_TOKENS,
                real="real tokenizers have at most a few thousand (Llama 4: 2,048)")
    total = 0
    for i, text in enumerate(contents):
        if len(text) > MAX_SPECIAL_TOKEN_CHARS:
            raise TokenizerTooLargeError(
                f"{source}, {where}[{i}]: {len(text):,} characters; the limit per special token is "
                f"{MAX_SPECIAL_TOKEN_CHARS:,} (real ones are under 100). Use a smaller tokenizer.")
        total += len(text)
    if total > MAX_SPECIAL_TOTAL_CHARS:
        raise TokenizerTooLargeError(
            f"{source}, {where}: {total:,} characters in all; the limit is {MAX_SPECIAL_TOTAL_CHARS:,} "
            "(DeepSeek V4's 1,283 added tokens hold about 31,000). Use a smaller tokenizer.")


class TokenBudget:
    """Adds up token lengths as a vocabulary is built; refuses a token or a total past the limits."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.total = 0

    def add(self, length: int, where: str) -> None:
        if length > MAX_TOKEN_BYTES:
            raise TokenizerTooLargeError(
                f"{self.source}, {where}: this token would be {length:,} bytes long; the limit is "
                f"{MAX_TOKEN_BYTES:,} bytes per token (real tokenizers stay under 256). "
                "The file may be corrupt or built to exhaust memory."
            )
        self.total += length
        if self.total > MAX_TOTAL_TOKEN_BYTES:
            raise TokenizerTooLargeError(
                f"{self.source}, {where}: the tokens add up to more than {MAX_TOTAL_TOKEN_BYTES:,} bytes, "
                "the limit for a whole vocabulary (o200k_base needs about 1.6 MB). Use a smaller tokenizer."
            )
