"""BPE over *characters* (the ``tokenizer.json`` BPE that is not byte-level), as `tokenizers`' ``models::bpe``.

Gemma 3 and Llama 2-style files, and BPE models trained with a ``##`` prefix or a ``</w>`` suffix,
start each piece from its characters (not its bytes), then apply the listed merges exactly as the
byte-level model does (`engine.families.hf.bpe`: the lowest-ranked neighbouring pair first, the
leftmost on a tie; ids and the merge loop are shared).  What happens before the merges:

* every character but the first gets ``continuing_subword_prefix`` (``##b``), the last one gets
  ``end_of_word_suffix`` (``c</w>``), and the result is looked up in the vocabulary;
* a character with no entry: with ``byte_fallback``, one ``<0xXX>`` per UTF-8 byte *of the looked-up
  text* (prefix included) if every one exists; otherwise the unknown token if there is one (runs of
  them fused into one with ``fuse_unk``), otherwise nothing -- the character is dropped;
* a merge ``a b`` makes the token ``a`` + ``b`` without ``b``'s prefix (the prefix's length in bytes
  is cut, as tokenizers does);
* ``ignore_merges``: a piece that is itself in the vocabulary is that one token, before any prefix.

Speed: SentencePiece-style files (Gemma 3) replace spaces with ``▁`` and often split nothing, so a
piece is a whole line.  `sub_pieces` cuts it before each ``▁`` that follows a character ``c`` when no
token a merge makes contains ``c▁``: then no merge can join across the cut, the merges on each side
happen in the same order as on the whole, and the ids are the same -- while the short parts repeat
and hit the encoding's piece cache.  (Gemma 3 has one such token, ``>▁</``, so it is never cut after ``>``.)
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from operator import itemgetter

from .... import deadline
from ..bpe import KEY, merge_ids_heap, merge_nodes_heap, merge_small
from ....tokenizer.bpe import LONG_PIECE
from .base import ModelToken, UnknownTokenMissingError, byte_fallback_name

__all__ = ["CharBpe", "BpeStep", "SPACE_MARK"]

SPACE_MARK = "\u2581"  # ▁, SentencePiece's space
_BEFORE_MARK = re.compile(f"(?<=[^{SPACE_MARK}]){SPACE_MARK}")
_COMPUTE = object()
# ASCII punctuation: text sets it against words ("Swift," "(2019)"), so a part of a text that is no whole
# token is often a whole token and punctuation (`CharBpe.punctuation_parts`)
PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


@dataclass(frozen=True)
class BpeStep:
    """One merge: the parts before it (ids with their character spans), the pair joined (index of its left
    part) and the rank of that pair in the file's merges list."""

    parts: tuple[ModelToken, ...]
    position: int
    rank: int


