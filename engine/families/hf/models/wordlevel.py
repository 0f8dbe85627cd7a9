"""WordLevel: one vocabulary lookup per whole piece, else the unknown token (`tokenizers`' ``models::wordlevel``)."""
from __future__ import annotations

from .base import ModelToken, UnknownTokenMissingError

__all__ = ["WordLevel"]


class WordLevel:
    """A piece is a token if it is in the vocabulary as a whole; any other piece is ``unk_token``."""

    family_kind = "WordLevel"

    def __init__(self, vocab: dict[str, int], unk_token: str) -> None:
        self.vocab = vocab
        self.unk_token = unk_token

    def tokenize(self, piece: str) -> list[ModelToken]:
        if not piece:  # tokenizers never hands an empty piece to the model
            return []
        tid = self.vocab.get(piece)
        if tid is None:
            tid = self.vocab.get(self.unk_token)
            if tid is None:
                raise UnknownTokenMissingError(
                    f"{piece[:40]!r} is not in the vocabulary and the unknown token {self.unk_token!r} is not either "
                    "(tokenizers fails this text too); add it to model.vocab")
        return [ModelToken(tid, 0, len(piece))]

    def ids(self, piece: str) -> tuple[int, ...]:
        return tuple(t.id for t in self.tokenize(piece))

    def steps(self, piece: str) -> list[tuple[str, bool]]:
        """The one lookup: (the piece, whether it is in the vocabulary)."""
        return [(piece, piece in self.vocab)] if piece else []
