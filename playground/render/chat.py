"""The Chat view's token drawing: one chip per token, template chips grey with a dashed outline,
content chips coloured by id; a chip's title says its id (or that the maker counts it without
publishing an id), its kind and its message.
"""
from __future__ import annotations

from typing import Iterable

from playground.render.html import attrs, esc, token_color, WS_MARKERS


def _where(message: int) -> str:
    """A chip's place: a message, the tool definitions (engine.chat.TOOLS, -2) or the frame (-1)."""
    if message == -2:
        return "tool definitions"
    return "reply priming / start" if message < 0 else f"message {message + 1}"


def chat_tokens(tokens: Iterable[tuple[str, str, int | None, bool, int]], element_id: str) -> str:
    """Chips for (kind, text, id or None, special, message index) tuples, in a ``div.chat``; kind
    "elided" is one chip standing for the undrawn rest of a long message (its text says how many)."""
    chips = []
    for kind, text, token_id, special, message in tokens:
        if kind == "elided":
            title = f"not drawn, counted · {_where(message)}"
            chips.append(f"<span {attrs({'class': 'tok elided', 'title': title})}>{esc(text)}</span>")
            continue
        classes = ["tok", kind]
        if special:
            classes.append("special")
        if token_id is None:
            classes.append("uncounted")
        where = _where(message)
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
