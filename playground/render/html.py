"""All HTML the playground shows, built by pure functions that escape every value.

Nothing else in the app writes HTML.  Each function takes plain data and
returns a string for ``st.markdown(..., unsafe_allow_html=True)``: every
text node and every attribute value goes through `esc`, so `<script>`,
``<img onerror=...>``, quotes and ``&`` in the user's text show as text.
Colours are a pure function of the token id (no randomness, no `hash()`).
"""
from __future__ import annotations

import base64
import functools
import html
import re
import unicodedata
from pathlib import Path
from typing import Iterable, Mapping, Sequence

SPACE = "␣"  # the one glyph for a space, everywhere (token views, tables, trees, vocabulary)
# Whitespace, drawn with a marker (a newline keeps its line break in drawn text).
WS_MARKERS = {" ": SPACE, "\t": "→", "\n": "↵", "\r": "␍", "\u00a0": "‹NBSP›"}
# Invisible characters, named where they would otherwise leave a blank (a token of a lone ZWJ).
INVISIBLE = {"\u200d": "‹ZWJ›", "\u200c": "‹ZWNJ›", "\u200b": "‹ZWSP›", "\ufe0f": "‹VS16›", "\ufe0e": "‹VS15›",
             "\u2060": "‹WJ›", "\ufeff": "‹BOM›"}

# Monospace text names Noto Sans Arabic and Hebrew right after Source Code Pro, which has no such letters:
# the next face with them was DejaVu Sans Mono, Arabic stretched to fixed widths (issue 21).
# A token is never broken across lines (" strawberry" drawn as "␣st" / "rawberry" read as two tokens): a
# unit keeps its text on one line (white-space:pre) and a zero-width space after each unit is where a
# line may break.  A unit longer than LONG_UNIT characters is marked "long" and may break inside, but only
# where it alone would not fit on a line (overflow-wrap), so nothing runs out of a narrow column.
STYLE = """<style>
.tokens{font-family:"Source Code Pro","Noto Sans Arabic","Noto Sans Hebrew",ui-monospace,monospace,"Noto Color Emoji";
  white-space:pre-wrap;overflow-wrap:anywhere;line-height:1.9;font-size:0.95rem}
.tokens .tok{border-radius:3px;padding:1px 0;margin:0 1px 0 0;color:#111;white-space:pre}
.tokens .tok::after{content:"\\200b"}
.tokens .tok.long{white-space:pre-wrap;word-break:keep-all}
.tokens .tok.special{outline:2px solid #c2185b;font-weight:600}
.tokens .tok.partial{text-decoration:underline dotted}
.tokens .ws{color:#888}
.bytes{font-family:ui-monospace,monospace;font-size:0.85rem;line-height:2}
.bytes .tok{display:inline-block;border-radius:3px;padding:0 4px;margin:2px}
.bytes .tok.invalid{outline:2px dashed #d32f2f}
</style>"""


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


def token_color(token_id: int, alpha: float = 0.45) -> str:
    """A light background colour picked by the id: the same id has the same colour everywhere."""
    hue = (token_id * 137.508) % 360  # golden angle: neighbouring ids get distant hues
    return f"hsla({hue:.1f}, 85%, 62%, {alpha})"


HUES = 36  # drawn token units take one of 36 hue classes (.h0 … .h35), 10 degrees apart


def hue_class(token_id: int) -> str:
    """`token_color`'s hue as a class: a class name instead of a style on each of thousands of spans."""
    return f"h{int((token_id * 137.508) % 360) * HUES // 360}"


HUE_STYLE = ("<style>\n"
             + "\n".join(f".tokens .tok.h{k}{{background:hsla({k * 360 // HUES + 5}, 85%, 62%, 0.45)}}"
                         for k in range(HUES))
             + "\n</style>")


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


def hex_bytes(data: bytes) -> str:
    """``b"hi"`` -> ``"68 69"``."""
    return data.hex(" ")


def container(inner: Iterable[str], cls: str, element_id: str | None = None) -> str:
    return f'<div {attrs({"class": cls, "id": element_id})}>{"".join(inner)}</div>'


# --- Tokenize / Compare ---
# Builders for the Tokenize and Compare views.  Each returns ONE line of markup:
# newlines in the user's text become `&#10;`, so Streamlit's markdown sees a
# single raw-HTML block and never parses `*`, `_`, `$` or a blank line inside it.

