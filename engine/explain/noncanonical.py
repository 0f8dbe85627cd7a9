"""Other ways to cut a text: non-canonical tokenizations of a BPE-family tokenizer.

BPE's encode gives one sequence of ids per text, the *canonical* one; but the same text can be written
with the vocabulary in many other ways, and every one of them decodes back to the text.  This module
builds four of them, as the papers that study them do:

* **BPE-dropout** (Provilkov et al., ACL 2020): the merge loop, with every merge it is about to make
  skipped with probability `p`.  The loop is `tokenizers`' ``Word::merge_all`` (``models/bpe/word.rs``):
  a queue ordered by (priority, position); each pop draws a number, a skipped merge waits aside and goes
  back into the queue after the next merge that is not skipped, and when the queue runs dry the skipped
  ones are dropped.  So ``p = 0`` is the canonical loop and ``p = 1`` leaves the base units (single bytes
  for byte-level BPE, characters for SentencePiece and BPE over characters).  With ``p > 0`` the
  whole-piece shortcut (tiktoken's "a piece that is a token is that token", ``ignore_merges``) is off, as in
  `tokenizers`, which takes it only without dropout.  The draws come from ``random.Random(seed)``, not
  Rust's ``rng()``: the same seed gives the same cut here, not the same as `tokenizers`.
* **Character level** (Zheng et al., "Broken Tokens?", NeurIPS 2025): every character on its own, each
  encoded by the same merges (a character with no token of its own keeps its bytes).
* **A random valid segmentation** (Zheng et al.): each pre-tokenized piece cut into vocabulary tokens,
  drawn uniformly from all the ways to do so.  The ways are the paths through the DAG whose nodes are the
  unit boundaries and whose edges are the runs of units that are one vocabulary token; counting the paths
  from each node backwards (dynamic programming, exact integers) lets one draw a path uniformly: at each
  node, take an edge with probability (paths after it) / (paths from here).
* **Right-aligned digit groups** (Zheng et al.; Singh & Strouse 2024 proposed it): every run of ASCII
  digits cut into groups of three *from the right* (``1234567`` -> ``1 234 567``), each group encoded on
  its own; the text between runs keeps its canonical tokens.  cl100k and o200k group digits from the left.

The *base units* of a piece are what the family's merge loop starts from: its bytes (tiktoken-style ranks,
minbpe, byte-level ``tokenizer.json``), or its characters (SentencePiece BPE, BPE over characters; a
character with no token is its byte-fallback tokens or the unknown token, and never joins).  Each lane is
plain data: `Token` records whose offsets point into the lane's own decoded text (`Lane.text`), which is
the canonical decode (SentencePiece's leading space included), so every lane draws on the same string.
"""
from __future__ import annotations

import heapq
import random
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .. import deadline
from ..records import Token
from .algorithms import algorithm_of

__all__ = ["MAX_CHARS", "NotBpeError", "Lane", "Cuts", "other_cuts", "dropout", "characters",
           "random_segmentation", "digit_groups", "segmentation_count", "segmentation_count_reference",
           "words"]

MAX_CHARS = 2_000  # of the text the lanes cut: the random segmentation pays (piece length x longest token) per piece
MAX_WORD_UNITS = 4_096  # units of a word whose segmentations are counted (the count has about n/2 digits per unit)
_DIGITS = re.compile(r"[0-9]+")


class NotBpeError(ValueError):
    """The encoding's model does not merge (WordPiece, Unigram, WordLevel): it has no other BPE cuts."""

    def __init__(self, name: str, algorithm: str) -> None:
        self.algorithm = algorithm
        super().__init__(f"{name} runs {algorithm}, not BPE: dropout, character-level and random BPE cuts need a "
                         "merge loop. Pick a BPE tokenizer (GPT, Llama, Qwen, Mistral, DeepSeek, Gemma ...).")


@dataclass(frozen=True)
class _Unit:
    """One base unit of a piece: its own tokens (one id, or a character's byte fallbacks), the bytes it
    stands for, `char` (which character of its run it belongs to) and `key`, its spelling in the vocabulary
    the model looks runs of units up in (`_Model.lookup`); None for a unit no longer token may hold (a
    byte fallback, an unknown character)."""

    ids: tuple[int, ...]
    data: bytes
    char: int
    key: bytes | str | None


@dataclass(frozen=True)
class Lane:
    """One way to cut the text: its tokens, with byte and character offsets into `text` (the decoded text)."""

    key: str  # "canonical", "dropout", "chars", "random", "digits"
    tokens: tuple[Token, ...]
    text: str

    @property
    def ids(self) -> list[int]:
        return [t.id for t in self.tokens]


