"""`HfPipelineEncoding`: any ``tokenizer.json`` that is not byte-level BPE, with tiktoken's API.

The stages run as `tokenizers` 0.23 runs them (``encode(text, add_special_tokens=False)``):

1. added tokens cut out of the raw text (the non-normalized ones, and the special ones the caller
   allows -- special tokens are plain text otherwise, as on the OpenAI encodings), then of the
   normalized text (the normalized ones): `engine.families.hf.pipeline.find_added`;
2. the normalizer (`engine.families.hf.normalizers`), each stretch between added tokens on its own;
3. the pre-tokenizer (`engine.families.hf.pre_tokenizers`): pieces with their spans;
4. the model (`engine.families.hf.models`: WordPiece, WordLevel, Unigram, BPE over characters) on each
   piece, remembered per piece in a bounded `PieceCache`;
5. on request only, the post-processor's special tokens (`encode_for_model`);
6. ``decode``: the file's decoder (`engine.families.hf.decoders`) over the tokens' vocabulary entries
   (tokenizers joins them with spaces when the file has no decoder).

Byte-level BPE files keep the faster `engine.families.hf.encoding.HfEncoding`;
`engine.families.hf.load.encoding_from_root` picks the class.

Offsets are into the caller's text through every stage: each normalized character knows the span of
the original it came from (also for NFKC, lowercasing, accent stripping), each piece its span of the
normalized text, each model token its characters of the piece; a byte-fallback token carries the
character it is a byte of (``partial``).

Token bytes (`decode_single_token_bytes`): a byte-fallback ``<0xXX>`` is its byte, any other token its
vocabulary entry in UTF-8 with the file's space marker (``▁``) as a space when the pipeline has one.
``decode`` runs the file's decoder instead, so ``##`` continuations join and words get their spaces.
"""
from __future__ import annotations

import re
import threading
from itertools import chain
from operator import methodcaller
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

from ...deadline import current as current_limit
from ...tokenizer.gpt2_bytes import CHAR_TO_BYTE
from ...pickling import PicklableByName
from ...records import BpeTrace, MergeNode, MergeStep, Piece, Token
from ...tokenizer import patterns
from ...tokenizer.decoding import DecodeById
from ...tokenizer.merges import build_merge_tree
from ...tokenizer.piece_cache import PieceCache
from ...tokenizer.special_tokens import AllowedSpecial, DisallowedSpecial, SpecialTokens
from .bpe import KEY
from .encoding import _byte_offsets, check_no_surrogates
from .models import CharBpe, Unigram, WordLevel, WordPiece
from .models.base import ModelToken, byte_fallback_name
from .normalizers import AlignedText
from .pipeline import added_token_regex, find_added, remembered_regex
from .tokenizer_json import PipelineSpec, settings_note

__all__ = ["HfPipelineEncoding", "FAMILY_OF_MODEL"]

_MATCHERS_MAX = 64
Span = tuple[int, int]
# the key of `engine.sources.catalog.FAMILIES` for each model
FAMILY_OF_MODEL = {WordPiece: "wordpiece", Unigram: "unigram", WordLevel: "wordlevel", CharBpe: "char-bpe"}
_BYTE_FALLBACK = re.compile(r"<0x([0-9A-F]{2})>")


def _mentions(node: Any, kind: str) -> bool:
    """Whether a stage's JSON (or a Sequence inside it) has a component of type `kind`."""
    if isinstance(node, dict):
        return node.get("type") == kind or any(_mentions(v, kind) for v in node.values() if isinstance(v, (list, dict)))
    if isinstance(node, list):
        return any(_mentions(v, kind) for v in node)
    return False


