"""The Claude 3+ reconstruction's tiling as chips: the message frame's tokens grey (template), the content's
tokens coloured by position -- there are no ids to colour by: Anthropic publishes none, and the tiling is
one of the cheapest, not Claude's own.  Uses the Chat view's chip styles (styles/chat.css).
"""
from __future__ import annotations

from typing import Sequence

from playground.render.html import WS_MARKERS, attrs, esc, token_color


def claude_tokens(frame: Sequence[str], tokens: Sequence[str], element_id: str, limit: int | None = None) -> str:
    """Chips for the frame's tokens (``⟨pad⟩``) and the content's, in public notation (``⟨bow⟩hello⟨eow⟩``):
    the first `limit` of the content's, then one chip for the rest (as a Chat row draws a long message)."""
    chips = []
    n = len(frame) + len(tokens)
    rest = len(tokens) - limit if limit is not None and len(tokens) > limit else 0
    tokens = tokens[:len(tokens) - rest]
    for i, text in enumerate(frame):
        title = f"token {i + 1} of {n} · the message frame (counted, never shown by the API)"
        chips.append(f"<span {attrs({'class': 'tok template', 'title': title})}>{esc(text)}</span>")
    for k, text in enumerate(tokens):
        i = len(frame) + k
        title = f"token {i + 1} of {n} · content · one valid tiling, not Claude's own boundaries"
        span = {"class": "tok content", "title": title, "style": f"background:{token_color(k)}"}
        label = "".join(f'<span class="ws">{esc(WS_MARKERS[ch])}</span>' if ch in WS_MARKERS else esc(ch)
                        for ch in text) or esc("∅")
        chips.append(f"<span {attrs(span)}>{label}</span>" + ("<br>" if text.endswith("\n") else ""))
    if rest:
        more = f"… {rest:,} more token{'s' * (rest != 1)} …"
        chips.append(f"<span {attrs({'class': 'tok elided', 'title': 'not drawn, counted · content'})}>{esc(more)}</span>")
    return f'<div {attrs({"class": "chat", "id": element_id})}>{"<wbr>".join(chips)}</div>'
