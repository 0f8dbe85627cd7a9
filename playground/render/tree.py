"""Merge trees laid out and drawn as SVG, and the boxes of the BPE steps view.  Token bytes are shown with
`engine.explain.vocab.readable`: bytes that are not valid UTF-8 alone appear as <e6 97>.

The tree is laid out here, in Python, not by Graphviz in the browser: ``st.graphviz_chart`` loads Graphviz's
WebAssembly build on the first drawing (0.5-1.0 s before the first box of a fresh page, measured with
bench/bench_first_tree.py), and a merge tree needs none of its generality -- a binary tree whose leaves sit in
byte order on one row.  Its labels are monospace, so their widths are known without a browser.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from playground.render.html import SPACE, container, element, hex_bytes, plural, solid_token_color, token_color, visible


# Sizes in CSS pixels at a font size of 1 (multiplied by `font_px`): a box's padding, the gap between neighbouring
# boxes and between levels.  About what Graphviz drew before (margin 0.08 x 0.03 in, nodesep 0.12, ranksep 0.32).
_PAD_X, _PAD_Y, _LINE, _GAP, _LEVEL_GAP = 0.5, 0.3, 1.25, 0.7, 2.0
_ADVANCE = 0.6  # a monospace character is 0.6 em wide (Source Code Pro, DejaVu Sans Mono); a wide one 1 em
MIN_SCALE = 0.6  # a drawing fitted to the column shrinks at most to this (14 px labels to 8.4 px), then scrolls ...
SCROLL_AT_MOST = 4_000  # ... sideways over at most this many pixels (five columns of a desktop); wider: shown whole
_NOT_XML = {0xFFFE: "‹U+FFFE›", 0xFFFF: "‹U+FFFF›"}
FONT_FAMILY = '"Source Code Pro","Noto Sans Arabic","Noto Sans Hebrew",ui-monospace,monospace,"Noto Color Emoji"'


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit // 2] + "…" + text[-(limit - limit // 2 - 1):]


def _runs(text: str, at_least: int = 5) -> str:
    """Write long runs of one character as ``c×n`` ("␣×32" reads better than 32 boxes of ␣)."""
    out, i = [], 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i]:
            j += 1
        out.append(f"{text[i]}×{j - i}" if j - i >= at_least else text[i:j])
        i = j
    return "".join(out)


def text_em(line: str) -> float:
    """How wide `line` is drawn in a monospace font, in ems: wide characters (CJK, most emoji) 1 em, combining
    marks and format characters (joiners, variation selectors) nothing, the rest 0.6 em.  Each line is also given
    this width (`textLength`), so a fallback font that measures otherwise is squeezed into the box, not out of it."""
    em = 0.0
    for ch in line:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Cf", "Me", "Mn"):
            continue
        em += 1.0 if unicodedata.east_asian_width(ch) in "WF" else _ADVANCE
    return em


def tree_label(data: bytes, token_id: int, *, limit: int = 24) -> str:
    """What a tree node says: its bytes readably (space as ␣) and its id; a leaf adds its byte value."""
    from engine.explain.vocab import readable  # the engine's one definition of "readable bytes"

    text = readable(data, space=SPACE)
    if text and all(unicodedata.category(ch) in ("Mn", "Me", "Cf") for ch in text):
        text = visible(text)  # a token of invisible characters alone would be a blank box: ‹ZWJ›
    # XML has no U+FFFE or U+FFFF (a downloaded drawing holding one would not open): named too
    text = _short(_runs(text.translate(_NOT_XML)), limit)
    if len(data) == 1:
        return f"{text}\nbyte 0x{data[0]:02x}\nid {token_id}"
    return f"{text}\nid {token_id}"


@dataclass(frozen=True)
class TreeBox:
    """One box of a drawn merge tree: its top-left corner and size in CSS pixels, and what it says."""

    x: float
    y: float
    w: float
    h: float
    lines: tuple[str, ...]
    token_id: int
    data: bytes
    kind: str  # "leaf" (a single byte or character), "merge", or "folded" (a subtree drawn as one dashed box)
    parent: int | None  # index of the box it merges into; None for the root
    hidden_merges: int = 0  # merges folded into a "folded" box


@dataclass(frozen=True)
class TreeLayout:
    """A merge tree laid out: boxes in pre-order (root first, left subtree before right), the drawing's size."""

    boxes: tuple[TreeBox, ...]
    width: float
    height: float
    left_right: bool
    font_px: float


