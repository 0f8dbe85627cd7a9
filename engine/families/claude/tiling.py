"""The count: the fewest vocabulary pieces that tile the marked stream (ported from ctok 1.3.0's ``engine.py``).

    min_tile        the segmentation recurrence for a tiny byte string (a character's UTF-8 bytes)
    min_vocab_tile  the same recurrence over the stream, visiting only vocabulary edges through a trie
    ByteFloor       what a character no piece covers costs: a tiling of its bytes
    tile            the stream's tiling, with the frame's trailing newlines

Every piece costs one token, so the count is the number of tiles.  A marker no piece absorbs tiles as
itself (it is a one-token piece).  Ties break towards the longest final piece, so one text always gets the
same tiling -- but that tiling is *one* of the cheapest, not necessarily the boundaries Claude draws: only
the count was measured.

    >>> min_tile(3, lambda j, i: 1 if i - j in (1, 2) else None, 2)
    (2.0, [(0, 1), (1, 3)])
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Iterable

from .markers import EOW_G, ESCAPED_MARKER_LITERALS, MARKER_GLYPHS
from .stream import nfc, raw_head_space, stream_norm

_MEMO_MAX = 4096  # characters' byte tilings and costs kept per vocabulary (bounded: a server runs for weeks)


def min_tile(n: int, cost_fn: Callable[[int, int], int | None], max_len: int) -> tuple[float, list[tuple[int, int]]]:
    """Min-cost tiling of ``[0, n)``: ``cost_fn(j, i)`` is the cost of segment ``[j, i)`` or None if it is
    no piece; the caller guarantees every length-1 segment has a cost.  Ties keep the first (leftmost)
    start found, so the last segment is the longest one."""
    inf = float("inf")
    best = [0.0] + [inf] * n
    par = [0] * (n + 1)
    for i in range(1, n + 1):
        for j in range(max(0, i - max_len), i):
            c = cost_fn(j, i)
            if c is not None and best[j] + c < best[i]:
                best[i] = best[j] + c
                par[i] = j
    spans, i = [], n
    while i > 0:
        j = par[i]
        spans.append((j, i))
        i = j
    return best[n], spans[::-1]


class ReverseTrie:
    """The vocabulary stored backwards: the recurrence ends a tile at each position and walks its possible
    starts from right to left, so it follows the trie from the tile's last character."""

    END = None

    def __init__(self, pieces: Iterable[str]) -> None:
        self.root: dict[Any, Any] = {}
        for piece in pieces:
            node = self.root
            for ch in reversed(piece):
                node = node.setdefault(ch, {})
            node[self.END] = None


def min_vocab_tile(text: str, trie: ReverseTrie, unit_cost: Callable[[int], int]) -> tuple[int, list[tuple[int, int]]]:
    """`min_tile` over a cost-1 vocabulary plus a one-character floor (``unit_cost(at)``), visiting only
    the substrings that can still become a piece instead of every substring up to the longest piece."""
    best = [0] * (len(text) + 1)
    par = [0] * (len(text) + 1)
    root = trie.root
    terminal = trie.END
    for end in range(1, len(text) + 1):
        # the guaranteed one-character edge: the character as a piece if it is one, else its floor
        start = end - 1
        node = root.get(text[start])
        best[end] = best[start] + (1 if node is not None and terminal in node else unit_cost(start))
        par[end] = start
        if node is None:
            continue
        for start in range(end - 2, -1, -1):
            node = node.get(text[start])
            if node is None:
                break
            if terminal in node:
                candidate = best[start] + 1
                # starts decrease, so replacing on a tie keeps min_tile's longest-final-piece order
                if candidate <= best[end]:
                    best[end] = candidate
                    par[end] = start
    spans, end = [], len(text)
    while end > 0:
        start = par[end]
        spans.append((start, end))
        end = start
    return best[-1], spans[::-1]


