"""`SentencePieceEncoding`: a SentencePiece ``.model`` (BPE or Unigram) with the engine's `Encoding` API.

Encoding a text is SentencePiece's pipeline (``sentencepiece_processor.cc``):

1. *normalize* (`engine.families.sentencepiece.normalize`): the model's
   precompiled character map if it has one (nmt_nfkc and friends,
   `engine.formats.charsmap`), a ``▁`` dummy prefix, spaces escaped to ``▁``
   (and, if the model asks, extra spaces removed);
2. *user-defined symbols* are cut out whole (``[REFERENCE_DOC_0]`` in v3): they
   are always matched, like SentencePiece does, so they are ordinary tokens;
3. the model: *BPE over characters* by piece score (`engine.families.sentencepiece.bpe`),
   or *Unigram*: the best-scoring path through the lattice of pieces
   (`engine.families.sentencepiece.unigram`), over the whole normalized text;
4. *byte fallback*: a character the vocabulary lacks becomes one ``<0xXX>``
   token per UTF-8 byte (or ``<unk>`` when the model has no byte pieces).

**Pieces and the cache.**  These models never merge a non-``▁`` character with
a following ``▁`` (no piece contains one; checked on load), so cutting the
normalized text before every ``▁`` run that follows a non-``▁`` character
(``▁Hello``, ``▁world``, ``▁▁▁x``) cannot change the result: merges never cross
a cut, and ties are broken left-first inside each part just as in the whole.
Those parts are the pieces `pretokenize` shows and the keys of a bounded
piece -> ids cache.  A model that breaks the rule is encoded without cuts.

**What "special" means here.**  Control symbols (``<s>``, ``</s>``, ``[INST]`` ...)
and ``<unk>`` are the special tokens: SentencePiece never produces them from
text, so their strings are plain text -- and, as on the OpenAI encodings,
`encode` refuses such text unless it is allowed (``allowed_special`` encodes it
as the id; ``disallowed_special=()`` or `encode_ordinary` encodes it as text,
which is what ``sentencepiece`` and mistral_common do).  Each stretch of text
between allowed special tokens is normalized on its own (each gets its ``▁``
dummy prefix).

**Bytes of a token.**  `decode_single_token_bytes` gives what a token adds to
the text: ``▁`` read as a space (``▁the`` -> ``b" the"``), a byte piece's byte,
a special token's own text.  `decode` is SentencePiece's decode: the first
token's leading space (the dummy prefix) is dropped, control symbols vanish,
``<unk>`` reads `` ⁇ ``, and invalid byte runs become one U+FFFD per byte.

**Offsets** in `pretokenize`/`tokenize` are into the caller's text.  The dummy
prefix is a virtual space at offset 0: the first piece's text starts with it
(``" Hello"`` for ``"Hello"``) though it covers only the real characters.

**Unigram** models have no merges and no cut into pieces (their path
totals run over the whole text, see `unigram`): `pretokenize` gives one piece
per stretch of text, `bpe_trace` gives the lattice (`UnigramTrace`: every
candidate with its score, the best path marked), a merge tree is the token alone.

**Merge tree.**  A piece's merge is the last merge BPE makes on the piece's own
characters (the merge order follows scores, highest first).  Leaves are single
characters, and for byte-fallback tokens single bytes; user-defined symbols are
leaves (added whole); control symbols and ``<unk>`` have no tree.
"""
from __future__ import annotations

import codecs
import functools
import re
import threading
from itertools import chain
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

from ...deadline import current as current_limit
from ...errors import UnknownTokenError
from ...pickling import PicklableByName
from ...records import BpeTrace, MergeStep, Piece, Token
from ...tokenizer.merges import MergeNode, build_merge_tree
from ...tokenizer.piece_cache import PieceCache
from ...tokenizer.special_tokens import (AllowedSpecial, DisallowedSpecial, SpecialTokens, literal_trie_pattern,
                                         special_segments)
from .bpe import merge, merge_heap, priorities
from .model_proto import (
    BYTE, CONTROL, NORMAL, PIECE_TYPES, UNKNOWN, UNUSED, USER_DEFINED, ModelProto, check_runnable, parse_model_proto,
)
from ...formats.charsmap import PrecompiledCharsmap
from .normalize import normalize, normalized_text
from .unigram import LatticeNode, UnigramModel

SPACE = "\u2581"  # ▁
_MERGEABLE = (NORMAL, USER_DEFINED, UNUSED)
_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")  # as sentencepiece writes them


def _replace_one_byte(err: UnicodeError) -> tuple[str, int]:
    # SentencePiece's decoder replaces each invalid byte by U+FFFD and goes on at the next byte.
    assert isinstance(err, UnicodeDecodeError)
    return "\ufffd", err.start + 1


codecs.register_error("sentencepiece.replace", _replace_one_byte)