TC_STYLE = """<style>
.tokens .tok{margin:0;padding:1px 0;border-radius:0;box-shadow:inset -1px 0 0 rgba(255,255,255,.95);cursor:pointer}
.tokens .rtl{unicode-bidi:isolate}
.tokens.cmp .tok.same{box-shadow:inset 2px 0 0 #1b5e20}
.tokens.cmp .tok.cut{box-shadow:inset 3px 0 0 #e65100}
.tokens.cmp .rtl .tok.same{box-shadow:inset -2px 0 0 #1b5e20}
.tokens.cmp .rtl .tok.cut{box-shadow:inset -3px 0 0 #e65100}
.tokens .tok.hl{outline:2px solid #1565c0;outline-offset:0;background-color:rgba(21,101,192,.25)!important}
.tokens .tok.pin{outline:2px solid #ad1457;outline-offset:0}
.tokens.cmp{max-height:28rem;overflow-y:auto;padding:0.4rem;border:1px solid rgba(128,128,128,.3);border-radius:6px}
.tokens.view{max-height:32rem;overflow-y:auto;padding:0.5rem;border:1px solid rgba(128,128,128,.3);border-radius:6px}
.idlist{font-family:ui-monospace,"Source Code Pro",monospace;font-size:0.85rem;line-height:1.7;max-height:12rem;
  overflow-y:auto;padding:0.4rem 0.6rem;border:1px solid rgba(128,128,128,.3);border-radius:6px;word-break:break-word}
.idlist .id{border-radius:3px;padding:0 1px}
.idlist .id.hl{background:#1565c0;color:#fff}
.bytes{max-height:32rem;overflow-y:auto}
.bytes .tok{color:#111}
.bytes .tok.invalid{outline-offset:-1px}
.pieces{font-family:"Source Code Pro","Noto Sans Arabic","Noto Sans Hebrew",ui-monospace,monospace,"Noto Color Emoji";white-space:pre-wrap;
  word-break:break-word;line-height:2;font-size:0.95rem;max-height:24rem;overflow-y:auto}
.pieces .piece{border-radius:3px;padding:1px 0;margin-right:2px;color:#111}
.pieces .piece.a{background:rgba(33,150,243,.22)}
.pieces .piece.b{background:rgba(255,193,7,.35)}
.pieces .piece.special{outline:2px solid #c2185b}
.pieces .ws,.tokens .ws{color:#888}
.tc-legend{font-size:0.85rem;color:#555}
.tc-legend .same,.tc-legend .cut{display:inline-block;width:0;height:1em;vertical-align:middle;margin:0 4px 0 10px}
.tc-legend .same{border-left:2px solid #1b5e20}
.tc-legend .cut{border-left:3px solid #e65100}
.deltas{border-left:4px solid #1976d2;background:rgba(25,118,210,.07);border-radius:4px;padding:.45rem .9rem;margin:.3rem 0 .6rem}
.delta{font-size:1.05rem;margin:0.15rem 0}
[data-testid="stMainBlockContainer"]{padding-top:2.5rem}
.bpe-header{margin:0 0 0.4rem}
.bpe-header h1{font-size:1.9rem;padding:0 0 0.1rem;margin:0}
.bpe-header p{color:#666;margin:0;font-size:0.95rem}
[data-testid="stMetricValue"]{font-size:1.45rem}
@media (max-width:640px){[data-testid="stMetricValue"]{font-size:1.15rem}.bpe-header h1{font-size:1.5rem}
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"]){flex-wrap:wrap;gap:.4rem 1rem}
  [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"]) > [data-testid="stColumn"]{
    min-width:28%!important;flex:1 1 28%!important;width:auto!important}}
#bpe-tip{position:fixed;z-index:1000100;max-width:22rem;padding:.45rem .6rem;border-radius:6px;background:#263238;
  color:#fff;font:0.8rem/1.45 ui-monospace,"Source Code Pro",monospace;white-space:pre-line;pointer-events:none;
  box-shadow:0 3px 12px rgba(0,0,0,.3);display:none}
#bpe-tip.pinned{pointer-events:auto}
#bpe-tip .links{margin-top:.35rem;display:flex;gap:.6rem;font-family:sans-serif}
#bpe-tip a{color:#80d8ff;text-decoration:underline;cursor:pointer}
.tokchip{font-family:"Source Code Pro","Noto Sans Arabic","Noto Sans Hebrew",ui-monospace,monospace,"Noto Color Emoji";font-size:1.05rem;white-space:pre-wrap;
  word-break:break-all;background:rgba(128,128,128,.1);border:1px solid rgba(128,128,128,.25);border-radius:6px;
  padding:.45rem .75rem;margin:.2rem 0 .5rem}
.cbars{display:grid;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr));gap:.6rem 1.6rem;margin:.4rem 0 .8rem}
.cbars .ttl{font-size:.9rem;font-weight:600;margin:0 0 .3rem}
.cbar{display:grid;grid-template-columns:minmax(4.5rem,8.5rem) 1fr;align-items:center;gap:.5rem;font-size:.82rem;
  margin:.2rem 0}
.cbar .name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:#444}
.cbar .track{display:flex;align-items:center;gap:.35rem;min-width:0}
.cbar .fill{height:1.1rem;border-radius:2px;min-width:2px;flex:none}
.cbar .val{font-variant-numeric:tabular-nums;white-space:nowrap}</style>"""


def token_chip(readable: str) -> str:
    """One token's text, big and monospaced (Merge tree, Vocabulary).  Not st.code: it loads the syntax
    highlighter's bundle, about 0.3 s of the browser's main thread the first time a page shows one."""
    return f'<div class="tokchip" dir="auto">{_one_line(esc(readable))}</div>'


# Compare's bars: one colour per encoding, in the order the user chose them (Tableau 10, Vega's default).
BAR_COLORS = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6")


