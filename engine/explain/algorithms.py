"""Three tokenization algorithms on one text: how BPE, WordPiece and Unigram each cut a piece.

Each family already explains its own model; this module puts the three explanations in one shape:

* **BPE** (tiktoken's byte-level BPE, SentencePiece BPE, ``tokenizer.json`` BPE): the merge loop,
  from each family's ``bpe_trace`` -- every step's pair, the token it makes and the parts after it;
* **WordPiece** (``tokenizer.json`` WordPiece, BERT): the greedy longest match, every lookup from
  ``model_steps`` (`engine.families.hf.models.wordpiece.WordPiece.steps`, HF's ``WordPiece::tokenize``);
* **Unigram** (SentencePiece Unigram ``.model``, ``tokenizer.json`` Unigram): the Viterbi lattice,
  every candidate piece with its score and the best total of a path ending with it, the winning path
  marked (``lattice`` / ``model_steps``).

The pieces are the tokenizer's own pre-tokenization (`pretokenize`), so the model's input is exactly
what encode runs it on; a piece's `ids` are what ``encode`` gives for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..families.hf.models.base import UnknownTokenMissingError

RULES = {  # each algorithm's rule, in one line for people
    "bpe": "Start from single bytes; again and again join the adjacent pair that was learned earliest "
           "(lowest rank), until no learned pair is left.",
    "wordpiece": "From the left, take the longest vocabulary entry that starts here (## marks the inside of a "
                 "word); if nothing fits, the whole word becomes [UNK].",
    "unigram": "Of every way to cut the piece into vocabulary entries, take the one whose scores "
               "(log-probabilities) add up highest.",
    "wordlevel": "Look the whole piece up; not in the vocabulary: the unknown token.",
}
NAMES = {"bpe": "BPE", "wordpiece": "WordPiece", "unigram": "Unigram", "wordlevel": "WordLevel"}
# what shows how each algorithm came to one token (the playground's links and buttons name it)
EXPLANATION = {"bpe": "Merge tree", "wordpiece": "Longest match", "unigram": "Best path", "wordlevel": "Lookup"}
# BPE is one algorithm with three starting points and two ways to pick the next pair: a family whose BPE
# differs from byte-level BPE by ranks says so in its own line (keyed by `enc.family`).
BPE_RULES = {
    "sentencepiece": ("SentencePiece BPE", "Start from single characters (a character with no entry becomes its "
                      "UTF-8 bytes, <0xNN>); again and again join the adjacent pair whose joined piece has the "
                      "highest score, until no joined pair is in the vocabulary."),
    "char-bpe": ("BPE over characters", "Start from single characters (with byte fallback where the file has it); "
                 "again and again join the adjacent pair listed earliest in the file's merges, until no listed "
                 "pair is left."),
    "tokenizer.json": ("BPE", "Start from single bytes; again and again join the adjacent pair listed earliest in "
                       "the file's merges, until no listed pair is left."),
}


def rule_of(story: "PieceStory") -> tuple[str, str]:
    """The algorithm's name and its rule in one line, for the family that made `story`."""
    if story.algorithm == "bpe" and story.family in BPE_RULES:
        return BPE_RULES[story.family]
    return NAMES[story.algorithm], RULES[story.algorithm]
MAX_PIECE_CHARS = 64  # longer pieces show their tokens only: a step list that long teaches nothing more
MAX_CANDIDATES = 400  # lattice nodes kept per piece (a 64-character piece has at most ~64 × longest-entry nodes)


@dataclass(frozen=True)
class Merge:
    """BPE step `index`: `left` + `right` became `merged` (token id `rank`) at `parts[position]`; `parts` are the
    parts after it."""

    index: int
    position: int
    left: str
    right: str
    merged: str
    rank: int
    parts: tuple[str, ...]


@dataclass(frozen=True)
class Lookup:
    """One WordPiece lookup: `candidate` (piece[start:end], with ``##`` inside a word) is or is not a token."""

    start: int
    end: int
    candidate: str
    found: bool


@dataclass(frozen=True)
class Candidate:
    """One Unigram lattice node: piece[start:end] as token `id` (None: unknown) with its score, the best total
    of a path ending with it, and whether it is on the winning path."""

    start: int
    end: int
    text: str
    id: int | None
    score: float
    total: float
    best: bool


@dataclass(frozen=True)
class PieceStory:
    """How one algorithm cut one piece: its final tokens and the steps that led there."""

    piece: str  # the piece as the model sees it (``▁`` for a SentencePiece-style space)
    algorithm: str  # a key of RULES
    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    merges: tuple[Merge, ...] = ()
    lookups: tuple[Lookup, ...] = ()
    candidates: tuple[Candidate, ...] = ()
    too_long: bool = False  # longer than MAX_PIECE_CHARS: only the tokens, no steps
    family: str = ""  # the encoding's `family` (which BPE rule applies: `rule_of`)


