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
