"""The context-window bars (Chat formats), like Claude Code's ``/context``: one stacked bar per model row.

Each bar is the model's window: system, tools, messages, images and the reserved output (``max_tokens``)
in a fixed colour each, then the free space, striped.  A request past the window draws the window as a
line inside a bar scaled to the request and says by how much it is over.  Under the bar a legend gives each
part's tokens (it wraps on a phone, so the numbers stay readable where a segment is too thin for a label),
and the tools' line lists what each tool costs.  Every text and attribute value is escaped here.
"""
from __future__ import annotations

from typing import Iterable

from playground.render.html import attrs, element, esc

PART_CLASSES = {"system": "w-system", "tools": "w-tools", "messages": "w-messages", "images": "w-images",
                "reserved output": "w-reserved", "free": "w-free"}


def _pct(tokens: int, scale: int) -> str:
    return f"{100 * tokens / scale:.3f}%"


def window_bar(label: str, use, *, element_id: str) -> str:
    """One model's bar for an `engine.explain.context_window.WindowUse` (its window may be None: unknown)."""
    scale = max(use.window or 0, use.used, 1)
    segments = [(p.label, p.tokens) for p in use.parts if p.tokens]
    if use.window is not None and use.free:
        segments.append(("free", use.free))
    bar = "".join(f'<span {attrs({"class": "wseg " + PART_CLASSES[name], "style": "width:" + _pct(tokens, scale), "title": f"{name}: {tokens:,} tokens"})}></span>'
                  for name, tokens in segments)
    if use.over:
        bar += f'<span {attrs({"class": "wline", "style": "left:" + _pct(use.window, scale), "title": f"the window: {use.window:,} tokens"})}></span>'
    if use.window is None:
        head = f"{use.used:,} tokens · window unknown (the price list gives none)"
    elif use.over:
        head = f"{use.used:,} / {use.window:,} tokens · over the window by {use.over:,}"
    else:
        head = f"{use.used:,} / {use.window:,} tokens ({use.used / use.window:.1%}) · {use.free:,} free"
    legend = "".join(
        f'<span class="witem"><i {attrs({"class": PART_CLASSES[name]})}></i>{esc(name)} {tokens:,}</span>'
        for name, tokens in [(p.label, p.tokens) for p in use.parts]
        + ([("free", use.free)] if use.window is not None else []))
    tools = ""
    if use.tool_costs:
        tools = element("div", "tools: " + " · ".join(f"{name} {tokens:,}" for name, tokens in use.tool_costs),
                        {"class": "wtools"})
    state = "over" if use.over else "fits"
    return (f'<div {attrs({"class": f"wrow {state}", "id": element_id, "data-used": use.used, "data-window": use.window if use.window is not None else "", "data-over": use.over})}>'
            f'<div class="whead">{element("b", label)} {element("span", head, {"class": "wnum"})}</div>'
            # no bar without a window: drawn to the request's own size it looked full (the reserved output filled it)
            + (f'<div class="wbar">{bar}</div>' if use.window is not None else "")
            + f'<div class="wlegend">{legend}</div>{tools}</div>')


def window_bars(rows: Iterable[tuple[str, object]], element_id: str = "window-bars") -> str:
    """Bars for (label, WindowUse) rows, one block."""
    inner = "".join(window_bar(label, use, element_id=f"{element_id}-{i}") for i, (label, use) in enumerate(rows))
    return f'<div {attrs({"class": "wbars", "id": element_id})}>{inner}</div>'
