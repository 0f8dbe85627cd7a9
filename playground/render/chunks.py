"""Token-budget chunks (Chunks view): one compact card per chunk -- its number, its count against
the budget (a thin fill bar), where it ends, and its text with whitespace made visible, scrolling
inside the card when long.  Every text and attribute value is escaped here.
"""
from __future__ import annotations

from typing import Iterable

from playground.render.html import attrs, container, element, esc, show_whitespace


CHUNK_ENDS = {"paragraph": "ends at a paragraph end", "sentence": "ends at a sentence end",
              "token": "ends between two tokens", "end": "ends the text"}


def chunk_cards(chunks: Iterable, max_tokens: int, *, show_ws: bool, element_id: str = "chunks") -> str:
    """Cards for `engine.explain.chunking.Chunk` records: number, tokens of the budget, characters, end kind, text."""
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
