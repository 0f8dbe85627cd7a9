"""Mistral's instruct formats, as mistral-common's ``encode_chat_completion`` makes them.

- **v1** (Mistral 7B v0.1, SentencePiece ``mistral-v1``): ``<s>`` then each user
  turn as the *text* ``"[INST] {content} [/INST]"`` (one SentencePiece call, so
  ``▁[INST]``), each assistant turn as its content + ``</s>``.  All system
  messages are joined with ``\\n\\n`` and put before the *first* user message.
  No tools.
- **v3** (``mistral-v3`` SentencePiece, and Tekken ``mistral-tekken``, which
  mistral-common 1.13.1 encodes with the same v3 instruct tokenizer):
  ``[INST]``/``[/INST]`` are control tokens; the system prompt goes before the
  *last* user message; an assistant turn is its content with trailing spaces
  removed, + ``</s>``; an assistant turn's tool calls are ``[TOOL_CALLS]`` +
  JSON ``[{"name", "arguments", "id"}, ...]`` + ``</s>`` (text beside calls is
  refused, as mistral-common refuses it); a tool result is ``[TOOL_RESULTS]`` +
  JSON ``{"content", "call_id"}`` + ``[/TOOL_RESULTS]`` (content that parses as
  JSON is embedded as JSON).  Tool definitions are ``[AVAILABLE_TOOLS]`` +
  ``json.dumps(tools)`` + ``[/AVAILABLE_TOOLS]`` just before the *last* user
  turn's ``[INST]``, each tool as mistral-common's ``Tool`` model dumps it:
  ``{"type": "function", "function": {"name", "description", "parameters"}}``
  with ``description`` ``""`` and ``parameters`` ``{}`` when left out.

Every piece is its own encode call, so SentencePiece puts ``▁`` before each.
The reply is not primed: the prompt ends at ``[/INST]`` (priming 0).  The
order rules are mistral-common's: after the system prompt a user message comes
first, turns alternate user → assistant, a tool result follows a tool call, and
the conversation ends with a user or tool message.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from ..errors import JsonLimitError
from ..formats.json_limits import load_json_bounded
from .base import TOOLS, Builder, ChatFormatError, ChatTokens, Message, a, ignored_names

# The name a refusal gives: the model's tokenizer, not the instruct version it shares (Tekken uses v3's rules).
NAMES = {"mistral-v1": "Mistral v1", "mistral-v3": "Mistral v3", "mistral-tekken": "Mistral Tekken"}


def _json_or_text(text: str, what: str) -> Any:
    try:
        return load_json_bounded(text, name=what)
    except JsonLimitError as error:  # json.loads would end in a RecursionError
        raise ChatFormatError(str(error)) from None
    except ValueError:  # not JSON: the text itself
        return text


def check_order(fmt: str, messages: Sequence[Message]) -> list[Message]:
    """The non-system messages, after checking mistral-common's order rules."""
    turns = [m for m in messages if m.role != "system"]
    if not turns:
        raise ChatFormatError(f"{fmt} needs at least one user message: add one")
    prev = "system"
    for i, m in enumerate(turns):
        ok = {
            "user": prev in ("system", "assistant", "tool"),
            "assistant": prev in ("user", "tool"),
            "tool": prev in ("assistant", "tool") and (prev == "tool" or bool(turns[i - 1].calls)),
        }[m.role]
        if not ok:
            fix = {"user": "put an assistant message between two user messages (or merge them)",
                   "assistant": "put a user message before it (or merge the assistant messages)",
                   "tool": "put an assistant message that calls the tool ('call') before the tool result"}[m.role]
            raise ChatFormatError(f"{fmt} cannot have {a(m.role)} message after {a(prev)} message: {fix}")
        if m.role == "assistant" and not m.calls and not m.content:
            raise ChatFormatError(f"{fmt} refuses an empty assistant message: write some content or remove it")
        if m.role == "assistant" and m.tool_calls and m.content:
            raise ChatFormatError(f"{fmt} cannot have text beside tool calls in one assistant message (mistral-common "
                                  "refuses it): put the text in an assistant message of its own, or remove it")
        if m.role == "assistant" and any(c.arguments and not c.arguments.strip() for c in m.calls):
            raise ChatFormatError(f"{fmt}: give the tool call's arguments as JSON, e.g. {{}}")
        prev = m.role
    if prev == "assistant":
        raise ChatFormatError(f"{fmt} prompts end with a user or tool message: add a user message at the end")
    return turns