@dataclass(frozen=True)
class Cuts:
    """All lanes of one text; `cut` is True when the text was longer than MAX_CHARS (the lanes cover its start)."""

    canonical: Lane
    dropout: Lane
    chars: Lane
    random: Lane
    digits: Lane
    cut: bool


# ------------------------------------------------------------------ the families' base units and merges
class _Model:
    """How one BPE family starts and merges a piece: `runs` (units that merges never cross), `join` (the
    (priority, new id) of joining two neighbours, lower first, or None) and `whole` (the canonical shortcut)."""

    def __init__(self, enc: Any) -> None:
        self.enc = enc
        self.vocab = enc.mergeable_ranks  # bytes -> id of every ordinary token (no special or added tokens)
        self.lookup: Any = self.vocab  # a unit's `key` joined -> token id (the random segmentation's DAG)

    def runs(self, piece: str) -> list[list[_Unit]]:
        raise NotImplementedError

    def join(self, left: _Unit, right: _Unit) -> tuple[float, int] | None:
        raise NotImplementedError

    def whole(self, piece: str, data: bytes) -> int | None:
        return None


def _byte_units(data: bytes, vocab) -> list[_Unit]:
    units, char = [], -1
    for b in data:
        if b & 0xC0 != 0x80:  # a UTF-8 lead byte starts the next character
            char += 1
        one = bytes((b,))
        tid = vocab.get(one)
        if tid is None:
            raise ValueError(f"no token for the single byte {one!r}: this tokenizer cannot cut below its merges")
        units.append(_Unit((tid,), one, char, one))
    return units


class _ByteLevel(_Model):
    """tiktoken-style ranks, minbpe merges and byte-level tokenizer.json: the units are the piece's bytes
    (after the encoding's own normalisation: `bpe_trace` gives the bytes BPE sees)."""

    def __init__(self, enc: Any) -> None:
        super().__init__(enc)
        self.family = enc.family
        if self.family == "minbpe":
            merges = enc.merges
            self.pairs = merges() if callable(merges) else merges

    def data(self, piece: str) -> bytes:
        return self.enc.bpe_trace(piece).piece if self.family != "tokenizer.json" else piece.encode("utf-8")

    def runs(self, piece: str) -> list[list[_Unit]]:
        return [_byte_units(self.data(piece), self.vocab)]

    def join(self, left: _Unit, right: _Unit) -> tuple[float, int] | None:
        if self.family == "tiktoken":  # the rank of the joined bytes is the new token's id
            r = self.vocab.get(left.data + right.data)
            return None if r is None else (r, r)
        if self.family == "minbpe":
            m = self.pairs.get((left.ids[0], right.ids[0]))
            return None if m is None else (m, m)
        r = self.enc.pair_rank(left.ids[0], right.ids[0])  # tokenizer.json: the merges list's order
        return None if r is None else (r, self.enc.merged_by(r))

    def whole(self, piece: str, data: bytes) -> int | None:
        if self.family == "tiktoken":  # tiktoken: a piece that is a token is that token, merges or not
            return self.vocab.get(data)
        if self.family == "tokenizer.json" and self.enc.ignore_merges:
            return self.vocab.get(data)
        return None


class _SentencePiece(_Model):
    """SentencePiece BPE: the units are characters (``▁`` for a space), the highest-scoring joined piece first."""

    def runs(self, piece: str) -> list[list[_Unit]]:
        symbols = self.enc.bpe_trace(piece).parts_at(0)  # characters, user-defined symbols whole
        units = []
        for k, sym in enumerate(symbols):
            tid = self.vocab.get(sym)
            ids = (tid,) if tid is not None else tuple(self.enc.piece_ids(sym.decode("utf-8")))
            units.append(_Unit(ids, sym, k, sym if tid is not None else None))
        return [units]

    def join(self, left: _Unit, right: _Unit) -> tuple[float, int] | None:
        found = self.enc.pair_score(left.data, right.data)
        return None if found is None else (-found[1], found[0])