class HfPipelineEncoding(PicklableByName, SpecialTokens, DecodeById):
    """A Hugging Face tokenizer.json pipeline (WordPiece, WordLevel, Unigram or character BPE) with tiktoken's interface."""

    def __init__(self, name: str, spec: PipelineSpec) -> None:
        self.name = name
        self.spec = spec
        self.model = spec.model
        self._normalizer = spec.normalizer
        self._pretok = spec.pre_tokenizer
        self._added_by_id = {t.id: t for t in spec.added_tokens}
        self._added: dict[str, object] = {}  # content -> the first added token with it (encode_single_token)
        for t in spec.added_tokens:
            self._added.setdefault(t.content, t)
        self._added_bytes: dict[bytes, int] | None = None
        self._special = {t.content: t.id for t in spec.added_tokens if t.special}
        self._special_ids = frozenset(self._special.values())
        self.n_vocab = spec.n_vocab
        self.max_token_value = spec.n_vocab - 1
        self._lock = threading.Lock()
        self._matchers: dict[frozenset[str], tuple] = {}
        self._checkers: dict[frozenset[str], re.Pattern | None] = {}
        self._cache = PieceCache()
        self._space = "▁" if any(_mentions(spec.nodes.get(k), "Metaspace") or "▁" in str(spec.nodes.get(k))
                                 for k in ("pre_tokenizer", "decoder")) else None
        self._byte_level = _mentions(spec.nodes.get("decoder"), "ByteLevel")
        self._tables: tuple[dict[int, str], dict[int, bytes]] | None = None  # built on first use
        self._ranks: dict[bytes, int] | None = None
        self._parents: dict[int, tuple[int, int]] | None = None  # made id -> its first merge, built on first use
        self._matcher(frozenset())

    def __repr__(self) -> str:
        return f"<HfPipelineEncoding {self.name!r} ({type(self.model).__name__})>"

    # ------------------------------------------------------------------ data
    def _build_tables(self) -> tuple[dict[int, str], dict[int, bytes]]:
        tables = self._tables
        if tables is None:
            with self._lock:
                if self._tables is None:
                    vocab = self.model.vocab
                    stored = dict(zip(vocab.values(), vocab))
                    for t in self.spec.added_tokens:
                        stored[t.id] = t.content
                    self._tables = (stored, self._token_bytes_bulk(stored))
                tables = self._tables
        return tables

    def _token_bytes_bulk(self, stored: dict[int, str]) -> dict[int, bytes]:
        """`_token_bytes` of every entry of `stored`, in bulk: Gemma 3's 262,144 tokens would take a second
        one by one (a regex per token), and uploading a file builds this table to check it."""
        if self._byte_level:
            return {i: self._token_bytes(i, s) for i, s in stored.items()}
        values = list(stored.values())
        joined = "\0".join(values)  # one replace and one encode for all, split at the NULs again
        if self._space is not None:
            joined = joined.replace(self._space, " ")
        if joined.count("\0") == len(values) - 1:  # no token holds a NUL itself
            out = dict(zip(stored, joined.encode("utf-8").split(b"\0")))
        else:
            strings: Iterable[str] = values
            if self._space is not None:
                strings = map(methodcaller("replace", self._space, " "), strings)
            out = dict(zip(stored, map(methodcaller("encode", "utf-8"), strings)))
        if getattr(self.model, "byte_fallback", False):
            vocab = self.model.vocab
            for b in range(256):  # the entries _BYTE_FALLBACK matches are exactly these 256 names
                name = byte_fallback_name(b)
                tid = vocab.get(name)
                if tid is not None and stored.get(tid) == name:
                    out[tid] = bytes((b,))
        for tid, token in self._added_by_id.items():
            out[tid] = stored[tid].encode("utf-8")
        return out

    @property
    def _stored(self) -> dict[int, str]:
        """id -> the file's spelling of the token."""
        return self._build_tables()[0]

    @property
    def _decoder(self) -> dict[int, bytes]:
        """id -> token bytes (see the module docstring)."""
        return self._build_tables()[1]

    def _token_bytes(self, tid: int, stored: str) -> bytes:
        if tid in self._added_by_id:
            return stored.encode("utf-8")
        m = _BYTE_FALLBACK.fullmatch(stored)
        if m is not None and getattr(self.model, "byte_fallback", False):
            return bytes([int(m.group(1), 16)])
        if self._byte_level and all(c in CHAR_TO_BYTE for c in stored):
            return bytes(CHAR_TO_BYTE[c] for c in stored)
        if self._space is not None:
            stored = stored.replace(self._space, " ")
        return stored.encode("utf-8")

    @property
    def family(self) -> str:
        """``wordpiece``, ``unigram``, ``wordlevel`` or ``char-bpe``: a key of `engine.sources.catalog.FAMILIES`."""
        return FAMILY_OF_MODEL[type(self.model)]

    @property
    def mergeable_ranks(self) -> Mapping[bytes, int]:
        """Token bytes -> id for the model's vocabulary (the first id of bytes several entries share), read-only."""
        if self._ranks is None:
            ranks: dict[bytes, int] = {}
            # bytes several entries share go to the lowest id, an ordinary entry before a <0xXX> byte fallback
            for tid in sorted(self._stored, key=lambda t: (self.is_byte_fallback(t), t)):
                if tid not in self._added_by_id:
                    ranks.setdefault(self._decoder[tid], tid)
            self._ranks = ranks
        return MappingProxyType(self._ranks)

    @property
    def added_tokens(self):
        return self.spec.added_tokens

    @property
    def post_processor(self):
        """The file's post-processor (`engine.families.hf.post_processors.PostProcessor`), or None."""
        return self.spec.post_processor

    @property
    def settings_note(self) -> str | None:
        """The file's padding and truncation, said for people (they never change one text's ids here)."""
        return settings_note(self.spec.padding, self.spec.truncation)

    @property
    def lossy(self) -> bool:
        """Whether some text does not come back from ``decode(encode(text))``: a normalizer, an unknown token,
        or a model that drops what it cannot spell (`engine.explain` finds a concrete example)."""
        model = self.model
        if self._normalizer is not None or isinstance(model, (WordPiece, WordLevel)):
            return True
        return not model.byte_fallback  # Unigram and BPE: a character without an entry is <unk> (or dropped)

    def token_byte_values(self) -> list[bytes]:
        return sorted(self.mergeable_ranks)

    def stored_piece(self, token: int) -> str:
        """The file's own spelling of `token` (``##able``, ``▁the``, ``<0xE3>``)."""
        self.decode_single_token_bytes(token)
        return self._stored[token]

    def is_byte_fallback(self, token: int) -> bool:
        stored = self._stored.get(token)
        return (stored is not None and getattr(self.model, "byte_fallback", False) and token not in self._added_by_id
                and _BYTE_FALLBACK.fullmatch(stored) is not None)

    def same_tokenizer(self, other: object) -> bool:
        """Whether `other` is the same file's pipeline (its JSON stages, added tokens and model compared)."""
        if type(other) is not type(self):
            return False
        a, b = self.spec, other.spec  # type: ignore[attr-defined]
        if a is b:
            return True
        if a.nodes != b.nodes or a.added_tokens != b.added_tokens or type(a.model) is not type(b.model):
            return False
        ma, mb = a.model, b.model
        if isinstance(ma, CharBpe):
            return ma.same_model(mb)
        return vars(ma).keys() == vars(mb).keys() and all(
            getattr(ma, k) == getattr(mb, k) for k in vars(ma) if not k.startswith("_"))

    def clear_cache(self) -> None:
        self._cache.clear()

    @property
    def split_time_limit(self) -> float | None:
        """Seconds one text's split may take: the file's Split (and Replace) patterns are a user's regexes."""
        limited = any(stage is not None and stage.limited for stage in (self._normalizer, self._pretok))
        return patterns.SPLIT_TIMEOUT if limited else None

    @property
    def uses_pair_merges(self) -> bool:
        """True for BPE (its merges are the file's pairs); the other models do not merge."""
        return isinstance(self.model, CharBpe)

    # ------------------------------------------------------------ stages
    def _normalize(self, text: str) -> str:
        return text if self._normalizer is None else self._normalizer.normalize_str(text)

    def _normalize_aligned(self, text: str) -> tuple[str, list[Span]]:
        if self._normalizer is None:
            return text, [(i, i + 1) for i in range(len(text))]
        return self._normalizer.normalize(text)

    def _pieces(self, text: str, at_start: bool, deadline: float | None) -> list[str]:
        """The pieces of `text` (normalized) -- all of it without a pre-tokenizer.  `at_start`: whether `text`
        begins the caller's text (Metaspace's ``prepend_scheme: first`` looks at that)."""
        if not text:
            return []
        if self._pretok is None:
            return [text]
        return self._pretok.split_str(text, deadline, at_start)

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
            normalized = {self._normalize(t.content): t for t in tokens if t.normalized}
            by_content.update(normalized)
            found = (raw, added_token_regex([c for c in normalized if c]), by_content)
            with self._lock:
                if len(self._matchers) >= _MATCHERS_MAX:
                    self._matchers.clear()
                self._matchers[allowed] = found
        return found

    def _stretches(self, text: str, allowed: frozenset[str]) -> Iterable[tuple[str, int | None, bool]]:
        """(normalized text, None, starts the text) and ("", added id, _) in order: tokenizers' extract_and_normalize."""
        raw, normalized, by_content = self._matcher(allowed)
        for s, e, tid in find_added(text, raw, by_content):
            if tid is not None:
                yield "", tid, False
                continue
            part = self._normalize(text[s:e])
            for s2, e2, tid2 in find_added(part, normalized, by_content):
                yield (part[s2:e2], None, s == 0 and s2 == 0) if tid2 is None else ("", tid2, False)

    # ------------------------------------------------------------- encoding
    def _encode(self, text: str, allowed: frozenset[str]) -> list[int]:
        check_no_surrogates(text)
        out: list[int] = []
        cache = self._cache
        ids, known = cache.ids, cache.get
        model = self.model
        # a long ▁-joined piece in parts that repeat (`CharBpe.sub_pieces`: the same ids), each part remembered
        cut = model.sub_pieces if isinstance(model, CharBpe) and model.cuts_pieces else None
        compute = model.ids if cut is None else model.merged_ids
        deadline = None if self._pretok is None else self._pretok.deadline()  # one split budget for the whole text
        limit = current_limit()  # a caller's time limit on the whole call (`engine.deadline`), checked per piece
        for part, tid, at_start in self._stretches(text, allowed):
            if tid is not None:
                out.append(tid)
                continue
            for piece in self._pieces(part, at_start, deadline):
                if not piece:
                    continue
                if limit is not None:
                    limit.check()
                if cut is None:
                    out.extend(ids(piece, compute))
                    continue
                subs = cut(piece)
                found = list(map(known, subs))  # remembered parts at C speed, the rest computed
                if None in found:
                    for k, sub in enumerate(subs):
                        if found[k] is None:
                            if limit is not None:
                                limit.check()
                            found[k] = ids(sub, compute)
                out.extend(chain.from_iterable(found))
        return out

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids for `text`, special-token text encoded as ordinary text (non-special added tokens still match)."""
        return self._encode(text, frozenset())

    def encode(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
               disallowed_special: DisallowedSpecial = "all") -> list[int]:
        """Ids for `text`; special-token text raises unless allowed or disallowed_special=() (tiktoken's rules).
        No special tokens are added around the text (that is `encode_for_model`)."""
        return self._encode(text, self._allowed(text, allowed_special, disallowed_special))

    def encode_for_model(self, text: str, *, allowed_special: AllowedSpecial = "all",
                         disallowed_special: DisallowedSpecial = ()) -> list[int]:
        """The ids the model is fed: `encode`, then the post-processor's special tokens around them
        (`tokenizers`' ``encode(text, add_special_tokens=True)``; special-token text is recognised by default,
        as transformers does)."""
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        return ids if self.spec.post_processor is None else self.spec.post_processor.apply(ids)

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of one token given as its vocabulary entry (``##able``) or its bytes."""
        if isinstance(text_or_bytes, str):
            added = self._added.get(text_or_bytes)
            if added is not None:
                return added.id
            tid = self.model.vocab.get(text_or_bytes)
            if tid is not None:
                return tid
            text_or_bytes = text_or_bytes.encode("utf-8")
        data = bytes(text_or_bytes)
        if self._added_bytes is None:  # dicts, not a scan: Gemma 3 has 6,000+ added tokens (a scan was 1.5 ms a call)
            self._added_bytes = {}
            for t in self.spec.added_tokens:
                self._added_bytes.setdefault(t.content.encode("utf-8"), t.id)
        tid = self._added_bytes.get(data)
        if tid is None:
            self.mergeable_ranks  # builds self._ranks once
            tid = self._ranks.get(data)
        if tid is not None:
            return tid
        raise KeyError(f"{text_or_bytes!r} is not a single token of {self.name}")

    # ------------------------------------------------------------- decoding
    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """The text the file's decoder makes of `tokens` (tokenizers' ``decode(ids, skip_special_tokens=False)``)."""
        for t in tokens:
            if t not in self._stored:
                self.decode_single_token_bytes(t)  # raises UnknownTokenError naming the range
        strings = [self._stored[t] for t in tokens]
        decoder = self.spec.decoder
        if decoder is None:
            return " ".join(strings)
        return decoder.decode(strings)

    # ---------------------------------------------------------- explaining
    def _explain(self, text: str, allowed: frozenset[str]) -> list[tuple[Piece, list[Span], int | None]]:
        """Pieces (and added tokens), each with the span of `text` behind every character of its text."""
        check_no_surrogates(text)
        byte_at = _byte_offsets(text)
        raw, normalized_rx, by_content = self._matcher(allowed)
        out: list[tuple[Piece, list[Span], int | None]] = []
        deadline = None if self._pretok is None else self._pretok.deadline()

        def add(piece_text: str, align: list[Span], tid: int | None) -> None:
            cs, ce = (min(a for a, _ in align), max(b for _, b in align)) if align else (0, 0)
            out.append((Piece(len(out), piece_text, cs, ce, byte_at[cs], byte_at[ce], tid is not None), align, tid))

        for s, e, tid in find_added(text, raw, by_content):
            if tid is not None:
                add(text[s:e], [(i, i + 1) for i in range(s, e)], tid)
                continue
            part, part_align = self._normalize_aligned(text[s:e])
            part_align = [(s + a, s + b) for a, b in part_align]
            for s2, e2, tid2 in find_added(part, normalized_rx, by_content):
                if tid2 is not None:
                    add(part[s2:e2], part_align[s2:e2], tid2)
                    continue
                stretch = AlignedText(part[s2:e2], part_align[s2:e2], part_align[s2][0] if s2 < len(part_align) else s)
                if self._pretok is None:
                    add(stretch.text, stretch.align, None)
                    continue
                for piece in self._pretok.pre_tokenize_aligned(stretch, deadline):
                    if piece.text.text:
                        add(piece.text.text, piece.text.align, None)
        return out

    def pretokenize(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                    disallowed_special: DisallowedSpecial = "all") -> list[Piece]:
        """The pieces the model runs on (and the added tokens), with character and byte offsets into `text`.
        `Piece.text` is what the model sees: normalized, ``▁`` for spaces where the pre-tokenizer puts them."""
        return [p for p, _, _ in self._explain(text, self._allowed(text, allowed_special, disallowed_special))]

    def tokenize(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                 disallowed_special: DisallowedSpecial = "all") -> list[Token]:
        """One record per token with its bytes and its character and byte offsets into `text`."""
        return self.tokenize_with_pieces(text, allowed_special=allowed_special, disallowed_special=disallowed_special)[0]

    def tokenize_with_pieces(self, text: str, *, allowed_special: AllowedSpecial = frozenset(),
                             disallowed_special: DisallowedSpecial = "all") -> tuple[list[Token], list[Piece]]:
        """`tokenize` and `pretokenize` of `text` from one run of the stages (`Token.piece_index` indexes the pieces)."""
        byte_at = _byte_offsets(text)
        tokens: list[Token] = []
        explained = self._explain(text, self._allowed(text, allowed_special, disallowed_special))
        limit = current_limit()
        for piece, align, tid in explained:
            if limit is not None:
                limit.check()
            if tid is not None:
                tokens.append(Token(tid, self._decoder[tid], piece.byte_start, piece.byte_end, piece.char_start,
                                    piece.char_end, piece.index, special=tid in self._special_ids))
                continue
            for t in self.model.tokenize(piece.text):
                cs, ce = _span(align, t, piece)
                tokens.append(Token(t.id, self._decoder[t.id], byte_at[cs], byte_at[ce], cs, ce, piece.index,
                                    partial=t.byte >= 0))
        return tokens, [p for p, _, _ in explained]

    def model_steps(self, piece: str) -> list:
        """How the model decided on one piece (as `pretokenize` gives it): WordPiece's lookups (`Attempt`),
        Unigram's lattice (`LatticeNode`, the winning path marked), BPE's merges (`BpeStep`), WordLevel's one lookup."""
        check_no_surrogates(piece)
        return self.model.steps(piece)

    def piece_ids(self, piece: str) -> list[int]:
        """The ids `encode` gives one piece of `pretokenize`."""
        check_no_surrogates(piece)
        return list(self._cache.ids(piece, self.model.ids)) if piece else []

    def bpe_trace(self, piece: str | bytes) -> BpeTrace:
        """The merges on one piece (BPE only; the other models merge nothing: no steps, their ids).
        `MergeStep.rank` is the id of the token the step makes; `model_steps` shows the other models' work."""
        text = piece.decode("utf-8") if isinstance(piece, bytes) else piece
        data = text.encode("utf-8")
        final = tuple(self.piece_ids(text))
        if not isinstance(self.model, CharBpe):
            return BpeTrace(data, (), final)
        steps = []
        for k, step in enumerate(self.model.steps(text)):
            left, right = step.parts[step.position], step.parts[step.position + 1]
            start = len(text[:left.start].encode("utf-8"))
            steps.append(MergeStep(k, step.position, start, self._decoder[left.id], self._decoder[right.id],
                                   self.model.merged_id[step.rank]))
        return BpeTrace(data, tuple(steps), final)

    def pair_rank(self, left: int, right: int) -> int | None:
        """BPE: the position in the file's ``merges`` list of the merge joining `left` and `right`, or None."""
        if not isinstance(self.model, CharBpe):
            return None
        return self.model.pair_rank.get(left * KEY + right)

    def merged_by(self, rank: int) -> int:
        """BPE: the id of the token the merge at position `rank` of the ``merges`` list makes."""
        return self.model.merged_id[rank]

    @property
    def merges(self) -> dict[tuple[int, int], int]:
        """``{(left_id, right_id): made_id}`` in the file's merge order (BPE; empty for the other models)."""
        if not isinstance(self.model, CharBpe):
            return {}
        out: dict[tuple[int, int], int] = {}
        for key, rank in sorted(self.model.pair_rank.items(), key=lambda kv: kv[1]):
            out.setdefault(divmod(key, KEY), self.model.merged_id[rank])  # type: ignore[arg-type]
        return out

    def _merge_parents(self) -> dict[int, tuple[int, int]]:
        """``made id -> (left, right)`` of the first listed merge that makes it, built once: `merges` sorts every
        pair (half a second for Gemma's 262,000), and the scaffold counts ask for a tree per emitted token."""
        parents = self._parents
        if parents is None:
            with self._lock:
                if self._parents is None:
                    built: dict[int, tuple[int, int]] = {}
                    for pair, made in self.merges.items():
                        built.setdefault(made, pair)
                    self._parents = built
                parents = self._parents
        return parents

    def merge_parents(self, token_id: int) -> tuple[int, int] | None:
        if not isinstance(self.model, CharBpe):
            return None
        return self._merge_parents().get(token_id)

    def merge_tree(self, token_id: int) -> MergeNode:
        """How BPE builds `token_id` from the first listed merge that makes it, down to tokens no merge makes; a
        leaf for a token of another model.  A node's bytes are its token's own (a continuation prefix such as
        ``##`` is dropped by the merge, so they are not its parts' joined)."""
        data = self.decode_single_token_bytes(token_id)
        if not isinstance(self.model, CharBpe) or token_id in self._added_by_id:
            return MergeNode(token_id, data)
        return build_merge_tree(token_id, self._merge_parents(), self._decoder.__getitem__,
                                node_bytes=self._decoder.__getitem__)


def _span(align: list[Span], token: ModelToken, piece: Piece) -> Span:
    """The characters of the caller's text behind `token` (a model token of `piece`)."""
    covered = align[token.start:token.end]
    if not covered:
        return piece.char_start, piece.char_start
    return min(a for a, _ in covered), max(b for _, b in covered)
