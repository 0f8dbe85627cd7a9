"""`HfEncoding`: a ``tokenizer.json`` byte-level BPE with the same API as `engine.tokenizer.encoding.Encoding`.

The ids equal Hugging Face `tokenizers`' ``encode(text, add_special_tokens=False)``
with special added tokens treated as plain text unless the caller allows them
(tiktoken's ``allowed_special`` / ``disallowed_special``, as on the OpenAI
encodings).  Added tokens that are *not* special are always cut out whole, as
`tokenizers` does.  A special token that is not allowed is simply not looked
for -- the same as `tokenizers` with ``encode_special_tokens=True`` whenever no
non-special added token overlaps a special one (true for DeepSeek V4).

Offsets in `pretokenize` and `tokenize` are into the caller's text, also
after normalization (each output character points at the cluster it came
from) and for ByteLevel's added leading space (zero width at the piece start).
`tokenizers` refuses text holding surrogate code points; so does this.
"""
from __future__ import annotations

import re
import threading
from itertools import chain
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

from ...deadline import current as current_limit
from ...tokenizer.gpt2_bytes import BYTE_TO_CHAR, CHAR_TO_BYTE
from ...pickling import PicklableByName
from ...records import BpeTrace, MergeStep, Piece, Token
from ...tokenizer import patterns
from ...tokenizer.bpe import merge_heap
from ...tokenizer.decoding import DecodeById
from ...tokenizer.merges import MergeNode, build_merge_tree
from ...tokenizer.piece_cache import PieceCache
from ...tokenizer.special_tokens import AllowedSpecial, DisallowedSpecial, SpecialTokens
from .bpe import KEY
from .pipeline import AddedToken, added_token_regex, find_added, remembered_regex
from .tokenizer_json import HfTokenizerSpec, settings_note

_MATCHERS_MAX = 64
_BYTE_TABLE = {ord(c): chr(b) for c, b in CHAR_TO_BYTE.items()}
_BYTE_CHARS = frozenset(CHAR_TO_BYTE)
_TO_PRINTABLE = str.maketrans({chr(b): c for b, c in BYTE_TO_CHAR.items()})


def printable_form(data: bytes) -> str:
    """`engine.tokenizer.gpt2_bytes.encode_printable` at C speed (Latin-1 text, then one translate)."""
    return data.decode("latin-1").translate(_TO_PRINTABLE)


