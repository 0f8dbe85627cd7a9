"""Tokenizer diff, drawn: token samples as chips with their ids in A and in B. Pure, every value escaped."""
from __future__ import annotations

from typing import Sequence

from engine.explain.diff import TokenSample
from playground.render.gallery import gallery_chip_text
from playground.render.html import attrs, esc, token_color


def sample_chips(samples: Sequence[TokenSample], *, group: str) -> str:
    """One chip per token, coloured by its id in B (else A); under it ``id`` or ``idA→idB``."""
    chips = []
    for s in samples:
        colour_id = s.id_b if s.id_b is not None else s.id_a
        if s.id_a is not None and s.id_b is not None:
            label = f"{s.id_a}→{s.id_b}"
        else:
            label = str(colour_id)
        classes = "tok"
        try:
            s.bytes.decode("utf-8")
        except UnicodeDecodeError:
            classes += " bytes"
        span = {"class": classes, "style": f"background:{token_color(colour_id)}", "title": f"id {label}"}
        chips.append(f"<span {attrs(span)}><bdi>{gallery_chip_text(s.bytes)}</bdi><sub>{esc(label)}</sub></span> ")
    if not chips:
        return '<div class="gchips diff-chips empty">none</div>'
    return f'<div {attrs({"class": "gchips diff-chips", "data-group": group})}>{"".join(chips)}</div>'


def special_list(names: Sequence[str]) -> str:
    """Special tokens' texts as chips (their text is the user-facing name)."""
    if not names:
        return '<div class="gchips diff-chips empty">none</div>'
    return '<div class="gchips diff-chips">' + " ".join(
        f'<span class="tok special"><bdi>{esc(n)}</bdi></span>' for n in names) + "</div>"