def compare_bars(rows: Sequence[Mapping[str, object]], metrics: Sequence[tuple[str, str]]) -> str:
    """Small bar charts side by side, one per (metric, number format) pair, one bar per row
    (``{"encoding": name, metric: value, ...}``); each bar's length is its share of the largest.

    Plain HTML instead of three Vega-Lite charts: Vega took about 50 ms of the browser per keystroke
    on Compare, for six bars."""
    charts = []
    for metric, fmt in metrics:
        top = max((float(r[metric]) for r in rows), default=0.0) or 1.0
        bars = []
        for k, r in enumerate(rows):
            value = float(r[metric])
            shown = format(r[metric], fmt)
            width = max(0.0, min(100.0, 100 * value / top)) * 0.75  # room for the value after the bar
            colour = BAR_COLORS[k % len(BAR_COLORS)]
            bars.append(f'<div class="cbar" title="{esc(r["encoding"])}: {esc(shown)} {esc(metric)}">'
                        f'<span class="name">{esc(r["encoding"])}</span><span class="track">'
                        f'<span class="fill" style="width:{width:.1f}%;background:{colour}"></span>'
                        f'<span class="val">{esc(shown)}</span></span></div>')
        charts.append(f'<div class="cbars-one" role="group" aria-label="{esc(metric)}"><div class="ttl">{esc(metric)}</div>'
                      + "".join(bars) + "</div>")
    return '<div class="cbars" id="cmp-bars">' + "".join(charts) + "</div>"


def _one_line(markup: str) -> str:
    """Keep markup on one line: newlines (from the user's text) become character references."""
    return markup.replace("\r", "&#13;").replace("\n", "&#10;")


def _shorten(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unit_background(ids: tuple[int, ...]) -> str:
    """One colour per token; a character split over several tokens shows their colours as stripes."""
    if len(ids) == 1:
        return f"background:{token_color(ids[0])}"
    step = 100 / len(ids)
    stops = ", ".join(f"{token_color(t)} {i * step:.0f}% {(i + 1) * step:.0f}%" for i, t in enumerate(ids[:12]))
    return f"background:linear-gradient(90deg, {stops})"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 token``, ``2 tokens``, ``1,234 tokens``."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def unit_tip(unit, piece_text: str | None, n_vocab: int | None = None, note=None) -> str:
    """The tooltip of a drawn unit: id(s), bytes in hex, rank, piece, family notes -- plain text, one
    fact a line.  The page composes the same text in the browser from a span's attributes
    (`unit_tip_parts`, playground/components/token_links.js); this is the reference the tests compare with."""
    ids = unit.ids
    lines = [("id " if len(ids) == 1 else f"{len(ids)} tokens: ids ") + " ".join(map(str, ids[:12]))
             + (" …" if len(ids) > 12 else "")]
    lines.append("bytes " + _tip_bytes(unit))
    if unit.special:
        lines.append("special token: added whole")
    elif len(ids) == 1 and note is None:  # a family's ids are not ranks
        lines.append(f"rank {ids[0]:,}" + (f" of {n_vocab:,}" if n_vocab else ""))
    return "\n".join([*lines, *_tip_extra(unit, piece_text, note)[0]])


def _tip_bytes(unit) -> str:
    return " | ".join(hex_bytes(t.bytes) for t in unit.tokens[:12]) + (" …" if len(unit.tokens) > 12 else "")


def _tip_extra(unit, piece_text: str | None, note) -> tuple[list[str], bool]:
    """The tooltip lines after id, bytes and rank (the piece, family notes), and whether the unit is byte fallback."""
    lines = []
    if piece_text is not None and len(piece_text) > len(unit.text):
        lines.append("piece " + _shorten(visible(piece_text), 30))
    if note is None:
        return lines, False
    notes, byte_fallback = unit_notes(unit.ids, note)
    return [*lines, *notes], byte_fallback


def _is_rtl(text: str) -> bool | None:
    """True/False by the first strong character; None when the text has none (spaces, digits, emoji)."""
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return None


def isolate_rtl(text: str) -> str:
    """Plain `text` for a label (a pill, an option), wrapped in FSI … PDI when it holds right-to-left
    letters: an Arabic token would otherwise pull the id after it into its run ("12 · بال")."""
    if any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in text):
        return f"\u2068{text}\u2069"
    return text


def direction_runs(texts: list[str]) -> list[tuple[int, int, bool]]:
    """``(first, end, rtl)`` runs of unit indexes: a right-to-left run takes in the neutral units
    (spaces, punctuation) between two right-to-left units, so "مرحبا بالعالم" is one run."""
    dirs = [_is_rtl(t) for t in texts]
    runs: list[tuple[int, int, bool]] = []
    i = 0
    while i < len(dirs):
        if dirs[i]:
            j = i + 1
            last = i
            while j < len(dirs) and dirs[j] is not False:
                if dirs[j]:
                    last = j
                j += 1
            runs.append((i, last + 1, True))
            i = last + 1
        else:
            j = i + 1
            while j < len(dirs) and not dirs[j]:
                j += 1
            runs.append((i, j, False))
            i = j
    return runs


LONG_UNIT = 12  # characters: a longer unit may break inside, where it alone is wider than its column (STYLE)


