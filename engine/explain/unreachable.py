r"""Unreachable and fragile tokens: ids of a vocabulary that ordinary text never (or never alone) encodes to.

Land and Bartolo ("Fishing for Magikarp: Automatically Detecting Under-trained
Tokens in Large Language Models", EMNLP 2024, arXiv:2405.05417) sort a
vocabulary by a tokenizer-side test before they look at any model: decode the
token, encode the text again, and see whether the token comes back.  A token
that never comes back is never seen in training, so the model's row for it is
untrained -- a "glitch token" waiting to happen.  Their kinds, here:

* **partial UTF-8**: the token's bytes are not valid UTF-8 on their own
  (``b"\xe6\x97"``, two thirds of 日).  Decoding it alone gives U+FFFD; it is
  only reached *inside* text, next to the bytes that complete the character.
* **unreachable**: valid text, but ``encode_ordinary(decode(t)) != [t]`` and no
  context in `CONTEXTS` (a letter or space before, a space or letter after)
  yields `t` either.  Such tokens usually hold text the split pattern cuts
  apart (``" \n"`` with a pattern that splits spaces from newlines) or a string
  that BPE reaches by another path.  Only these contexts are tried, so the count
  is an upper bound on the tokens *no* text can produce.
* **round trip only in context**: fails alone, but some context yields it (GPT-2's
  ``"ing"`` after a letter; WordPiece's ``##`` continuations after a word).
* **special never produced**: special (added) tokens whose text, encoded as
  ordinary text, does not give their id -- all of tiktoken's specials, by design:
  only ``encode(..., allowed_special=...)`` inserts them.

`token_kind` classifies one token; `reachability` sweeps a whole vocabulary.
That sweep is the plain algorithm -- every token decoded and encoded again -- and
takes seconds for a 200,000-token vocabulary in pure Python, so the counts of
the built-in encodings are precomputed (``scripts/gen_reachability.py`` into
``engine/data/reachability.json``, each with `vocab_digest` of the vocabulary it
was computed from); `stored_reachability` reads them and refuses a stale entry,
and the tests recompute a sample of every built-in against the file.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from ..api import EncodingAPI
from ..errors import UnknownTokenError
from .vocab import per_encoding

DATA_FILE = Path(__file__).parent.parent / "data" / "reachability.json"
# (before, after) around a token's text; "" alone first.  A letter or a space before lets a token that
# starts a word's middle or follows a space through; after, the same for a token a pattern would join on.
CONTEXTS = (("", " "), ("a", ""), (" ", ""), ("\n", ""), ("", "a"), ("a", "a"), ("the", ""), ("x", " "))
KINDS = ("ok", "partial_utf8", "in_context", "unreachable")


class StaleReachabilityError(ValueError):
    """The stored counts were computed from a different vocabulary than the encoding now has."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(
            f"engine/data/reachability.json's entry for {name} was computed from another vocabulary (its digest "
            "differs): run `python scripts/gen_reachability.py` to compute it again"
        )


def _wordpiece_text(enc: EncodingAPI, data: bytes) -> tuple[str, bool] | None:
    """A WordPiece continuation ``##ing`` stands for "ing" after a word piece: its text, and that a prefix is needed."""
    if enc.family == "wordpiece" and data.startswith(b"##") and len(data) > 2:
        return data[2:].decode("utf-8", "replace"), True
    return None


def token_kind(enc: EncodingAPI, token_id: int) -> str:
    """One of KINDS for an ordinary token (`UnknownTokenError` for an unused id; specials: see `specials_never_produced`)."""
    data = enc.decode_single_token_bytes(token_id)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "partial_utf8"
    needs_prefix = False
    wordpiece = _wordpiece_text(enc, data)
    if wordpiece is not None:
        text, needs_prefix = wordpiece
    if not needs_prefix and _encode(enc, text) == [token_id]:
        return "ok"
    for before, after in CONTEXTS:
        if needs_prefix and not before.strip():
            continue
        if token_id in _encode(enc, before + text + after):
            return "in_context"
    return "unreachable"


def _encode(enc: EncodingAPI, text: str) -> list[int]:
    try:
        return enc.encode_ordinary(text)
    except ValueError:  # a vocabulary that cannot spell some character (no byte fallback, no unknown token)
        return []


def specials_never_produced(enc: EncodingAPI) -> tuple[int, ...]:
    """Special (added) token ids that their own text, encoded as ordinary text, does not give."""
    # a set: two texts may name one id (o200k_harmony)
    return tuple(sorted({i for text, i in enc.special_tokens.items() if i not in _encode(enc, text)}))