class CharBpe:
    """Listed merges over the ids of a piece's characters."""

    family_kind = "BPE"

    def __init__(self, vocab: dict[str, int], pair_rank: dict[int, int], merged_id: list[int], *,
                 unk_token: str | None = None, fuse_unk: bool = False, byte_fallback: bool = False,
                 continuing_subword_prefix: str | None = None, end_of_word_suffix: str | None = None,
                 ignore_merges: bool = False, no_cut_after: frozenset[str] | None | object = _COMPUTE,
                 whole: bytes | None = None, joined_punctuation: frozenset[str] | None = None) -> None:
        self.vocab = vocab
        self.pair_rank = pair_rank
        self.merged_id = merged_id
        self.unk_token = unk_token
        self.fuse_unk = fuse_unk
        self.byte_fallback = byte_fallback
        self.prefix = continuing_subword_prefix or ""
        self.suffix = end_of_word_suffix or ""
        self.ignore_merges = ignore_merges
        self._bytes = [vocab.get(byte_fallback_name(b)) for b in range(256)] if byte_fallback else None
        # `no_cut_after`: `_joined_before(SPACE_MARK)` as a compact form stored it (its reference, computed here otherwise)
        self._no_cut_after = self._joined_before(SPACE_MARK) if no_cut_after is _COMPUTE else no_cut_after
        # `whole`: per id, 1 if the merges turn that token's own text back into that one token (a compact form
        # stores it, computed by `merged_ids` at install time): such a part needs no merge loop
        self._whole = whole
        # `joined_punctuation`: `_joined_punctuation()` as a compact form stored it, with `whole` (see `_merged`)
        self._punctuation_pairs = joined_punctuation if whole is not None and self._no_cut_after is not None else None
        blocked = self._no_cut_after
        # sub_pieces' cuts in one C-level split: before a mark that follows a character allowed to end a part
        self._cut_at = None if blocked is None else re.compile(
            f"(?<=[^{SPACE_MARK}{''.join(map(re.escape, sorted(blocked)))}])(?={SPACE_MARK})")

    def _joined_before(self, mark: str) -> frozenset[str] | None:
        """The characters some made token has right before `mark` (None: never cut -- the vocabulary has no
        `mark`, or the model's prefix, suffix or ignore_merges make a part depend on its neighbours)."""
        if mark not in self.vocab or self.prefix or self.suffix or self.ignore_merges:
            return None
        made = set(self.merged_id)
        # one regex pass over the made tokens that hold `mark`, joined by NUL (a NUL found before a mark
        # only blocks a cut no text makes)
        joined = "\0".join([token for token, tid in self.vocab.items() if mark in token and tid in made])
        return frozenset(re.findall(f"([^{mark}]){mark}", joined))

    @property
    def cuts_pieces(self) -> bool:
        """Whether `sub_pieces` may cut a piece (then `ids` of a piece is `merged_ids` of each part)."""
        return self._cut_at is not None

    def sub_pieces(self, piece: str) -> list[str]:
        """`piece` cut where no merge can join across (see the module docstring); ``[piece]`` if nowhere.
        `sub_pieces_reference` is the same, one mark at a time."""
        at = self._cut_at
        if at is None or len(piece) < 2:
            return [piece]
        parts = at.split(piece)  # (no part is empty: each cut has a character before it)
        vocab = self.vocab
        if len(parts) > 1 and not all(map(vocab.__contains__, map(itemgetter(-1), parts[:-1]))):
            # a character without its own token may fall back to <0x..> bytes: no cut after it
            joined = [parts[0]]
            for part in parts[1:]:
                if joined[-1][-1] in vocab:
                    joined.append(part)
                else:
                    joined[-1] += part
            parts = joined
        return parts

    def sub_pieces_reference(self, piece: str) -> list[str]:
        """`sub_pieces`, plainly: each mark after a character found one by one."""
        blocked = self._no_cut_after
        if blocked is None or len(piece) < 2:
            return [piece]
        vocab = self.vocab
        out, start = [], 0
        for m in _BEFORE_MARK.finditer(piece):
            i = m.start()
            c = piece[i - 1]
            if c not in blocked and c in vocab:  # a character without its own token may fall back to <0x..>: keep
                out.append(piece[start:i])
                start = i
        out.append(piece[start:])
        return out

    def same_model(self, other: "CharBpe") -> bool:
        return (type(other) is CharBpe and self.unk_token == other.unk_token and self.fuse_unk == other.fuse_unk
                and self.byte_fallback == other.byte_fallback and self.prefix == other.prefix
                and self.suffix == other.suffix and self.ignore_merges == other.ignore_merges
                and self.vocab == other.vocab and self.merged_id == other.merged_id and self.pair_rank == other.pair_rank)

    # ------------------------------------------------------------ the symbols
    def initial(self, piece: str) -> list[ModelToken]:
        """The symbols merging starts from, with their characters (tokenizers' ``merge_word`` before ``merge_all``)."""
        out: list[ModelToken] = []
        unk: list[int] | None = None  # [id, start, end] of the unknown token not yet added
        last = len(piece) - 1
        limit = deadline.current()  # a piece can be a whole text: a caller's time limit, per character
        for i, ch in enumerate(piece):
            if limit is not None:
                limit.check()
            text = (self.prefix + ch if i and self.prefix else ch) + (self.suffix if i == last else "")
            tid = self.vocab.get(text)
            if tid is not None:
                if unk is not None:
                    out.append(ModelToken(unk[0], unk[1], unk[2]))
                    unk = None
                out.append(ModelToken(tid, i, i + 1))
                continue
            if self._bytes is not None:
                data = text.encode("utf-8")
                fallback = [self._bytes[b] for b in data]
                if None not in fallback:  # the pending unknown token stays pending, as in tokenizers
                    out.extend(ModelToken(b, i, i + 1, j) for j, b in enumerate(fallback))  # type: ignore[arg-type]
                    continue
            if self.unk_token is not None:
                uid = self.vocab.get(self.unk_token)
                if uid is None:
                    raise UnknownTokenMissingError(
                        f"{ch!r} has no entry and the unknown token {self.unk_token!r} is not in the vocabulary "
                        "(tokenizers fails this text too); add it to model.vocab")
                if unk is not None and self.fuse_unk:
                    unk[2] = i + 1
                else:
                    if unk is not None:
                        out.append(ModelToken(unk[0], unk[1], unk[2]))
                    unk = [uid, i, i + 1]
        if unk is not None:
            out.append(ModelToken(unk[0], unk[1], unk[2]))
        return out

    def _initial_ids(self, piece: str) -> list[int]:
        if not self.prefix and not self.suffix:
            ids = list(map(self.vocab.get, piece))
            if None not in ids:
                return ids  # type: ignore[return-value]
        return [t.id for t in self.initial(piece)]

    # ------------------------------------------------------------- the model
    def ids(self, piece: str) -> tuple[int, ...]:
        if not piece:
            return ()
        if self.ignore_merges:
            whole = self.vocab.get(piece)
            if whole is not None:
                return (whole,)
        subs = self.sub_pieces(piece)
        if len(subs) > 1:
            return tuple(i for sub in subs for i in self._merged(sub))
        return self._merged(piece)

    def merged_ids(self, piece: str) -> tuple[int, ...]:
        """The ids of a part `sub_pieces` left whole (`ids` cuts first)."""
        return self._merged(piece)

    def _joined_punctuation(self) -> frozenset[str] | None:
        """The two-character strings with a `PUNCTUATION` character that some made token holds (None: a made
        token holds a NUL, the separator of this one regex pass)."""
        made = set(self.merged_id)
        tokens = [token for token, tid in self.vocab.items() if tid in made]
        joined = "\0".join(tokens)
        if joined.count("\0") != max(len(tokens) - 1, 0):
            return None
        punct = "[" + "".join(map(re.escape, sorted(PUNCTUATION))) + "]"
        return frozenset(re.findall(f"(?=([^\\0]{punct}|{punct}[^\\0]))", joined))

    def punctuation_parts(self, piece: str) -> list[str]:
        """`piece` cut beside each punctuation character where no made token holds the two characters there
        (so no merge joins across: the ids are the parts' ids), both having their own token; ``[piece]`` when
        the model has no such pairs stored."""
        pairs, vocab = self._punctuation_pairs, self.vocab
        if pairs is None:
            return [piece]
        out, start = [], 0
        for i in range(1, len(piece)):
            a, b = piece[i - 1], piece[i]
            if (a in PUNCTUATION or b in PUNCTUATION) and a + b not in pairs and a in vocab and b in vocab:
                out.append(piece[start:i])
                start = i
        out.append(piece[start:])
        return out

    def _merged(self, piece: str) -> tuple[int, ...]:
        # Only for a part not yet remembered, so the work below is paid once per distinct part: a whole token
        # (flag stored at install) needs no merge loop, and punctuation cut off often leaves whole tokens.
        whole = self._whole
        if whole is not None:
            tid = self.vocab.get(piece)
            if tid is not None and whole[tid]:
                return (tid,)
            if self._punctuation_pairs is not None:
                parts = self.punctuation_parts(piece)
                if len(parts) > 1:
                    return tuple(i for part in parts for i in self._merged_whole_or_loop(part))
        return self._merge_loop(piece)

    def _merged_whole_or_loop(self, part: str) -> tuple[int, ...]:
        tid = self.vocab.get(part)
        if tid is not None and self._whole[tid]:  # type: ignore[index]
            return (tid,)
        return self._merge_loop(part)

    def _merge_loop(self, piece: str) -> tuple[int, ...]:
        ids = self._initial_ids(piece)
        if len(ids) > LONG_PIECE:
            return tuple(merge_ids_heap(ids, self.pair_rank, self.merged_id))
        return tuple(merge_small(ids, self.pair_rank, self.merged_id))

    def tokenize(self, piece: str) -> list[ModelToken]:
        """With offsets: `initial`, then the lowest-ranked leftmost pair joined until none is listed -- the
        plain loop (`tokenize_reference`'s) on short parts, the heap on long ones (a piece without a
        pre-tokenizer is a whole text, and the plain loop is quadratic in it)."""
        return self._tokenize(piece, fast=True)

    def tokenize_reference(self, piece: str) -> list[ModelToken]:
        """`tokenize` by the plain loop only (`_merge_steps`), whatever the length."""
        return self._tokenize(piece, fast=False)

    def _tokenize(self, piece: str, fast: bool) -> list[ModelToken]:
        if not piece:
            return []
        if self.ignore_merges and piece in self.vocab:
            return [ModelToken(self.vocab[piece], 0, len(piece))]
        out: list[ModelToken] = []
        at = 0
        for sub in self.sub_pieces(piece):
            parts = self.initial(sub)
            if fast and len(parts) > LONG_PIECE:
                parts = self._merged_parts(parts)
            else:
                for _ in self._merge_steps(parts):  # each step joins two parts of `parts` in place
                    pass
            out.extend(ModelToken(t.id, t.start + at, t.end + at, t.byte) for t in parts)
            at += len(sub)
        return out

    def _merged_parts(self, parts: list[ModelToken]) -> list[ModelToken]:
        """`_merge_steps` to the end, by the heap: each token covers a run of `parts`, from the first one's start
        to the last one's end, and keeps the first one's byte index if the run is the bytes of one character
        (what the plain loop's joins give, pair by pair)."""
        tok, nxt = merge_nodes_heap([p.id for p in parts], self.pair_rank, self.merged_id)
        out = []
        i = 0
        while i < len(parts):
            first, last = parts[i], parts[nxt[i] - 1]
            byte = first.byte if first.start == last.start and first.end == last.end else -1
            out.append(ModelToken(tok[i], first.start, max(first.end, last.end), byte))
            i = nxt[i]
        return out

    def _merge_steps(self, parts: list[ModelToken]):
        get = self.pair_rank.get
        limit = deadline.current()  # each step costs the piece's length: a caller's time limit
        while len(parts) > 1:
            if limit is not None:
                limit.check()
            ranks = [get(a.id * KEY + b.id) for a, b in zip(parts, parts[1:])]
            listed = [r for r in ranks if r is not None]
            if not listed:
                return
            best = min(listed)
            i = ranks.index(best)
            yield BpeStep(tuple(parts), i, best)
            a, b = parts[i], parts[i + 1]
            byte = a.byte if a.start == b.start and a.end == b.end else -1
            parts[i:i + 2] = [ModelToken(self.merged_id[best], a.start, max(a.end, b.end), byte)]

    def steps(self, piece: str) -> list[BpeStep]:
        """Every merge on `piece`, in order (the explainer)."""
        if not piece or (self.ignore_merges and piece in self.vocab):
            return []
        return list(self._merge_steps(self.initial(piece)))