def render(enc: object, messages: Sequence[Message], version: str, tools: Sequence[dict] = ()) -> ChatTokens:
    fmt = NAMES.get(enc.name, f"Mistral {version}")
    turns = check_order(fmt, messages)
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    users = [i for i, m in enumerate(turns) if m.role == "user"]
    target = users[0] if version == "v1" else users[-1]
    index = {id(m): i for i, m in enumerate(messages)}
    if tools and version == "v1":
        raise ChatFormatError(f"{fmt} has no tools: use mistral-v3 or mistral-tekken, or remove the tools")
    b = Builder(enc)
    b.special("<s>")
    for t, m in enumerate(turns):
        b.message = index[id(m)]
        content = f"{system}\n\n{m.content}" if (t == target and system) else m.content
        if m.role == "user":
            if version == "v1":
                _v1_user(b, enc, content)
            else:
                if t == target and tools:
                    b.message = TOOLS
                    b.special("[AVAILABLE_TOOLS]")
                    b.content(json.dumps([_tool(x) for x in tools], ensure_ascii=False))
                    b.special("[/AVAILABLE_TOOLS]")
                    b.message = index[id(m)]
                b.special("[INST]")
                b.content(content)
                b.special("[/INST]")
        elif m.role == "assistant":
            if m.calls:
                if version == "v1":
                    raise ChatFormatError(f"{fmt} has no tool calls: use mistral-v3 or mistral-tekken, or clear 'call'")
                calls = []
                for c in m.calls:
                    call = {"name": c.name, "arguments": _json_or_text(c.arguments, "the tool call's arguments")}
                    if c.id and c.id != "null":
                        call["id"] = c.id
                    calls.append(call)
                b.special("[TOOL_CALLS]")
                b.content(json.dumps(calls, ensure_ascii=False))
            else:
                b.content(m.content if version == "v1" else m.content.rstrip(" "))
            b.special("</s>")
        else:  # tool
            if version == "v1":
                raise ChatFormatError(f"{fmt} has no tool messages: use mistral-v3 or mistral-tekken, or remove them")
            if not m.tool_call_id:
                raise ChatFormatError(f"{fmt} needs the tool call id on a tool message: fill in tool_call_id")
            b.special("[TOOL_RESULTS]")
            b.content(json.dumps({"content": _json_or_text(m.content, "the tool result"), "call_id": m.tool_call_id}, ensure_ascii=False))
            b.special("[/TOOL_RESULTS]")
    notes = [ignored_names(fmt, [m for m in messages if m.role != "tool"])]
    if system:  # the breakdown files these tokens under that user message: say why, where the count is shown
        where = "first" if version == "v1" else "last"
        notes.append(f"{fmt} has no system turn: mistral-common writes the system prompt at the start of the {where} "
                     f"user message, so its tokens count under message {index[id(turns[target])] + 1}.")
    return ChatTokens(f"mistral-{version}", enc.name, tuple(b.segments), priming=0,
                      note=" ".join(n for n in notes if n))


def _tool(tool: dict) -> dict:
    """A checked tool as mistral-common's ``Tool`` model dumps it (fields in the model's order, defaults filled)."""
    f = tool["function"]
    return {"type": "function", "function": {"name": f["name"], "description": f.get("description", ""),
                                             "parameters": f.get("parameters", {})}}


def _v1_user(b: Builder, enc: object, content: str) -> None:
    """v1 encodes ``"[INST] {content} [/INST]"`` in one call; split its ids back into template and content."""
    ids = enc.encode_ordinary(f"[INST] {content} [/INST]")
    head = enc.encode_ordinary("[INST]")  # ▁[INST] -- the same ids at the start of the whole call
    tail_n = len(enc.encode_ordinary("[INST] x [/INST]")) - len(enc.encode_ordinary("[INST] x"))
    n_head = len(head) if ids[:len(head)] == head else 0
    tail = ids[len(ids) - tail_n:] if tail_n and len(ids) - tail_n >= n_head else []
    middle = ids[n_head:len(ids) - len(tail)]
    b._add("template", "[INST] ", ids[:n_head])
    b._add("content", content, middle)
    b._add("template", " [/INST]", tail)
