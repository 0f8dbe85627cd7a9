"""How each tokenizer family works, as plain data the playground draws: the same questions, every family.

Four families share the `Encoding` API but differ in what happens around BPE
and in what decides the next merge:

* **tiktoken-style ranks** (OpenAI's, Llama 3/4, Qwen, Tekken): a regex cuts
  the text into pieces; BPE starts from a piece's bytes and joins the
  neighbouring pair whose joined bytes are the token with the *lowest rank*
  (rank = id);
* **minbpe merges** (a trained or uploaded minbpe model): the same, but the
  merges are explicit pairs of ids;
* **SentencePiece BPE** (Mistral v1/v3): spaces become ``▁`` and a ``▁`` is put
  before the text; BPE starts from *characters* and joins the pair whose
  joined piece has the *highest score*; a character with no piece becomes one
  ``<0xXX>`` token per UTF-8 byte (byte fallback);
* **tokenizer.json** (DeepSeek V4): a sequence of pre-tokenizers cuts the
  text; BPE starts from bytes and applies the file's *listed merges*, the
  earliest-listed first; a pair that is not listed never merges;
* the other ``tokenizer.json`` models (`engine.families.hf.general`): **BPE over characters**
  (Gemma 3: the same listed merges, from characters, byte fallback for the rest), **WordPiece**
  (BERT: greedy longest match, ``##`` continuations), **Unigram** (T5: the best-scoring path through
  a lattice of pieces) and **WordLevel** (one lookup per word) -- no merges for the last three.

`family_note` says so for one encoding (with its own split stages and
patterns), `pair_candidates` scores the neighbouring pairs of a BPE step the
family's way, `piece_ids` gives what ``encode`` makes of one piece, and
`token_note` explains a token whose bytes alone would mislead (a
byte-fallback byte, a ``▁`` piece, an ``Ġ`` entry), and `tokenize_text` gives a text's tokens with
their pieces and notes in one call (what the playground's token drawings need).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from ..api import EncodingAPI
from ..records import Piece, Token
from ..families.hf.encoding import HfEncoding
from ..families.sentencepiece.encoding import SPACE, SentencePieceEncoding
from ..sources.catalog import FAMILIES

Enc = EncodingAPI  # any encoding of the engine (Encoding, ModelEncoding, SentencePieceEncoding, HfEncoding)


@dataclass(frozen=True)
class Stage:
    """One step of pre-tokenization: its name, what it does, and its regex if it has one."""

    name: str
    detail: str
    pattern: str | None = None


@dataclass(frozen=True)
class FamilyNote:
    family: str  # a key of catalog.FAMILIES
    title: str  # "SentencePiece BPE"
    merges: str  # one line: how this family merges (after its title: "start from the piece's bytes; …")
    tree: str  # one line: what a merge tree means here
    priority: str  # what decides the next merge: "rank", "score" or "merge #"
    lower_first: bool  # True: the lowest priority value merges first (False: the highest score)
    stages: tuple[Stage, ...]  # the pre-tokenization layer, in order


def family_of(enc: Enc) -> str:
    """The key of `catalog.FAMILIES` this encoding belongs to (each family class says it itself)."""
    return enc.family


_MERGES = {
    "tiktoken": "start from the piece's bytes; join the neighbouring pair whose joined bytes "
                "are the token with the lowest rank (= id); stop when no pair is a token.",
    "minbpe": "start from the piece's bytes; apply the listed pair of ids whose merged id is "
              "lowest (learned first); stop when no listed pair is left.",
    "sentencepiece": "start from the piece's characters; join the neighbouring pair whose joined "
                     "piece has the highest score; a character with no piece becomes one <0xNN> token per UTF-8 byte "
                     "(byte fallback).",
    "tokenizer.json": "start from the piece's bytes; apply the file's merges list, the "
                      "earliest-listed pair first; a pair that is not listed never merges.",
    "char-bpe": "start from the piece's characters (a character with no token becomes <0xNN> tokens with byte "
                "fallback, else <unk>); apply the file's merges list, the earliest-listed pair first.",
    "wordpiece": "no merges: take the longest vocabulary entry the piece starts with, then the longest ##-entry "
                 "from where it ended, and so on; if some position matches nothing, the whole piece is [UNK].",
    "unigram": "no merges: of every way to cut the piece into vocabulary entries, take the one whose scores "
               "(log probabilities) add up highest; a character with no entry is <unk> (runs fused).",
    "wordlevel": "no merges: the whole piece is one vocabulary entry, or the unknown token.",
}
_TREES = {
    "tiktoken": "Recovered from the ranks: a token's two children are the parts BPE reaches on its bytes using only "
                "lower ranks; leaves are single bytes.",
    "minbpe": "Read from the listed merges: a token's children are the pair merged into it; leaves are single bytes.",
    "sentencepiece": "A piece's children are the last two parts BPE joins on its own characters (by score); leaves "
                     "are characters, or one byte for a <0xNN> piece.",
    "tokenizer.json": "A token's children are the first merge in the file's list that makes it; leaves are single "
                      "bytes.",
    "char-bpe": "A token's children are the first merge in the file's list that makes it; leaves are characters "
                "(or one byte for a <0xNN> token).",
    "wordpiece": "No tree: WordPiece never merges; a token is one vocabulary entry, found by longest match.",
    "unigram": "No tree: Unigram never merges; a token is one piece of the best-scoring cut (see the lattice).",
    "wordlevel": "No tree: a token is a whole word.",
}
_PRIORITY = {"tiktoken": ("rank", True), "minbpe": ("rank", True), "sentencepiece": ("score", False),
             "tokenizer.json": ("merge #", True), "char-bpe": ("merge #", True), "wordpiece": ("length", False),
             "unigram": ("score", False), "wordlevel": ("entry", True)}
_PIPELINE_FAMILIES = ("char-bpe", "wordpiece", "unigram", "wordlevel")  # engine.families.hf.general


def family_note(enc: Enc) -> FamilyNote:
    """How `enc` splits and merges, one line each, and its pre-tokenization stages."""
    family = family_of(enc)
    # a SentencePiece .model is BPE or Unigram: a Unigram one states Unigram's rule, not the merge loop's
    rule = "unigram" if family == "sentencepiece" and getattr(enc, "is_unigram", False) else family
    priority, lower_first = _PRIORITY[rule]
    tree = _TREES[rule]
    if family == "tiktoken" and hasattr(enc, "whole_piece_tokens") and enc.name == "llama3":
        tree += (" Some tokens are made by no merge (678 in Llama 3): tiktoken emits them only "
                 "for a piece that is exactly that token.")
    # a SentencePiece Unigram .model is no BPE: its title says so (it was announced as "SentencePiece BPE")
    title = "SentencePiece Unigram" if family == "sentencepiece" and rule == "unigram" else FAMILIES[family]
    return FamilyNote(family, title, _MERGES[rule], tree, priority, lower_first, stages(enc))


def stages(enc: Enc) -> tuple[Stage, ...]:
    """The pre-tokenization layer of `enc`: what happens to the text before BPE, in order."""
    family = family_of(enc)
    if family == "sentencepiece":
        return _sentencepiece_stages(enc)
    if family == "tokenizer.json":
        return _hf_stages(enc)
    if family in _PIPELINE_FAMILIES:
        return _pipeline_stages(enc)
    out: list[Stage] = []
    if enc.special_tokens:
        n = len(enc.special_tokens)
        out.append(Stage("Special tokens", f"{n:,} special token{'s' if n != 1 else ''}: cut out whole when allowed "
                                           "(else plain text)."))
    normalization = getattr(enc, "normalization", None)
    if normalization:
        out.append(Stage("Normalize", f"Unicode {normalization} on the whole text first (e + U+0301 becomes é)."))
    if getattr(enc, "presplit", None) == "meta":
        out.append(Stage("Slices", "Meta's rule: 400,000-character slices, cut again where a run of spaces or of "
                                   "non-spaces passes 25,000 characters; each slice is encoded on its own."))
    pattern = enc.pat_str
    from ..tokenizer.patterns import RAW_PAT_STR

    if pattern == RAW_PAT_STR:
        out.append(Stage("No split", "The whole text is one piece: merges may cross words."))
    else:
        out.append(Stage("Split (regex)", "The pattern's matches are the pieces; BPE never merges across them.", pattern))
    offset = getattr(enc, "id_offset", 0)
    if offset:
        out.append(Stage("Id offset", f"The special tokens come first, so an ordinary token's id is its rank + {offset:,}."))
    return tuple(out)


def _sentencepiece_stages(enc: SentencePieceEncoding) -> tuple[Stage, ...]:
    norm, trainer = enc.model.normalizer, enc.model.trainer
    out = [Stage("Special tokens", f"{len(enc.special_tokens):,} control symbols (<s>, </s>, …) are plain text "
                                   "unless allowed; SentencePiece never makes them from text.")]
    steps = []
    if norm.remove_extra_whitespaces:
        steps.append("leading, trailing and repeated spaces removed")
    if norm.add_dummy_prefix:
        steps.append(f"a {SPACE} put before the text (the dummy prefix: the first word looks like every other)")
    if norm.escape_whitespaces:
        steps.append(f"every space written {SPACE} (U+2581)")
    joined = "; ".join(steps)
    out.append(Stage("Normalize", joined[:1].upper() + joined[1:] + "." if steps else "Nothing changes."))
    users = [p for i, p in enumerate(enc.pieces) if enc.piece_type(i) == "user-defined"]
    if users:
        shown = ", ".join(users[:4]) + (" …" if len(users) > 4 else "")
        out.append(Stage("User-defined symbols", f"{len(users):,} symbols ({shown}) are cut out whole."))
    if enc.pat_str:
        out.append(Stage("Split before ▁", f"Cut before every run of {SPACE} that follows another character, so "
                                          "each word with its leading spaces is one piece (no piece of this model "
                                          "crosses such a cut, so the ids are the same as on the whole text).",
                         enc.pat_str))
    else:
        out.append(Stage("No split", "This model has pieces that cross word starts, so BPE runs on the whole text."))
    if trainer.byte_fallback:
        out.append(Stage("Byte fallback", "After BPE, a character with no piece becomes one <0xNN> token per UTF-8 byte."))
    return tuple(out)


def _hf_stages(enc: HfEncoding) -> tuple[Stage, ...]:
    from ..tokenizer.patterns import unicode16_view

    spec = enc.spec
    added = spec.added_tokens
    n_special = sum(t.special for t in added)
    out = [Stage("Added tokens", f"{len(added):,} added tokens ({n_special:,} special: plain text unless allowed) "
                                 "are cut out whole first.")]
    forms = spec.normalizer.forms
    out.append(Stage("Normalize", f"Unicode {' then '.join(forms)}." if forms else "None: the text is used as is."))
    for k, step in enumerate(spec.pre_tokenizer.steps, 1):
        if step.view is unicode16_view:
            out.append(Stage(f"{k}. Digits", "Every digit its own piece." if step.rx.pattern == r"\p{N}" else
                             "Runs of digits are cut out.", step.rx.pattern))
            continue
        how = {"Isolated": "each match becomes its own piece", "Removed": "matches are dropped",
               "MergedWithPrevious": "each match joins the piece before it",
               "MergedWithNext": "each match joins the piece after it",
               "Contiguous": "consecutive matches join"}.get(step.behavior, step.behavior)
        inverted = " (inverted: the text between matches is what is cut)" if step.invert else ""
        out.append(Stage(f"{k}. Split ({step.behavior})", f"Applied to every piece so far: {how}{inverted}.", step.rx.pattern))
    pre = spec.pre_tokenizer
    detail = "Bytes are written as GPT-2's printable characters (a space is Ġ, a newline Ċ)"
    if pre.add_prefix_space:
        detail += "; a space is added before every piece that lacks one"
    out.append(Stage("ByteLevel", detail + ".", pre.byte_level_split.rx.pattern if pre.byte_level_split else None))
    return tuple(out)


def _component_names(node: Any, list_key: str) -> str:
    if not isinstance(node, dict):
        return "none"
    if node.get("type") == "Sequence" and isinstance(node.get(list_key), list):
        return " then ".join(_component_names(item, list_key) for item in node[list_key]) or "none"
    return str(node.get("type"))


def _pipeline_stages(enc: Any) -> tuple[Stage, ...]:
    """The stages of a general tokenizer.json pipeline (`engine.families.hf.general.HfPipelineEncoding`)."""
    spec = enc.spec
    added = spec.added_tokens
    n_special = sum(t.special for t in added)
    out = [Stage("Added tokens", f"{len(added):,} added tokens ({n_special:,} special: plain text unless allowed) "
                                 "are cut out whole first.")]
    norm = _component_names(spec.nodes.get("normalizer"), "normalizers")
    out.append(Stage("Normalize", f"{norm}: offsets still point at your characters." if norm != "none"
                     else "None: the text is used as is."))
    pre = _component_names(spec.nodes.get("pre_tokenizer"), "pretokenizers")
    out.append(Stage("Pre-tokenize", f"{pre}." if pre != "none" else "None: the whole text is one piece."))
    out.append(Stage(f"Model: {type(enc.model).family_kind}", _MERGES[enc.family]))
    if spec.post_processor is not None:
        out.append(Stage("Post-process", f"{spec.post_processor.description} (only when special tokens are added)."))
    if enc.settings_note:
        out.append(Stage("Padding / truncation", enc.settings_note[:1].upper() + enc.settings_note[1:] + "."))
    return tuple(out)


# ------------------------------------------------------------------ BPE steps
@dataclass(frozen=True)
class PairCandidate:
    """Joining two neighbouring parts: the token it makes, and what decides whether it goes next."""

    made: int
    priority: float  # lower merges first (a rank, a merge position, or minus a SentencePiece score)
    shown: str  # the number to print between the parts: the rank, the score, or "#position"


def pair_candidates(enc: Enc, parts: Sequence[bytes]) -> list[PairCandidate | None]:
    """For each pair of neighbouring `parts`, the merge BPE could make there (None: they do not join).

    The candidate with the lowest `priority` (leftmost on a tie) is the merge BPE makes next.
    """
    family = family_of(enc)
    pairs = list(zip(parts, parts[1:]))
    if family == "sentencepiece":
        out: list[PairCandidate | None] = []
        for a, b in pairs:
            found = enc.pair_score(a, b)
            out.append(None if found is None else PairCandidate(found[0], -found[1], f"{found[1]:g}"))
        return out
    if family in ("wordpiece", "unigram", "wordlevel"):
        return [None] * len(pairs)  # these models never merge
    ranks = enc.mergeable_ranks
    if family in ("tokenizer.json", "char-bpe"):
        out = []
        for a, b in pairs:
            ia, ib = ranks.get(a), ranks.get(b)
            rank = enc.pair_rank(ia, ib) if ia is not None and ib is not None else None
            out.append(None if rank is None else PairCandidate(enc.merged_by(rank), rank, f"#{rank}"))
        return out
    if family == "minbpe":
        merges = enc.merges
        out = []
        for a, b in pairs:
            made = merges.get((ranks.get(a), ranks.get(b)))
            out.append(None if made is None else PairCandidate(made, made, str(made)))
        return out
    return [None if (r := ranks.get(a + b)) is None else PairCandidate(r, r, str(r)) for a, b in pairs]


def part_ids(enc: Enc, parts: Sequence[bytes]) -> list[list[int]]:
    """The id(s) of each part of a BPE step: one id, or a byte-fallback/unknown run for a SentencePiece
    character with no piece, or [] for bytes that are no token (only in broken uploads)."""
    if family_of(enc) == "sentencepiece":
        return [enc.piece_ids(p.decode("utf-8")) if p else [] for p in parts]
    ranks = enc.mergeable_ranks
    return [[ranks[p]] if p in ranks else [] for p in parts]


def piece_ids(enc: Enc, piece: str) -> list[int] | None:
    """The ids ``encode`` gives `piece` as one piece of `pretokenize`'s output; None when the
    family's splitter would cut `piece` into several pieces (then encode never sees it whole)."""
    family = family_of(enc)
    if family == "sentencepiece":  # pretokenize would add the dummy prefix: cut the piece as BPE sees it
        chunk = piece.replace(" ", SPACE)
        if enc.pat_str and len(re.findall(enc.pat_str, chunk)) != 1:
            return None
        return enc.piece_ids(piece)
    if family == "tokenizer.json":
        split = enc.pretokenize(piece, disallowed_special=())
        return enc.piece_ids(piece) if len(split) == 1 and split[0].text == piece else None
    split = enc.pretokenize(piece, disallowed_special=())
    if family == "char-bpe" and "".join(p.text for p in split) == piece and " " not in piece:
        # a piece as pretokenize gives it (Gemma 3: spaces already ▁) goes to the model whole; re-splitting
        # its ▁-joined text may cut it where no token joins across, which changes no id
        return enc.piece_ids(piece)
    if len(split) != 1 or split[0].text != piece:
        return None
    return enc.encode_ordinary(piece)


