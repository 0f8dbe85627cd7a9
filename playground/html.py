"""All HTML the playground shows, built by pure functions that escape every value.

Nothing else in the app writes HTML.  Each function takes plain data and
returns a string for ``st.markdown(..., unsafe_allow_html=True)``: every
text node and every attribute value goes through `esc`, so `<script>`,
``<img onerror=...>``, quotes and ``&`` in the user's text show as text.
Colours are a pure function of the token id (no randomness, no `hash()`).
"""
from __future__ import annotations

import html
from typing import Iterable, Mapping

WS_MARKERS = {" ": "·", "\t": "→", "\n": "↵\n", "\r": "␍"}

STYLE = """<style>
.tokens{font-family:"Source Code Pro",ui-monospace,monospace,"Noto Color Emoji";white-space:pre-wrap;
  word-break:break-word;line-height:1.9;font-size:0.95rem}
.tokens .tok{border-radius:3px;padding:1px 0;margin:0 1px 0 0;color:#111}
.tokens .tok.special{outline:2px solid #c2185b;font-weight:600}
.tokens .tok.partial{text-decoration:underline dotted}
.tokens .ws{color:#888}
.tokens .cut{border-left:2px solid #d32f2f}
.tokens .same{border-left:2px solid #2e7d32}
.bytes{font-family:ui-monospace,monospace;font-size:0.85rem;line-height:2}
.bytes .tok{display:inline-block;border-radius:3px;padding:0 4px;margin:2px}
.bytes .tok.invalid{outline:2px dashed #d32f2f}
</style>"""


def esc(value: object) -> str:
    """Escape text or an attribute value (quotes included)."""
    return html.escape(str(value), quote=True)


def attrs(values: Mapping[str, object]) -> str:
    """`key="value"` pairs, every value escaped; keys are ours, never the user's."""
    return " ".join(f'{k}="{esc(v)}"' for k, v in values.items() if v is not None)


def element(tag: str, text: str, attributes: Mapping[str, object] | None = None, *, raw: bool = False) -> str:
    """One element; `text` is escaped unless `raw` (only for markup built here)."""
    inner = text if raw else esc(text)
    attr = attrs(attributes or {})
    return f"<{tag} {attr}>{inner}</{tag}>" if attr else f"<{tag}>{inner}</{tag}>"


def token_color(token_id: int, alpha: float = 0.45) -> str:
    """A light background colour picked by the id: the same id has the same colour everywhere."""
    hue = (token_id * 137.508) % 360  # golden angle: neighbouring ids get distant hues
    return f"hsla({hue:.1f}, 85%, 62%, {alpha})"


def show_whitespace(text: str) -> str:
    """Escaped `text` with visible markers for space, tab and newline."""
    out = []
    for ch in text:
        marker = WS_MARKERS.get(ch)
        out.append(f'<span class="ws">{esc(marker)}</span>' if marker else esc(ch))
    return "".join(out)


def hex_bytes(data: bytes) -> str:
    return " ".join(f"{b:02x}" for b in data)


def container(inner: Iterable[str], cls: str, element_id: str | None = None) -> str:
    return f'<div {attrs({"class": cls, "id": element_id})}>{"".join(inner)}</div>'


# --- Gallery ---
# Token chips for the "Why counts differ" demos: one chip per token, coloured by id,
# a gap where a new pre-tokenizer piece starts, bytes that are not whole characters in hex.

GALLERY_STYLE = """<style>
.gchips{font-family:"Source Code Pro",ui-monospace,monospace,"Noto Color Emoji";line-height:2.3;
  font-size:0.95rem;word-break:break-word}
.gchips .tok{border-radius:3px;padding:2px 3px;margin-right:1px;color:#111;white-space:pre}
.gchips .tok.piece{margin-left:0.8rem}
.gchips .tok:first-child{margin-left:0}
.gchips .tok sub{font-size:0.68rem;color:#333;margin-left:3px;font-family:ui-monospace,monospace}
.gchips .tok.special{outline:2px solid #c2185b;font-weight:600}
.gchips .tok.bytes{outline:1px dashed #b71c1c}
.gchips .ws{color:#666}
.gchips-name{font-size:0.8rem;color:#555;margin:0.3rem 0 -0.3rem 0}
</style>"""
_CHIP_WS = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍"}