def algorithm_of(enc: Any) -> str:
    """Which algorithm `enc`'s model runs: a key of RULES."""
    family = enc.family
    if family == "sentencepiece":
        return "unigram" if enc.is_unigram else "bpe"
    if family in ("wordpiece", "unigram", "wordlevel"):
        return family
    return "bpe"  # tiktoken, byte-level tokenizer.json, char-bpe


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _token_text(enc: Any, tid: int) -> str:
    stored = getattr(enc, "stored_piece", None)
    return stored(tid) if stored is not None else _text(enc.decode_single_token_bytes(tid))


def piece_story(enc: Any, piece: str) -> PieceStory:
    """The algorithm's work on one piece of ``enc.pretokenize`` (its `text`)."""
    algorithm = algorithm_of(enc)
    too_long = len(piece) > MAX_PIECE_CHARS
    if algorithm == "bpe":
        trace = enc.bpe_trace(piece)
        ids = tuple(trace.final_ids)
        merges = () if too_long else tuple(
            Merge(s.index, s.position, _text(s.left), _text(s.right), _text(s.merged), s.rank,
                  tuple(_text(p) for p in trace.parts_at(s.index + 1)))
            for s in trace.steps)
        return PieceStory(piece, algorithm, tuple(_token_text(enc, t) for t in ids), ids, merges=merges,
                          too_long=too_long, family=enc.family)
    ids = tuple(enc.piece_ids(piece.replace(" ", "▁")) if enc.family == "sentencepiece" else enc.piece_ids(piece))
    tokens = tuple(_token_text(enc, t) for t in ids)
    if too_long:
        return PieceStory(piece, algorithm, tokens, ids, too_long=True)
    if algorithm == "wordpiece":
        lookups = tuple(Lookup(a.start, a.end, a.candidate, a.found) for a in enc.model_steps(piece))
        return PieceStory(piece, algorithm, tokens, ids, lookups=lookups)
    if algorithm == "unigram":
        shown = piece.replace(" ", "▁") if enc.family == "sentencepiece" else piece
        nodes = enc.lattice(piece) if enc.family == "sentencepiece" else enc.model_steps(piece)
        candidates = tuple(
            Candidate(n.start, n.end, shown[n.start:n.end], None if getattr(n, "unknown", False) else n.id,
                      n.score, n.total, n.best)
            for n in sorted(nodes, key=lambda n: (n.start, n.end))[:MAX_CANDIDATES])
        return PieceStory(shown, algorithm, tokens, ids, candidates=candidates)
    return PieceStory(piece, algorithm, tokens, ids)


MAX_SEARCH_CHARS = 20_000  # of the text searched for the piece that made a token (Merge tree looks at its start)


@dataclass(frozen=True)
class TokenStory:
    """How the algorithm came to one token: the story of a piece whose tokens include it.  `in_text`: the piece
    is from the user's text; otherwise it is the token's own text, cut by the same algorithm."""

    token_id: int
    story: PieceStory
    in_text: bool


def token_story(enc: Any, token_id: int, text: str) -> TokenStory | None:
    """The story of the first piece of `text` (its first MAX_SEARCH_CHARS characters) that `enc` cuts into
    tokens including `token_id`; failing that, of the token's own text (a WordPiece ``##`` continuation or
    a Unigram piece then shows how the algorithm cuts it when it stands alone).  None for a token with no
    text to cut (a special token, a byte of a character, an empty or whitespace-only token alone)."""
    head = text[:MAX_SEARCH_CHARS]
    try:
        tokens, pieces = enc.tokenize_with_pieces(head, allowed_special=frozenset(), disallowed_special=())
    except UnknownTokenMissingError:  # a model without an unknown token lacks a character of the text: the token alone
        tokens, pieces = [], []
    # a cut text's last piece may be cut too: its tokens are not the whole text's
    last = len(pieces) - 1 if len(text) > len(head) else len(pieces)
    index = next((t.piece_index for t in tokens if t.id == token_id and t.piece_index < last), None)
    if index is not None:
        story = piece_story(enc, pieces[index].text)
        if token_id in story.ids:
            return TokenStory(token_id, story, True)
    if enc.is_special_token(token_id):
        return None
    # the token as the model sees a piece (SentencePiece's ▁the, not " the"), so no pre-tokenizer adds a ▁
    own = _token_text(enc, token_id)
    if not own.strip() or "\ufffd" in own:
        return None
    if algorithm_of(enc) == "wordpiece" and own.startswith(enc.model.prefix):
        return None  # a ## continuation only follows a word's start: alone, it is no piece
    story = piece_story(enc, own)
    return TokenStory(token_id, story, False) if token_id in story.ids else None


def text_story(enc: Any, text: str, *, max_pieces: int = 12) -> list[PieceStory]:
    """`piece_story` of the first `max_pieces` pieces of `text` (special-token text as plain text)."""
    pieces = enc.pretokenize(text, allowed_special=frozenset(), disallowed_special=())
    return [piece_story(enc, p.text) for p in pieces[:max_pieces] if p.text]