class ByteFloor:
    """What a code point costs when no piece covers it: the fewest tokens among its UTF-8 byte prefixes
    (the measured ``bytes_fallback`` group, hex-spelled) and single bytes, every one costing 1."""

    def __init__(self, byte_tokens: Iterable[str], unit_chars: Iterable[str] = ()) -> None:
        # `unit_chars` are the whole code points that are pieces: they cost 1 here too
        self.tokens = set(byte_tokens) | {c.encode().hex() for c in unit_chars}
        self.max_len = max((len(k) // 2 for k in self.tokens), default=1)
        self._chunks: OrderedDict[bytes, list[bytes]] = OrderedDict()

    def chunks(self, bs: bytes) -> list[bytes]:
        """The chosen byte segments, one per token."""
        hit = self._chunks.get(bs)
        if hit is None:
            def cost_fn(j: int, i: int) -> int | None:
                return 1 if (i - j == 1 or bs[j:i].hex() in self.tokens) else None

            _, spans = min_tile(len(bs), cost_fn, self.max_len)
            hit = [bs[j:i] for j, i in spans]
            self._chunks[bs] = hit
            if len(self._chunks) > _MEMO_MAX:
                self._chunks.popitem(last=False)
        return hit

    def cost_char(self, c: str) -> int:
        return len(self.chunks(c.encode())) if self.tokens else len(c.encode())


def glued_contraction(suffix: str) -> str:
    """A contraction suffix as the stream writes it: the apostrophe is its opening boundary, so no ⟨bow⟩."""
    return suffix + EOW_G


def char_cost(model: Any, ch: str) -> int:
    """One code point standing alone: 1 if it is a piece, else its byte floor."""
    ch = ESCAPED_MARKER_LITERALS.get(ch, ch)
    cache = model.char_cost_cache
    hit = cache.get(ch)
    if hit is None:
        hit = 1 if ch in model.unit_pieces else model.bytes.cost_char(ch)
        if len(cache) >= _MEMO_MAX:
            cache.clear()
        cache[ch] = hit
    return hit  # type: ignore[no-any-return]


def frame_tail(n: int, model: Any) -> list[str]:
    """What a content-final run of ``n`` newlines costs beyond the frame's own trailing token.

    The frame appends two newlines after the content and one token can span into them, so the tokenizer
    sees ``n + 2`` newlines of which the frame already pays one token: the cost is not monotonic in ``n``
    (28 trailing newlines are free, 29 cost one)."""
    if n == 0:
        return []
    run = "\n" * (n + 2)
    _total, spans = min_vocab_tile(run, model.trie, lambda _at: 1)
    return [run[j:i] for j, i in spans][:-1]  # the last token is the frame's own


def tile(text: str, model: Any) -> tuple[int, list[str | bytes], str]:
    """One min-cost tiling of ``text``'s marked stream: ``(cost, tokens, stream)``.

    Tokens are ``str`` for a piece or a marker (in the internal glyph form) and ``bytes`` for a chunk of a
    character no piece covers; ``len(tokens) == cost``.  The message frame is not included."""
    norm = nfc(text, fold_quotes=model.fold_quotes)
    n_tail = len(norm) - len(norm.rstrip("\n"))
    s = stream_norm(norm, model, raw_head_space=raw_head_space(text))
    tail = frame_tail(n_tail, model)
    if not s:
        return len(tail), list(tail), s
    pieces = model.vocab

    def unit_floor(j: int) -> int:
        """One character no piece covers: a marker is a token, anything else falls to the byte floor."""
        ch = s[j]
        if ch in MARKER_GLYPHS:
            return 1
        return char_cost(model, ch)

    total, spans = min_vocab_tile(s, model.trie, unit_floor)
    # a span on the byte floor may cost several tokens (a 4-byte letter with no piece costs 4): expand it
    # into that many, so the token list's length is the count
    out: list[str | bytes] = []
    for j, i in spans:
        seg = s[j:i]
        if seg in pieces or unit_floor(j) == 1:
            out.append(seg)
        else:
            literal = ESCAPED_MARKER_LITERALS.get(seg, seg)
            out.extend(model.bytes.chunks(literal.encode()))
    if len(out) != int(total):  # the expansion above is the count's own arithmetic: a mismatch is a bug here
        raise RuntimeError(f"Claude tiling expanded to {len(out)} tokens for a cost of {int(total)}")
    out.extend(tail)
    return int(total) + len(tail), out, s
