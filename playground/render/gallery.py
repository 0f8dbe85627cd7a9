"""Token chips for the "Why counts differ" demos: one chip per token, coloured by id, a gap where a
new pre-tokenizer piece starts, bytes that are not whole characters in hex.

Right-to-left text reads right to left: a run of Arabic or Hebrew chips sits in one ``dir="rtl"``
span (its first token on the right), and each chip's text is a ``<bdi>``, so the id under it
never joins the Arabic run.
"""
from __future__ import annotations

from typing import Iterable

from playground.render.html import attrs, element, esc, hex_bytes, INVISIBLE, plural, token_color, WS_MARKERS
from playground.render.tokens import direction_runs, is_rtl


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
        rtl = is_rtl(texts[-1])
        direction = None if rtl is None else ("rtl" if rtl else "ltr")
        label = element("bdi", gallery_chip_text(data), {"dir": direction}, raw=True) + (
            f"<sub>{esc(token_id)}</sub>" if show_ids else "")
        span = {"class": " ".join(classes), "style": f"background:{token_color(token_id)}", "title": f"id {token_id}",
                "dir": direction or "auto"}
        chips.append(f"<span {attrs(span)}>{label}</span>")
    # A line whose first letter is Arabic or Hebrew is a right-to-left paragraph (its wrapped lines start
    # on the right too; dir="auto" cannot tell, as it skips the chips' own dir); left-to-right runs in it
    # are then isolated the other way round
    paragraph_rtl = bool(is_rtl("".join(texts)))
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
