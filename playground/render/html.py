"""The pieces every drawing is built from: escaping, elements, colours, the one whitespace vocabulary.

Nothing outside playground/render/ writes HTML.  Each builder there takes plain
data and returns a string for ``st.markdown(..., unsafe_allow_html=True)``:
every text node and every attribute value goes through `esc`, so `<script>`,
``<img onerror=...>``, quotes and ``&`` in the user's text show as text.
Colours are a pure function of the token id (no randomness, no `hash()`).
Whitespace is drawn with the markers of `WS_MARKERS` (`SPACE`, `TAB`, `NEWLINE`, …), and
every help text that names a marker writes it from these constants, never as a literal.
"""
from __future__ import annotations

import base64
import colorsys
import functools
import html
import re
import unicodedata
from pathlib import Path
from typing import Iterable, Mapping

SPACE = "␣"  # the one glyph for a space, everywhere (token views, tables, trees, vocabulary)
TAB = "→"
NEWLINE = "↵"


# Whitespace, drawn with a marker (a newline keeps its line break in drawn text).
WS_MARKERS = {" ": SPACE, "\t": TAB, "\n": NEWLINE, "\r": "␍", "\u00a0": "‹NBSP›"}


# Invisible characters, named where they would otherwise leave a blank (a token of a lone ZWJ).
INVISIBLE = {"\u200d": "‹ZWJ›", "\u200c": "‹ZWNJ›", "\u200b": "‹ZWSP›", "\ufe0f": "‹VS16›", "\ufe0e": "‹VS15›",
             "\u2060": "‹WJ›", "\ufeff": "‹BOM›"}


def esc(value: object) -> str:
    """Escape text or an attribute value (quotes included)."""
    return html.escape(str(value), quote=True)


def attrs(values: Mapping[str, object]) -> str:
    """`key="value"` pairs, every value escaped; keys are ours, never the user's."""
    # an int needs no escaping (a bool is not one here: it would print as True)
    return " ".join(f'{k}="{v}"' if type(v) is int else f'{k}="{esc(v)}"' for k, v in values.items() if v is not None)


def element(tag: str, text: str, attributes: Mapping[str, object] | None = None, *, raw: bool = False) -> str:
    """One element; `text` is escaped unless `raw` (only for markup built here)."""
    inner = text if raw else esc(text)
    attr = attrs(attributes or {})
    return f"<{tag} {attr}>{inner}</{tag}>" if attr else f"<{tag}>{inner}</{tag}>"


def token_hue(token_id: int) -> float:
    """The hue (degrees) of a token's colour: the golden angle per id, so neighbouring ids get distant hues."""
    return (token_id * 137.508) % 360


TOKEN_ALPHA = 0.45  # how opaque a token's colour is over the page


def token_color(token_id: int, alpha: float = TOKEN_ALPHA) -> str:
    """A light background colour picked by the id: the same id has the same colour everywhere."""
    return f"hsla({token_hue(token_id):.1f}, 85%, 62%, {alpha})"


def solid_token_color(token_id: int, alpha: float = TOKEN_ALPHA) -> str:
    """`token_color` laid over white, as one opaque colour (for drawings where a line must not show through)."""
    red, green, blue = colorsys.hls_to_rgb(token_hue(token_id) / 360, 0.62, 0.85)
    return "#" + "".join(f"{round(255 * (alpha * c + 1 - alpha)):02x}" for c in (red, green, blue))


HUES = 36  # drawn token units take one of 36 hue classes (.h0 … .h35), 10 degrees apart


def hue_class(token_id: int) -> str:
    """`token_color`'s hue as a class: a class name instead of a style on each of thousands of spans."""
    return f"h{int(token_hue(token_id)) * HUES // 360}"


def visible(text: str) -> str:
    """Plain `text` with whitespace made visible, and invisible characters named when nothing
    else is visible (a lone ZWJ reads ‹ZWJ›; inside 👨‍👩‍👧 it stays a joiner). For tables and labels."""
    shown = "".join(WS_MARKERS.get(ch, ch) for ch in text)
    if shown and all(ch in INVISIBLE or unicodedata.category(ch) in ("Mn", "Me", "Cf") for ch in shown):
        shown = "".join(INVISIBLE.get(ch, f"‹U+{ord(ch):04X}›") for ch in shown)
    return shown


