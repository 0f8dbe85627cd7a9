r"""Input that may continue: raw bytes cut mid-character, and text whose last tokens may still change.

BPE never merges across a split-pattern boundary, so every token before the
last piece is *stable*: more text cannot change it.  The last piece's tokens
are not -- ``"hello fant"`` ends in ``" f" "ant"``, but ``"hello fanta"``
may end in one token.  tiktoken 0.14 builds two calls on this, and so do we:

* `encode_bytes` (tiktoken's ``Encoding._encode_bytes``): valid UTF-8 is
  ordinary text; otherwise the valid prefix is split and encoded, and the
  bytes of its last piece plus everything from the first invalid byte on are
  BPE-merged as one piece (the pattern cannot split what is not text).
* `encode_with_unstable`: the stable ids, plus every id sequence that could
  follow them -- each token that starts with the unstable bytes, and, for
  each way to cut those bytes, the re-encoding of the head followed by a
  token that starts with the tail.

The trap tiktoken works around (and so must we, to give its answers): the
split can move.  With cl100k's ``\s*[\r\n]+``, ``"\n" + " "`` may become
``"\n \n"``, so a last piece of spaces, tabs and newlines also takes in the
same before it (`grow_last_piece`); and with gpt2's ``\s+(?!\S)`` a trailing
white-space character may split off (the last completion rule).  Slow and
exhaustive by design: tests compare it with tiktoken on small inputs.
"""
from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from ..api import ByteLevelInternals

# Rust's `char::is_whitespace` (Unicode White_Space), which tiktoken's last rule uses.
WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                        "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def grow_last_piece(enc: ByteLevelInternals, tokens: list[int], last: int) -> int:
    """How many trailing tokens are unstable: the last piece's, grown over spaces/tabs/newlines before it."""
    def all_space(token: int) -> bool:
        data = enc._decoder.get(token)
        return data is not None and all(b in b" \n\t" for b in data)

    if last > 0 and all_space(tokens[len(tokens) - last]):
        while last < len(tokens) and all_space(tokens[len(tokens) - last - 1]):
            last += 1
    return last


def encode_bytes(enc: ByteLevelInternals, data: bytes) -> list[int]:
    """tiktoken's ``_encode_bytes``: ids whose bytes are exactly `data`, valid UTF-8 or not."""
    try:
        return enc.encode_ordinary(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        valid = exc.start  # bytes before the first invalid one
    tokens, last = enc._encode_with_last_piece(data[:valid].decode("utf-8"), frozenset())
    last = grow_last_piece(enc, tokens, last)
    if tokens and last > 0:
        rest = enc.decode_bytes(tokens[len(tokens) - last :]) + data[valid:]
        del tokens[len(tokens) - last :]
    else:
        rest = data[valid:]
    tokens.extend(enc._bpe_raw(rest))
    return tokens


def byte_pair_encode(enc: ByteLevelInternals, data: bytes) -> tuple[int, ...]:
    """tiktoken's ``byte_pair_encode``: the merge loop on bytes, without the whole-token shortcut."""
    if len(data) == 1 or enc.uses_pair_merges:
        return enc._bpe_raw(data)
    return enc._bpe_bytes(data)


def last_utf8_char_len(data: bytes) -> int:
    """Byte length of the last UTF-8 character of `data` (1 when the tail is not valid UTF-8)."""
    for n in range(1, min(4, len(data)) + 1):
        try:
            data[len(data) - n :].decode("utf-8")
            return n
        except UnicodeDecodeError:
            continue
    return 1


def encode_with_unstable(enc: ByteLevelInternals, text: str, allowed: frozenset[str]) -> tuple[list[int], list[list[int]]]:
    """(stable ids, completions) for `text` with the special tokens in `allowed` (already checked)."""
    tokens, last = enc._encode_with_last_piece(text, allowed)
    if last == 0:  # nothing, or a special token, at the end: all stable
        return tokens, []
    last = grow_last_piece(enc, tokens, last)
    unstable = enc.decode_bytes(tokens[len(tokens) - last :])
    del tokens[len(tokens) - last :]
    if not unstable:
        return tokens, []
    ranks = enc.mergeable_ranks
    sorted_tokens = enc._sorted_token_bytes()

    def starting_with(prefix: bytes):
        point = bisect.bisect_left(sorted_tokens, prefix)
        while point < len(sorted_tokens) and sorted_tokens[point].startswith(prefix):
            yield sorted_tokens[point]
            point += 1

    completions: set[tuple[int, ...]] = {(ranks[token],) for token in starting_with(unstable)}
    for i in range(1, len(unstable)):
        head, tail = unstable[:i], unstable[i:]
        for token in starting_with(tail):
            possibility = head + token
            try:  # the new bytes may bring a split: split them when they are text
                encoded: Sequence[int] = enc.encode_ordinary(possibility.decode("utf-8"))
            except UnicodeDecodeError:
                encoded = byte_pair_encode(enc, possibility)
            seq: list[int] = []
            length = 0
            for tid in encoded:  # only as far as it covers the unstable bytes
                seq.append(tid)
                length += len(enc._decoder[tid])
                if length >= len(unstable):
                    break
            completions.add(tuple(seq))
    if len(unstable) > 1:
        n = last_utf8_char_len(unstable)
        cut = len(unstable) - n
        if cut > 0 and unstable[cut:].decode("utf-8", errors="replace") in WHITE_SPACE:
            completions.add((*byte_pair_encode(enc, unstable[:cut]), *byte_pair_encode(enc, unstable[cut:])))
    return tokens, [list(seq) for seq in completions]