def layout_merge_tree(root, *, max_depth: int | None = None, left_right: bool = False, label_limit: int = 24,
                      font_px: float = 14.0) -> TreeLayout:
    """Lay a merge tree (`engine.MergeNode`) out: the root on top (on the left with `left_right`), the leaves in
    one row at the bottom (one column on the right), in byte order, so they spell the token.

    Every occurrence of a token is its own box (a tree, not a DAG).  Nodes deeper than `max_depth` merges below
    the root are folded into one dashed box.  Each subtree takes the width of its children side by side (or of its
    own box, if wider) and its box is centred over its two children, so no two boxes overlap.  Walks are loops, not
    recursion: a crafted tree may be thousands of merges deep.
    """
    # 1. the drawn nodes in pre-order, with their level and children
    nodes: list[tuple] = []  # (node, level, parent index, kind)
    children: list[list[int]] = []
    stack = [(root, 0, None)]
    while stack:
        node, level, parent = stack.pop()
        index = len(nodes)
        folded = not node.is_leaf and max_depth is not None and level >= max_depth
        kind = "leaf" if node.is_leaf else "folded" if folded else "merge"
        nodes.append((node, level, parent, kind))
        children.append([])
        if parent is not None:
            children[parent].append(index)
        if kind == "merge":
            stack.append((node.right, level + 1, index))  # popped after the left one: left comes first
            stack.append((node.left, level + 1, index))
    bottom = max(level for _, level, _, _ in nodes)

    # 2. each box's text and size; a leaf sits on the bottom level
    pad_x, pad_y, line_h = _PAD_X * font_px, _PAD_Y * font_px, _LINE * font_px
    labels, sizes, levels = [], [], []
    for node, level, _, kind in nodes:
        lines = tree_label(node.bytes, node.id, limit=label_limit).split("\n")
        if kind == "folded":
            lines.append(f"(+{plural(node.n_merges, 'merge')})")
        labels.append(tuple(lines))
        sizes.append((max(text_em(line) for line in lines) * font_px + 2 * pad_x, len(lines) * line_h + 2 * pad_y))
        levels.append(bottom if kind == "leaf" else level)
    across = [h if left_right else w for w, h in sizes]  # size along the row of siblings
    along = [w if left_right else h for w, h in sizes]  # size from the root towards the leaves

    # 3. where each level starts, from the root: each level as thick as its thickest box
    thickness = [0.0] * (bottom + 1)
    for level, size in zip(levels, along):
        thickness[level] = max(thickness[level], size)
    level_at = [0.0] * (bottom + 1)
    for level in range(1, bottom + 1):
        level_at[level] = level_at[level - 1] + thickness[level - 1] + _LEVEL_GAP * font_px

    # 4. extents across, children before parents (reverse pre-order): each subtree's span around its own centre,
    #    and each child's centre relative to its parent's
    gap = _GAP * font_px
    lo, hi, offset = [0.0] * len(nodes), [0.0] * len(nodes), [0.0] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):
        half = across[i] / 2
        if not children[i]:
            lo[i], hi[i] = -half, half
            continue
        left, right = children[i]
        shift = hi[left] + gap - lo[right]  # the right subtree's centre, the left one's at 0
        centre = shift / 2
        offset[left], offset[right] = -centre, shift - centre
        lo[i] = min(-half, lo[left] - centre)
        hi[i] = max(half, hi[right] + shift - centre)

    # 5. absolute positions, parents before children
    margin = 2.0  # room for the root's thicker outline
    centre_at = [0.0] * len(nodes)
    centre_at[0] = margin - lo[0]
    for i in range(1, len(nodes)):
        centre_at[i] = centre_at[nodes[i][2]] + offset[i]
    boxes = []
    for i, (node, _, parent, kind) in enumerate(nodes):
        w, h = sizes[i]
        start = level_at[levels[i]] + margin + (thickness[levels[i]] - along[i]) / 2  # centred in its level
        x, y = (start, centre_at[i] - h / 2) if left_right else (centre_at[i] - w / 2, start)
        boxes.append(TreeBox(x, y, w, h, labels[i], node.id, node.bytes, kind, parent,
                             node.n_merges if kind == "folded" else 0))
    span = hi[0] - lo[0] + 2 * margin
    depth = level_at[bottom] + thickness[bottom] + 2 * margin
    width, height = (depth, span) if left_right else (span, depth)
    return TreeLayout(tuple(boxes), width, height, left_right, font_px)