def show_whitespace(text: str) -> str:
    """Escaped `text` with visible markers for whitespace (`WS_MARKERS`); newlines still break the line.

    Escaping leaves the whitespace characters alone, so they are replaced after escaping the whole
    text at once (`show_whitespace_reference` does it a character at a time)."""
    return _WS_CHARS.sub(_ws_marker, esc(text))


_WS_CHARS = re.compile("[" + "".join(WS_MARKERS) + "]")


def _ws_marker(m: re.Match) -> str:
    ch = m.group()
    return f'<span class="ws">{esc(WS_MARKERS[ch])}</span>' + ("\n" if ch == "\n" else "")


def show_whitespace_reference(text: str) -> str:
    out = []
    for ch in text:
        marker = WS_MARKERS.get(ch)
        if marker:
            out.append(f'<span class="ws">{esc(marker)}</span>' + ("\n" if ch == "\n" else ""))
        else:
            out.append(esc(ch))
    return "".join(out)


def slug(name: str) -> str:
    """An HTML id fragment for an encoding name (built-ins keep their names)."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", name)


def file_stem(prefix: str, names: Iterable[str], limit: int = 80) -> str:
    """A download's file name stem: `prefix` and the slugs of `names`, joined with "-", cut after a whole name (never
    mid-word: "…-mistral-.csv" read as a cut-off name) once `limit` characters would be passed, with "-and-N-more"."""
    parts = [slug(n) for n in names]
    kept: list[str] = []
    for i, part in enumerate(parts):
        rest = len(parts) - i - 1
        tail = len(f"-and-{rest}-more") if rest else 0
        if kept and len("-".join([prefix, *kept, part])) + tail > limit:
            return "-".join([prefix, *kept, f"and-{len(parts) - i}-more"])
        kept.append(part)
    return "-".join([prefix, *kept])


def hex_bytes(data: bytes) -> str:
    """``b"hi"`` -> ``"68 69"``."""
    return data.hex(" ")


def container(inner: Iterable[str], cls: str, element_id: str | None = None) -> str:
    return f'<div {attrs({"class": cls, "id": element_id})}>{"".join(inner)}</div>'


def token_chip(readable: str) -> str:
    """One token's text, big and monospaced (Merge tree, Vocabulary).  Not st.code: it loads the syntax
    highlighter's bundle, about 0.3 s of the browser's main thread the first time a page shows one."""
    return f'<div class="tokchip" dir="auto">{one_line(esc(readable))}</div>'


def one_line(markup: str) -> str:
    """Keep markup on one line: newlines (from the user's text) become character references."""
    return markup.replace("\r", "&#13;").replace("\n", "&#10;")


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 token``, ``2 tokens``, ``1,234 tokens``."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


LIVE_TEXT_HTML = ('<div class="live"><label for="bpe-live-text">Text</label>'
                  '<textarea id="bpe-live-text" aria-label="Text" rows="6" spellcheck="false"></textarea>'
                  '<div class="hint"><span class="count"></span> · tokens update as you type</div></div>')


@functools.lru_cache(maxsize=1)
def favicon() -> str:
    """The page icon (drawn tokens, playground/render/favicon.png) as a data URL, read once.

    An emoji icon is fetched from a CDN by the browser; a file path is re-read and re-encoded by
    Streamlit on every rerun of every page (5 ms); a data URL is passed through as it is."""
    data = (Path(__file__).parent / "favicon.png").read_bytes()
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


COPY_BUTTON_HTML = '<button type="button" class="copy" aria-live="polite"></button>'


def page_header(title: str, tagline: str) -> str:
    """The compact header every page opens with: its title and one line on what it shows."""
    return f'<div class="bpe-header">{element("h1", title)}{element("p", tagline)}</div>'