# ------------------------------------------------------------------ tokens
@dataclass(frozen=True)
class TokenNote:
    kind: str  # "byte" (byte fallback), "space" (a ▁ piece), "stored" (an Ġ-style entry), "user", "unknown"
    text: str  # one line for a tooltip
    stored: str = ""  # the token as the file spells it ("<0x0A>", "▁the", "Ġthe")


def token_note(enc: Enc, token_id: int) -> TokenNote | None:
    """What a reader needs to know about a token beyond its bytes; None when its bytes say it all."""
    family = family_of(enc)
    if family not in ("sentencepiece", "tokenizer.json", *_PIPELINE_FAMILIES):
        return None
    if enc.is_byte_fallback(token_id):
        data = enc.decode_single_token_bytes(token_id)
        stored = enc.stored_piece(token_id)
        return TokenNote("byte", f"byte fallback {stored}: byte 0x{data[0]:02x} of a character "
                                 "the vocabulary has no token for", stored)
    if enc.is_special_token(token_id):
        return None
    stored = enc.stored_piece(token_id)
    if family == "sentencepiece":
        kind = enc.piece_type(token_id)
        if kind == "user-defined":
            return TokenNote("user", f"user-defined symbol {stored}: always cut out whole", stored)
        if SPACE in stored:
            return TokenNote("space", f"piece {stored}: {SPACE} is SentencePiece's space", stored)
        return None
    if family in _PIPELINE_FAMILIES:
        if family == "wordpiece" and stored.startswith(enc.model.prefix) and stored != enc.model.prefix:
            return TokenNote("stored", f"{stored}: a continuation ({enc.model.prefix} = glued to the token before, "
                                       "no space)")
        if SPACE in stored:
            return TokenNote("space", f"piece {stored}: {SPACE} stands for a space")
        return None
    if stored != enc.decode_single_token_bytes(token_id).decode("utf-8", "replace"):
        return TokenNote("stored", f"stored as {stored} (GPT-2's printable bytes: Ġ is a space, Ċ a newline)", stored)
    return None


