"""tiktoken's decode family, shared by every encoding whose tokens are plain bytes by id.

An encoding that has ``_decoder`` (id -> token bytes), ``name`` and ``n_vocab``
gets `decode_single_token_bytes`, `decode_bytes`, `decode`,
`decode_tokens_bytes` and `unknown_ids` from `DecodeById`, with tiktoken's
semantics: bytes are joined, then decoded with ``errors="replace"`` by default,
so a character split over tokens is never shown as two U+FFFD; an unknown id
raises `UnknownTokenError` (a KeyError) naming the valid range.

`engine.tokenizer.encoding.Encoding` (and so the tiktoken-style open models) and the
Hugging Face family use it; SentencePiece decodes differently (``▁``, byte
runs, the dummy prefix) and has its own.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from ..errors import UnknownTokenError


class DecodeById:
    """Mixin: decoding by ``self._decoder[id]`` (see the module docstring)."""

    def decode_single_token_bytes(self, token: int) -> bytes:
        try:
            return self._decoder[token]  # type: ignore[attr-defined]
        except (KeyError, TypeError):
            raise UnknownTokenError(token, self.name, self.n_vocab) from None  # type: ignore[attr-defined]

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        try:
            return b"".join([self._decoder[t] for t in tokens])  # type: ignore[attr-defined]
        except (KeyError, TypeError):
            for t in tokens:
                self.decode_single_token_bytes(t)  # raises for the first unknown id
            raise

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        return [self.decode_single_token_bytes(t) for t in tokens]

    def unknown_ids(self, tokens: Iterable[int]) -> list[int]:
        """The ids in `tokens` that this encoding cannot decode, in order, without raising."""
        return [t for t in tokens if t not in self._decoder]  # type: ignore[attr-defined]