def token_units(units, element_id: str, *, show_ws: bool, pieces=None, shared_cuts=None,
                cls: str = "tokens view", encoding: str | None = None, n_vocab: int | None = None,
                idlist: str | None = None, note=None) -> str:
    """Coloured spans, one per display unit (engine.DisplayUnit), in a div with `element_id`.

    Each span is ``<span class="tok h7" data-ids="…" data-t="…" data-start="…" data-end="…"
    data-b="…" data-x="…">``: its ids, the index of its first token, the character
    offsets of the unit, its bytes in hex, and any tooltip lines past id, bytes and rank
    (the piece, family notes).  The page composes the tooltip from these (`unit_tip` is the
    same text, built here, for tests); the colour is a hue class, or stripes for a split
    character.  About 110 bytes a span: with the whole tooltip and colour written into each
    (230 bytes) the browser spent most of a keystroke sanitising and parsing the rows.
    Right-to-left runs (Arabic, Hebrew) sit in one ``<span class="rtl" dir="rtl">`` each, so
    they read right to left with joined letters; units carry no padding or margin, which
    would break the joins.  With `shared_cuts` (a set of byte offsets) every span but the
    first is marked ``same`` (every encoding cuts here) or ``cut`` (only some do).
    `note` (id -> engine TokenNote or None) adds family notes to the tooltip, leaves out
    the rank line (a family's ids are not ranks) and marks byte-fallback units ``bytefb``.
    """
    # Each unit's properties are read once and the span is one f-string: ids, offsets and hex need
    # no escaping (digits, spaces, "|", "…"); the text and the extra lines are escaped.  About three
    # times faster than `token_units_reference` (a keystroke on Compare redraws thousands of spans).
    spans = []
    texts = []
    t = 0
    for unit in units:
        toks = unit.tokens
        first_tok = toks[0]
        ids = [tok.id for tok in toks]
        text = (first_tok.bytes if len(toks) == 1 else b"".join(tok.bytes for tok in toks)).decode("utf-8", "replace")
        texts.append(text)
        special = any(tok.special for tok in toks)
        classes = "tok special" if special else "tok"
        if len(toks) > 1:
            classes += " split"
        if len(text) > LONG_UNIT:
            classes += " long"
        if shared_cuts is not None and first_tok.byte_start > 0:
            classes += " same" if first_tok.byte_start in shared_cuts else " cut"
        extra = []
        if pieces is not None:
            piece_text = pieces[first_tok.piece_index].text
            if len(piece_text) > len(text):
                extra.append("piece " + _shorten(visible(piece_text), 30))
        if note is not None:
            notes, byte_fallback = unit_notes(ids, note)
            extra += notes
            if byte_fallback:
                classes += " bytefb"
        hexes = " | ".join(tok.bytes.hex(" ") for tok in toks[:12]) + (" …" if len(toks) > 12 else "")
        if len(ids) == 1:
            classes += " " + hue_class(ids[0])
            style = ""
        else:
            style = f' style="{esc(_unit_background(tuple(ids)))}"'
        shown = show_whitespace(text) if show_ws and not special else esc(text)
        x = f' data-x="{esc(chr(10).join(extra))}"' if extra else ""
        spans.append(f'<span class="{classes}" data-ids="{" ".join(map(str, ids))}" data-t="{t}" '
                     f'data-start="{first_tok.char_start}" data-end="{toks[-1].char_end}" data-b="{hexes}"'
                     f'{x}{style}>{shown}</span>')
        t += len(toks)
    out = []
    for first, end, rtl in direction_runs(texts):
        run = "".join(spans[first:end])
        out.append(f'<span class="rtl" dir="rtl">{run}</span>' if rtl else run)
    div = {"class": cls, "id": element_id, "data-enc": encoding, "data-idlist": idlist,
           "data-ranks": None if note is not None else "1", "data-nv": n_vocab}
    return _one_line(f'<div {attrs(div)}>{"".join(out)}</div>')


def token_units_reference(units, element_id: str, *, show_ws: bool, pieces=None, shared_cuts=None,
                cls: str = "tokens view", encoding: str | None = None, n_vocab: int | None = None,
                idlist: str | None = None, note=None) -> str:
    """`token_units` written plainly, one property and one attribute escape at a time: the
    reference the tests compare the fast version with, character for character."""
    spans = []
    t = 0
    for unit in units:
        classes = ["tok"]
        if unit.special:
            classes.append("special")
        if unit.split:
            classes.append("split")
        if len(unit.text) > LONG_UNIT:
            classes.append("long")
        if shared_cuts is not None and unit.byte_start > 0:
            classes.append("same" if unit.byte_start in shared_cuts else "cut")
        piece = pieces[unit.tokens[0].piece_index].text if pieces is not None else None
        extra, byte_fallback = _tip_extra(unit, piece, note)
        if byte_fallback:
            classes.append("bytefb")
        if len(unit.ids) == 1:
            classes.append(hue_class(unit.ids[0]))
        text = show_whitespace(unit.text) if show_ws and not unit.special else esc(unit.text)
        spans.append(element("span", text, {
            "class": " ".join(classes),
            "data-ids": " ".join(map(str, unit.ids)),
            "data-t": t,
            "data-start": unit.char_start,
            "data-end": unit.char_end,
            "data-b": _tip_bytes(unit),
            "data-x": "\n".join(extra) or None,
            "style": _unit_background(unit.ids) if len(unit.ids) > 1 else None,
        }, raw=True))
        t += len(unit.tokens)
    out = []
    for first, end, rtl in direction_runs([u.text for u in units]):
        run = "".join(spans[first:end])
        out.append(f'<span class="rtl" dir="rtl">{run}</span>' if rtl else run)
    div = {"class": cls, "id": element_id, "data-enc": encoding, "data-idlist": idlist,
           "data-ranks": None if note is not None else "1", "data-nv": n_vocab}
    return _one_line(f'<div {attrs(div)}>{"".join(out)}</div>')


