"""WordPiece (BERT): greedy longest match from the left, as `tokenizers`' ``models::wordpiece``.

For a piece such as ``unaffable``: take the longest prefix that is in the vocabulary (``un``), then,
from where it ended, the longest ``##``-prefixed rest (``##aff``, then ``##able``).  Traps:

* if any position finds no match at all, the *whole piece* becomes the unknown token (not just the
  part that failed) -- ``max_input_chars_per_word`` characters or more than that also go straight to unk;
* the shortening step removes one *character* (not one byte) from the end of the candidate;
* a piece that is empty gives no token.
"""
from __future__ import annotations

from dataclasses import dataclass

from .... import deadline
from .base import ModelToken, UnknownTokenMissingError

__all__ = ["WordPiece", "Attempt"]


@dataclass(frozen=True)
class Attempt:
    """One vocabulary lookup of the longest-match search: the candidate text (with the prefix when not at
    the piece's start), the characters of the piece it covers, and whether it is a token."""

    start: int
    end: int
    candidate: str
    found: bool


class WordPiece:
    """Greedy longest-match-first over a vocabulary of whole-word and ``##`` continuation entries."""

    family_kind = "WordPiece"

    def __init__(self, vocab: dict[str, int], unk_token: str, continuing_subword_prefix: str = "##",
                 max_input_chars_per_word: int = 100) -> None:
        self.vocab = vocab
        self.unk_token = unk_token
        self.prefix = continuing_subword_prefix
        self.max_chars = max_input_chars_per_word
        # No candidate longer than this can match: the longest token, or the longest candidate a word of at
        # most `max_chars` characters makes (the prefix and all of it but its first character).
        self.max_len = min(max((len(t) for t in vocab), default=0), max_input_chars_per_word + len(self.prefix))

    def _unk(self, piece: str) -> ModelToken:
        uid = self.vocab.get(self.unk_token)
        if uid is None:
            raise UnknownTokenMissingError(
                f"the piece {piece[:40]!r} needs the unknown token {self.unk_token!r}, which is not in the "
                "vocabulary (tokenizers fails this text too); add it to model.vocab")
        return ModelToken(uid, 0, len(piece))

    def tokenize(self, piece: str) -> list[ModelToken]:
        if not piece:
            return []
        if len(piece) > self.max_chars:
            return [self._unk(piece)]
        vocab, prefix = self.vocab, self.prefix
        out: list[ModelToken] = []
        start, n = 0, len(piece)
        limit = deadline.current()  # each token found may cost `max_len` lookups: a caller's time limit
        while start < n:
            if limit is not None:
                limit.check()
            end = min(n, start + self.max_len)  # longer candidates are never tokens
            while end > start:
                sub = piece[start:end] if start == 0 else prefix + piece[start:end]
                tid = vocab.get(sub)
                if tid is not None:
                    out.append(ModelToken(tid, start, end))
                    break
                end -= 1
            else:
                return [self._unk(piece)]
            start = end
        return out

    def ids(self, piece: str) -> tuple[int, ...]:
        whole = self.vocab.get(piece)
        if whole is not None and len(piece) <= self.max_chars:
            return (whole,)
        return tuple(t.id for t in self.tokenize(piece))

    def steps(self, piece: str) -> list[Attempt]:
        """Every lookup the greedy search makes, in order (the explainer; `tokenize`'s result is the found ones,
        unless the last attempts found nothing and the whole piece became the unknown token)."""
        out: list[Attempt] = []
        if not piece or len(piece) > self.max_chars:
            return out
        start, n = 0, len(piece)
        limit = deadline.current()
        while start < n:
            if limit is not None:
                limit.check()
            end = min(n, start + self.max_len)
            while end > start:
                sub = piece[start:end] if start == 0 else self.prefix + piece[start:end]
                found = sub in self.vocab
                out.append(Attempt(start, end, sub, found))
                if found:
                    break
                end -= 1
            else:
                return out
            start = end
        return out

    def token_text(self, piece: str, token: ModelToken) -> str:
        """The vocabulary entry of `token` as it matched (``##able``)."""
        text = piece[token.start:token.end]
        return text if token.start == 0 or token.id == self.vocab.get(self.unk_token) else self.prefix + text
