"""`Encoding`: tiktoken's API over a pure-Python BPE, plus the views the playground draws.

An `Encoding` is a split pattern, a rank table (token bytes -> id) and a few
special tokens.  Encoding a text is two stages:

1. *pre-tokenize*: special tokens are cut out first (only those allowed; the
   rules, shared with the other families, are `engine.tokenizer.special_tokens`), then
   the split pattern cuts the rest into pieces (words, numbers, runs of spaces);
2. *BPE*: each piece's UTF-8 bytes are merged by rank (`engine.tokenizer.bpe`).

`encode` and `encode_ordinary` are the fast paths (a bounded cache of piece ->
ids).  `pretokenize`, `tokenize`, `bpe_trace` and `merge_tree` explain each
stage with offsets, for the UI.  Names and semantics follow tiktoken 0.14.
"""
from __future__ import annotations

import functools
import threading
from itertools import chain, compress, repeat
from operator import is_not, not_
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import regex

from .. import deadline
from ..errors import UnknownTokenError
from ..pickling import reduce_by_name
from ..records import BpeTrace, MergeStep, Piece, Token, TrainingReport
from ..text import repair_surrogates
from . import unstable
from . import batch as batching  # not `batch`: decode_batch has a parameter of that name (tiktoken's)
from .bpe import LONG_PIECE, bytes_pair_rank, ids_pair_rank, merge_bytes, merge_heap, merge_pairs_small
from .decoding import DecodeById
from .merges import MergeNode, build_merge_tree, recover_merges
from .piece_cache import PieceCache
from .patterns import BUILTIN_PATTERNS, Splitter, compile_pattern, split_timeout_error, unicode16_view
from .special_tokens import (
    AllowedSpecial, DisallowedSpecial, SpecialTokens, raise_disallowed_special_token, special_segments,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["Encoding", "UnknownTokenError", "raise_disallowed_special_token"]

CHUNK_CHARS = 1_000  # texts longer than twice this are encoded in chunks of about this size (see `_encode_text`)
CACHE_MAX_CHUNKS = 4_000  # chunk -> ids memo; cleared when it holds this many chunks ...
CACHE_MAX_CHUNK_CHARS = 2_000_000  # ... or this many characters (a 2 MB paste is warm on its second run)
CHUNK_MAX_CHARS = 4_000  # a longer chunk (no line break to cut at) is not remembered


class Encoding(SpecialTokens, DecodeById):
    """A byte-level BPE tokenizer with tiktoken's interface.

    With ``merges=None`` (the built-ins, any tiktoken rank file) a pair of
    parts merges when their concatenated bytes have a rank -- tiktoken's rule.
    With explicit ``merges`` (a trained or minbpe tokenizer) a pair merges only
    when ``(left_id, right_id)`` is in `merges` -- minbpe's rule.

    ``training`` is the `TrainingReport` of an encoding made by `train_bpe`
    (None otherwise).  Encodings pickle and deep-copy: a built-in one by its
    name (the copy *is* ``get_encoding(name)``), any other by its data; locks
    and caches are rebuilt on load.
    """

    # Hook for subclasses: further linear-time patterns allowed the `re` fast splitter.
    trusted_patterns: frozenset[str] = frozenset()
    training: TrainingReport | None

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: Mapping[bytes, int],
        special_tokens: Mapping[str, int],
        explicit_n_vocab: int | None = None,
        merges: Mapping[tuple[int, int], int] | None = None,
        training: TrainingReport | None = None,
    ) -> None:
        self.name = name
        self.training = training
        self._explicit_n_vocab = explicit_n_vocab
        self._sorted_tokens: list[bytes] | None = None  # for encode_with_unstable, built on first use
        self._pat_str = pat_str
        self._pat = compile_pattern(pat_str)
        self._splitter = Splitter(pat_str, trusted=pat_str in BUILTIN_PATTERNS or pat_str in self.trusted_patterns)
        self._ranks = dict(mergeable_ranks)
        self._special = dict(special_tokens)
        self._special_ids = frozenset(self._special.values())
        self._decoder_cache: dict[int, bytes] | None = None  # id -> bytes, built on first use
        self._lock = threading.Lock()
        rank_values = set(self._ranks.values())
        if len(rank_values) != len(self._ranks):
            raise ValueError(f"{name}: two tokens share one rank; every token needs its own id")
        for tok, tid in self._special.items():
            if tid in rank_values:
                raise ValueError(f"{name}: special token {tok!r} reuses id {tid} of an ordinary token")
        max_rank = max(rank_values, default=-1)
        self.max_token_value = max([max_rank, *self._special_ids])
        if explicit_n_vocab is not None:
            if len(self._ranks) + len(self._special) != explicit_n_vocab or self.max_token_value != explicit_n_vocab - 1:
                raise ValueError(f"{name}: explicit_n_vocab={explicit_n_vocab} does not match the ranks and special tokens")
        self.n_vocab = explicit_n_vocab if explicit_n_vocab is not None else self.max_token_value + 1
        self._byte_ids = {b: self._ranks.get(bytes([b])) for b in range(256)}
        self._pair_merges = dict(merges) if merges is not None else None
        if self._pair_merges is not None:
            for (a, b), c in self._pair_merges.items():
                if a not in self._decoder or b not in self._decoder or self._decoder.get(c) != self._decoder[a] + self._decoder[b]:
                    raise ValueError(f"{name}: merge ({a}, {b}) -> {c} does not match the vocabulary")
        self._merges: dict[tuple[int, int], int] | None = self._pair_merges
        self._parents: dict[int, tuple[int, int]] | None = None
        self._cache = PieceCache()
        self._chunks: dict[str, tuple[int, ...]] = {}  # chunk of a long text -> ids (see _encode_text)
        self._chunk_chars = 0  # characters held by self._chunks

    # ------------------------------------------------------------------ data
    @property
    def _decoder(self) -> dict[int, bytes]:
        """id -> bytes for ordinary and special tokens (built once, on first use)."""
        decoder = self._decoder_cache
        if decoder is None:
            with self._lock:
                if self._decoder_cache is None:
                    decoder = dict(zip(self._ranks.values(), self._ranks.keys()))
                    for tok, tid in self._special.items():
                        decoder[tid] = tok.encode("utf-8")
                    self._decoder_cache = decoder
                decoder = self._decoder_cache
        return decoder

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    @property
    def pat_str(self) -> str:
        return self._pat_str

    @property
    def split_time_limit(self) -> float | None:
        """Seconds one split may take before SplitTimeoutError: a user's pattern may backtrack for
        that long (a server runs it off other sessions' turns); None for the built-in patterns."""
        return self._splitter.timeout

    @property
    def mergeable_ranks(self) -> Mapping[bytes, int]:
        """Token bytes -> rank (= id), read-only."""
        return MappingProxyType(self._ranks)

    @property
    def eot_token(self) -> int:
        return self._special["<|endoftext|>"]

    @property
    def uses_pair_merges(self) -> bool:
        """True for minbpe-style tokenizers whose merges are explicit pairs of ids."""
        return self._pair_merges is not None

    @property
    def family(self) -> str:
        """"minbpe" when the merges are explicit pairs of ids, else "tiktoken" (ranks are ids)."""
        return "minbpe" if self._pair_merges is not None else "tiktoken"

    def same_tokenizer(self, other: object) -> bool:
        """Whether `other` gives the same ids as this for every text and policy (names aside).

        Every family answers this for itself from what defines it (here: the class, which carries
        any model rules; `_rules`; the ranks, compared last because they are the bulk), so a
        caller never probes for attributes another family lacks.
        """
        if type(other) is not type(self):
            return False
        return self._rules() == other._rules() and (self._ranks is other._ranks or self._ranks == other._ranks)

    def _rules(self) -> tuple:
        """What besides the ranks decides the ids: pattern, special tokens, size and the merge rule
        (explicit pairs, minbpe's, or None: any pair whose bytes have a rank, tiktoken's)."""
        return (self._pat_str, self._special, self.n_vocab, self._pair_merges)

    def token_byte_values(self) -> list[bytes]:
        """Every ordinary token's bytes, sorted."""
        return list(self._sorted_token_bytes())

    def clear_cache(self) -> None:
        """Empty the piece and chunk caches (to measure cold-cache speed)."""
        self._cache.clear()
        self._chunks.clear()
        self._chunk_chars = 0

    # tiktoken's README ("extending tiktoken") reads these underscore names; read-only here.
    @property
    def _mergeable_ranks(self) -> Mapping[bytes, int]:
        return self.mergeable_ranks

    @property
    def _special_tokens(self) -> Mapping[str, int]:
        return self.special_tokens

    # -------------------------------------------------------------- pickling
    def __reduce_ex__(self, protocol: Any) -> Any:
        return reduce_by_name(self) or super().__reduce_ex__(protocol)

    def __getstate__(self) -> dict[str, Any]:
        """The constructor's arguments (no lock, no caches)."""
        return {
            "name": self.name,
            "pat_str": self._pat_str,
            "mergeable_ranks": self._ranks,
            "special_tokens": self._special,
            "explicit_n_vocab": self._explicit_n_vocab,
            "merges": self._pair_merges,
            "training": self.training,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]  # rebuilds the checks, lock and caches

    # ------------------------------------------------------------- encoding
    def _segments(self, text: str, allowed: frozenset[str]) -> Iterable[tuple[int, int, int | None]]:
        return special_segments(text, allowed, self._special)

    def _split(self, text: str) -> list[str]:
        return self._splitter.split(text)

    def _bpe(self, piece: str) -> tuple[int, ...]:
        """Ids of one piece, computed (no cache)."""
        data = piece.encode("utf-8")
        if self._pair_merges is not None:
            parts = [self._byte_ids[b] for b in data]
            if len(parts) <= LONG_PIECE:
                return tuple(merge_pairs_small(parts, self._pair_merges))
            return tuple(merge_heap(parts, *ids_pair_rank(self._pair_merges)))
        rank = self._ranks.get(data)
        if rank is not None:  # tiktoken's shortcut: a piece that is itself a token
            return (rank,)
        return self._bpe_bytes(data)

    def _bpe_bytes(self, data: bytes) -> tuple[int, ...]:
        """Ids of one piece's bytes under tiktoken's rule, by the merge loop (no whole-piece shortcut)."""
        if len(data) <= LONG_PIECE:
            return tuple(map(self._ranks.__getitem__, merge_bytes(data, self._ranks)))
        parts = merge_heap([data[i : i + 1] for i in range(len(data))], *bytes_pair_rank(self._ranks))
        return tuple(map(self._ranks.__getitem__, parts))

    def _bpe_many(self, pieces: Iterable[str]) -> dict[str, tuple[int, ...]]:
        """`_bpe` for many pieces, with the common case -- the piece is one token -- inlined."""
        if self._pair_merges is not None:
            return {p: self._bpe(p) for p in pieces}
        # All C-speed but the merge loop: most new pieces are one token (zip(ranks) makes the 1-tuples).
        pieces = list(pieces)
        datas = list(map(str.encode, pieces))
        found = list(map(self._ranks.get, datas))
        whole = list(map(is_not, found, repeat(None)))
        out = dict(zip(compress(pieces, whole), zip(compress(found, whole))))
        rest = list(map(not_, whole))
        ranks = self._ranks
        limit = deadline.current()  # a caller's time limit, checked per merged piece
        for piece, data in zip(compress(pieces, rest), compress(datas, rest)):
            if limit is not None:
                limit.check()
            if len(data) <= LONG_PIECE:
                out[piece] = tuple(map(ranks.__getitem__, merge_bytes(data, ranks)))
            else:
                out[piece] = self._bpe_bytes(data)
        return out

    def _piece_ids(self, piece: str) -> tuple[int, ...]:
        return self._cache.ids(piece, self._bpe)

    def _encode_text(self, text: str, out: list[int]) -> None:
        """Append the ids of ordinary `text` to `out`.

        A long text is cut into chunks of about CHUNK_CHARS characters where a
        piece must start -- a space or line break between non-space characters
        (`Splitter.chunks`) -- and each chunk's ids are remembered: encoding the
        same text again (a rerun, another view, or an edit that touched one
        chunk) is a few hundred look-ups instead of splitting it all again.
        """
        if len(text) > 2 * CHUNK_CHARS:
            chunks = self._splitter.chunks(text, CHUNK_CHARS)
            if chunks is not None:
                found = list(map(self._chunks.get, chunks))
                if None in found:
                    for k, chunk in enumerate(chunks):
                        if found[k] is None:
                            ids: list[int] = []
                            self._encode_pieces(chunk, ids)
                            found[k] = self._remember_chunk(chunk, tuple(ids))
                out.extend(chain.from_iterable(found))
                return
        self._encode_pieces(text, out)

    def _remember_chunk(self, chunk: str, ids: tuple[int, ...]) -> tuple[int, ...]:
        """Add a chunk to its bounded cache (emptied when full; long chunks are not kept)."""
        if len(chunk) <= CHUNK_MAX_CHARS:
            if len(self._chunks) >= CACHE_MAX_CHUNKS or self._chunk_chars + len(chunk) > CACHE_MAX_CHUNK_CHARS:
                self._chunks.clear()
                self._chunk_chars = 0
            self._chunks[chunk] = ids
            self._chunk_chars += len(chunk)
        return ids

    def _encode_pieces(self, text: str, out: list[int]) -> None:
        """Append the ids of `text` to `out`: split, then cached ids or BPE for each piece."""
        pieces = self._split(text)
        found = list(map(self._cache.get, pieces))  # warm cache: all C-speed
        if None in found:
            # BPE each distinct new piece once, then fill the gaps: local.get(piece, cached_ids)
            # (ids tuples are never empty, so `not ids` is true exactly for the misses; all C-speed)
            new = self._bpe_many(set(compress(pieces, map(not_, found))))
            self._cache.remember(new)
            found = list(map(new.get, pieces, found))
        out.extend(chain.from_iterable(found))

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids for `text`, with special-token text encoded as ordinary text."""
        out: list[int] = []
        self._encode_text(repair_surrogates(text), out)
        return out

    def encode(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
               disallowed_special: DisallowedSpecial = "all") -> list[int]:
        """Ids for `text`, like tiktoken: special tokens are refused unless allowed.

        ``allowed_special="all"`` encodes every special token as its id;
        ``disallowed_special=()`` encodes special-token text as ordinary text.
        """
        allowed = self._allowed(text, allowed_special, disallowed_special)
        text = repair_surrogates(text)
        if not allowed:
            out: list[int] = []
            self._encode_text(text, out)
            return out
        out = []
        for start, end, special in self._segments(text, allowed):
            if special is None:
                self._encode_text(text[start:end], out)
            else:
                out.append(special)
        return out

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of one whole token (ordinary or special); KeyError if it is not one token."""
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        if data in self._ranks:
            return self._ranks[data]
        text = data.decode("utf-8", errors="replace")
        if text in self._special:
            return self._special[text]
        raise KeyError(f"{text_or_bytes!r} is not a single token of {self.name}")

    def encode_to_numpy(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                        disallowed_special: DisallowedSpecial = "all") -> npt.NDArray[np.uint32]:
        """`encode` as a numpy ``uint32`` array (needs numpy)."""
        try:
            import numpy as np
        except ImportError:
            raise ModuleNotFoundError(
                "encode_to_numpy needs numpy: install it (pip install numpy), or use encode() for a list of ids",
                name="numpy",
            ) from None
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        return np.array(ids, dtype=np.uint32)

    # ---------------------------------------------------------------- batches
    def encode_ordinary_batch(self, text: Sequence[str], *, num_threads: int = 8) -> list[list[int]]:
        """`encode_ordinary` for each text; large batches run on up to `num_threads` worker processes."""
        return batching.encode_batch(self, list(text), num_threads, None)

    def encode_batch(self, text: Sequence[str], *, num_threads: int = 8, allowed_special: AllowedSpecial = frozenset(),
                     disallowed_special: DisallowedSpecial = "all") -> list[list[int]]:
        """`encode` for each text, in order; large batches run on up to `num_threads` worker processes.

        Pure Python holds the GIL, so threads cannot help (bench/bench_batch.py
        measures both); see `engine.tokenizer.batch` for when processes are used.  A
        disallowed special token raises here, before any work is sent out.
        """
        texts = list(text)
        allowed: frozenset[str] = frozenset()
        for t in texts:  # the check (and its error) in this process, like tiktoken's per-text check
            allowed |= self._allowed(t, allowed_special, disallowed_special)
        return batching.encode_batch(self, texts, num_threads, allowed)

    def decode_batch(
        self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 8
    ) -> list[str]:
        """`decode` for each list of ids (serial: a dict look-up per id is cheaper than shipping it)."""
        return [self.decode(tokens, errors=errors) for tokens in batch]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 8) -> list[bytes]:
        """`decode_bytes` for each list of ids (serial, as `decode_batch`)."""
        return [self.decode_bytes(tokens) for tokens in batch]

    # ------------------------------------------- tiktoken's lower-level calls
    def _bpe_raw(self, data: bytes) -> tuple[int, ...]:
        """Ids of arbitrary bytes as one piece (no split): the whole-token shortcut, then the merge loop."""
        if not data:
            return ()
        if self._pair_merges is not None:
            parts = [self._byte_ids[b] for b in data]
            if len(parts) <= LONG_PIECE:
                return tuple(merge_pairs_small(parts, self._pair_merges))
            return tuple(merge_heap(parts, *ids_pair_rank(self._pair_merges)))
        rank = self._ranks.get(data)
        if rank is not None:
            return (rank,)
        return self._bpe_bytes(data)

    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        """Ids of `text_or_bytes` as one piece: BPE without the split pattern, no special tokens."""
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        return list(self._bpe_raw(data))

    def _encode_only_native_bpe(self, text: str) -> list[int]:
        """tiktoken's slow reference: split with the `regex` module on the raw pattern, BPE each piece."""
        out: list[int] = []
        for piece in _raw_pattern(self._pat_str).findall(text):
            out.extend(self._bpe_raw(piece.encode("utf-8")))
        return out

    def _encode_with_last_piece(self, text: str, allowed: frozenset[str]) -> tuple[list[int], int]:
        """Ids, and how many of the last ones came from the final regex piece (0 after a special token)."""
        out: list[int] = []
        last = 0
        for start, end, special in self._segments(text, allowed):
            if special is not None:
                out.append(special)
                last = 0
                continue
            for piece in self._split(text[start:end]):
                ids = self._piece_ids(piece)
                out.extend(ids)
                last = len(ids)
        return out, last

    def _encode_bytes(self, text: bytes) -> list[int]:
        """Ids for raw bytes, as tiktoken (see `engine.tokenizer.unstable.encode_bytes`)."""
        return unstable.encode_bytes(self, bytes(text))

    def encode_with_unstable(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                             disallowed_special: DisallowedSpecial = "all") -> tuple[list[int], list[list[int]]]:
        """Stable ids for a prefix of `text`, and every id sequence that may continue them.

        tiktoken's semantics (see `engine.tokenizer.unstable`); the order of the
        completions is unspecified.  Special tokens as in `encode`.
        """
        allowed = self._allowed(text, allowed_special, disallowed_special)
        return unstable.encode_with_unstable(self, repair_surrogates(text), allowed)

    def _sorted_token_bytes(self) -> list[bytes]:
        if self._sorted_tokens is None:
            with self._lock:
                if self._sorted_tokens is None:
                    self._sorted_tokens = sorted(self._ranks)
        return self._sorted_tokens

    # ------------------------------------------------------------- decoding
    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """The text and, per token, the index of the first character holding any of its bytes.

        As tiktoken: a token that starts inside a character (its first byte is
        a UTF-8 continuation byte) gets that character's index.  Raises
        UnicodeDecodeError when the ids do not decode to valid UTF-8.

            >>> get_encoding("cl100k_base").decode_with_offsets([15339, 1917])
            ('hello world', [0, 5])
        """
        pieces = self.decode_tokens_bytes(tokens)
        offsets = []
        chars = 0  # characters started so far = bytes that are not continuation bytes
        for data in pieces:
            # the empty token (whisper's rank 50256) starts where the next character would: tiktoken's
            # `data[0]` raises IndexError on it
            offsets.append(max(0, chars - (bool(data) and 0x80 <= data[0] < 0xC0)))
            chars += sum(1 for b in data if not 0x80 <= b < 0xC0)
        return b"".join(pieces).decode("utf-8", errors="strict"), offsets

    # ---------------------------------------------------------- explaining
    def pretokenize(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                    disallowed_special: DisallowedSpecial = "all") -> list[Piece]:
        """The pieces BPE runs on, with character and byte offsets (special tokens cut out first).

        Offsets are into ``repair_surrogates(text)``, which is `text` itself
        unless it holds surrogate code points.
        """
        allowed = self._allowed(text, allowed_special, disallowed_special)
        text = repair_surrogates(text)
        pieces: list[Piece] = []
        byte_pos = 0
        for start, end, special in self._segments(text, allowed):
            if special is not None:
                chunk = text[start:end]
                n = len(chunk.encode("utf-8"))
                pieces.append(Piece(len(pieces), chunk, start, end, byte_pos, byte_pos + n, True))
                byte_pos += n
                continue
            view = unicode16_view(text[start:end])
            try:
                for m in self._pat.finditer(view, timeout=self._splitter.timeout):
                    s, e = start + m.start(), start + m.end()
                    chunk = text[s:e]
                    n = len(chunk.encode("utf-8"))
                    pieces.append(Piece(len(pieces), chunk, s, e, byte_pos, byte_pos + n))
                    byte_pos += n
            except TimeoutError:
                raise split_timeout_error() from None
        return pieces

    def tokenize(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                 disallowed_special: DisallowedSpecial = "all") -> list[Token]:
        """One record per token with its bytes, byte and character offsets and piece."""
        return self.tokenize_with_pieces(text, allowed_special=allowed_special, disallowed_special=disallowed_special)[0]

    def tokenize_with_pieces(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                             disallowed_special: DisallowedSpecial = "all") -> tuple[list[Token], list[Piece]]:
        """`tokenize` and `pretokenize` of `text` from one split: the tokens and the pieces they came from
        (`Token.piece_index` indexes the pieces)."""
        tokens: list[Token] = []
        pieces = self.pretokenize(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        limit = deadline.current()  # a caller's time limit, checked per piece
        for piece in pieces:
            if limit is not None:
                limit.check()
            if piece.special:
                tokens.append(Token(self._special[piece.text], piece.text.encode("utf-8"), piece.byte_start,
                                    piece.byte_end, piece.char_start, piece.char_end, piece.index, special=True))
                continue
            data = piece.text.encode("utf-8")
            ascii_only = len(data) == len(piece.text)
            if not ascii_only:
                # char_of[b] = index (in the piece) of the character holding byte b; boundary[b] = b starts a char
                char_of = []
                for ci, ch in enumerate(piece.text):
                    char_of.extend([ci] * len(ch.encode("utf-8")))
            pos = 0
            for tid in self._piece_ids(piece.text):
                tok = self._decoder[tid]
                end = pos + len(tok)
                if ascii_only:
                    cs, ce, partial = pos, end, False
                else:
                    cs, ce = char_of[pos], char_of[end - 1] + 1
                    partial = (pos > 0 and char_of[pos - 1] == cs) or (end < len(data) and char_of[end] == ce - 1)
                tokens.append(Token(tid, tok, piece.byte_start + pos, piece.byte_start + end,
                                    piece.char_start + cs, piece.char_start + ce, piece.index, partial=partial))
                pos = end
        return tokens, pieces

    def bpe_trace(self, piece: str | bytes) -> BpeTrace:
        """Every step of the merge loop on one piece; its final ids equal `encode`'s for that piece.

        (For a piece that is itself a token, tiktoken skips the loop and so do
        `encode` and `final_ids`; replaying the loop reaches the same token.)
        """
        data = piece.encode("utf-8") if isinstance(piece, str) else bytes(piece)
        events: list[tuple[int, int, int]] = []
        if self._pair_merges is not None:
            parts = [self._byte_ids[b] for b in data]
            final = merge_heap(parts, *ids_pair_rank(self._pair_merges), events=events)
            final_ids = tuple(final)
        else:
            if any(self._byte_ids[b] is None for b in data):
                raise ValueError(f"{self.name} has no token for some single bytes of {data!r}")
            final = merge_heap([data[i : i + 1] for i in range(len(data))], *bytes_pair_rank(self._ranks), events=events)
            final_ids = tuple(self._ranks[p] for p in final)
            whole = self._ranks.get(data)
            if whole is not None:
                final_ids = (whole,)
        steps = _steps_from_events(data, events, self._decoder)
        return BpeTrace(data, tuple(steps), final_ids, tuple((i, j) for i, j, _ in events))

    @property
    def merges(self) -> dict[tuple[int, int], int]:
        """``{(left_id, right_id): merged_id}`` in rank order (computed once, then cached)."""
        if self._merges is None:
            with self._lock:
                if self._merges is None:
                    self._merges = recover_merges(self._ranks)
        return dict(self._merges)

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        """The (left, right) pair that made `token_id`, or None for a single byte or the empty token."""
        if self._parents is None:
            merges = self._merges if self._merges is not None else self.merges
            with self._lock:
                if self._parents is None:
                    self._parents = {c: ab for ab, c in (merges or {}).items()}
        return self._parents.get(token_id)

    def merge_tree(self, token_id: int) -> MergeNode:
        """How `token_id` was built: a binary tree of merges down to single bytes."""
        if token_id in self._special_ids:
            raise ValueError(f"{token_id} is the special token {self._decoder[token_id]!r}: it is added whole, not built by merges")
        self.decode_single_token_bytes(token_id)  # raises for unknown ids
        self.merge_parents(token_id)
        assert self._parents is not None
        return build_merge_tree(token_id, self._parents, self.decode_single_token_bytes)


@functools.lru_cache(maxsize=16)
def _raw_pattern(pat_str: str) -> regex.Pattern:
    """The split pattern compiled as tiktoken's `_encode_only_native_bpe` does: verbatim, no rewrites."""
    return regex.compile(pat_str)


def _steps_from_events(data: bytes, events: list[tuple[int, int, int]], decoder: dict[int, bytes]) -> list[MergeStep]:
    """Turn heap events (left node, right node, rank) into steps with part positions.

    A Fenwick tree over "node i still starts a part" gives each step's index in
    the current list of parts in O(log n).
    """
    n = len(data)
    tree = [0] * (n + 1)

    def add(i: int, delta: int) -> None:
        i += 1
        while i <= n:
            tree[i] += delta
            i += i & -i

    def prefix(i: int) -> int:  # alive nodes in [0, i)
        s = 0
        while i > 0:
            s += tree[i]
            i -= i & -i
        return s

    for i in range(n):
        add(i, 1)
    length = [1] * n  # byte length of the part starting at node i
    steps = []
    for k, (i, j, rank) in enumerate(events):
        left = data[i : i + length[i]]
        right = data[j : j + length[j]]
        steps.append(MergeStep(k, prefix(i), i, left, right, rank))
        length[i] += length[j]
        add(j, -1)
    return steps