def check_no_surrogates(text: str) -> None:
    """tokenizers cannot take a str with surrogate code points; say so instead of guessing."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"text holds the surrogate code point U+{ord(text[exc.start]):04X} at index {exc.start}; "
            "Hugging Face tokenizers refuses such text too. Pass real characters "
            "(e.g. text.encode('utf-16', 'surrogatepass').decode('utf-16', 'replace'))"
        ) from None


class HfEncoding(PicklableByName, SpecialTokens, DecodeById):
    """A Hugging Face byte-level BPE tokenizer with tiktoken's interface."""

    def __init__(self, name: str, spec: HfTokenizerSpec) -> None:
        self.name = name
        self.spec = spec
        self._model = spec.model
        self._normalizer = spec.normalizer
        self._pretok = spec.pre_tokenizer
        self._added = {t.content: t for t in spec.added_tokens}
        self._added_by_id = {t.id: t for t in spec.added_tokens}
        self._special = {t.content: t.id for t in spec.added_tokens if t.special}
        self._special_ids = frozenset(self._special.values())
        self.n_vocab = spec.n_vocab
        self.max_token_value = spec.n_vocab - 1
        self._lock = threading.Lock()
        self._matchers: dict[frozenset[str], tuple] = {}
        self._checkers: dict[frozenset[str], re.Pattern] = {}
        self._decoder_cache: dict[int, bytes] | None = None
        self._ranks_cache: dict[bytes, int] | None = None
        self._parents: dict[int, tuple[int, int]] | None = None
        self._stored: dict[int, str] | None = None
        self._cache = PieceCache()
        self._matcher(frozenset())  # the one plain encode uses

    def __repr__(self) -> str:
        return f"<HfEncoding {self.name!r}>"

    # ------------------------------------------------------------------ data
    @property
    def _decoder(self) -> dict[int, bytes]:
        """id -> bytes: vocabulary tokens through GPT-2's byte table, added tokens as their UTF-8 text."""
        decoder = self._decoder_cache
        if decoder is None:
            with self._lock:
                if self._decoder_cache is None:
                    decoder = {}
                    for tok, tid in self.spec.vocab.items():
                        if _BYTE_CHARS.issuperset(tok):
                            decoder[tid] = tok.translate(_BYTE_TABLE).encode("latin-1")
                        else:  # the ByteLevel decoder passes a token with other characters through as UTF-8
                            decoder[tid] = tok.encode("utf-8")
                    for token in self.spec.added_tokens:
                        decoder[token.id] = token.content.encode("utf-8")
                    self._decoder_cache = decoder
                decoder = self._decoder_cache
        return decoder

    @property
    def mergeable_ranks(self) -> Mapping[bytes, int]:
        """Bytes -> id for the model's vocabulary (not the added tokens), read-only."""
        if self._ranks_cache is None:
            added = self._added_by_id
            self._ranks_cache = {b: i for i, b in self._decoder.items() if i not in added}
        return MappingProxyType(self._ranks_cache)

    @property
    def added_tokens(self) -> tuple[AddedToken, ...]:
        """Every added token with its flags (the non-special ones are always matched)."""
        return self.spec.added_tokens

    def same_tokenizer(self, other: object) -> bool:
        """Whether `other` gives the same ids for every text and policy (names aside): the same
        normalizer, pre-tokenizer (patterns compared by their text), added tokens with their flags,
        BPE model and vocabulary -- the bulk compared last."""
        if type(other) is not type(self):
            return False
        a, b = self.spec, other.spec
        return (a is b or a.n_vocab == b.n_vocab and a.normalizer == b.normalizer
                and a.pre_tokenizer.signature() == b.pre_tokenizer.signature()
                and a.added_tokens == b.added_tokens and a.model.same_merges(b.model) and a.vocab == b.vocab)

    def token_byte_values(self) -> list[bytes]:
        return sorted(self.mergeable_ranks)

    def clear_cache(self) -> None:
        self._cache.clear()

    def share_piece_cache(self, other: HfEncoding) -> bool:
        """Use `other`'s piece -> ids memo when both run the same BPE on the same vocabulary (two built-ins
        sharing one parsed vocabulary, `engine.families.hf.builtins`): a piece either has tokenized then
        costs the other a lookup.  The pre-tokenizers may differ -- the memo holds BPE's ids per piece.
        Returns whether it shares."""
        if self.spec.vocab is not other.spec.vocab or not self._model.same_merges(other._model):
            return False
        self._cache = other._cache
        return True

    # ------------------------------------------------------------- encoding
    def _special_pattern(self, tokens: frozenset[str]) -> re.Pattern | None:
        """A trie regex finding any of `tokens` (for the disallowed-special check), built once per set."""
        return remembered_regex(self._checkers, self._lock, tokens, _MATCHERS_MAX)

    def _matcher(self, allowed: frozenset[str]) -> tuple:
        """(raw regex, normalized regex, content -> token) for the non-special tokens plus `allowed`."""
        found = self._matchers.get(allowed)
        if found is None:
            tokens = [t for t in self.spec.added_tokens if not t.special or t.content in allowed]
            by_content = {t.content: t for t in tokens}
            raw = added_token_regex([t.content for t in tokens if not t.normalized])
            normalized_contents = {self._normalizer(t.content): t for t in tokens if t.normalized}
            by_content.update(normalized_contents)
            found = (raw, added_token_regex(list(normalized_contents)), by_content)
            with self._lock:
                if len(self._matchers) >= _MATCHERS_MAX:
                    self._matchers.clear()
                self._matchers[allowed] = found
        return found

    def _stretches(self, text: str, allowed: frozenset[str]) -> Iterable[tuple[str, int | None]]:
        """(normalized text, None) and ("", added id) in order: tokenizers' extract_and_normalize."""
        raw, normalized, by_content = self._matcher(allowed)
        for s, e, tid in find_added(text, raw, by_content):
            if tid is not None:
                yield "", tid
                continue
            part = self._normalizer(text[s:e])
            if normalized is None:
                yield part, None
                continue
            for s2, e2, tid2 in find_added(part, normalized, by_content):
                yield (part[s2:e2], None) if tid2 is None else ("", tid2)

    def _whole_token(self, data: bytes) -> int | None:
        """With ``ignore_merges``, the id of a piece that is itself in the vocabulary: tokenizers looks the
        piece's printable form up in the model's vocabulary (no byte table needed, so none is built)."""
        return self.spec.vocab.get(printable_form(data)) if self._model.ignore_merges else None

    def _bpe(self, piece: str) -> tuple[int, ...]:
        """Ids of one pre-tokenized piece (no cache)."""
        data = piece.encode("utf-8")
        model = self._model
        if model.ignore_merges:
            whole = self._whole_token(data)
            if whole is not None:
                return (whole,)
        return tuple(model.merge(model.initial_ids(data)))

    def _piece_ids(self, piece: str) -> tuple[int, ...]:
        return self._cache.ids(piece, self._bpe)

    @property
    def split_time_limit(self) -> float | None:
        """Seconds one text's split may take (SplitTimeoutError past them): the file's Split patterns
        are a user's regexes; None for a shipped file, whose patterns run in linear time."""
        return patterns.SPLIT_TIMEOUT if self._pretok.limited else None

    def _encode_stretch(self, text: str, out: list[int], deadline: float | None = None) -> None:
        pieces = self._pretok.split(text, deadline)
        out.extend(chain.from_iterable(self._cache.ids_of_all(pieces, self._bpe)))

    def _encode(self, text: str, allowed: frozenset[str]) -> list[int]:
        check_no_surrogates(text)
        out: list[int] = []
        deadline = self._pretok.deadline()  # one split time budget for the whole text
        for part, tid in self._stretches(text, allowed):
            if tid is None:
                self._encode_stretch(part, out, deadline)
            else:
                out.append(tid)
        return out

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids for `text`, special-token text encoded as ordinary text (non-special added tokens still match)."""
        return self._encode(text, frozenset())

    def encode(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
               disallowed_special: DisallowedSpecial = "all") -> list[int]:
        """Ids for `text`; special-token text raises unless allowed or disallowed_special=() (tiktoken's rules)."""
        return self._encode(text, self._allowed(text, allowed_special, disallowed_special))

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        text = data.decode("utf-8", errors="replace")
        if text in self._added:
            return self._added[text].id
        if data in self.mergeable_ranks:
            return self.mergeable_ranks[data]
        raise KeyError(f"{text_or_bytes!r} is not a single token of {self.name}")

    # ------------------------------------------------------------- decoding
    # ---------------------------------------------------------- explaining
    def pretokenize(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                    disallowed_special: DisallowedSpecial = "all") -> list[Piece]:
        """The pieces BPE runs on (and the added tokens), with character and byte offsets into `text`.

        `Piece.text` is what BPE sees: normalized, with ByteLevel's leading
        space if one was added.  Added tokens come back with ``special=True``.
        """
        return [p for p, _, _ in self._explain(text, self._allowed(text, allowed_special, disallowed_special))]

    def _explain(self, text: str, allowed: frozenset[str]) -> list[tuple[Piece, list[tuple[int, int]], int | None]]:
        """Pieces, each with the span of `text` behind every character of its text, and its id if an added token."""
        check_no_surrogates(text)
        byte_at = _byte_offsets(text)
        raw, normalized_rx, by_content = self._matcher(allowed)
        out: list[tuple[Piece, list[tuple[int, int]], int | None]] = []
        deadline = self._pretok.deadline()  # one split time budget for the whole text

        def add(piece_text: str, align: list[tuple[int, int]], tid: int | None) -> None:
            cs, ce = (align[0][0], align[-1][1]) if align else (0, 0)
            out.append((Piece(len(out), piece_text, cs, ce, byte_at[cs], byte_at[ce], tid is not None), align, tid))

        for s, e, tid in find_added(text, raw, by_content):
            if tid is not None:
                add(text[s:e], [(i, i + 1) for i in range(s, e)], tid)
                continue
            part, part_align = self._normalizer.with_alignment(text[s:e])
            part_align = [(s + a, s + b) for a, b in part_align]
            for s2, e2, tid2 in find_added(part, normalized_rx, by_content):
                if tid2 is not None:
                    add(part[s2:e2], part_align[s2:e2], tid2)
                    continue
                for a, b, prefixed in self._pretok.spans(part[s2:e2], deadline):
                    a, b = a + s2, b + s2
                    align = part_align[a:b]
                    if prefixed:
                        start = align[0][0] if align else (part_align[a - 1][1] if a else s)
                        add(" " + part[a:b], [(start, start)] + align, None)
                    else:
                        add(part[a:b], align, None)
        return out

    def tokenize(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                 disallowed_special: DisallowedSpecial = "all") -> list[Token]:
        """One record per token with its bytes and its character and byte offsets into `text`."""
        return self.tokenize_with_pieces(text, allowed_special=allowed_special, disallowed_special=disallowed_special)[0]

    def tokenize_with_pieces(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                             disallowed_special: DisallowedSpecial = "all") -> tuple[list[Token], list[Piece]]:
        """`tokenize` and `pretokenize` of `text` from one split (`Token.piece_index` indexes the pieces)."""
        byte_at = _byte_offsets(text)
        tokens: list[Token] = []
        explained = self._explain(text, self._allowed(text, allowed_special, disallowed_special))
        limit = current_limit()
        for piece, align, tid in explained:
            if limit is not None:
                limit.check()
            if tid is not None:
                tokens.append(Token(tid, self._decoder[tid], piece.byte_start, piece.byte_end,
                                    piece.char_start, piece.char_end, piece.index, special=tid in self._special_ids))
                continue
            data = piece.text.encode("utf-8")
            char_of: list[int] = []  # index (in the piece text) of the character holding each byte
            for ci, ch in enumerate(piece.text):
                char_of.extend([ci] * len(ch.encode("utf-8")))
            identity = all(b - a == 1 for a, b in align) and len(align) == len(piece.text)
            pos = 0
            for tid in self._piece_ids(piece.text):
                tok = self._decoder[tid]
                end = pos + len(tok)
                first, last = char_of[pos], char_of[end - 1]
                cs, ce = align[first][0], max(align[last][1], align[first][0])
                partial = (pos > 0 and char_of[pos - 1] == first) or (end < len(data) and char_of[end] == last)
                if identity and len(data) == len(piece.text):  # ASCII, nothing added or normalized: exact bytes
                    bs, be = piece.byte_start + pos, piece.byte_start + end
                elif identity:
                    head = len(piece.text[:first].encode("utf-8"))
                    bs = byte_at[cs] + (pos - head)
                    be = bs + len(tok)
                else:
                    bs, be = byte_at[cs], byte_at[ce]
                tokens.append(Token(tid, tok, bs, be, cs, ce, piece.index, partial=partial))
                pos = end
        return tokens, [p for p, _, _ in explained]

    def bpe_trace(self, piece: str | bytes) -> BpeTrace:
        """Every merge on one piece (as BPE sees it); `final_ids` equal `encode`'s for that piece.

        `MergeStep.rank` is the id of the token the step makes (as for the
        OpenAI encodings); the merge's position in the file's list orders the steps.
        """
        data = piece.encode("utf-8") if isinstance(piece, str) else bytes(piece)
        model = self._model
        if not model.complete or any(model.byte_ids[b] is None for b in set(data)):
            raise ValueError(f"{self.name} has no token for some bytes of {data[:40]!r}; bpe_trace needs a token "
                             "for every byte of the piece")
        events: list[tuple[int, int, int]] = []
        final = merge_heap(model.initial_ids(data), *model.functions(), events=events)
        final_ids = tuple(final)  # type: ignore[arg-type]
        whole = self._whole_token(data)
        if whole is not None:
            final_ids = (whole,)
        steps = _steps(data, events, model.merged_id)
        return BpeTrace(data, tuple(steps), final_ids, tuple((i, j) for i, j, _ in events))

    # ------------------------------------------------- explaining, for the playground
    family = "tokenizer.json"

    @property
    def lossy(self) -> bool:
        """Whether some text does not come back from ``decode(encode(text))``: the file normalizes (NFC or
        NFKC), or some character UTF-8 text can hold has neither a byte token nor a byte fallback."""
        model = self._model
        return bool(self._normalizer.forms) or not (model.complete or model.byte_fallback_ids is not None)

    @property
    def post_processor(self):
        """The file's post-processor (`engine.families.hf.post_processors.PostProcessor`), or None."""
        return self.spec.post_processor

    @property
    def settings_note(self) -> str | None:
        """The file's padding and truncation, said for people (they never change one text's ids here)."""
        return settings_note(self.spec.padding, self.spec.truncation)

    def encode_for_model(self, text: str, *, allowed_special: AllowedSpecial = "all",
                         disallowed_special: DisallowedSpecial = ()) -> list[int]:
        """The ids the model is fed: `encode`, then the post-processor's special tokens around them
        (`tokenizers`' ``encode(text, add_special_tokens=True)``; special-token text is recognised by default,
        as transformers does)."""
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        return ids if self.spec.post_processor is None else self.spec.post_processor.apply(ids)

    @property
    def uses_pair_merges(self) -> bool:
        """True: merges are the file's listed pairs (`merges`, `merge_tree`), not recovered from byte ranks."""
        return True

    def stored_piece(self, token: int) -> str:
        """The file's own spelling of `token`: ``Ġthe`` (GPT-2's printable byte characters, Ġ is a space)
        for a vocabulary token, the text itself for an added token."""
        self.decode_single_token_bytes(token)
        added = self._added_by_id.get(token)
        if added is not None:
            return added.content
        if self._stored is None:
            self._stored = {i: s for s, i in self.spec.vocab.items()}
        return self._stored[token]

    def is_byte_fallback(self, token: int) -> bool:
        """True for a ``<0xXX>`` token the model uses for a byte it has no token for (``byte_fallback``)."""
        ids = self._model.byte_fallback_ids
        return ids is not None and token in ids

    def pair_rank(self, left: int, right: int) -> int | None:
        """The position in the file's ``merges`` list of the merge joining tokens `left` and `right`, or None.

        BPE joins, at every step, the neighbouring pair listed earliest (the
        leftmost on a tie); a pair that is not listed never merges.
        """
        return self._model.pair_rank.get(left * KEY + right)

    def merged_by(self, rank: int) -> int:
        """The id of the token the merge at position `rank` of the ``merges`` list makes."""
        return self._model.merged_id[rank]

    @property
    def ignore_merges(self) -> bool:
        """The file's ``ignore_merges``: a piece that is itself in the vocabulary is that token, merges or not."""
        return self._model.ignore_merges

    def piece_ids(self, piece: str) -> list[int]:
        """The ids `encode` gives one piece of `pretokenize` (its text as BPE sees it)."""
        check_no_surrogates(piece)
        return list(self._piece_ids(piece)) if piece else []

    @property
    def merges(self) -> dict[tuple[int, int], int]:
        """``{(left_id, right_id): made_id}`` in the file's merge order (the first merge making each token)."""
        parents = self._merge_parents()
        return {pair: made for made, pair in sorted(parents.items(), key=lambda kv: self._first_rank[kv[0]])}

    def _merge_parents(self) -> dict[int, tuple[int, int]]:
        if self._parents is None:
            with self._lock:
                if self._parents is None:
                    parents = self._model.parents()
                    self._first_rank = {}
                    for rank, made in enumerate(self._model.merged_id):
                        self._first_rank.setdefault(made, rank)
                    self._parents = parents
        return self._parents

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        return self._merge_parents().get(token_id)

    def merge_tree(self, token_id: int) -> MergeNode:
        """How `token_id` is built: the first listed merge that makes it, recursively, down to single bytes.

        A token no merge makes is a leaf with all its bytes (BPE cannot produce it from text).
        """
        if token_id in self._added_by_id:
            raise ValueError(f"{token_id} is the added token {self._decoder[token_id]!r}: it is matched whole, not built by merges")
        self.decode_single_token_bytes(token_id)
        return build_merge_tree(token_id, self._merge_parents(), self.decode_single_token_bytes)


def _byte_offsets(text: str) -> list[int]:
    """byte_at[i] = UTF-8 offset of character i (len(text)+1 entries)."""
    if text.isascii():
        return list(range(len(text) + 1))
    out = [0]
    total = 0
    for ch in text:
        total += len(ch.encode("utf-8", "surrogatepass"))
        out.append(total)
    return out


def _steps(data: bytes, events: list[tuple[int, int, int]], merged_id: Sequence[int]) -> list[MergeStep]:
    """Heap events (left node, right node, merge rank) -> steps whose `rank` is the made token's id.

    A step's `position` (index of its left part among the current parts) is
    the number of live nodes before it, kept in a Fenwick tree: O(log n) each.
    """
    n = len(data)
    tree = [0] * (n + 1)
    for i in range(1, n + 1):  # every node alive: tree[i] covers (i - lowbit(i), i]
        tree[i] = i & -i
    length = [1] * n
    steps = []
    for k, (i, j, rank) in enumerate(events):
        position, x = 0, i
        while x > 0:
            position += tree[x]
            x -= x & -x
        steps.append(MergeStep(k, position, i, data[i : i + length[i]], data[j : j + length[j]], merged_id[rank]))
        length[i] += length[j]
        x = j + 1
        while x <= n:  # node j is gone
            tree[x] -= 1
            x += x & -x
    return steps