class SentencePieceTrace(BpeTrace):
    """A `BpeTrace` whose parts start as characters (SentencePiece merges characters, not bytes).

    `symbol_starts` are the byte offsets (in `piece`) where the initial
    symbols start.  `final_ids` can be longer than the final parts: a
    character the vocabulary lacks becomes one byte-fallback id per byte.
    """

    def __init__(self, piece: bytes, steps, final_ids, events, symbol_starts: tuple[int, ...]) -> None:
        super().__init__(piece, tuple(steps), tuple(final_ids), tuple(events))
        object.__setattr__(self, "symbol_starts", symbol_starts)

    def parts_at(self, step: int) -> list[bytes]:
        if not 0 <= step <= len(self.steps):
            raise IndexError(f"step {step} is outside 0..{len(self.steps)}")
        dead = {right for _, right in self._events[:step]}
        starts = [s for s in self.symbol_starts if s not in dead] + [len(self.piece)]
        return [self.piece[starts[k] : starts[k + 1]] for k in range(len(starts) - 1)]


class UnigramTrace(BpeTrace):
    """A Unigram model's "trace" of one piece: the lattice instead of merges.

    `nodes` are every candidate (piece at a position, or an unknown character)
    with its score and best total, the winning path marked `best`; `steps` is
    empty and ``parts_at(0)`` gives the winning path's pieces.  Node offsets are
    characters of `text` (the piece with ``▁`` for spaces).
    """

    def __init__(self, piece: bytes, final_ids, nodes: tuple[LatticeNode, ...], text: str,
                 parts: tuple[bytes, ...]) -> None:
        super().__init__(piece, (), tuple(final_ids), ())
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "parts", parts)

    def parts_at(self, step: int) -> list[bytes]:
        if step != 0:
            raise IndexError(f"step {step} is outside 0..0 (a Unigram model has no merge steps)")
        return list(self.parts)