def has_token_notes(enc: Enc) -> bool:
    """False when `token_note` is always None for `enc` (tiktoken-style and minbpe encodings)."""
    return family_of(enc) in ("sentencepiece", "tokenizer.json", *_PIPELINE_FAMILIES)


def token_notes(enc: Enc, ids: Iterable[int]) -> dict[int, TokenNote] | None:
    """``{id: note}`` for those of `ids` that have a note; None when the family has none at all
    (`has_token_notes`), so a drawing knows its ids are ranks."""
    if not has_token_notes(enc):
        return None
    notes = {}
    for token_id in set(ids):
        note = token_note(enc, token_id)
        if note is not None:
            notes[token_id] = note
    return notes


@dataclass(frozen=True)
class TokenizedText:
    """A text's tokens, the pieces they came from and the tokens' notes: all a token drawing needs, as data."""

    tokens: tuple[Token, ...]
    pieces: tuple[Piece, ...]  # `Token.piece_index` indexes these
    notes: dict[int, TokenNote] | None  # `token_notes` of the tokens' ids (never changed once made)


def tokenize_text(enc: Enc, text: str, *, allowed_special: Any = frozenset(),
                  disallowed_special: Any = "all") -> TokenizedText:
    """`enc.tokenize_with_pieces` (one split for both) and the notes of the ids found, in one call."""
    tokens, pieces = enc.tokenize_with_pieces(text, allowed_special=allowed_special,
                                              disallowed_special=disallowed_special)
    return TokenizedText(tuple(tokens), tuple(pieces), token_notes(enc, (t.id for t in tokens)))


def no_tree_reason(enc: Enc, token_id: int) -> str | None:
    """Why an ordinary token has no merge tree in this family, or None if it has one."""
    if not enc.decode_single_token_bytes(token_id):
        return (f"Id {token_id} of {enc.name} is the empty token: its line in the rank file holds no bytes (OpenAI "
                "whisper's multilingual.tiktoken gives rank 50256 one, written “=”, which tiktoken reads as no "
                "bytes). No merge makes it and no text encodes to it; it decodes to nothing.")
    whole = getattr(enc, "whole_piece_tokens", None)
    if whole is not None and token_id in whole:
        parts = [enc.decode_single_token_bytes(p) for p in whole[token_id]]
        return (f"{enc.name} has this token but no merge makes it: BPE with lower ranks stops at {len(parts)} parts "
                f"({', '.join(repr(p) for p in parts)}). tiktoken (and so {enc.name}) emits it only for a piece that "
                "is exactly this token. Look at the merge trees of its parts instead.")
    return None