class _CharBpe(_Model):
    """tokenizer.json BPE over characters (Gemma 3, Llama 2-style): the model's own starting symbols
    (``initial``: a character's id, its byte fallbacks or the unknown token) per sub-piece it never merges across."""

    def __init__(self, enc: Any) -> None:
        super().__init__(enc)
        self.model = enc.model
        # the model's own vocabulary, by its spelling (``▁`` for a space): token bytes would not do, as some
        # entries decode to spaces and others keep their ``▁``
        self.lookup = self.model.vocab

    def runs(self, piece: str) -> list[list[_Unit]]:
        out = []
        for sub in self.model.sub_pieces(piece):
            units, starts = [], {}
            for t in self.model.initial(sub):
                char = starts.setdefault(t.start, len(starts))
                key = sub[t.start:t.end] if t.byte < 0 and t.id == self.model.vocab.get(sub[t.start:t.end]) else None
                units.append(_Unit((t.id,), self.enc.decode_single_token_bytes(t.id), char, key))
            out.append(units)
        return out

    def join(self, left: _Unit, right: _Unit) -> tuple[float, int] | None:
        r = self.enc.pair_rank(left.ids[0], right.ids[0])
        return None if r is None else (r, self.enc.merged_by(r))

    def whole(self, piece: str, data: bytes) -> int | None:
        return self.model.vocab.get(piece) if self.model.ignore_merges else None


def _model(enc: Any) -> _Model:
    algorithm = algorithm_of(enc)
    if algorithm != "bpe":
        raise NotBpeError(enc.name, algorithm)
    if enc.family == "sentencepiece":
        return _SentencePiece(enc)
    if enc.family == "char-bpe":
        return _CharBpe(enc)
    return _ByteLevel(enc)


# ------------------------------------------------------------------ the merge loop, with dropout
def _merge(model: _Model, units: Sequence[_Unit], p: float, rng: random.Random | None) -> list[_Unit]:
    """`tokenizers`' ``merge_all`` on one run: pop the (priority, position) queue; with probability `p` set the
    merge aside (back in after the next merge made), else make it unless stale.  Returns the final parts."""
    n = len(units)
    if n < 2:
        return list(units)
    parts: list[_Unit | None] = list(units)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    queue: list[tuple[float, int, int]] = []
    for i in range(n - 1):
        found = model.join(units[i], units[i + 1])
        if found is not None:
            queue.append((found[0], i, found[1]))
    heapq.heapify(queue)
    skipped: list[tuple[float, int, int]] = []
    limit = deadline.current()
    while queue:
        if limit is not None:
            limit.check()
        top = heapq.heappop(queue)
        if p > 0 and rng is not None and rng.random() < p:
            skipped.append(top)
            continue
        for entry in skipped:  # tokenizers puts the skipped merges back before it looks at this one
            heapq.heappush(queue, entry)
        skipped.clear()
        _, pos, new_id = top
        left = parts[pos]
        if left is None or nxt[pos] >= n:
            continue
        right = parts[nxt[pos]]
        assert right is not None
        now = model.join(left, right)
        if now is None or now[1] != new_id:  # a stale entry: one of the two has merged since
            continue
        gone = nxt[pos]
        joined = left.key + right.key if left.key is not None and right.key is not None else None  # type: ignore[operator]
        parts[pos] = _Unit((new_id,), left.data + right.data, left.char, joined)
        parts[gone] = None
        nxt[pos] = nxt[gone]
        if nxt[pos] < n:
            prv[nxt[pos]] = pos
        merged = parts[pos]
        if prv[pos] >= 0:
            found = model.join(parts[prv[pos]], merged)  # type: ignore[arg-type]
            if found is not None:
                heapq.heappush(queue, (found[0], prv[pos], found[1]))
        if nxt[pos] < n:
            found = model.join(merged, parts[nxt[pos]])  # type: ignore[arg-type]
            if found is not None:
                heapq.heappush(queue, (found[0], pos, found[1]))
    return [u for u in parts if u is not None]


def _canonical_piece(model: _Model, piece: str) -> list[_Unit]:
    runs = model.runs(piece)
    data = b"".join(u.data for run in runs for u in run)
    whole = model.whole(piece, data)
    if whole is not None:
        return [_Unit((whole,), data, 0, None)]
    return [u for run in runs for u in _merge(model, run, 0.0, None)]


# ------------------------------------------------------------------ lanes
def _pieces(enc: Any, text: str):
    return enc.pretokenize(text, allowed_special=frozenset(), disallowed_special=())


def _special_ids(enc: Any, piece) -> list[int]:
    return list(enc.encode(piece.text, allowed_special="all", disallowed_special=()))


