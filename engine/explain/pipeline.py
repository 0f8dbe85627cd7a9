"""The pipeline of any tokenizer, stage by stage, as plain data: `pipeline_stages(enc, text)`.

The stages are Hugging Face `tokenizers`' names (normalize, pre-tokenize, model, post-process, decode),
and every family of the engine is described in them, so one layout shows what differs between them:

* byte-level BPE (tiktoken's encodings): no normalizer -- the text goes in as it is; the split regex
  cuts it into pieces; no post-processor; the decoder joins the tokens' bytes;
* SentencePiece (``.model``): its normalizer (NFKC-style rules, spaces as ``▁``, a ``▁`` in front,
  runs of spaces folded) with each normalized character's original position (``norm_to_orig``); pieces
  cut before each ``▁``; the ``.model`` file stores no post-processor (``<s>`` is the runtime's choice);
* ``tokenizer.json`` (byte-level `HfEncoding` and the general `HfPipelineEncoding`): the file's own
  normalizer, pre-tokenizer, model, post-processor (``encode_for_model``) and decoder.

Special-token text is plain text here (``encode_ordinary``), as on every view of the playground.
The normalizer's changes are spans of the *original* text with what they became, found from the
alignment each family keeps (each normalized character knows the original characters it came from).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..records import Piece, Token
from .lossless import RoundTrip, round_trip

Span = tuple[int, int]


@dataclass(frozen=True)
class Change:
    """The normalizer rewrote ``text[start:end]`` (of the original) as `after` ("" = dropped; start == end = inserted)."""

    start: int
    end: int
    before: str
    after: str


@dataclass(frozen=True)
class Added:
    """A token the post-processor puts around the model's tokens (``[CLS]``, ``[SEP]``, ``<s>``)."""

    id: int
    text: str
    where: str  # "start" or "end"


@dataclass(frozen=True)
class Stages:
    """Every stage of one tokenizer on one text; offsets are characters of `text` (code points)."""

    family: str
    text: str
    normalizer: str  # what the normalizer is, in words
    normalized: str
    changes: tuple[Change, ...]
    pieces: tuple[Piece, ...]
    tokens: tuple[Token, ...]
    post_processor: str  # what the post-processor is, in words
    for_model: tuple[int, ...] | None  # the ids the model is fed (None: the family has no post-processor)
    added: tuple[Added, ...]
    decoded: str
    lossless: RoundTrip | None  # None: decode(encode(text)) == text

    @property
    def ids(self) -> list[int]:
        return [t.id for t in self.tokens]


def changes_from_alignment(text: str, normalized: str, spans: Sequence[Span]) -> list[Change]:
    """The stretches of `text` the normalizer changed, from each normalized character's original span.

    Normalized characters with the same span are one group (NFKC's "ﬁ" → "fi" both point at "ﬁ"); a group
    whose text differs from its original is a change; original characters no group covers were dropped;
    a group with an empty span was inserted (SentencePiece's leading ``▁``).
    """
    out: list[Change] = []
    pos = 0
    k = 0
    while k < len(normalized):
        s, e = spans[k]
        j = k + 1
        while j < len(normalized) and spans[j] == (s, e):
            j += 1
        after = normalized[k:j]
        if s > pos:
            out.append(Change(pos, s, text[pos:s], ""))
        before = text[s:e] if e > pos else ""
        if before != after:
            out.append(Change(s, e, before, after) if e > pos else Change(pos, pos, "", after))
        pos = max(pos, e)
        k = j
    if pos < len(text):
        out.append(Change(pos, len(text), text[pos:], ""))
    return out


def _sentencepiece_spans(n2o: Sequence[int]) -> list[Span]:
    """SentencePiece's ``norm_to_orig`` (a start per normalized character, then the end) as spans."""
    return [(n2o[k], max(n2o[k], n2o[k + 1])) for k in range(len(n2o) - 1)]