def _box_title(box: TreeBox) -> str:
    """The tooltip of a box: all of its bytes (the label shortens long ones), its id, what it stands for."""
    what = {"leaf": "a single byte" if len(box.data) == 1 else "not made by any merge",
            "merge": "made by joining the two boxes below",
            "folded": f"{plural(box.hidden_merges, 'merge')} folded below"}[box.kind]
    shown = hex_bytes(box.data[:32]) + (" …" if len(box.data) > 32 else "")
    return f"id {box.token_id} · {plural(len(box.data), 'byte')}: {shown} · {what}"


def merge_tree_svg(layout: TreeLayout, *, fit: str = "content", label: str = "merge tree") -> str:
    """The laid-out tree as one SVG element, every text escaped here.

    `fit`: "content" -- its natural size, shrunk to the column if wider; "stretch" -- as wide as the column (either
    shrinks to at most MIN_SCALE of its size, then scrolls sideways in its box, up to SCROLL_AT_MOST pixels);
    "natural" -- its natural size always (presentation mode's wide trees scroll; a downloaded file).
    Colours follow the id as on the Tokenize page (opaque here: an edge passing behind a box stays hidden)."""
    f = layout.font_px
    parts = []
    for box in layout.boxes:  # edges first, under the boxes
        if box.parent is None:
            continue
        up = layout.boxes[box.parent]
        if layout.left_right:
            x1, y1, x2, y2 = up.x + up.w, up.y + up.h / 2, box.x, box.y + box.h / 2
        else:
            x1, y1, x2, y2 = up.x + up.w / 2, up.y + up.h, box.x + box.w / 2, box.y
        parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>')
    edges = element("g", "".join(parts), {"class": "edges", "stroke": "#777777", "stroke-width": 1}, raw=True)
    drawn = []
    for i, box in enumerate(layout.boxes):
        rect = {"x": f"{box.x:.1f}", "y": f"{box.y:.1f}", "width": f"{box.w:.1f}", "height": f"{box.h:.1f}",
                "rx": 4, "fill": "#ffffff" if box.kind == "leaf" else solid_token_color(box.token_id),
                "stroke": "#555555" if box.kind == "leaf" else "#222222",
                "stroke-width": "2.2" if box.parent is None else 1,
                "stroke-dasharray": "4 3" if box.kind == "folded" else None}
        texts = []
        first_baseline = box.y + _PAD_Y * f + (_LINE - 1) * f / 2 + 0.8 * f
        for k, line in enumerate(box.lines):
            em = text_em(line)
            texts.append(element("text", line, {
                "x": f"{box.x + box.w / 2:.1f}", "y": f"{first_baseline + k * _LINE * f:.1f}",
                "textLength": f"{em * f:.1f}" if em else None, "lengthAdjust": "spacingAndGlyphs",
                "fill": "#111111" if k == 0 else "#333333"}))
        inner = element("title", _box_title(box)) + element("rect", "", rect) + "".join(texts)
        drawn.append(element("g", inner, {"class": f"node {box.kind}", "data-i": i, "data-id": box.token_id},
                             raw=True))
    size = {"width": f"{layout.width:.0f}", "height": f"{layout.height:.0f}"}
    # shrunk to a narrow column (a phone), the labels stay readable: at most to MIN_SCALE, then the box scrolls --
    # unless even that would be more than SCROLL_AT_MOST pixels wide: such a drawing cannot be read by scrolling (a
    # crafted chain of 1,499 merges is 145,000 px wide, its root 30,000 px below the top), so it is shown whole
    least = f";min-width:{layout.width * MIN_SCALE:.0f}px" if layout.width * MIN_SCALE <= SCROLL_AT_MOST else ""
    style = {"content": "max-width:100%;height:auto" + least, "stretch": "width:100%;height:auto" + least,
             "natural": "max-width:none"}[fit]
    if fit == "stretch":
        size = {}
    return element("svg", edges + "".join(drawn), {
        "xmlns": "http://www.w3.org/2000/svg", "class": "merge-tree",
        "viewBox": f"0 0 {layout.width:.0f} {layout.height:.0f}", **size, "style": style,
        "data-layout": "left-right" if layout.left_right else "top-down", "role": "img", "aria-label": label,
        "font-family": FONT_FAMILY, "font-size": f"{f:g}", "text-anchor": "middle"}, raw=True)


