"""Unigram (SentencePiece's segmentation by piece scores), as `tokenizers`' ``models::unigram`` runs it.

Every way of cutting a piece into vocabulary entries is a path through a *lattice*; each entry has a
score (a log-probability) and the path with the highest total wins (Viterbi: one pass from the left
keeps, for every end position, the best path ending there).  Traps, all as tokenizers does them:

* a character that starts no entry of its own length gets an *unknown* node scored
  ``min(scores) - 10`` (``K_UNK_PENALTY``), so text is always covered;
* ties keep the first candidate found: positions are visited left to right and a node is replaced
  only by a strictly higher total;
* consecutive unknown nodes are *always* fused into one (tokenizers' Unigram has ``fuse_unk`` fixed
  on), and the fused text is looked up again: if it is an entry it gets that id; else, with
  ``byte_fallback``, one ``<0xXX>`` token per UTF-8 byte (when all of them exist); else ``unk_id``;
* the lattice holds *every* entry, the unknown and control pieces (``<s>``) included;
* totals are float64 sums in the same order as tokenizers', so ties break identically.
"""
from __future__ import annotations

from dataclasses import dataclass

from .... import deadline
from .base import ModelToken, UnknownTokenMissingError, byte_fallback_name

__all__ = ["Unigram", "LatticeNode", "UNK_PENALTY"]

UNK_PENALTY = 10.0


@dataclass(frozen=True)
class LatticeNode:
    """A candidate on the lattice: piece[start:end] as entry `id` (None: the unknown node), its score, and
    the best total of a path ending with it; `best` marks the nodes of the winning path."""

    start: int
    end: int
    id: int | None
    score: float
    total: float
    best: bool = False


class Unigram:
    """Viterbi segmentation over ``[piece, score]`` entries (id = position in the list)."""

    family_kind = "Unigram"

    def __init__(self, pieces: list[tuple[str, float]], unk_id: int | None, byte_fallback: bool = False) -> None:
        self.pieces = pieces
        self.vocab: dict[str, int] = {}
        for i, (piece, _) in enumerate(pieces):
            self.vocab[piece] = i  # a later duplicate wins, as in tokenizers' token_to_ids
        self.scores = [score for _, score in pieces]
        self.unk_id = unk_id
        self.byte_fallback = byte_fallback
        self.unk_score = min(self.scores, default=0.0) - UNK_PENALTY
        self.max_len = max((len(p) for p, _ in pieces), default=1)
        self._bytes = [self.vocab.get(byte_fallback_name(b)) for b in range(256)] if byte_fallback else None

    # ------------------------------------------------------------------ Viterbi
    def _best_path(self, piece: str) -> tuple[list[int | None], list[int], list[float]]:
        """For every end position: the winning node's id (None = unknown), its start (-1 = none) and total."""
        n = len(piece)
        ids: list[int | None] = [None] * (n + 1)
        starts = [-1] * (n + 1)
        totals = [0.0] * (n + 1)
        get, scores, max_len = self.vocab.get, self.scores, self.max_len
        limit = deadline.current()  # each position costs up to `max_len` lookups: a caller's time limit
        for i in range(n):
            if limit is not None:
                limit.check()
            here = totals[i]
            single = False
            for end in range(i + 1, min(n, i + max_len) + 1):
                tid = get(piece[i:end])
                if tid is None:
                    continue
                total = scores[tid] + here
                if starts[end] < 0 or total > totals[end]:
                    totals[end], starts[end], ids[end] = total, i, tid
                if end == i + 1:
                    single = True
            if not single:
                total = self.unk_score + here
                if starts[i + 1] < 0 or total > totals[i + 1]:
                    if self.unk_id is None:
                        raise UnknownTokenMissingError(
                            f"{piece[i]!r} (U+{ord(piece[i]):04X}) has no entry and the model has no unk_id "
                            "(tokenizers fails this text too); set model.unk_id")
                    totals[i + 1], starts[i + 1], ids[i + 1] = total, i, None
        return ids, starts, totals

    def _segments(self, piece: str) -> list[tuple[int, int, bool]]:
        """(start, end, unknown) of the best path, left to right, consecutive unknowns fused."""
        if not piece:
            return []
        ids, starts, _ = self._best_path(piece)
        out: list[tuple[int, int, bool]] = []
        end = len(piece)
        while end > 0:
            start = starts[end]
            unknown = ids[end] is None or ids[end] == self.unk_id
            if unknown and out and out[-1][2] and out[-1][0] == end:
                out[-1] = (start, out[-1][1], True)
            else:
                out.append((start, end, unknown))
            end = start
        out.reverse()
        return out

    def tokenize(self, piece: str) -> list[ModelToken]:
        out: list[ModelToken] = []
        for start, end, _ in self._segments(piece):
            text = piece[start:end]
            tid = self.vocab.get(text)
            if tid is not None:
                out.append(ModelToken(tid, start, end))
                continue
            if self._bytes is not None:
                fallback = self._fallback(text, start)
                if fallback is not None:
                    out.extend(fallback)
                    continue
            if self.unk_id is None:
                raise UnknownTokenMissingError(f"{text[:40]!r} has no entry and the model has no unk_id; set model.unk_id")
            out.append(ModelToken(self.unk_id, start, end))
        return out

    def _fallback(self, text: str, start: int) -> list[ModelToken] | None:
        out = []
        for k, ch in enumerate(text):
            for j, b in enumerate(ch.encode("utf-8")):
                tid = self._bytes[b]  # type: ignore[index]
                if tid is None:
                    return None
                out.append(ModelToken(tid, start + k, start + k + 1, j))
        return out

    def ids(self, piece: str) -> tuple[int, ...]:
        return tuple(t.id for t in self.tokenize(piece))

    # ---------------------------------------------------------------- explaining
    def steps(self, piece: str) -> list[LatticeNode]:
        """Every node of the lattice (each entry found at each position, and the unknown nodes), the ones on
        the winning path marked `best` -- what the playground draws as the lattice."""
        if not piece:
            return []
        ids, starts, totals = self._best_path(piece)
        on_path: set[tuple[int, int]] = set()
        end = len(piece)
        while end > 0:
            on_path.add((starts[end], end))
            end = starts[end]
        nodes: list[LatticeNode] = []
        best_to = [0.0] * (len(piece) + 1)
        best_to[1:] = totals[1:]
        limit = deadline.current()
        for i in range(len(piece)):
            if limit is not None:
                limit.check()
            single = False
            for end in range(i + 1, min(len(piece), i + self.max_len) + 1):
                tid = self.vocab.get(piece[i:end])
                if tid is None:
                    continue
                single = single or end == i + 1
                score = self.scores[tid]
                best = (i, end) in on_path and ids[end] == tid
                nodes.append(LatticeNode(i, end, tid, score, score + best_to[i], best))
            if not single:
                best = (i, i + 1) in on_path and ids[i + 1] is None
                nodes.append(LatticeNode(i, i + 1, None, self.unk_score, self.unk_score + best_to[i], best))
        return nodes