def _describe(component: Any) -> str:
    """A stage's component in words: its own description, its forms (NFKC), or its class and switched-on flags."""
    if component is None:
        return "none"
    if isinstance(getattr(component, "description", None), str):
        return component.description
    forms = getattr(component, "forms", None)
    if isinstance(forms, tuple):
        return " → ".join(forms) or "none"
    inner = getattr(component, "normalizers", None)
    if isinstance(inner, tuple) and inner:
        return " → ".join(_describe(c) for c in inner)
    if isinstance(getattr(component, "content", None), str) and getattr(component, "literal", None) is not None:
        return f"Replace “{component.literal}” with “{component.content}”"  # a Replace of a literal string
    flags = [k.replace("_", " ") for k, v in getattr(component, "__dict__", {}).items() if v is True]
    name = type(component).__name__
    return f"{name} ({', '.join(flags)})" if flags else name


def normalize_aligned(enc: Any, text: str) -> tuple[str, list[Span], str]:
    """(normalized text, original span of each of its characters, the normalizer in words) for any family."""
    from ..families.hf.encoding import HfEncoding
    from ..families.hf.general import HfPipelineEncoding
    from ..families.sentencepiece.encoding import SentencePieceEncoding

    if isinstance(enc, SentencePieceEncoding):
        normalized, n2o = enc.normalize(text)
        spec = enc.model.normalizer
        rule = getattr(spec, "name", "") or "rules"
        return normalized, _sentencepiece_spans(n2o), f"SentencePiece ({rule}): spaces as ▁, a ▁ in front"
    if isinstance(enc, HfPipelineEncoding):
        norm = enc.spec.normalizer
        if norm is None:
            return text, [(i, i + 1) for i in range(len(text))], "none"
        normalized, spans = norm.normalize(text)
        return normalized, list(spans), _describe(norm)
    if isinstance(enc, HfEncoding):
        normalized, spans = enc.spec.normalizer.with_alignment(text)
        return normalized, list(spans), _describe(enc.spec.normalizer)
    return text, [(i, i + 1) for i in range(len(text))], "none (byte-level: the text goes in as it is)"


def _post(enc: Any, ids: list[int], text: str) -> tuple[str, tuple[int, ...] | None, tuple[Added, ...]]:
    spec = getattr(enc, "spec", None)
    processor = getattr(spec, "post_processor", None)
    if not hasattr(enc, "encode_for_model"):
        if enc.family == "sentencepiece":
            return "none in a .model file (the runtime adds <s> at the start when it wants one)", None, ()
        return "none (the text's tokens are what the model is fed)", None, ()
    if processor is None:
        return "none in this file", None, ()
    fed = enc.encode_for_model(text, allowed_special=frozenset(), disallowed_special=())
    n = len(ids)
    at = next((i for i in range(len(fed) - n + 1) if fed[i:i + n] == ids), None)
    if at is None:  # the processor changed the tokens themselves: show every id it gave as its own
        return _describe(processor), tuple(fed), ()
    added = [Added(t, enc.decode_single_token_bytes(t).decode("utf-8", "replace"), "start") for t in fed[:at]]
    added += [Added(t, enc.decode_single_token_bytes(t).decode("utf-8", "replace"), "end") for t in fed[at + n:]]
    return _describe(processor), tuple(fed), tuple(added)


def pipeline_stages(enc: Any, text: str) -> Stages:
    """Every stage of `enc` on `text` (special-token text as plain text), from the family's own calls."""
    normalized, spans, normalizer = normalize_aligned(enc, text)
    tokens, pieces = enc.tokenize_with_pieces(text, allowed_special=frozenset(), disallowed_special=())
    ids = [t.id for t in tokens]
    post, fed, added = _post(enc, ids, text)
    return Stages(
        family=enc.family, text=text, normalizer=normalizer, normalized=normalized,
        changes=tuple(changes_from_alignment(text, normalized, spans)), pieces=tuple(pieces), tokens=tuple(tokens),
        post_processor=post, for_model=fed, added=added, decoded=enc.decode(ids), lossless=round_trip(enc, text),
    )