def gallery_chip_text(data: bytes) -> str:
    """Escaped label of a token: whitespace made visible, a partial character as ‹hex bytes›."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return esc(f"‹{hex_bytes(data)}›")
    return "".join(f'<span class="ws">{esc(_CHIP_WS[ch])}</span>' if ch in _CHIP_WS else esc(ch) for ch in text)


def gallery_chips(tokens: Iterable[tuple[int, bytes, bool, bool]], *, show_ids: bool = True) -> str:
    """One line of chips for (id, bytes, starts_piece, special) tuples."""
    chips = []
    for token_id, data, starts_piece, special in tokens:
        classes = ["tok"]
        if starts_piece:
            classes.append("piece")
        if special:
            classes.append("special")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            classes.append("bytes")
        label = gallery_chip_text(data) + (f"<sub>{esc(token_id)}</sub>" if show_ids else "")
        chips.append(f'<span {attrs({"class": " ".join(classes), "style": f"background:{token_color(token_id)}", "title": f"id {token_id}"})}>{label}</span>')
    return f'<div class="gchips">{"".join(chips)}</div>'


# --- Merge tree / steps / vocabulary ---
# Graphviz DOT for merge trees (labels escaped by `dot_escape`, not HTML) and
# the boxes of the BPE steps view.  Token bytes are shown with
# `engine.readable`: bytes that are not valid UTF-8 alone appear as <e6 97>.

TREE_STYLE = """<style>
.bpe-parts{display:flex;flex-wrap:wrap;align-items:flex-start;gap:2px 0;font-family:"Source Code Pro",ui-monospace,
  monospace,"Noto Color Emoji";font-size:0.95rem;line-height:1.5;padding:0.4rem;max-height:26rem;overflow-y:auto;
  border:1px solid rgba(128,128,128,.3);border-radius:6px}
.bpe-parts .part{display:inline-flex;flex-direction:column;align-items:center;border-radius:4px;padding:1px 5px;
  color:#111;white-space:pre;border:1px solid rgba(0,0,0,.15)}
.bpe-parts .part .pid{font-size:0.7rem;color:#444}
.bpe-parts .part.merge{outline:3px solid #d32f2f;outline-offset:-1px}
.bpe-parts .gap{display:inline-flex;align-items:flex-end;justify-content:center;min-width:6px;align-self:stretch;
  font-size:0.68rem;color:#777;padding:0 1px}
.bpe-parts .gap.best{color:#d32f2f;font-weight:700}
.bpe-parts .more{align-self:center;color:#777;font-size:0.8rem;padding:0 6px}
.bpe-legend{font-size:0.85rem;color:#555}
</style>"""

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


def tree_label(data: bytes, token_id: int, *, limit: int = 24) -> str:
    """What a tree node says: its bytes readably (space as ␣) and its id; a leaf adds its byte value."""
    from engine import readable  # the engine's one definition of "readable bytes"

    text = _short(readable(data, space="␣"), limit)
    if len(data) == 1:
        return f"{text}\nbyte 0x{data[0]:02x}\nid {token_id}"
    return f"{text}\nid {token_id}"


def merge_tree_dot(root, *, max_depth: int | None = None, left_right: bool = False, label_limit: int = 24) -> str:
    """DOT source of a merge tree (`engine.MergeNode`): root on top, bytes in order at the bottom.

    Every occurrence of a token is its own node (a tree, not a DAG), so the
    leaves spell the token's bytes left to right.  Nodes deeper than
    `max_depth` merges below the root are folded into one dashed node.
    """
    lines = [
        "digraph merge_tree {",
        f'  graph [rankdir={"LR" if left_right else "TB"}, ordering=out, nodesep=0.12, ranksep=0.32, bgcolor="transparent"];',
        '  node [shape=box, style="rounded,filled", fontname="Source Code Pro, monospace", fontsize=11, '
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
            label += f"\n(+{node.n_merges} merges)"
            attrs_ = f'fillcolor="{_dot_color(node.id)}", style="rounded,filled,dashed"'
        else:
            attrs_ = f'fillcolor="{_dot_color(node.id)}"'
        if node is root:
            attrs_ += ", penwidth=2.2"
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
              element_id: str = "bpe-parts") -> str:
    """The parts of a piece at one BPE step, as boxes with their ids.

    `parts`/`ids` are a window starting at part number `first` of `total`.
    `merge_at` (absolute part index) outlines the pair merged next;
    `pair_ranks[k]` is the rank of joining window parts k and k+1 (None: not
    a token), shown between the boxes, the lowest in red: BPE merges it next.
    """
    from engine import readable

    total = len(parts) if total is None else total
    best = min((r for r in pair_ranks or [] if r is not None), default=None)
    out = []
    if first > 0:
        out.append(element("span", f"… {first} parts before", {"class": "more"}))
    for k, (data, tid) in enumerate(zip(parts, ids)):
        index = first + k
        cls = "part merge" if merge_at is not None and index in (merge_at, merge_at + 1) else "part"
        style = f"background:{token_color(tid)}" if tid is not None else "background:#eee"
        inner = element("span", readable(data, space="␣")) + element(
            "span", "?" if tid is None else str(tid), {"class": "pid"})
        out.append(element("span", inner, {"class": cls, "style": style, "data-i": index,
                                           "title": f"part {index}: bytes {hex_bytes(data)}"}, raw=True))
        if pair_ranks is not None and k < len(parts) - 1:
            rank = pair_ranks[k]
            gap_cls = "gap best" if rank is not None and rank == best else "gap"
            out.append(element("span", "" if rank is None else str(rank), {"class": gap_cls}))
    rest = total - first - len(parts)
    if rest > 0:
        out.append(element("span", f"{rest} parts after …", {"class": "more"}))
    return container(out, "bpe-parts", element_id)  # one line: `readable` never leaves a raw newline