@dataclass(frozen=True)
class Reachability:
    """Which tokens of an encoding ordinary text reaches (module docstring for the kinds)."""

    encoding: str
    digest: str  # `vocab_digest` of the vocabulary swept
    vocab_size: int  # ordinary tokens swept
    specials: int  # special tokens
    partial_utf8: tuple[int, ...]
    in_context: tuple[int, ...]
    unreachable: tuple[int, ...]
    special_never: tuple[int, ...]

    def kind(self, token_id: int) -> str:
        """The stored kind of an ordinary token ("ok" when it is in none of the lists)."""
        for kind in KINDS[1:]:
            if token_id in getattr(self, kind):
                return kind
        return "ok"

    def as_json(self) -> dict:
        return {"digest": self.digest, "vocab_size": self.vocab_size, "specials": self.specials,
                **{kind: pack_ids(getattr(self, kind)) for kind in (*KINDS[1:], "special_never")}}


def pack_ids(ids: Iterable[int]) -> list:
    """Sorted `ids` with each run of three or more consecutive ids as ``[first, last]``: a SentencePiece model's
    31,744 tokens that come back only in context are a few runs, not 31,744 numbers in the file.

    >>> pack_ids([1, 2, 3, 4, 7, 9, 10])
    [[1, 4], 7, 9, 10]
    """
    out: list = []
    run: list[int] = []
    for i in sorted(ids):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        out += [[run[0], run[-1]]] if len(run) >= 3 else run
        run = [i]
    out += [[run[0], run[-1]]] if len(run) >= 3 else run
    return out


def unpack_ids(items: Iterable) -> tuple[int, ...]:
    """`pack_ids` undone."""
    ids: list[int] = []
    for item in items:
        ids += range(item[0], item[1] + 1) if isinstance(item, list) else [item]
    return tuple(ids)


def ordinary_ids(enc: EncodingAPI) -> list[int]:
    """Every id with bytes that is not a special token (unused slots skipped)."""
    ids = []
    for token_id in range(enc.n_vocab):
        if enc.is_special_token(token_id):
            continue
        try:
            enc.decode_single_token_bytes(token_id)
        except (UnknownTokenError, KeyError):
            continue
        ids.append(token_id)
    return ids


@per_encoding(maxsize=8)  # a fifth of a second for 200,000 tokens: once per encoding
def vocab_digest(enc: EncodingAPI) -> str:
    """sha256 over every ordinary token's id and bytes and the special tokens: what the stored counts depend on
    (with the split pattern, which the sampled recount in the tests covers)."""
    h = hashlib.sha256()
    for token_id in ordinary_ids(enc):
        data = enc.decode_single_token_bytes(token_id)
        h.update(token_id.to_bytes(4, "little") + len(data).to_bytes(4, "little") + data)
    for text, token_id in sorted(enc.special_tokens.items()):
        h.update(b"\x00special" + text.encode("utf-8", "surrogatepass") + token_id.to_bytes(4, "little"))
    return h.hexdigest()[:16]


def reachability(enc: EncodingAPI, ids: Iterable[int] | None = None) -> Reachability:
    """Classify every ordinary token (or just `ids`): seconds for a big vocabulary, so run it under a time limit."""
    kinds: dict[str, list[int]] = {kind: [] for kind in KINDS}
    swept = 0
    for token_id in (ordinary_ids(enc) if ids is None else ids):
        kinds[token_kind(enc, token_id)].append(token_id)
        swept += 1
    return Reachability(enc.name, vocab_digest(enc) if ids is None else "", swept, len(enc.special_tokens),
                        tuple(kinds["partial_utf8"]), tuple(kinds["in_context"]), tuple(kinds["unreachable"]),
                        specials_never_produced(enc))


@lru_cache(maxsize=1)
def _stored() -> dict:
    return json.loads(DATA_FILE.read_text(encoding="utf-8"))


def stored_names() -> tuple[str, ...]:
    """The built-in encodings with stored counts, in the file's order."""
    return tuple(_stored()["encodings"])


def stored_entry(name: str) -> Reachability | None:
    """The stored counts of built-in `name` as they are in the file, unchecked (None if it has none)."""
    entry = _stored()["encodings"].get(name)
    if entry is None:
        return None
    return Reachability(name, entry["digest"], entry["vocab_size"], entry["specials"],
                        *(unpack_ids(entry[kind]) for kind in (*KINDS[1:], "special_never")))


def stored_reachability(enc: EncodingAPI) -> Reachability | None:
    """The precomputed counts for `enc` if it is a built-in with an entry (`StaleReachabilityError` when the
    vocabulary changed since); None for any other encoding (compute those with `reachability`)."""
    found = stored_entry(enc.name)
    if found is None:
        return None
    if found.digest != vocab_digest(enc):
        raise StaleReachabilityError(enc.name)
    return found