def _lane(enc: Any, key: str, ids: Sequence[int]) -> Lane:
    """Token records for `ids` laid end to end: byte offsets into their joined bytes, character offsets into
    those bytes decoded (a byte that is no whole character counts as one character, drawn as U+FFFD)."""
    chunks = [enc.decode_single_token_bytes(t) for t in ids]
    data = b"".join(chunks)
    decoded = data.decode("utf-8", "surrogateescape")
    char_at = [0] * (len(data) + 1)
    pos = 0
    for ci, ch in enumerate(decoded):
        size = 1 if "\udc80" <= ch <= "\udcff" else len(ch.encode("utf-8"))
        for k in range(size):
            char_at[pos + k] = ci
        pos += size
    char_at[len(data)] = len(decoded)
    tokens, start = [], 0
    special = enc.is_special_token
    for i, (tid, chunk) in enumerate(zip(ids, chunks)):
        end = start + len(chunk)
        cs = char_at[start]
        ce = char_at[end - 1] + 1 if end > start else cs
        partial = (start > 0 and char_at[start - 1] == cs) or (end < len(data) and char_at[end] == ce - 1)
        tokens.append(Token(tid, chunk, start, end, cs, ce, i, special=special(tid), partial=partial))
        start = end
    if any("\udc80" <= c <= "\udcff" for c in decoded):  # a stray byte: U+FFFD in its place, one character for one, so offsets hold
        decoded = "".join("\ufffd" if "\udc80" <= c <= "\udcff" else c for c in decoded)
    return Lane(key, tuple(tokens), decoded)


def _per_piece(enc: Any, text: str, cut: Callable[[_Model, str], list[int]], key: str) -> Lane:
    model = _model(enc)
    ids: list[int] = []
    for piece in _pieces(enc, text[:MAX_CHARS]):
        if piece.special:
            ids += _special_ids(enc, piece)
        elif piece.text:
            ids += cut(model, piece.text)
    return _lane(enc, key, ids)


def _flat(units: Sequence[_Unit]) -> list[int]:
    return [t for u in units for t in u.ids]


def canonical(enc: Any, text: str) -> Lane:
    """The canonical cut by this module's merge loop (``p = 0``): the ids `encode` gives (tested)."""
    return _per_piece(enc, text, lambda m, piece: _flat(_canonical_piece(m, piece)), "canonical")


