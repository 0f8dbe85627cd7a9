"""What a model's reference code does to the text *before* tiktoken sees it.

Two rules, each a plain function with a slow reference beside it:

* **Meta's pre-splitting** (`meta_chunks`).  llama-models' `Tokenizer.encode`
  cuts the text into slices of 400,000 characters (tiktoken's Rust code could
  panic on more), then cuts each slice again wherever a run of whitespace or
  of non-whitespace -- in the sense of Python's `str.isspace` -- grows past
  25,000 characters, and encodes every piece separately.  BPE never merges
  across a cut, so on long runs (100k spaces, a 100k-letter word, a base64
  blob) the ids differ from plain tiktoken's.  The cut rule, from the
  reference loop: a run of length L starting at ``a`` is cut at
  ``a + 25000*k`` for every k >= 1 with ``a + 25000*k < a + L``; the piece
  before a cut also holds everything since the previous cut.  Runs restart
  at every 400,000-character boundary.

* **Unicode normalisation with offsets** (`normalize_with_offsets`).  Qwen's
  tokenizer applies NFC to the whole text first.  NFC can change the length
  (``e`` + U+0301 becomes ``é``; U+0958 becomes two characters), so offsets
  into the normalised text are not offsets into the user's text.  We cut the
  text into *clusters* at characters that NFC can neither merge with what
  precedes them nor reorder across (`_starts_cluster`): NFC of the whole text
  is then the concatenation of each cluster's NFC.  An unchanged cluster maps
  character for character; a changed one maps as a block -- a position inside
  it maps down to the cluster's start (for starts) or up to its end (for
  ends), the way a token that ends inside a multi-byte character covers that
  whole character.  Lone surrogates are repaired (tiktoken's rule) in the
  same pass, so offsets always refer to the text the caller passed.
"""
from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from ...text import repair_surrogates

META_SLICE = 400_000  # llama-models: TIKTOKEN_MAX_ENCODE_CHARS
META_RUN = 25_000  # llama-models: MAX_NO_WHITESPACES_CHARS

@functools.lru_cache(maxsize=8)
def _long_run(run: int) -> "re.Pattern[str]":
    """A run of more than `run` non-space (or space) characters, matched only at the run's start.

    The stdlib `re` \\s on str is exactly `str.isspace` (both are Py_UNICODE_ISSPACE).
    """
    return re.compile(r"(?<!\S)\S{%d,}|(?<!\s)\s{%d,}" % (run + 1, run + 1))


def meta_chunks(text: str, run: int = META_RUN, slice_len: int = META_SLICE) -> list[tuple[int, int]]:
    """(start, end) of the pieces llama-models encodes separately; covers `text` in order.

    >>> meta_chunks("a b")
    [(0, 3)]
    >>> meta_chunks("x" * 60_000)
    [(0, 25000), (25000, 50000), (50000, 60000)]
    """
    if len(text) <= min(run, slice_len):
        return [(0, len(text))]
    long_run = _long_run(run)
    chunks: list[tuple[int, int]] = []
    for base in range(0, len(text), slice_len):
        piece = text[base : base + slice_len]
        start = 0
        for m in long_run.finditer(piece):
            for cut in range(m.start() + run, m.end(), run):
                chunks.append((base + start, base + cut))
                start = cut
        chunks.append((base + start, base + len(piece)))
    return chunks


def meta_chunks_reference(text: str, run: int = META_RUN, slice_len: int = META_SLICE) -> list[tuple[int, int]]:
    """The same cuts, one character at a time like llama-models' own loop (tests only)."""
    chunks: list[tuple[int, int]] = []
    for base in range(0, len(text), slice_len) if text else [0]:
        piece = text[base : base + slice_len]
        run_len, run_space, start = 0, piece[:1].isspace(), 0
        for i, ch in enumerate(piece):
            if ch.isspace() != run_space:
                run_len, run_space = 1, ch.isspace()
            else:
                run_len += 1
                if run_len > run:
                    chunks.append((base + start, base + i))
                    start, run_len = i, 1
        chunks.append((base + start, base + len(piece)))
    return chunks


# ------------------------------------------------------------------ normalisation

@functools.lru_cache(maxsize=1)
def _composes_with_previous() -> frozenset[str]:
    """Characters of combining class 0 that NFC can merge into the character before them.

    The second halves of canonical pairs (read from `unicodedata`, below U+20000
    where all of them are), plus Hangul medial vowels and final consonants.
    Computed once, in about 50 ms.
    """
    out = set()
    for cp in range(0x20000):
        d = unicodedata.decomposition(chr(cp))
        if d and not d.startswith("<"):
            parts = d.split()
            if len(parts) == 2:
                out.add(chr(int(parts[1], 16)))
    out.update(map(chr, range(0x1161, 0x1176)))  # Hangul V
    out.update(map(chr, range(0x11A8, 0x11C3)))  # Hangul T
    return frozenset(c for c in out if unicodedata.combining(c) == 0)


@functools.lru_cache(maxsize=65_536)
def _starts_cluster(ch: str) -> bool:
    """True if NFC never merges `ch` with the text before it nor reorders across it.

    Its canonical decomposition must start with a character of combining class
    0 that is not the second half of any composition.  A low surrogate never
    starts a cluster, so a surrogate pair stays in one (repairing joins it).
    """
    if ch < "\u0300":
        return True
    if "\udc00" <= ch <= "\udfff":
        return False
    first = unicodedata.normalize("NFD", ch)[0]
    return unicodedata.combining(first) == 0 and first not in _composes_with_previous()


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


@dataclass(frozen=True)
class Normalized:
    """A text after normalisation (and surrogate repair), with a map back to the original.

    ``down[p]`` / ``up[p]`` give the original offset of normalised offset p,
    rounded down / up when p falls inside a cluster that normalisation changed
    (equal when p is exact).  Both are None when nothing changed.
    """

    text: str
    down: list[int] | None = None
    up: list[int] | None = None

    def start(self, p: int) -> int:
        return p if self.down is None else self.down[p]

    def end(self, p: int) -> int:
        return p if self.up is None else self.up[p]

    def exact(self, p: int) -> bool:
        return self.down is None or self.down[p] == self.up[p]  # type: ignore[index]


def normalize(text: str, form: str | None) -> str:
    """What the model's tokenizer encodes: `form` (e.g. "NFC") applied first, then surrogate repair."""
    if form is not None and not unicodedata.is_normalized(form, text):
        text = unicodedata.normalize(form, text)
    return repair_surrogates(text)


def normalize_with_offsets(text: str, form: str | None) -> Normalized:
    """`normalize(text, form)` and the offset map back to `text` (see the module docstring)."""
    surrogates = _has_surrogates(text)
    if not surrogates and (form is None or unicodedata.is_normalized(form, text)):
        return Normalized(text)
    if form is not None and form != "NFC":
        raise ValueError(f"offsets are only mapped for NFC, not {form!r}; add its cluster rule first")
    starts = [0] + [i for i in range(1, len(text)) if _starts_cluster(text[i])] + [len(text)]
    parts: list[str] = []
    down: list[int] = []
    up: list[int] = []
    for a, b in zip(starts, starts[1:]):
        cluster = text[a:b]
        out = normalize(cluster, form)
        parts.append(out)
        if out == cluster:
            down.extend(range(a, b))
            up.extend(range(a, b))
        else:
            down.append(a)
            up.append(a)
            down.extend([a] * (len(out) - 1))
            up.extend([b] * (len(out) - 1))
    down.append(len(text))
    up.append(len(text))
    return Normalized("".join(parts), down, up)
