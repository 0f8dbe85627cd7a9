"""Does a tokenizer give your text back?  `round_trip` says where one text first differs after
encode → decode, and `lossy_example` finds a short, concrete text that an encoding does not give back.

A byte-level BPE (tiktoken's kind) gives every text back.  Many real tokenizers do not, by design:
a normalizer rewrites the text before it is split (NFKC turns "ﬁ" into "fi" and "①" into "1",
BERT lower-cases and strips accents, SentencePiece folds runs of spaces), and a model without byte
fallback writes what it cannot spell as ``<unk>``.  Counting tokens stays exact for such a
tokenizer -- it is the model's own -- but decoding the ids is not the user's text.  The playground
accepts these files and shows a "lossy" badge with the example this module finds.

The probes are short texts, one per way a tokenizer is known to lose text, tried in this order
(`PROBES`); the first that does not come back is cut down to its shortest failing word, so the
example reads "“ﬁ” comes back as “fi”", not a paragraph, and `describe` says what changed
from the two texts themselves (not from which probe found it).
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable

# (what the probe tests, the text): each a few characters of one kind of change.
PROBES = (  # the most common change first: it is the one a user meets
    ("upper case is lowered", "Hello World"),
    ("accents are stripped", "café naïve Ångström"),
    ("compatibility characters are rewritten (NFKC)", "ﬁle ① ½ ＡＢ x² ℌ"),
    ("canonical forms are changed (NFC/NFD)", "e\u0301 A\u030a \u00c5"),
    ("runs of whitespace are folded", "a  b\t\tc\n\nd"),
    ("leading or trailing spaces are dropped", " hello "),
    ("control characters are dropped", "a\x00b\x07c\x7fd"),
    ("characters outside the vocabulary become unknown tokens", "😀 𝔘 ᚠ ꙮ 𓀀 ⸻"),
    ("rare scripts become unknown tokens", "ᐃᓄᒃᑎᑐᑦ ꦗꦮ ߒߞߏ"),
)


@dataclass(frozen=True)
class RoundTrip:
    """One text that does not come back: what went in, what came out, and where they first differ."""

    text: str
    back: str
    at: int  # the first index where `text` and `back` differ
    reason: str  # what changed, in words (`describe`)


def first_difference(a: str, b: str) -> int | None:
    """The first index where `a` and `b` differ (the shorter one's length if one is a prefix), or None."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def round_trip(enc: Any, text: str) -> RoundTrip | None:
    """None when ``enc.decode(enc.encode_ordinary(text)) == text``, else where it first differs."""
    try:
        back = enc.decode(enc.encode_ordinary(text))
    except (KeyError, ValueError) as exc:  # a tokenizer that cannot encode the text at all
        back = f"(an error: {exc})"
    at = first_difference(text, back)
    return None if at is None else RoundTrip(text, back, at, describe(text, back))


def _strip_accents(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) != "Mn")


def describe(text: str, back: str) -> str:
    """What a tokenizer did to `text` to give `back`, in words (the first rule that explains it)."""
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        if unicodedata.normalize(form, text) == back:
            return f"{form} rewrites " + ("compatibility characters" if form.startswith("NFK") else "composed characters")
    if text.lower() == back:
        return "upper case is lowered"
    if _strip_accents(text) in (back, back.lower()) or _strip_accents(text.lower()) == back:
        return "accents are stripped" + (" and upper case lowered" if _strip_accents(text) != back else "")
    if " ".join(text.split()) == back.strip() or text.strip() == back.strip():
        return "whitespace is changed"
    if "unk" in back.lower() or "\ufffd" in back:
        return "characters outside the vocabulary become an unknown token"
    return "the text changes"


def lossy_example(enc: Any) -> RoundTrip | None:
    """A short text `enc` does not give back (the first of `PROBES` that fails, cut to its shortest
    failing word), or None when every probe comes back exactly."""
    for _, probe in PROBES:
        found = round_trip(enc, probe)
        if found is None:
            continue
        for word in sorted(dict.fromkeys(probe.split()), key=len):  # the shortest, the first on a tie
            shorter = round_trip(enc, word)
            if shorter is not None:
                return shorter
        return found
    return None


def unknown_token_ids(enc: Any) -> frozenset[int]:
    """The id(s) of `enc`'s unknown token (``<unk>``, ``[UNK]``): what a model writes for text it cannot
    spell, so a count that includes one is not what the text costs -- the text is gone.  Empty for a
    tokenizer that spells every text (byte-level BPE, byte fallback never needs it).

    Each family keeps its unknown token in its own place: a SentencePiece model's piece typed UNKNOWN,
    a tokenizer.json model's ``unk_token`` (BPE, WordPiece, WordLevel) or ``unk_id`` (Unigram).
    """
    found: set[int] = set()
    unk_id = getattr(enc, "unk_id", None)  # SentencePiece (and GGUF files read as SentencePiece)
    if isinstance(unk_id, int) and getattr(enc, "piece_type", None) is not None:
        try:
            if enc.piece_type(unk_id) == "unknown":
                found.add(unk_id)
        except (KeyError, ValueError):
            pass
    model = getattr(enc, "model", None) or getattr(enc, "_model", None)  # tokenizer.json pipelines
    if model is not None and not isinstance(model, (bytes, str)):
        model_unk = getattr(model, "unk_id", None)
        if isinstance(model_unk, int):
            found.add(model_unk)
        token = getattr(model, "unk_token", None)
        vocab = getattr(model, "vocab", None)
        if isinstance(token, str) and isinstance(vocab, dict) and isinstance(vocab.get(token), int):
            found.add(vocab[token])
    return frozenset(found)


def count_unknown(enc: Any, ids: Iterable[int]) -> int:
    """How many of `ids` are `enc`'s unknown token."""
    unknown = unknown_token_ids(enc)
    return sum(1 for t in ids if t in unknown) if unknown else 0