def merge_tree_figure(layout: TreeLayout, *, fit: str = "content", label: str = "merge tree") -> str:
    """`merge_tree_svg` in its box, which scrolls sideways when the drawing is wider than the column."""
    return element("div", merge_tree_svg(layout, fit=fit, label=label),
                   {"class": "merge-tree-box", "style": "overflow-x:auto"}, raw=True)


def bpe_parts(parts: list[bytes], ids: list[int | None], *, merge_at: int | None = None,
              pair_ranks: list[int | None] | None = None, first: int = 0, total: int | None = None,
              element_id: str = "bpe-parts", pair_labels: list[str | None] | None = None,
              id_labels: list[str] | None = None) -> str:
    """The parts of a piece at one BPE step, as boxes with their ids.

    `parts`/`ids` are a window starting at part number `first` of `total`.
    `merge_at` (absolute part index) outlines the pair merged next;
    `pair_ranks[k]` is the rank of joining window parts k and k+1 (None: not
    a token), shown between the boxes, the lowest in red: BPE merges it next.
    `pair_labels` (optional) are shown instead of the ranks (a SentencePiece score, a merge
    position); `id_labels` instead of the ids (byte-fallback ids of a character with no piece).
    """
    from engine.explain.vocab import readable

    total = len(parts) if total is None else total
    best = min((r for r in pair_ranks or [] if r is not None), default=None)
    out = []
    if first > 0:
        out.append(element("span", f"… {first} parts before", {"class": "more"}))
    for k, (data, tid) in enumerate(zip(parts, ids)):
        index = first + k
        cls = "part merge" if merge_at is not None and index in (merge_at, merge_at + 1) else "part"
        style = f"background:{token_color(tid)}" if tid is not None else "background:#eee"
        shown_id = id_labels[k] if id_labels is not None else ("?" if tid is None else str(tid))
        inner = element("span", readable(data, space=SPACE)) + element("span", shown_id, {"class": "pid"})
        out.append(element("span", inner, {"class": cls, "style": style, "data-i": index,
                                           "title": f"part {index}: bytes {hex_bytes(data)}"}, raw=True))
        if pair_ranks is not None and k < len(parts) - 1:
            rank = pair_ranks[k]
            gap_cls = "gap best" if rank is not None and rank == best else "gap"
            label = pair_labels[k] if pair_labels is not None else (None if rank is None else str(rank))
            out.append(element("span", label or "", {"class": gap_cls}))
    rest = total - first - len(parts)
    if rest > 0:
        out.append(element("span", f"{rest} parts after …", {"class": "more"}))
    return container(out, "bpe-parts", element_id)  # one line: `readable` never leaves a raw newline
