"""Merge trees as Graphviz DOT (labels escaped by `dot_escape`, not HTML) and the boxes of the BPE
steps view.  Token bytes are shown with `engine.explain.vocab.readable`: bytes that are not valid UTF-8 alone
appear as <e6 97>.
"""
from __future__ import annotations

import unicodedata

from playground.render.html import SPACE, container, element, hex_bytes, plural, token_color


_DOT_CONTROL = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\n"}


def dot_escape(text: str) -> str:
    """Text for a double-quoted Graphviz string: backslash and quote escaped, newlines as line breaks.

    Backslashes are doubled so Graphviz's own escapes (\\N, \\G, \\l, \\r) never
    fire; other control characters become <hex> so the DOT stays one clean line per statement.
    """
    out = []
    for ch in text:
        if ch in _DOT_CONTROL:
            out.append(_DOT_CONTROL[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"<{ord(ch):02x}>")
        else:
            out.append(ch)
    return "".join(out)


def _dot_color(token_id: int) -> str:
    """The hue `token_color` uses, as a Graphviz "H S V" colour (0..1 each)."""
    return f"{(token_id * 137.508) % 360 / 360:.3f} 0.32 1.000"


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


def wide_label_width_in(label: str, font_pt: float) -> float | None:
    """The width in inches a node needs for a `label` that holds wide characters (CJK, emoji: an em each, the
    others 0.6 em) in a font of `font_pt` points, with the box's margins; None for a label without any, which
    Graphviz measures well.  Graphviz measures with its own font tables, which make Japanese narrower than the
    browser draws it: the text spilled out of its box."""
    widths = [sum(1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.6 for ch in line) for line in label.split("\n")]
    if not any(unicodedata.east_asian_width(ch) in "WF" for ch in label):
        return None
    return (max(widths) * font_pt + 2 * 0.08 * 72) / 72


def tree_label(data: bytes, token_id: int, *, limit: int = 24) -> str:
    """What a tree node says: its bytes readably (space as ␣) and its id; a leaf adds its byte value."""
    from engine.explain.vocab import readable  # the engine's one definition of "readable bytes"

    text = _short(_runs(readable(data, space=SPACE)), limit)
    if len(data) == 1:
        return f"{text}\nbyte 0x{data[0]:02x}\nid {token_id}"
    return f"{text}\nid {token_id}"


def merge_tree_dot(root, *, max_depth: int | None = None, left_right: bool = False, label_limit: int = 24,
                   font_pt: float = 11) -> str:
    """DOT source of a merge tree (`engine.MergeNode`): root on top, bytes in order at the bottom.

    Every occurrence of a token is its own node (a tree, not a DAG), so the
    leaves spell the token's bytes left to right.  Nodes deeper than
    `max_depth` merges below the root are folded into one dashed node.
    `font_pt` is the labels' size in points (a point is 4/3 of a CSS pixel when
    the drawing is shown at its natural size).
    """
    lines = [
        "digraph merge_tree {",
        f'  graph [rankdir={"LR" if left_right else "TB"}, ordering=out, nodesep=0.12, ranksep=0.32, bgcolor="transparent"];',
        '  node [shape=box, style="rounded,filled", fontname="Source Code Pro, monospace", '
        f'fontsize={font_pt:g}, '
        'margin="0.08,0.03", height=0.3, penwidth=1];',
        '  edge [arrowhead=none, color="#777777"];',
    ]
    leaves: list[str] = []
    stack = [(root, 0, None)]
    count = 0
    while stack:
        node, depth, parent = stack.pop()
        name = f"n{count}"
        count += 1
        folded = not node.is_leaf and max_depth is not None and depth >= max_depth
        label = tree_label(node.bytes, node.id, limit=label_limit)
        if node.is_leaf:
            attrs_ = 'fillcolor="white", color="#555555"'
            leaves.append(name)
        elif folded:
            label += f"\n(+{plural(node.n_merges, 'merge')})"
            attrs_ = f'fillcolor="{_dot_color(node.id)}", style="rounded,filled,dashed"'
        else:
            attrs_ = f'fillcolor="{_dot_color(node.id)}"'
        if node is root:
            attrs_ += ", penwidth=2.2"
        wide = wide_label_width_in(label, font_pt)
        if wide is not None:
            attrs_ += f", width={wide:.2f}"
        lines.append(f'  {name} [label="{dot_escape(label)}", {attrs_}];')
        if parent is not None:
            lines.append(f"  {parent} -> {name};")
        if not node.is_leaf and not folded:
            stack.append((node.right, depth + 1, name))  # popped after the left one: left is drawn first
            stack.append((node.left, depth + 1, name))
    if len(leaves) > 1:
        lines.append("  { rank=same; " + " -> ".join(leaves) + " [style=invis]; }")
    lines.append("}")
    return "\n".join(lines)


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