class SentencePieceEncoding(PicklableByName, SpecialTokens):
    """A SentencePiece BPE or Unigram model with the API of `engine.Encoding` (ids equal ``sentencepiece``'s)."""

    split_time_limit = None  # no split regex: whitespace and user-defined symbols only (see `engine.Encoding`)

    def __init__(self, name: str, model: ModelProto, *, source: str = "<sentencepiece model>",
                 whole_pieces_reachable: bool = False, training: Any = None) -> None:
        """`whole_pieces_reachable`: BPE on any piece's characters is known to give that piece.
        `training`: the `engine.training.unigram.UnigramReport` of a model made by `train_unigram`.

        Then a piece of text that is itself a vocabulary entry skips the merge
        loop (tiktoken's shortcut).  BPE does not promise it, so it is only set
        for the built-in models, where the tests check it for every entry.
        """
        self.name = name
        self.model = model
        self.training = training
        check_runnable(model, source)
        pieces = model.pieces
        strings, scores, types = zip(*pieces)
        self.pieces: tuple[str, ...] = strings
        self._types: tuple[int, ...] = types
        self.n_vocab = len(pieces)
        self.max_token_value = self.n_vocab - 1
        trainer, norm = model.trainer, model.normalizer
        # pieces_ of model_interface.cc (what merges may form) and the reserved ones: control, unknown, byte.
        mergeable = [i for i, t in enumerate(types) if t in _MERGEABLE]
        self._scores: dict[str, float] = {strings[i]: scores[i] for i in mergeable}
        self._ids: dict[str, int] = {strings[i]: i for i in mergeable}
        self._special: dict[str, int] = {p: i for i, (p, t) in enumerate(zip(strings, types)) if t == CONTROL or t == UNKNOWN}
        user = [p for p, t in zip(strings, types) if t == USER_DEFINED]
        self._byte_ids: list[int] = [0] * 256
        for i, (p, t) in enumerate(zip(strings, types)):
            if t == BYTE:
                self._byte_ids[int(p[3:5], 16)] = i
        self.unk_id = self._types.index(UNKNOWN)
        self.bos_id, self.eos_id = trainer.bos_id, trainer.eos_id
        self.byte_fallback = trainer.byte_fallback
        self.is_unigram = trainer.model_type == 1
        self._unigram = UnigramModel(pieces, self.unk_id) if self.is_unigram else None
        self._charsmap = (PrecompiledCharsmap.parse(norm.precompiled_charsmap, source)
                          if norm.precompiled_charsmap else None)
        self._unk_surface = trainer.unk_surface.encode("utf-8")
        self._has_unused = UNUSED in self._types
        self._whole_pieces = whole_pieces_reachable and not self._has_unused and not self.is_unigram
        self._space = SPACE if norm.escape_whitespaces else " "
        self._simple_normalizer = (norm.escape_whitespaces and not norm.remove_extra_whitespaces
                                   and not trainer.treat_whitespace_as_suffix and self._charsmap is None)
        self._dummy = norm.add_dummy_prefix
        # User-defined symbols: leftmost, longest first -- SentencePiece's prefix matcher.
        self._user = user_symbols_regex(user)
        user_set = set(user)
        self._cuttable = not self.is_unigram and self._space == SPACE and not trainer.treat_whitespace_as_suffix and not any(
            _inner_space(p) for p in [p for p in self._scores if SPACE in p[1:]] if p not in user_set)
        self._cut = re.compile(f"{SPACE}*[^{SPACE}]+|{SPACE}+") if self._cuttable else None
        self._special_ids = frozenset(self._special.values())
        joined = "\x00".join(strings).replace(SPACE, " ").encode("utf-8").split(b"\x00")  # one call, not 32k
        self._decoder = joined if len(joined) == len(strings) else [p.replace(SPACE, " ").encode("utf-8") for p in strings]
        for i, t in enumerate(types):
            if t == CONTROL or t == UNKNOWN or t == BYTE:
                self._decoder[i] = _token_bytes(strings[i], t)
        self._cache = PieceCache()
        self._lock = threading.Lock()
        self._parents: dict[int, tuple[int, int]] | None = None
        self._merges: dict[tuple[int, int], int] | None = None
        self._priorities: dict[str, int] | None = None

    # ------------------------------------------------------------------ data
    def __repr__(self) -> str:
        return f"<SentencePieceEncoding {self.name!r}>"

    @property
    def eot_token(self) -> int:
        return self.eos_id

    @property
    def mergeable_ranks(self) -> Mapping[bytes, int]:
        """Bytes (``▁`` read as a space) -> id of every piece BPE can produce; byte pieces excluded."""
        return MappingProxyType({self._decoder[i]: i for i in self._ids.values()})

    @property
    def pat_str(self) -> str:
        """The pattern that cuts normalized text into cached pieces ("" if this model cannot be cut)."""
        return self._cut.pattern if self._cut is not None else ""

    def same_tokenizer(self, other: object) -> bool:
        """Whether `other` gives the same ids for every text (names aside): a SentencePiece model whose
        parsed ``.model`` is equal -- pieces, scores, types and the trainer and normalizer settings."""
        return type(other) is type(self) and (other.model is self.model or other.model == self.model)

    def token_byte_values(self) -> list[bytes]:
        """Every BPE-producible token's bytes (``▁`` read as a space), sorted."""
        return sorted(self.mergeable_ranks)

    def unknown_ids(self, tokens: Iterable[int]) -> list[int]:
        """The ids in `tokens` that this encoding cannot decode, in order, without raising."""
        return [t for t in tokens if not (isinstance(t, int) and 0 <= t < self.n_vocab)]

    def piece_type(self, token: int) -> str:
        """``normal``, ``unknown``, ``control``, ``user-defined``, ``unused`` or ``byte``."""
        self.decode_single_token_bytes(token)
        return PIECE_TYPES[self._types[token]]

    def clear_cache(self) -> None:
        """Empty the piece cache and a Unigram model's word memo (to measure cold-cache speed)."""
        self._cache.clear()
        if self._unigram is not None:
            self._unigram.clear()

    # ------------------------------------------------------------- normalizing
    def normalize(self, text: str) -> tuple[str, list[int]]:
        """SentencePiece's normalization of `text` and ``norm_to_orig`` (see `sentencepiece_normalize`)."""
        return normalize(text, self.model.normalizer, self.model.trainer.treat_whitespace_as_suffix,
                         self._charsmap, self._user)

    def _normalized(self, text: str) -> str:
        if self._simple_normalizer:
            if not text:
                return ""
            return (SPACE if self._dummy else "") + text.replace(" ", SPACE)
        if self._charsmap is not None and self._user is None:
            return normalized_text(text, self.model.normalizer, self.model.trainer.treat_whitespace_as_suffix,
                                   self._charsmap)
        return self.normalize(text)[0]

    # ------------------------------------------------------------- encoding
    def _check_text(self, text: str) -> None:
        if not isinstance(text, str):
            raise TypeError(f"expected text (str), got {type(text).__name__}")
        try:  # only a surrogate has no UTF-8 form; encoding finds the first faster than a regex search
            text.encode("utf-8")
        except UnicodeEncodeError as err:
            raise ValueError(
                f"{self.name}: the text holds the surrogate code point U+{ord(text[err.start]):04X} at index "
                f"{err.start}, "
                "which is not a character and has no UTF-8 form (SentencePiece refuses it too); "
                "join surrogate pairs or replace lone ones, e.g. text.encode('utf-16', 'surrogatepass')"
                ".decode('utf-16', 'replace')"
            ) from None

    def _chunks(self, normalized: str) -> list[str]:
        """The normalized text cut into pieces: user-defined symbols whole, the rest before ``▁`` runs."""
        if self.is_unigram:
            return [normalized] if normalized else []
        parts = self._user.split(normalized) if self._user is not None else [normalized]
        if self._cut is None:
            return [p for p in parts if p]
        if len(parts) == 1:
            return self._cut.findall(normalized)
        out: list[str] = []
        for k, part in enumerate(parts):
            if k % 2:
                out.append(part)
            elif part:
                out.extend(self._cut.findall(part))
        return out

    def _symbols(self, chunk: str) -> list[str]:
        """Final BPE symbols of one piece (a user-defined symbol stays whole)."""
        if self._user is not None and chunk in self._ids and self._user.fullmatch(chunk):
            return [chunk]
        if self._has_unused:
            return merge_heap(list(chunk), self._priority(), unused=self._is_unused)
        return merge(list(chunk), self._scores, self._priority)

    def _priority(self) -> dict[str, int]:
        """Scores as integer heap priorities (built on first need: only long pieces and traces use them)."""
        if self._priorities is None:
            with self._lock:
                if self._priorities is None:
                    self._priorities = priorities(self._scores)
        return self._priorities

    def _is_unused(self, piece: str) -> bool:
        i = self._ids.get(piece)
        return i is not None and self._types[i] == UNUSED

    def _symbol_pieces(self, chunk: str) -> list[tuple[str, list[int]]]:
        """The model's pieces of one chunk with their ids (unknown runs not yet joined)."""
        if self._unigram is not None:
            return [(chunk[s:e], self._bytes_of(chunk[s:e]) if i == self.unk_id else [i])
                    for s, e, i in self._unigram.viterbi(chunk)]
        return [(symbol, self._symbol_ids(symbol)) for symbol in self._symbols(chunk)]

    def _join_unknown(self, ids: list[int]) -> list[int]:
        return _collapse_unknown(ids, self.unk_id)

    def _bytes_of(self, symbol: str) -> list[int]:
        """An unknown character: its byte pieces (byte fallback), else ``<unk>``."""
        if self.byte_fallback:
            return [self._byte_ids[b] for b in symbol.encode("utf-8")]
        return [self.unk_id]

    def _symbol_ids(self, symbol: str) -> list[int]:
        i = self._ids.get(symbol)
        if i is not None:
            return [i]
        if self.byte_fallback:
            return [self._byte_ids[b] for b in symbol.encode("utf-8")]
        return [self.unk_id]

    def _piece_ids(self, chunk: str) -> tuple[int, ...]:
        """Ids of one piece, computed (no cache)."""
        if self._unigram is not None:
            return tuple(chain.from_iterable(ids for _, ids in self._symbol_pieces(chunk)))
        if self._whole_pieces:
            i = self._ids.get(chunk)
            if i is not None:
                return (i,)
        symbols = self._symbols(chunk)
        ids = list(map(self._ids.get, symbols))
        if None not in ids:
            return tuple(ids)  # type: ignore[arg-type]
        return tuple(chain.from_iterable(map(self._symbol_ids, symbols)))

    def _encode_normalized(self, normalized: str, out: list[int]) -> None:
        if self._unigram is not None:  # one pass over the whole text; the model memoizes words (see `unigram`)
            out.extend(self._unigram.ids(normalized, self._bytes_of,
                                         None if self.byte_fallback else self._join_unknown))
            return
        chunks = self._chunks(normalized)
        found = self._cache.ids_of_all(chunks, self._piece_ids)
        start = len(out)
        out.extend(chain.from_iterable(found))
        if not self.byte_fallback:
            out[start:] = _collapse_unknown(out[start:], self.unk_id)

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids for `text` as ``sentencepiece`` gives them (no BOS/EOS); special-token text is text."""
        self._check_text(text)
        out: list[int] = []
        self._encode_normalized(self._normalized(text), out)
        return out

    def _segments(self, text: str, allowed: frozenset[str]) -> Iterable[tuple[int, int, int | None]]:
        return special_segments(text, allowed, self._special)

    def _special_pattern(self, tokens: frozenset[str]) -> re.Pattern:
        return _special_regex(tokens)  # `re`'s flat alternation: faster than `regex`'s on 750 control symbols

    def encode(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
               disallowed_special: DisallowedSpecial = "all") -> list[int]:
        """Ids for `text`; special-token text is refused unless allowed (tiktoken's rules).

        ``disallowed_special=()`` gives exactly ``sentencepiece``'s ids.
        """
        self._check_text(text)
        allowed = self._allowed(text, allowed_special, disallowed_special)
        out: list[int] = []
        if not allowed:
            self._encode_normalized(self._normalized(text), out)
            return out
        for start, end, special in self._segments(text, allowed):
            if special is None:
                self._encode_normalized(self._normalized(text[start:end]), out)
            else:
                out.append(special)
        return out

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of one piece, given as its text (``▁`` or space, ``<0x0A>`` for a byte piece) or as its
        bytes; KeyError if none.  Bytes that are not UTF-8 text, or one byte no ordinary piece spells, name a
        byte piece, so every byte piece's bytes lead back to it unless an ordinary piece has the same bytes."""
        if isinstance(text_or_bytes, (bytes, bytearray)):
            try:
                text = bytes(text_or_bytes).decode("utf-8")
            except UnicodeDecodeError:
                text = None
            if text is None or (len(text_or_bytes) == 1 and text not in self._special
                                and self._ids.get(text.replace(" ", SPACE) if self._space == SPACE else text) is None):
                if len(text_or_bytes) == 1 and self.byte_fallback:
                    return self._byte_ids[text_or_bytes[0]]
                raise KeyError(f"{text_or_bytes!r} is not a single token of {self.name}")
        else:
            text = text_or_bytes
        if text in self._special:
            return self._special[text]
        m = _BYTE_PIECE.fullmatch(text)
        if m is not None and self.byte_fallback:
            return self._byte_ids[int(m.group(1), 16)]
        i = self._ids.get(text.replace(" ", SPACE)) if self._space == SPACE else self._ids.get(text)
        if i is None:
            raise KeyError(f"{text_or_bytes!r} is not a single token of {self.name}")
        return i

    # ------------------------------------------------------------- decoding
    def decode_single_token_bytes(self, token: int) -> bytes:
        if not isinstance(token, int) or not 0 <= token < self.n_vocab:
            raise UnknownTokenError(token, self.name, self.n_vocab)
        return self._decoder[token]

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        return [self.decode_single_token_bytes(t) for t in tokens]

    def _decoded_runs(self, tokens: Sequence[int]) -> list[tuple[bytes, bool]]:
        """SentencePiece's decode as (bytes, is_byte_run) runs, before UTF-8 decoding."""
        runs: list[tuple[bytes, bool]] = []
        raw = bytearray()
        text_empty, bos_ws_seen, is_bos_ws = True, False, True
        strip_first = self._dummy or self.model.normalizer.remove_extra_whitespaces
        space = self._space.encode("utf-8")
        for t in tokens:
            self.decode_single_token_bytes(t)
            kind = self._types[t]
            if kind == BYTE:
                raw.append(self._decoder[t][0])
                continue
            if raw:
                runs.append((bytes(raw), True))
                text_empty = False
                raw.clear()
            if bos_ws_seen or not text_empty:
                is_bos_ws = False  # once false, for good (sentencepiece_processor.cc)
            if kind == CONTROL:
                piece, bos_ws_seen = b"", False
            elif kind == UNKNOWN:
                piece, bos_ws_seen = self._unk_surface, False
            else:
                piece = self.pieces[t].encode("utf-8")
                bos_ws_seen = False
                if is_bos_ws and strip_first and piece.startswith(space):
                    piece = piece[len(space):]
                    bos_ws_seen = not self.model.normalizer.remove_extra_whitespaces
                piece = piece.replace(space, b" ")
            if piece:
                runs.append((piece, False))
                text_empty = False
        if raw:
            runs.append((bytes(raw), True))
        return runs

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        """The decoded text's bytes, byte-fallback bytes kept raw."""
        return b"".join(b for b, _ in self._decoded_runs(tokens))

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """``sentencepiece``'s decode; with ``errors="replace"`` each invalid byte is one U+FFFD, like it."""
        runs = self._decoded_runs(tokens)
        if errors != "replace":
            return b"".join(b for b, _ in runs).decode("utf-8", errors)
        return "".join(b.decode("utf-8", "sentencepiece.replace") for b, _ in runs)

    # ---------------------------------------------------------- explaining
    def pretokenize(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                    disallowed_special: DisallowedSpecial = "all") -> list[Piece]:
        """The pieces BPE runs on (``▁`` shown as a space), with offsets into `text`."""
        return [p for p, _ in self._explained_pieces(text, allowed_special, disallowed_special)]

    def _explained_pieces(self, text: str, allowed_special, disallowed_special):
        """(Piece, normalized piece text, norm -> original char offsets or None for a special token)."""
        self._check_text(text)
        allowed = self._allowed(text, allowed_special, disallowed_special)
        byte_at = _byte_offsets(text)
        out: list[tuple[Piece, tuple[str, list[int]] | None]] = []
        for start, end, special in self._segments(text, allowed):
            if special is not None:
                out.append((Piece(len(out), text[start:end], start, end, byte_at(start), byte_at(end), True), None))
                continue
            normalized, n2o = self.normalize(text[start:end])
            pos = 0
            for chunk in self._chunks(normalized):
                offsets = [start + n2o[k] for k in range(pos, pos + len(chunk) + 1)]
                pos += len(chunk)
                cs, ce = offsets[0], offsets[-1]
                shown = chunk.replace(SPACE, " ") if self._space == SPACE else chunk
                out.append((Piece(len(out), shown, cs, ce, byte_at(cs), byte_at(ce)), (chunk, offsets)))
        return out

    def tokenize(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                 disallowed_special: DisallowedSpecial = "all") -> list[Token]:
        """One record per token; byte-fallback tokens of one character are `partial` and share it."""
        return self.tokenize_with_pieces(text, allowed_special=allowed_special, disallowed_special=disallowed_special)[0]

    def tokenize_with_pieces(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                             disallowed_special: DisallowedSpecial = "all") -> tuple[list[Token], list[Piece]]:
        """`tokenize` and `pretokenize` of `text` from one split (`Token.piece_index` indexes the pieces)."""
        byte_at = _byte_offsets(text) if isinstance(text, str) else None
        tokens: list[Token] = []
        prev_unknown = False
        explained = self._explained_pieces(text, allowed_special, disallowed_special)
        limit = current_limit()
        for piece, norm in explained:
            if limit is not None:
                limit.check()
            if norm is None:
                tid = self._special[piece.text]
                tokens.append(Token(tid, self._decoder[tid], piece.byte_start, piece.byte_end,
                                    piece.char_start, piece.char_end, piece.index, special=True))
                prev_unknown = False
                continue
            chunk, offsets = norm
            pos = 0
            for symbol, ids in self._symbol_pieces(chunk):
                cs, ce = offsets[pos], offsets[pos + len(symbol)]
                pos += len(symbol)
                bs, be = byte_at(cs), byte_at(ce)  # type: ignore[misc]
                if ids == [self.unk_id] and prev_unknown and tokens:
                    last = tokens.pop()  # SentencePiece joins a run of unknown characters into one <unk>
                    cs, bs = last.char_start, last.byte_start
                prev_unknown = ids == [self.unk_id]
                if len(ids) == 1:
                    tokens.append(Token(ids[0], self._decoder[ids[0]], bs, be, cs, ce, piece.index))
                    continue
                for j, tid in enumerate(ids):  # byte fallback: one token per byte of the character
                    b0 = min(bs + j, be)
                    tokens.append(Token(tid, self._decoder[tid], b0, min(b0 + 1, be), cs, ce, piece.index, partial=True))
        return tokens, [p for p, _ in explained]

    def bpe_trace(self, piece: str | bytes) -> SentencePieceTrace:
        """Every merge on one piece (a space or ``▁`` is the ``▁`` symbol; no dummy prefix is added).

        Its `final_ids` equal `encode`'s ids for that piece: for ``pretokenize``'s
        pieces, ``bpe_trace(p.text)`` replays exactly the tokens of `p`.
        """
        text = piece.decode("utf-8") if isinstance(piece, bytes) else piece
        self._check_text(text)
        chunk = text.replace(" ", SPACE) if self._space == SPACE else text
        if self._unigram is not None:
            return self._lattice_trace(chunk)
        symbols: list[str] = []
        frozen: list[bool] = []
        for k, part in enumerate(self._user.split(chunk) if self._user is not None else [chunk]):
            if k % 2:
                symbols.append(part)
                frozen.append(True)
            else:
                symbols.extend(part)
                frozen.extend([False] * len(part))
        shown = [s.replace(SPACE, " ").encode("utf-8") if self._space == SPACE else s.encode("utf-8") for s in symbols]
        starts = [0]
        for s in shown:
            starts.append(starts[-1] + len(s))
        events: list[tuple[int, int, str]] = []
        final = merge_heap(symbols, self._priority(), frozen=frozen, unused=self._is_unused if self._has_unused else None,
                           events=events)
        data = b"".join(shown)
        length = {starts[i]: len(shown[i]) for i in range(len(shown))}
        alive = list(range(len(symbols)))
        steps: list[MergeStep] = []
        for k, (left, right, merged) in enumerate(events):
            ls, rs = starts[left], starts[right]
            position = alive.index(left)
            steps.append(MergeStep(k, position, ls, data[ls : ls + length[ls]], data[rs : rs + length[rs]], self._ids[merged]))
            length[ls] += length[rs]
            alive.remove(right)
        final_ids = list(chain.from_iterable(map(self._symbol_ids, final)))
        if not self.byte_fallback:
            final_ids = _collapse_unknown(final_ids, self.unk_id)
        return SentencePieceTrace(data, steps, final_ids, tuple((starts[l], starts[r]) for l, r, _ in events),
                                  tuple(starts[:-1]))

    def _lattice_trace(self, chunk: str) -> UnigramTrace:
        assert self._unigram is not None
        shown = (lambda s: s.replace(SPACE, " ")) if self._space == SPACE else (lambda s: s)
        pieces = self._symbol_pieces(chunk)
        final_ids = list(chain.from_iterable(ids for _, ids in pieces))
        if not self.byte_fallback:
            final_ids = _collapse_unknown(final_ids, self.unk_id)
        return UnigramTrace(shown(chunk).encode("utf-8"), final_ids, tuple(self._unigram.lattice(chunk)), chunk,
                            tuple(shown(p).encode("utf-8") for p, _ in pieces))

    def lattice(self, piece: str) -> list[LatticeNode]:
        """A Unigram model's lattice on one piece (a space or ``▁`` is ``▁``; no dummy prefix added)."""
        if self._unigram is None:
            raise ValueError(f"{self.name} is a BPE model: it has merges (bpe_trace), not a lattice")
        return list(self._lattice_trace(piece.replace(" ", SPACE) if self._space == SPACE else piece).nodes)

    # ------------------------------------------------- explaining, for the playground
    family = "sentencepiece"

    @property
    def uses_pair_merges(self) -> bool:
        """True for BPE: `merges` and `merge_tree` are this model's own (by piece score); False for Unigram."""
        return not self.is_unigram

    def stored_piece(self, token: int) -> str:
        """The model's own spelling of `token`: ``▁the`` (``▁`` is a space), ``<0x0A>`` (a byte), ``<s>``."""
        self.decode_single_token_bytes(token)
        return self.pieces[token]

    def is_byte_fallback(self, token: int) -> bool:
        """True for a ``<0xXX>`` piece: one UTF-8 byte of a character the vocabulary has no piece for."""
        return 0 <= token < self.n_vocab and self._types[token] == BYTE

    def pair_score(self, left: str | bytes, right: str | bytes) -> tuple[int, float] | None:
        """``(id, score)`` of the piece joining two neighbouring parts (a space or ``▁`` alike), or None.

        BPE joins, at every step, the neighbouring pair whose joined piece has
        the highest score (the leftmost on a tie) -- the pair need not be the
        one `merges` lists for that piece, any two parts that join into a piece do.
        """
        def symbol(part: str | bytes) -> str:
            text = part.decode("utf-8") if isinstance(part, bytes) else part
            return text.replace(" ", SPACE) if self._space == SPACE else text

        if self.is_unigram:
            return None  # Unigram joins nothing: it picks whole pieces
        joined = symbol(left) + symbol(right)
        i = self._ids.get(joined)
        if i is None or self._types[i] == UNUSED or (self._user is not None and self._user.fullmatch(joined)):
            return None
        return i, self._scores[joined]

    def piece_ids(self, piece: str) -> list[int]:
        """The ids `encode` gives one piece of `pretokenize` (its text, a space for ``▁``; no dummy prefix added)."""
        self._check_text(piece)
        chunk = piece.replace(" ", SPACE) if self._space == SPACE else piece
        return list(self._piece_ids(chunk)) if chunk else []

    # ------------------------------------------------------------- merges
    @property
    def merges(self) -> dict[tuple[int, int], int]:
        """``{(left_id, right_id): merged_id}``, highest score first: the last merge BPE makes on each piece."""
        if self._merges is None:
            with self._lock:
                if self._merges is None:
                    self._merges = self._recover_merges()
        return dict(self._merges)

    def _recover_merges(self) -> dict[tuple[int, int], int]:
        if self.is_unigram:
            return {}
        order = sorted((i for i, t in enumerate(self._types) if t in (NORMAL, UNUSED) and len(self.pieces[i]) > 1),
                       key=lambda i: (-self.model.pieces[i][1], i))
        merges: dict[tuple[int, int], int] = {}
        for i in order:
            last = _last_merge(self.pieces[i], self._scores)
            if last is not None:
                merges[(self._ids[last[0]], self._ids[last[1]])] = i
        return merges

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        """The (left, right) pair whose merge made `token_id`, or None for a leaf."""
        if self._parents is None:
            merges = self.merges
            with self._lock:
                if self._parents is None:
                    self._parents = {c: ab for ab, c in merges.items()}
        return self._parents.get(token_id)

    def merge_tree(self, token_id: int) -> MergeNode:
        """How `token_id` is built by merges, down to characters (or a byte, or a user-defined symbol)."""
        self.decode_single_token_bytes(token_id)
        if token_id in self._special_ids:
            raise ValueError(
                f"{token_id} is the special token {self.pieces[token_id]!r}: it is added whole, not built by merges")
        if self.is_unigram:  # a Unigram piece is chosen whole: its tree is the token alone
            return MergeNode(token_id, self.decode_single_token_bytes(token_id))
        self.merge_parents(token_id)
        assert self._parents is not None
        return build_merge_tree(token_id, self._parents, self.decode_single_token_bytes)


# ------------------------------------------------------------------ helpers
def _token_bytes(piece: str, kind: int) -> bytes:
    if kind == BYTE:
        return bytes([int(piece[3:5], 16)])
    if kind in (CONTROL, UNKNOWN):
        return piece.encode("utf-8")
    return piece.replace(SPACE, " ").encode("utf-8")


def _inner_space(piece: str) -> bool:
    """True if `piece` has a ``▁`` right after a character that is not ``▁`` (it would cross a cut)."""
    k = piece.find(SPACE, 1)
    while k > 0:
        if piece[k - 1] != SPACE:
            return True
        k = piece.find(SPACE, k + 1)
    return False


def _collapse_unknown(ids: list[int], unk: int) -> list[int]:
    """SentencePiece (without byte fallback) joins a run of unknown characters into one ``<unk>``."""
    out: list[int] = []
    start, n = 0, len(ids)
    while True:  # from one unknown to the next with C-level `index` (texts hold few)
        try:
            k = ids.index(unk, start)
        except ValueError:
            break
        out.extend(ids[start:k + 1])
        start = k + 1
        while start < n and ids[start] == unk:
            start += 1
    if not start:
        return ids
    out.extend(ids[start:])
    return out


def _last_merge(piece: str, scores: Mapping[str, float]) -> tuple[str, str] | None:
    """The two symbols BPE joins last on `piece`'s characters, or None if BPE does not reach `piece`."""
    parts = list(piece)
    get = scores.get
    pair = [get(a + b, float("-inf")) for a, b in zip(parts, parts[1:])]
    while len(parts) > 2:
        best = max(pair)
        if best == float("-inf"):
            return None
        i = pair.index(best)
        parts[i] += parts[i + 1]
        del parts[i + 1]
        del pair[i]
        if i < len(pair):
            pair[i] = get(parts[i] + parts[i + 1], float("-inf"))
        if i:
            pair[i - 1] = get(parts[i - 1] + parts[i], float("-inf"))
    if len(parts) == 2 and pair[0] != float("-inf"):
        return parts[0], parts[1]
    return None


def _byte_offsets(text: str):
    """char index -> byte offset in ``text.encode()`` (identity for ASCII)."""
    if text.isascii():
        return lambda i: i
    acc = [0]
    for c in text:
        acc.append(acc[-1] + len(c.encode("utf-8", "surrogatepass")))
    return acc.__getitem__


def user_symbols_regex(symbols: Iterable[str]) -> re.Pattern | None:
    """A regex of one group matching the longest user-defined symbol at the leftmost place (SentencePiece's
    ``PrefixMatcher``), None for none.  The symbols are folded into a trie (`literal_trie_pattern`), so a
    place costs one step per character matched: a flat alternation tried every symbol at every place,
    and 250,000 symbols took 37 s on 20,000 characters.  `user_symbols_regex_reference` is that alternation."""
    symbols = [u for u in set(symbols) if u]
    return re.compile("(" + literal_trie_pattern(symbols) + ")") if symbols else None


def user_symbols_regex_reference(symbols: Iterable[str]) -> re.Pattern | None:
    """`user_symbols_regex` the plain way: every symbol, longest first, in one alternation."""
    symbols = [u for u in set(symbols) if u]
    return re.compile("(" + "|".join(map(re.escape, sorted(symbols, key=lambda u: (-len(u), u)))) + ")") if symbols else None


@functools.lru_cache(maxsize=64)
def _special_regex(tokens: frozenset[str]) -> re.Pattern:
    return re.compile("|".join(re.escape(t) for t in sorted(tokens, key=lambda t: (-len(t), t))))


def load_sentencepiece_model(data: bytes, name: str | None = None, *, source: str = "<sentencepiece model>"
                             ) -> SentencePieceEncoding:
    """A `SentencePieceEncoding` from the bytes of a SentencePiece BPE or Unigram ``.model`` file.

    Raises `ValueError` naming `source`, the field and the fix for malformed
    or unsupported files.
    """
    model = parse_model_proto(data, source)
    return SentencePieceEncoding(name or source, model, source=source)


def _builtin(name: str, data: bytes, source: str) -> SentencePieceEncoding:
    return SentencePieceEncoding(name, parse_model_proto(data, source), source=source, whole_pieces_reachable=True)


# ------------------------------------------------------------------ built-ins
# name -> (shipped file, sha256 of the uncompressed file); provenance in engine/data/provenance/sentencepiece.md
BUILTIN_MODELS: dict[str, tuple[str, str]] = {
    "mistral-v1": ("mistral_tokenizer.model.v1.gz",
                   "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055"),
    "mistral-v3": ("mistral_instruct_tokenizer_240323.model.v3.gz",
                   "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33"),
}


def builtin_sentencepiece(name: str) -> SentencePieceEncoding:
    """Build the shipped model `name` (the registry keeps one per process)."""
    from ...formats.tiktoken_files import read_data_file

    filename, sha256 = BUILTIN_MODELS[name]
    return _builtin(name, read_data_file(filename, sha256), filename)
