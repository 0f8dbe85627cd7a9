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

MAX_TOKENS = 300_000  # ordinary tokens (or merges) in one vocabulary
MAX_TOKEN_BYTES = 4_096  # bytes in one token
MAX_TOTAL_TOKEN_BYTES = 16_000_000  # bytes of all tokens together
MAX_SPECIAL_TOKENS = 10_000


class TokenizerTooLargeError(ValueError):
    """A tokenizer file past one of the engine's size limits (a ValueError, so old handlers still catch it)."""


def check_count(count: int, what: str, source: str, limit: int = MAX_TOKENS) -> None:
    """Refuse `count` items of `what` (e.g. 'merges') past `limit`."""
    if count > limit:
        raise TokenizerTooLargeError(
            f"{source}: {count:,} {what} is more than this playground accepts ({limit:,}); "
            "the largest real vocabularies have about 200,000 tokens. Use a smaller tokenizer."
        )


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