def id_list(ids: Sequence[int], element_id: str, *, limit: int) -> str:
    """The ids as ``[15339, 1917]``, each id a ``<span class="id" data-id="…" data-t="…">`` so
    hovering a token can light up its ids here."""
    shown = ids[:limit]
    items = ", ".join(f'<span class="id" data-id="{i}" data-t="{k}">{i}</span>' for k, i in enumerate(shown))
    more = f", … ({len(ids) - len(shown):,} more)" if len(ids) > len(shown) else ""
    return f'<div {attrs({"class": "idlist", "id": element_id})}>[{items}{more}]</div>'


LIVE_TEXT_HTML = ('<div class="live"><label for="bpe-live-text">Text</label>'
                  '<textarea id="bpe-live-text" aria-label="Text" rows="6" spellcheck="false"></textarea>'
                  '<div class="hint"><span class="count"></span> · tokens update as you type</div></div>')
LIVE_TEXT_CSS = """
.live{display:flex;flex-direction:column;gap:4px;font-family:var(--st-font, "Source Sans", sans-serif)}
.live label{font-size:0.875rem;color:var(--st-text-color, #31333f)}
.live textarea{box-sizing:border-box;width:100%;min-height:8.5rem;resize:vertical;padding:0.6rem 0.75rem;
  font:0.95rem/1.45 "Source Code Pro","Noto Sans Arabic","Noto Sans Hebrew",ui-monospace,monospace,"Noto Color Emoji";border-radius:0.5rem;
  border:1px solid var(--st-border-color, rgba(49,51,63,.2));background:var(--st-secondary-background-color, #f0f2f6);
  color:var(--st-text-color, #31333f);unicode-bidi:plaintext}
.live textarea:focus{outline:none;border-color:var(--st-primary-color, #ff4b4b)}
.live .hint{font-size:0.8rem;color:rgba(49,51,63,.6)}
"""


@functools.lru_cache(maxsize=1)
def favicon() -> str:
    """The page icon (drawn tokens, playground/render/favicon.png) as a data URL, read once.

    An emoji icon is fetched from a CDN by the browser; a file path is re-read and re-encoded by
    Streamlit on every rerun of every page (5 ms); a data URL is passed through as it is."""
    data = (Path(__file__).parent / "favicon.png").read_bytes()
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


COPY_BUTTON_HTML = '<button type="button" class="copy" aria-live="polite"></button>'
COPY_BUTTON_CSS = """
.copy{font:0.875rem var(--st-font, "Source Sans", sans-serif);padding:0.3rem 0.75rem;border-radius:0.5rem;cursor:pointer;
  border:1px solid var(--st-border-color, rgba(49,51,63,.2));background:var(--st-background-color, #fff);
  color:var(--st-text-color, #31333f)}
.copy:hover{border-color:var(--st-primary-color, #ff4b4b);color:var(--st-primary-color, #ff4b4b)}
.copy.done{border-color:#21a366;color:#21a366}
"""


def page_header(title: str, tagline: str) -> str:
    """The compact header every page opens with: its title and one line on what it shows."""
    return f'<div class="bpe-header">{element("h1", title)}{element("p", tagline)}</div>'


def token_bytes(tokens, element_id: str) -> str:
    """Hex bytes per token; tokens that are not valid UTF-8 on their own get class ``invalid``."""
    out = []
    for i, tok in enumerate(tokens):
        valid = tok.is_valid_utf8
        title = f"id {tok.id}\ntext {tok.text!r}" + ("" if valid else "\nnot valid UTF-8 alone: part of a character")
        out.append(element("span", hex_bytes(tok.bytes), {
            "class": "tok" if valid else "tok invalid",
            "data-ids": tok.id,
            "data-i": i,
            "title": title,
            "style": f"background:{token_color(tok.id)}",
        }))
    return _one_line(container(out, "bytes", element_id))


def pre_pieces(pieces, tokens_per_piece: list[int], element_id: str, *, show_ws: bool) -> str:
    """The regex pieces BPE runs on, in alternating colours, with offsets and token counts on hover."""
    out = []
    for p in pieces:
        n = tokens_per_piece[p.index] if p.index < len(tokens_per_piece) else 0
        title = (f"piece {p.index}\nchars {p.char_start}–{p.char_end} · bytes {p.byte_start}–{p.byte_end}\n"
                 f"{n} token{'s' if n != 1 else ''}" + ("\nspecial token" if p.special else ""))
        classes = "piece " + ("a" if p.index % 2 == 0 else "b") + (" special" if p.special else "")
        text = show_whitespace(p.text) if show_ws and not p.special else esc(p.text)
        out.append(element("span", text, {"class": classes, "data-i": p.index, "title": title}, raw=True))
    return _one_line(container(out, "pieces", element_id))


def delta_lines(sentences: list[str], element_id: str = "delta") -> str:
    return _one_line(container((element("p", s, {"class": "delta"}) for s in sentences), "deltas", element_id))