def dropout(enc: Any, text: str, p: float, seed: int) -> Lane:
    """BPE-dropout: every merge skipped with probability `p` (0 <= p <= 1), draws from ``Random(seed)``."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout p must be between 0 and 1, got {p}")
    if p == 0:
        same = canonical(enc, text)
        return Lane("dropout", same.tokens, same.text)
    rng = random.Random(seed)
    return _per_piece(enc, text, lambda m, piece: _flat([u for run in m.runs(piece) for u in _merge(m, run, p, rng)]),
                      "dropout")


def characters(enc: Any, text: str) -> Lane:
    """Character level: every character merged on its own (its own token, or its bytes if it has none)."""
    def cut(model: _Model, piece: str) -> list[int]:
        out: list[int] = []
        for run in model.runs(piece):
            start = 0
            for i in range(1, len(run) + 1):
                if i == len(run) or run[i].char != run[start].char:
                    out += _flat(_merge(model, run[start:i], 0.0, None))
                    start = i
        return out
    return _per_piece(enc, text, cut, "chars")


def _counts(model: _Model, run: Sequence[_Unit], longest: int) -> tuple[list[int], list[list[tuple[int, int]]]]:
    """Paths to the end from each boundary of `run`, and each boundary's edges (end, token id); a unit
    alone is always an edge (its own tokens), a longer run of units is one when its bytes are one token."""
    n = len(run)
    lookup, special = model.lookup, model.enc.is_special_token
    counts = [0] * (n + 1)
    counts[n] = 1
    edges: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    limit = deadline.current()
    for i in range(n - 1, -1, -1):
        if limit is not None:
            limit.check()
        edges[i].append((i + 1, -1))  # -1: the unit's own tokens
        total = counts[i + 1]
        key = run[i].key
        if key is not None:
            for j in range(i + 2, min(n, i + longest) + 1):
                if run[j - 1].key is None:
                    break
                key += run[j - 1].key  # type: ignore[operator]
                if len(key) > longest:
                    break
                tid = lookup.get(key)
                if tid is not None and not special(tid):
                    edges[i].append((j, tid))
                    total += counts[j]
        counts[i] = total
    return counts, edges


def _longest(model: _Model) -> int:
    return max(map(len, model.lookup), default=1)


def random_segmentation(enc: Any, text: str, seed: int) -> Lane:
    """Each piece cut into vocabulary tokens, uniformly among all its cuts (`segmentation_count` of them)."""
    rng = random.Random(seed)
    longest: list[int] = []

    def cut(model: _Model, piece: str) -> list[int]:
        if not longest:
            longest.append(_longest(model))
        out: list[int] = []
        for run in model.runs(piece):
            counts, edges = _counts(model, run, longest[0])
            i = 0
            while i < len(run):
                pick = rng.randrange(counts[i])  # exact: Python's randrange is uniform on big integers
                for j, tid in edges[i]:
                    if pick < counts[j]:
                        out += list(run[i].ids) if tid < 0 else [tid]
                        i = j
                        break
                    pick -= counts[j]
        return out
    return _per_piece(enc, text, cut, "random")


def segmentation_count(enc: Any, word: str) -> int:
    """How many ways the vocabulary can spell `word` (one pre-tokenized piece) from its base units: the paths
    of its DAG, counted exactly.  Runs the model never merges across multiply."""
    model = _model(enc)
    runs = model.runs(word)
    if sum(map(len, runs)) > MAX_WORD_UNITS:
        raise ValueError(f"that word has more than {MAX_WORD_UNITS:,} units; pick a shorter one")
    total, longest = 1, _longest(model)
    for run in runs:
        total *= _counts(model, run, longest)[0][0]
    return total


def segmentation_count_reference(enc: Any, word: str) -> int:
    """`segmentation_count` by listing every composition of the units (2^(n-1) of them): for short words."""
    model = _model(enc)
    total = 1
    for run in model.runs(word):
        n, found = len(run), 0
        for mask in range(1 << max(n - 1, 0)):
            cuts = [0] + [k + 1 for k in range(n - 1) if mask >> k & 1] + [n]
            ok = True
            for a, b in zip(cuts, cuts[1:]):
                keys = [u.key for u in run[a:b]]
                if b - a > 1:
                    tid = None if None in keys else model.lookup.get(keys[0][:0].join(keys))  # type: ignore[index]
                    ok = ok and tid is not None and not model.enc.is_special_token(tid)
            found += ok
        total *= found
    return total


def digit_groups(enc: Any, text: str) -> Lane:
    """Runs of ASCII digits cut into groups of three from the right, each group encoded on its own; pieces
    without digits keep their canonical tokens.  A run the pre-tokenizer split (cl100k's ``123|456|7``) is
    joined back first, so the groups follow the number, not the pieces."""
    model = _model(enc)
    ids: list[int] = []
    out: list[list[int] | str] = []  # ids, or a digit run still to group
    for piece in _pieces(enc, text[:MAX_CHARS]):
        if piece.special:
            out.append(_special_ids(enc, piece))
            continue
        if not piece.text:
            continue
        if not _DIGITS.search(piece.text):
            out.append(_flat(_canonical_piece(model, piece.text)))
            continue
        pos = 0
        for m in _DIGITS.finditer(piece.text):
            if m.start() > pos:
                out.append(_flat(_canonical_piece(model, piece.text[pos:m.start()])))
            if out and isinstance(out[-1], str) and m.start() == 0:
                out[-1] += m.group()  # the run goes on from the piece before
            else:
                out.append(m.group())
            pos = m.end()
        if pos < len(piece.text):
            out.append(_flat(_canonical_piece(model, piece.text[pos:])))
    for item in out:
        if isinstance(item, str):
            head = len(item) % 3
            groups = ([item[:head]] if head else []) + [item[k:k + 3] for k in range(head, len(item), 3)]
            for g in groups:
                ids += _flat(_canonical_piece(model, g))
        else:
            ids += item
    return _lane(enc, "digits", ids)


def words(enc: Any, text: str, limit: int = 200) -> list[str]:
    """The distinct pieces of `text` (its first MAX_CHARS characters) whose segmentations can be counted,
    in order of first appearance, at most `limit`."""
    seen: dict[str, None] = {}
    for piece in _pieces(enc, text[:MAX_CHARS]):
        if not piece.special and piece.text and piece.text not in seen:
            seen[piece.text] = None
            if len(seen) >= limit:
                break
    return list(seen)


def other_cuts(enc: Any, text: str, p: float, seed: int) -> Cuts:
    """Every lane of `text` (its first MAX_CHARS characters): canonical, dropout(p, seed), characters, a random
    valid segmentation (seed) and right-aligned digit groups."""
    return Cuts(canonical(enc, text), dropout(enc, text, p, seed), characters(enc, text),
                random_segmentation(enc, text, seed), digit_groups(enc, text), len(text) > MAX_CHARS)