def cut_legend(n_shared: int, n_differing: int) -> str:
    return ('<div class="tc-legend"><span class="same"></span>'
            f"cut made by every encoding ({n_shared:,})"
            f'<span class="cut"></span>cut made by only some ({n_differing:,})</div>')


# --- Gallery ---
# Token chips for the "Why counts differ" demos: one chip per token, coloured by id,
# a gap where a new pre-tokenizer piece starts, bytes that are not whole characters in hex.
# Right-to-left text reads right to left: a run of Arabic or Hebrew chips sits in one ``dir="rtl"``
# span (its first token on the right), and each chip's text is a ``<bdi>``, so the id under it
# never joins the Arabic run (which drew "12 · بال" where "بال · 12" was meant).

GALLERY_STYLE = """<style>
.gchips{font-family:"Source Code Pro","Noto Sans Arabic","Noto Sans Hebrew","Noto Color Emoji",ui-monospace,monospace;line-height:2.3;
  font-size:0.95rem;word-break:break-word}
.gchips .tok{border-radius:3px;padding:2px 3px;margin-right:1px;color:#111;white-space:pre;unicode-bidi:isolate}
.gchips .tok.piece{margin-left:0.8rem}
.gchips .tok:first-child{margin-left:0}
.gchips[dir=rtl]{text-align:right}
.gchips .tok[dir=rtl] sub{margin-left:0;margin-right:3px}
.gchips .rtl,.gchips .ltr{unicode-bidi:isolate}
.gchips .rtl .tok{margin-right:0;margin-left:1px}
.gchips .rtl .tok.piece{margin-left:1px;margin-right:0.8rem}
.gchips .rtl .tok:first-child{margin-right:0}
.gchips .tok sub{font-size:0.68rem;color:#333;margin-left:3px;font-family:ui-monospace,monospace}
.gchips .tok.special{outline:2px solid #c2185b;font-weight:600}
.gchips .tok.bytes{outline:1px dashed #b71c1c}
.gchips .ws{color:#666}
.gchips-name{font-size:0.8rem;color:#555;margin:0.3rem 0 -0.3rem 0}
</style>"""
_CHIP_WS = {**WS_MARKERS, **INVISIBLE}  # a chip is never empty: invisible characters are named


def gallery_name(name: str, n_tokens: int | None = None) -> str:
    """The small label above a line of chips: the encoding, and its token count."""
    count = f" · {plural(n_tokens, 'token')}" if n_tokens is not None else ""
    return f'<div class="gchips-name"><b>{esc(name)}</b>{esc(count)}</div>'


def gallery_chip_text(data: bytes) -> str:
    """Escaped label of a token: whitespace and invisible characters made visible, a partial character as ‹hex›."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return esc(f"‹{hex_bytes(data)}›")
    return "".join(f'<span class="ws">{esc(_CHIP_WS[ch])}</span>' if ch in _CHIP_WS else esc(ch) for ch in text)


def gallery_chips(tokens: Iterable[tuple[int, bytes, bool, bool]], *, show_ids: bool = True,
                  example: str | None = None, encoding: str | None = None) -> str:
    """One line of chips for (id, bytes, starts_piece, special) tuples; `example`/`encoding` label the line."""
    chips, texts = [], []
    for token_id, data, starts_piece, special in tokens:
        classes = ["tok"]
        if starts_piece:
            classes.append("piece")
        if special:
            classes.append("special")
        try:
            texts.append(data.decode("utf-8"))
        except UnicodeDecodeError:
            classes.append("bytes")
            texts.append("")  # a piece of a character: neutral, it joins the run around it
        # the chip's direction from its own text (dir="auto" would skip the <bdi> and see only the id)
        rtl = _is_rtl(texts[-1])
        direction = None if rtl is None else ("rtl" if rtl else "ltr")
        label = element("bdi", gallery_chip_text(data), {"dir": direction}, raw=True) + (
            f"<sub>{esc(token_id)}</sub>" if show_ids else "")
        span = {"class": " ".join(classes), "style": f"background:{token_color(token_id)}", "title": f"id {token_id}",
                "dir": direction or "auto"}
        chips.append(f"<span {attrs(span)}>{label}</span>")
    # A line whose first letter is Arabic or Hebrew is a right-to-left paragraph (its wrapped lines start
    # on the right too; dir="auto" cannot tell, as it skips the chips' own dir); left-to-right runs in it
    # are then isolated the other way round
    paragraph_rtl = bool(_is_rtl("".join(texts)))
    out = []
    for first, end, rtl in direction_runs(texts):
        run = "".join(chips[first:end])
        if rtl:
            out.append(f'<span class="rtl" dir="rtl">{run}</span>')
        else:
            out.append(f'<span class="ltr" dir="ltr">{run}</span>' if paragraph_rtl else run)
    div = {"class": "gchips", "dir": "rtl" if paragraph_rtl else None, "data-example": example,
           "data-encoding": encoding}
    return f'<div {attrs(div)}>{"".join(out)}</div>'


# --- Merge tree / steps / vocabulary ---
# Graphviz DOT for merge trees (labels escaped by `dot_escape`, not HTML) and
# the boxes of the BPE steps view.  Token bytes are shown with
# `engine.readable`: bytes that are not valid UTF-8 alone appear as <e6 97>.

TREE_STYLE = """<style>
.bpe-parts{display:flex;flex-wrap:wrap;align-items:flex-start;gap:2px 0;font-family:"Source Code Pro","Noto Sans Arabic","Noto Sans Hebrew",ui-monospace,
  monospace,"Noto Color Emoji";font-size:0.95rem;line-height:1.5;padding:0.4rem;max-height:26rem;overflow-y:auto;
  border:1px solid rgba(128,128,128,.3);border-radius:6px}
.bpe-parts .part{display:inline-flex;flex-direction:column;align-items:center;border-radius:4px;padding:2px 7px;
  color:#111;white-space:pre;border:1px solid rgba(0,0,0,.15);font-size:1.1rem}
.bpe-parts .part .pid{font-size:0.7rem;color:#444}
.bpe-parts .part.merge{outline:3px solid #d32f2f;outline-offset:-1px}
.bpe-parts .gap{display:inline-flex;align-items:flex-end;justify-content:center;min-width:8px;align-self:stretch;
  font-size:0.72rem;color:#777;padding:0 3px}
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


def tree_label(data: bytes, token_id: int, *, limit: int = 24) -> str:
    """What a tree node says: its bytes readably (space as ␣) and its id; a leaf adds its byte value."""
    from engine import readable  # the engine's one definition of "readable bytes"

    text = _short(_runs(readable(data, space="␣")), limit)
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
            label += f"\n(+{plural(node.n_merges, 'merge')})"
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
        shown_id = id_labels[k] if id_labels is not None else ("?" if tid is None else str(tid))
        inner = element("span", readable(data, space="␣")) + element("span", shown_id, {"class": "pid"})
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


# --- chat
# The Chat view's token drawing: one chip per token, template chips grey with a dashed
# outline, content chips coloured by id; a chip's title says its id (or that the maker
# counts it without publishing an id), its kind and its message.

CHAT_STYLE = """<style>
.chat{font-family:"Source Code Pro","Noto Sans Arabic","Noto Sans Hebrew","Noto Color Emoji",ui-monospace,monospace;line-height:2.2;font-size:0.9rem;
  word-break:break-word}
.chat .tok{border-radius:3px;padding:1px 2px;margin-right:1px;color:#111;white-space:pre;unicode-bidi:isolate}
.chat .tok.template{background:#eceff1;outline:1px dashed #78909c;color:#37474f}
.chat .tok.special{font-weight:600}
.chat .tok.uncounted{background:#fff3e0;outline:1px dashed #ef6c00}
.chat .tok.elided{background:#fff;outline:1px dotted #90a4ae;color:#546e7a;font-style:italic}
.chat .ws{color:#888}
.chat-legend{font-size:0.8rem;color:#555}
.chat-legend .tok{border-radius:3px;padding:0 4px;margin:0 4px}
.chat-legend .tok.template{background:#eceff1;outline:1px dashed #78909c}
.chat-legend .tok.content{background:hsla(200,85%,62%,0.45)}
.chat-legend .tok.uncounted{background:#fff3e0;outline:1px dashed #ef6c00}
</style>"""


def chat_tokens(tokens: Iterable[tuple[str, str, int | None, bool, int]], element_id: str) -> str:
    """Chips for (kind, text, id or None, special, message index) tuples, in a ``div.chat``; kind
    "elided" is one chip standing for the undrawn rest of a long message (its text says how many)."""
    chips = []
    for kind, text, token_id, special, message in tokens:
        if kind == "elided":
            title = f"not drawn, counted · message {message + 1}"
            chips.append(f"<span {attrs({'class': 'tok elided', 'title': title})}>{esc(text)}</span>")
            continue
        classes = ["tok", kind]
        if special:
            classes.append("special")
        if token_id is None:
            classes.append("uncounted")
        where = "reply priming / start" if message < 0 else f"message {message + 1}"
        ident = f"id {token_id}" if token_id is not None else "counted, id not published"
        span = {"class": " ".join(classes), "data-id": token_id, "title": f"{ident} · {kind} · {where}",
                "style": f"background:{token_color(token_id)}" if kind == "content" and token_id is not None else None}
        label = "".join(f'<span class="ws">{esc(WS_MARKERS[ch])}</span>' if ch in WS_MARKERS else esc(ch)
                        for ch in text) or esc("∅")
        # one line break after a token that ends a line, none inside it: "\n\n" stays one chip on one line
        chips.append(f"<span {attrs(span)}>{label}</span>" + ("<br>" if text.endswith("\n") else ""))
    # <wbr>: a line may break between any two chips (chips themselves never break)
    return f'<div {attrs({"class": "chat", "id": element_id})}>{"<wbr>".join(chips)}</div>'


def chat_legend() -> str:
    return ('<div class="chat-legend"><span class="tok template">template</span>role headers, turn ends, '
            'reply priming<span class="tok content">content</span>your text (coloured by id)'
            '<span class="tok uncounted">counted</span>in OpenAI\'s rule, id not published · '
            'hover a token for its id</div>')

# --- arena
# Token-budget chunks (Chunks view): one compact card per chunk -- its number, its count against
# the budget (a thin fill bar), where it ends, and its text with whitespace made visible,
# scrolling inside the card when long.  Every text and attribute value is escaped here.

ARENA_STYLE = """<style>
.chunks{display:flex;flex-direction:column;gap:6px}
.chunk{border:1px solid #ddd;border-radius:6px;padding:4px 8px 6px 8px;background:#fff}
.chunk .chead{font-size:0.8rem;color:#444;display:flex;gap:0.8rem;align-items:center;flex-wrap:wrap}
.chunk .chead b{color:#111}
.chunk .fill{flex:0 0 120px;height:6px;background:#eee;border-radius:3px;overflow:hidden}
.chunk .fill span{display:block;height:100%;background:#1e88e5}
.chunk .ctext{font-family:"Source Code Pro","Noto Sans Arabic","Noto Sans Hebrew",ui-monospace,monospace,"Noto Color Emoji";font-size:0.85rem;
  white-space:pre-wrap;word-break:break-word;max-height:9.5em;overflow-y:auto;margin-top:2px;line-height:1.45}
.chunk .ctext .ws{color:#999}
.chunk.end-paragraph{border-left:4px solid #43a047}
.chunk.end-sentence{border-left:4px solid #fb8c00}
.chunk.end-token{border-left:4px solid #9e9e9e}
.chunk.end-end{border-left:4px solid #43a047}
</style>"""
CHUNK_ENDS = {"paragraph": "ends at a paragraph end", "sentence": "ends at a sentence end",
              "token": "ends between two tokens", "end": "ends the text"}


def chunk_cards(chunks: Iterable, max_tokens: int, *, show_ws: bool, element_id: str = "chunks") -> str:
    """Cards for `engine.Chunk` records: number, tokens of the budget, characters, end kind, text."""
    out = []
    for c in chunks:
        share = min(1.0, c.tokens / max_tokens) if max_tokens else 0.0
        head = (element("b", f"#{c.index + 1}") + element("span", f"{c.tokens:,} / {max_tokens:,} tokens")
                + f'<span {attrs({"class": "fill", "title": f"{share:.0%} of the budget"})}>'
                  f'<span {attrs({"style": f"width:{share * 100:.1f}%"})}></span></span>'
                + element("span", f"characters {c.char_start:,}–{c.char_end:,}")
                + element("span", CHUNK_ENDS.get(c.ends_at, c.ends_at)))
        body = show_whitespace(c.text) if show_ws else esc(c.text)
        out.append(f'<div {attrs({"class": f"chunk end-{c.ends_at}", "data-index": c.index, "data-tokens": c.tokens})}>'
                   f'<div class="chead">{head}</div><div class="ctext">{body}</div></div>')
    return container(out, "chunks", element_id)

# --- families
# How SentencePiece and tokenizer.json tokens are drawn: byte-fallback units get a dashed outline
# (class ``bytefb``) and their <0xNN> pieces in the tooltip; ▁ pieces and Ġ-spelled entries say so
# in the tooltip; a legend under the tokens explains both.  Notes come from engine.token_note.

FAMILY_STYLE = """<style>
.tokens .tok.bytefb{outline:1px dashed #6a1b9a;outline-offset:-2px}
.fam-legend{font-size:0.85rem;color:#444;margin:.25rem 0 .5rem;line-height:1.6}
.fam-legend .sw{display:inline-block;padding:0 5px;border-radius:3px;margin:0 3px;background:#eee;
  font-family:"Source Code Pro",ui-monospace,monospace}
.fam-legend .sw.bytefb{outline:1px dashed #6a1b9a;outline-offset:-2px}
.fam-stage{margin:.1rem 0}
</style>"""


def unit_notes(ids, note) -> tuple[list[str], bool]:
    """Tooltip lines for a unit's tokens (byte-fallback bytes joined on one line) and whether it is byte fallback."""
    lines: list[str] = []
    fallback: list[str] = []
    for tid in ids[:12]:
        found = note(tid)
        if found is None:
            continue
        if found.kind == "byte":
            fallback.append(found.text.split(":", 1)[0].removeprefix("byte fallback "))
        elif found.text not in lines:
            lines.append(found.text)
    if fallback:
        lines.insert(0, "byte fallback " + " ".join(fallback) + ": no token for this character, so each of its "
                     "UTF-8 bytes is a token")
    return lines, bool(fallback) and len(fallback) == len(ids[:12])


def family_legend(family: str) -> str:
    """One line under the drawn tokens on how to read this family's tokens ("" for tiktoken-style ones)."""
    if family == "sentencepiece":
        return ('<div class="fam-legend"><span class="sw">▁ → ␣</span>SentencePiece writes a space as ▁ (U+2581) '
                "inside its pieces: ‘▁the’ is the token for ‘ the’. It also puts a ▁ before the text (the dummy "
                "prefix), so the first token starts with ␣ though the text does not. "
                '<span class="sw bytefb">↵</span>byte fallback: a character with no piece becomes one '
                "&lt;0xNN&gt; token per UTF-8 byte (&lt;0x0A&gt; is a newline), drawn as that character; "
                "hover for its bytes.</div>")
    if family == "tokenizer.json":
        return ('<div class="fam-legend"><span class="sw">Ġ → ␣</span>tokenizer.json stores tokens in GPT-2\'s '
                "printable byte alphabet (Ġ is a space, Ċ a newline: ‘Ġthe’ is ‘ the’); drawn here as the text "
                "they stand for, the stored spelling in the tooltip.</div>")
    return ""
