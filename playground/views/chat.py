"""Chat formats: what a conversation costs each model, template tokens and all.

The user builds a conversation (system / user / assistant / tool messages; add,
remove, reorder; a name, a tool-call id, a tool call) and picks models; each
model's chat format (engine.chat) turns it into the exact token sequence the
model reads.  A table gives the counts -- the reply priming included -- and a
drawing per model shows template tokens (grey, dashed) apart from content
tokens (coloured by id); hover shows the id.

The conversation lives in session state of its own (`K_MESSAGES`), so it
survives other pages.  The conversation and the chosen models, packed
(compact JSON, deflated, base64), are the *share code* (`K_CONV`): a field at
the foot of the page, set just before it is drawn, that a user can also paste
into.  The share link carries that code when it fits `state.url_limit(K_CONV)` (4,000
characters); longer conversations travel as the code or as exported JSON.

A whole conversation holds at most `state.MAX_TEXT_CHARS` characters -- the text
box's limit, one number for both (a 30,000-character agent prompt is normal).
The message boxes have no browser-side `max_chars`: the browser silently ignores
a paste past it, so the server cuts instead and says so in a warning.  Imports
read OpenAI's ``tool_calls`` JSON as well as this page's export
(engine.chat.messages_from_json).  The counts table comes first, so a phone
shows a count on its first screen; each message shows its role and text, the
rest (name, tool call, reasoning_content, move, remove) is in a popover.  An
assistant message calls one tool in short (the popover's "calls tool": its
text is then the arguments) or any number of tools ("+ tool call", up to
`state.CHAT_MAX_CALLS`): each call is a row under the text -- tool, id, remove,
JSON arguments -- and the text goes beside the calls.  Calls and reasoning
travel in the share code (a row's optional tail) and the JSON files.

Tools: a JSON box for OpenAI's ``tools`` list (presets: a weather tool, an
MCP-style file tool, a search tool), checked by engine.chat.check_tools -- a
bad list is named by tool and field and left out of every count.  Each picked
format with a thinking switch (Qwen3, DeepSeek V4, GLM-5.2, MiniMax-M3's modes,
Harmony's reasoning effort) gets one, its default marked.  The models offered are
those with a chat format that this machine has (`chat_models`: Gemma 3 and 4 once installed).  Under the table, a stacked bar per model shows
where the tokens go (tools, system, user, assistant, tool results, frame,
priming), and a table gives every message.  OpenAI's counts with tools or calls
are the published estimate and say "estimate".  The tools text and the thinking
settings (`K_TOOLS`, `K_THINKING`) live in session state of their own and travel
in the share code and the JSON export.

A reload starts a new session, and a conversation too long for the link came back as the example, its
tools gone.  So this browser keeps a copy (`_keep`: the share code, in its localStorage through
playground/components/browser_store.py, at most `MAX_KEPT_CHARS` characters, written as the conversation
changes; "Keep in this browser" off clears it and keeps nothing).  A page that starts with no conversation of
its own -- the example, or a link too short to carry one -- takes the copy back once (`_from_browser`), checked
as a pasted code is.  A link's own conversation wins, and is not written over the copy until it is changed.
Another browser has no copy: there, and wherever the copy is missing, a link that could not carry its
conversation says so to its author (`CUT_NOTE`).
"""
from __future__ import annotations

import base64
import json
import zlib
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

import engine
from engine.errors import JsonLimitError
from engine.formats.json_limits import scan_json
from engine.chat import (FIELDS, FORMATS, ROLES, ChatFormatError, Message, check_tools,
                         messages_from_json)
from engine.chat import FORMAT_OF_ROW, ROW_ENCODING
from engine.chat.tools import MAX_TOOLS, MAX_TOOLS_CHARS
from engine.text import repair_surrogates_in
from playground import state
from playground.cache import encodings
from playground.components import browser_store
from playground.render import html
from playground.render.chat import chat_legend, chat_tokens
from playground.render.markdown import md
from playground.widgets import charts, claude_counts, gemini_request, media_parts, prices
from playground.widgets.charts import wrapping_legend
from playground.widgets.page import draw, header, styles
from playground.widgets.text_fields import text_field

# [{"uid": int, "role", "content", "name", "tool_call_id", "call",
#   "tool_calls": [{"uid": int, "name", "id", "arguments"}], "reasoning_content": str | None}]
K_MESSAGES = state.CHAT_MESSAGES
K_NEXT = state.CHAT_NEXT_UID
K_PICK = state.CHAT_MODELS  # the models multiselect
K_CONV = state.CHAT_CONV  # the share code: conversation + models, packed (a widget; in the share link)
K_CODE_ERROR = state.CHAT_CODE_ERROR
K_IMPORT = state.CHAT_IMPORT
K_IMPORTED = state.CHAT_IMPORTED_FILE
K_CUT = state.CHAT_CUT  # the warning for a message box whose text was cut to the limit
K_TOOLS = state.CHAT_TOOLS  # the tool definitions as the user's JSON text (state of its own; in the share code)
K_TOOLS_BOX = state.CHAT_TOOLS_BOX  # the tools text area
K_THINKING = state.CHAT_THINKING  # {format name: thinking setting} (state of its own; in the share code)
K_THINK_BOX = state.CHAT_THINK_BOX  # a format's thinking switch
K_TOOLS_NOTE = state.CHAT_TOOLS_NOTE  # why a preset was not added

MAX_MESSAGES = 40
MAX_FIELD_CHARS = 64  # a message's name, tool name and tool call id
MAX_MODELS = 6
DRAWN_PER_MESSAGE = 400  # content tokens drawn per message; the rest is one "… more" chip (counts stay whole)
K_KEEP = state.CHAT_KEEP
BROWSER_ITEM = "chat"  # browser_store's item: this browser's copy of the conversation
MAX_KEPT_CHARS = 1_000_000  # share-code characters this browser keeps (localStorage holds about 5 million a site)
KEEP_OFF = json.dumps({"keep": False})  # what the browser holds while "Keep in this browser" is off
KEPT_NOTE = ("This browser keeps a copy of this conversation, its models, tools and thinking settings, so a reload "
             "of this page brings them back: the share code in this browser's storage (localStorage, on this "
             f"device only, at most {MAX_KEPT_CHARS:,} characters). Turn it off to clear the copy.")
CUT_NOTE = ("**Your conversation did not come back.** It was too long for this page's link (at most {limit:,} "
            "characters of share code), and this browser holds no copy of it, so the example is shown, without your "
            "tools. To take a long conversation to another browser, export the JSON or copy the share code; if "
            "someone sent you this link, ask them for either.")


def max_conversation_chars() -> int:
    """Characters a whole conversation may hold: the text box's limit, so the two never disagree and
    counting a conversation for six models costs what the text box's text does."""
    return state.MAX_TEXT_CHARS


def max_json_bytes() -> int:
    """Bytes an imported file or an inflated share code may hold: the character limit at 4 UTF-8 bytes
    each, plus room for the JSON around it (so whatever the editor holds can be exported and read back)."""
    return 4 * max_conversation_chars() + 1_000_000


def max_json_chars() -> int:
    """Characters an imported file or an inflated share code may hold: twice the conversation's (every
    character of the text escaped, as a quote or a newline is) and a million for the tools and the fields
    around the text.  json.loads builds a str of the whole file, then one of each string in it, at up to 4
    bytes a character: this bounds them (a 9 MB file of 9 million characters took +369 MB to be cut to 2
    million; it is refused before parsing now)."""
    return 2 * max_conversation_chars() + 1_000_000


# Values (JSON's commas, colons and containers) a conversation file may hold, counted before json.loads turns
# each into a Python object (1.75 million took +122 MB).  Its tools hold at most MAX_TOOLS_CHARS characters and a
# value takes at least two with its comma; 40 messages of 16 calls each hold about 5,000 more.
MAX_JSON_VALUES = MAX_TOOLS_CHARS // 2 + 10_000
_MOST_VALUES = (f"A conversation holds far fewer: {MAX_MESSAGES} messages with {MAX_TOOLS} tools of "
                f"{MAX_TOOLS_CHARS:,} characters hold about {MAX_JSON_VALUES:,} at most; this file is no "
                "conversation export, or was built to exhaust the server.")
_NOT_CONTINUATION = bytes(b for b in range(256) if not 0x80 <= b < 0xC0)
_CHUNK = 1 << 20

MODEL_LABELS = {
    "cl100k_base": "GPT-3.5 / GPT-4 (cl100k_base)",
    "o200k_base": "GPT-4o / 4.1 / o3 (o200k_base)",
    "o200k_harmony": "gpt-oss, Harmony (o200k_harmony)",
    "llama3": "Llama 3.x (llama3)",
    "llama4": "Llama 4 (llama4)",
    "qwen2.5": "Qwen 2.5 / 3 (qwen2.5)",
    "qwen3.6": "Qwen 3.5 / 3.6 (qwen3.6)",
    "mistral-v1": "Mistral 7B v0.1 (mistral-v1)",
    "mistral-v3": "Mistral v0.3 (mistral-v3)",
    "mistral-tekken": "Mistral NeMo and later (mistral-tekken)",
    "deepseek-v4": "DeepSeek V4 (deepseek-v4)",
    "glm5": "GLM-5.2 (glm5)",
    "minimax-m3": "MiniMax-M3 (minimax-m3)",
    "deepseek-v3": "DeepSeek V3 (deepseek-v3)",
    "gemma3": "Gemma 3 (gemma3)",
    "gemma4": "Gemma 4 (gemma4)",
    **gemini_request.MODEL_LABELS,
}
DEFAULT_MODELS = ["o200k_base", "llama3", "qwen2.5"]


def chat_models() -> list[str]:
    """The encodings with a chat format that are available here (Gemma 3 only once installed)."""
    available = set(engine.list_tokenizer_names())  # SentencePiece and installed names included
    return [n for n in FORMAT_OF_ROW if ROW_ENCODING.get(n, n) in available]
DEFAULT_CONVERSATION = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": "Paris."},
    {"role": "user", "content": "And of Japan? 日本"},
]


PRESETS = {
    "weather": {"type": "function", "function": {
        "name": "get_weather", "description": "Current weather in a city.",
        "parameters": {"type": "object", "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}},
    "MCP file": {"type": "function", "function": {
        "name": "read_file", "description": "Read a text file from the workspace (MCP filesystem server).",
        "parameters": {"type": "object", "properties": {
            "path": {"type": "string", "description": "Path relative to the workspace root"},
            "head": {"type": "integer", "description": "Only the first N lines"}}, "required": ["path"]}}},
    "search": {"type": "function", "function": {
        "name": "search_docs", "description": "Full-text search over the documentation; returns titles and snippets.",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 50}},
            "required": ["query"]}}},
}
# A thinking switch's choices per format: (label, value); the format's default is marked in the label.
THINKING_LABELS = {True: "on", False: "off", None: "unset", "low": "low", "medium": "medium", "high": "high",
                   "max": "on, maximum effort", "adaptive": "adaptive (the model decides)"}
THINKING_TITLES = {"harmony": "gpt-oss reasoning effort", "qwen3": "Qwen3 thinking", "qwen3.5": "Qwen 3.5/3.6 thinking", "deepseek": "DeepSeek V3.1 thinking",
                   "deepseek-v4": "DeepSeek V4 thinking", "glm": "GLM thinking",
                   "glm-5.1": "GLM-5.1 thinking", "glm-5.2": "GLM-5.2 thinking (effort Max when on)",
                   "minimax-m3": "MiniMax-M3 thinking mode", "gemma4": "Gemma 4 thinking"}
# A selectbox whose value is None shows "Choose an option": the switch holds words, mapped to the values here.
UNSET = "unset"


# ------------------------------------------------------------------ tools and thinking
def parse_tools(text: str) -> list[dict]:
    """The tool definitions from the tools box: a JSON list in OpenAI's ``tools`` form (or one tool
    object), checked by engine.chat.check_tools; ChatFormatError names the tool and the field."""
    if not text.strip():
        return []
    if len(text) > MAX_TOOLS_CHARS:
        raise ChatFormatError(f"the tools text has {len(text):,} characters; the limit is {MAX_TOOLS_CHARS:,}: "
                              "shorten the definitions or pass fewer tools")
    doc = _json(text.encode("utf-8", "surrogatepass"), "the tools are not JSON",
                'write a list like [{"type": "function", "function": {"name": "get_weather", "parameters": {...}}}]',
                source="the tools text")
    if isinstance(doc, dict):
        doc = [doc]
    if not isinstance(doc, list):
        raise ChatFormatError(f"the tools must be a JSON list of tool objects, not {type(doc).__name__}")
    return list(check_tools(doc))


def thinking_choices(fmt_name: str) -> list:
    """The thinking values a format offers, its default first."""
    fmt = FORMATS[fmt_name]
    return [fmt.thinking_default] + [v for v in fmt.thinking_values if v != fmt.thinking_default]


def thinking_label(fmt_name: str, value: Any) -> str:
    default = " (default)" if value == FORMATS[fmt_name].thinking_default else ""
    return THINKING_LABELS.get(value, str(value)) + default


def _word(value: Any) -> Any:
    return UNSET if value is None else value


def _value(word: Any) -> Any:
    return None if word == UNSET else word


def checked_thinking(raw: Any) -> dict[str, Any]:
    """A thinking mapping from a link or a file, keeping only known formats and their allowed values."""
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if k in FORMATS and v in FORMATS[k].thinking_values}


# ------------------------------------------------------------------ conversation <-> text
def to_json(messages: list[dict], tools: list[dict] | None = None, thinking: dict | None = None) -> str:
    """The export file: {"messages": [...], "models": [...], "tools": [...], "thinking": {...}}."""
    plain = [_normalised(_plain(m)) for m in messages]
    doc: dict[str, Any] = {"messages": plain, "models": _picked()}
    if tools:
        doc["tools"] = tools
    if thinking:
        doc["thinking"] = thinking
    return json.dumps(doc, ensure_ascii=False, indent=1)


def read_file(data: bytes, notes: list[str] | None = None) -> Any:
    """A conversation file's JSON, parsed once (`conversation_of` and `settings_of` read its parts), within the
    limits on bytes, characters and values checked before json.loads builds anything."""
    limit = max_json_bytes()
    if len(data) > limit:
        raise ChatFormatError(f"the file has {len(data):,} bytes; the limit is {limit:,}: import a shorter conversation")
    return _json(data, "not a JSON file", "export one from this page to see the shape", source="the file",
                 notes=notes, where="The imported file")


def parse_json(data: bytes) -> tuple[list[dict], list[str], list[str]]:
    """Messages, models and notes of a conversation file (`conversation_of`)."""
    repaired: list[str] = []
    messages, models, notes = conversation_of(read_file(data, repaired))
    return messages, models, repaired + notes


def conversation_of(doc: Any) -> tuple[list[dict], list[str], list[str]]:
    """Messages, models and notes (ignored empty fields; what was cut to the limit) from a conversation
    file that `read_file` parsed -- this page's export or OpenAI's ``messages`` with ``tool_calls``;
    ChatFormatError says what is wrong."""
    if isinstance(doc, list):
        doc = {"messages": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        raise ChatFormatError('expected {"messages": [{"role": ..., "content": ...}, ...]} (or just the list)')
    models = doc.get("models") if isinstance(doc.get("models"), list) else []
    messages, notes = _checked(doc["messages"])
    return messages, [m for m in models if m in chat_models()][:MAX_MODELS], notes


def settings_of(doc: Any) -> tuple[str, dict[str, Any]]:
    """The tools (as the box's JSON text, checked) and thinking settings of a file that `read_file` parsed."""
    if not isinstance(doc, dict) or doc.get("tools") in (None, []):
        return "", checked_thinking(doc.get("thinking") if isinstance(doc, dict) else None)
    tools = doc["tools"]
    if not isinstance(tools, list):
        raise ChatFormatError(f"the file's tools must be a list, not {type(tools).__name__}")
    check_tools(tools)
    return json.dumps(tools, ensure_ascii=False, indent=1), checked_thinking(doc.get("thinking"))


def _utf8_chars(data: bytes) -> int:
    """Characters of UTF-8 `data`, counted on its bytes a megabyte at a time (every byte but a continuation
    byte starts one): at least as many as json.loads can make of it, since an escape is several for one."""
    continuation = sum(len(data[i : i + _CHUNK].translate(None, _NOT_CONTINUATION))
                       for i in range(0, len(data), _CHUNK))
    return len(data) - continuation


def _json(data: bytes, what: str, fix: str, *, source: str, notes: list[str] | None = None,
          where: str = "The file") -> Any:
    """json.loads, once, after the characters and values of `data` are counted on its bytes (`source` names it
    in the refusal); every failure a ChatFormatError (nesting past Python's recursion limit included: a crafted
    file must get a message, not a traceback).  Lone surrogates are replaced with U+FFFD: JSON's ``"\\ud800"``
    reads as one, and kept it reached the export button, which cannot encode it, so the page failed on every
    visit.  Saying so (naming `where`) is appended to `notes`."""
    chars, limit = _utf8_chars(data), max_json_chars()
    size = f"{len(data) / 1e6:.1f} MB" if len(data) >= 100_000 else f"{len(data):,} bytes"
    if chars > limit:
        raise ChatFormatError(f"{source} holds {chars:,} characters ({size}); the limit is "
                              f"{limit:,} characters (twice the {max_conversation_chars():,} a conversation holds, "
                              "and room for its tools): import a shorter conversation")
    try:
        # depth and values counted on the bytes, before json.loads recurses and builds an object per value
        scan_json(data, source=f"{source} ({size})", max_containers=MAX_JSON_VALUES,
                  max_values=MAX_JSON_VALUES, most=_MOST_VALUES)
        doc, replaced = repair_surrogates_in(json.loads(data.decode("utf-8")))
        if replaced and notes is not None:
            notes.append(state.surrogate_notice(where, replaced))
        return doc
    except JsonLimitError as error:  # it names the file, its size and the limit
        raise ChatFormatError(str(error)) from None
    except RecursionError:
        raise ChatFormatError(f"{what}: its JSON is nested too deeply to read (a conversation is a list of flat "
                              "messages, two or three levels deep)") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise ChatFormatError(f"{what} ({str(error)[:200]}): {fix}") from None


def _checked(raw: list[Any]) -> tuple[list[dict], list[str]]:
    if len(raw) > MAX_MESSAGES:
        raise ChatFormatError(f"{len(raw)} messages; the limit is {MAX_MESSAGES}: remove some")
    messages, notes = messages_from_json(raw)
    for i, m in enumerate(messages):
        if len(m.tool_calls) > state.CHAT_MAX_CALLS:
            raise ChatFormatError(f"message {i + 1} makes {len(m.tool_calls)} tool calls at once; this page edits at "
                                  f"most {state.CHAT_MAX_CALLS} per message: split them")
    fitted, cut = fit([m.to_dict() for m in messages])
    return fitted, notes + ([cut] if cut else [])


def fit(messages: list[dict]) -> tuple[list[dict], str]:
    """The messages cut to `max_conversation_chars` in all, earlier messages kept whole first (later ones
    are cut, then emptied, never dropped: the turns stay as they were); and the sentence saying what was
    cut ("" when nothing was)."""
    limit = max_conversation_chars()
    total = sum(len(m.get("content") or "") for m in messages)
    if total <= limit:
        return messages, ""
    out, room, cut = [], limit, []
    for i, m in enumerate(messages):
        content = m.get("content") or ""
        if len(content) > room:
            m = {**m, "content": content[:room]}
            cut.append(str(i + 1))
        room -= len(m.get("content") or "")
        out.append(m)
    which = f"message {cut[0]} was" if len(cut) == 1 else f"messages {', '.join(cut)} were"
    return out, (f"The conversation had {total:,} characters; the limit is {limit:,} (the same as the text box's), "
                 f"so {which} cut to fit.")


def pack(messages: list[dict], models: list[str], tools: str = "", thinking: dict | None = None) -> str:
    """The share code: ``[models, rows]`` -- plus the tools text and the thinking settings when there
    are any -- as compact JSON, deflated, URL-safe base64."""
    rows = [[m.get(k) or "" for k in FIELDS] + _packed_extras(m) for m in messages]
    doc: list = [",".join(models), rows]
    if tools or thinking:
        doc += [tools, thinking or {}]
    raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def unpack(text: str) -> tuple[list[dict], list[str]]:
    """`pack` undone: the messages and models (see `unpack_all` for the tools and thinking too)."""
    return unpack_all(text)[:2]


def unpack_all(text: str, notes: list[str] | None = None) -> tuple[list[dict], list[str], str, dict[str, Any]]:
    """`pack` undone, every value checked (a link or a pasted code may hold anything); what was repaired
    (lone surrogates) is said in `notes`."""
    try:
        data = base64.urlsafe_b64decode(text.strip() + "=" * (-len(text.strip()) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(data, max_json_bytes())
        too_large = bool(inflater.unconsumed_tail)
    except (ValueError, zlib.error):
        raise ChatFormatError("the share code is damaged: copy it again, whole") from None
    if too_large:
        raise ChatFormatError(f"the share code's conversation is too large (over {max_json_bytes():,} bytes)")
    doc = _json(raw, "the share code is damaged", "copy it again, whole", source="the share code's conversation",
                notes=notes, where="The share code")
    if not (isinstance(doc, list) and len(doc) in (2, 4) and isinstance(doc[0], str) and isinstance(doc[1], list)
            and all(isinstance(r, list) and len(r) in (len(FIELDS), len(FIELDS) + 2) for r in doc[1])
            and (len(doc) == 2 or isinstance(doc[2], str))):
        raise ChatFormatError("the share code is damaged: copy it again, whole")
    tools = doc[2] if len(doc) == 4 else ""
    thinking = checked_thinking(doc[3]) if len(doc) == 4 else {}
    parse_tools(tools)  # refused here, with its reason, rather than loaded and refused on every rerun
    models = [m for m in dict.fromkeys(doc[0].split(",")) if m in chat_models()][:MAX_MODELS]
    rows = [_unpacked_row(r) for r in doc[1]]
    total = sum(_chars(r) for r in rows)
    if total > max_conversation_chars():  # this page never makes such a code: refuse it rather than cut it
        raise ChatFormatError(f"the share code's conversation has {total:,} characters; the limit is "
                              f"{max_conversation_chars():,}")
    return _checked(rows)[0], models, tools, thinking


def _packed_extras(m: dict) -> list:
    """A row's tail in the share code: [[name, id, arguments] per call, reasoning_content] -- only for a
    message that has calls in OpenAI's form or reasoning, so codes without them are as they always were."""
    calls = m.get("tool_calls") or []
    if not calls and m.get("reasoning_content") is None:
        return []
    return [[[c["function"]["name"], c.get("id") or "", c["function"].get("arguments") or ""] for c in calls],
            m.get("reasoning_content")]


def _unpacked_row(r: list) -> dict:
    out = dict(zip(FIELDS, r[:len(FIELDS)]))
    if len(r) > len(FIELDS):
        calls, reasoning = r[len(FIELDS):]
        if not (isinstance(calls, list) and len(calls) <= state.CHAT_MAX_CALLS
                and all(isinstance(c, list) and len(c) == 3 and all(isinstance(x, str) for x in c) for c in calls)
                and (reasoning is None or isinstance(reasoning, str))):
            raise ChatFormatError("the share code is damaged: copy it again, whole")
        if calls:
            out["tool_calls"] = [{"id": i or None, "type": "function", "function": {"name": n, "arguments": a}}
                                 for n, i, a in calls]
        if reasoning is not None:
            out["reasoning_content"] = reasoning
    return out


def _chars(m: dict) -> int:
    """A message's characters against the conversation limit: text, reasoning and call arguments."""
    texts = [m.get("content"), m.get("reasoning_content")] + [
        (c.get("function") or {}).get("arguments") for c in m.get("tool_calls") or [] if isinstance(c, dict)]
    return sum(len(t) for t in texts if isinstance(t, str))


# ------------------------------------------------------------------ state
def _plain(m: dict) -> dict:
    """A row as engine.chat_tokens and the files read it: the FIELDS, plus an assistant's calls in
    OpenAI's form and its reasoning_content when it has them."""
    out: dict[str, Any] = {k: m.get(k) or ("" if k == "content" else None) for k in FIELDS}
    if out["role"] != "assistant":
        return out
    calls = m.get("tool_calls") or []
    if calls:
        out["tool_calls"] = [{"id": c.get("id") or None, "type": "function",
                              "function": {"name": c.get("name") or "", "arguments": c.get("arguments") or ""}}
                             for c in calls]
    if m.get("reasoning_content") is not None:
        out["reasoning_content"] = m["reasoning_content"]
    return out


def _normalised(plain: dict) -> dict:
    """The export's form of a message (empty fields left out); a message the engine refuses (a call
    without a name) is exported as it stands, so the file still holds what the page shows."""
    try:
        return engine.chat.as_messages([plain])[0].to_dict()
    except ChatFormatError:
        return {k: v for k, v in plain.items() if v not in (None, "") or k in ("role", "content")}


def _row(m: dict) -> dict:
    """A message dict (this page's shape or OpenAI's) as an editor row, each call with a uid of its own."""
    row = {k: m.get(k) or ("" if k == "content" else None) for k in FIELDS}
    row["tool_calls"] = [{"uid": _new_uid(), "name": c["function"]["name"], "id": c.get("id") or "",
                          "arguments": c["function"].get("arguments") or ""} for c in m.get("tool_calls") or []]
    row["reasoning_content"] = m.get("reasoning_content")
    row["uid"] = _new_uid()
    return row


def _widget_keys(m: dict) -> list[str]:
    """Every widget key of one message's editor (its fields, reasoning box and calls)."""
    uid = m["uid"]
    keys = [f"{state.CHAT_FIELD_PREFIX}{field}_{uid}" for field in FIELDS] + [f"{state.CHAT_REASONING_PREFIX}{uid}"]
    for c in m.get("tool_calls") or []:
        keys += [f"{prefix}{uid}_{c['uid']}" for prefix in (state.CHAT_CALL_NAME_PREFIX, state.CHAT_CALL_ID_PREFIX,
                                                            state.CHAT_CALL_ARGS_PREFIX)]
    return keys


def _new_uid() -> int:
    uid = st.session_state.get(K_NEXT, 0)
    st.session_state[K_NEXT] = uid + 1
    return uid


def _set_messages(messages: list[dict]) -> None:
    st.session_state[K_MESSAGES] = [_row(m) for m in messages]


def _init() -> None:
    """The session's first conversation: the link's, or the example (`state.CHAT_ORIGIN` says which, and
    "cut" when the link was too short to carry one); what needs saying is kept while it is unchanged."""
    if K_MESSAGES in st.session_state:
        return
    messages, models, tools, thinking = DEFAULT_CONVERSATION, DEFAULT_MODELS, "", {}
    origin = "cut" if "v." + K_CONV in state.link_cut() else "example"
    notes: list[str] = []
    code = st.session_state.get(K_CONV)
    if isinstance(code, str) and code:  # from the share link
        try:
            messages, models, tools, thinking = unpack_all(code, notes)
            origin = "link"
        except ChatFormatError as error:
            notes.append(f"The link's conversation was not loaded: {error}. Showing the example.")
    _set_messages(messages)
    st.session_state.setdefault(K_PICK, models)
    st.session_state.setdefault(K_TOOLS, tools)
    st.session_state.setdefault(K_THINKING, thinking)
    st.session_state[state.CHAT_ORIGIN] = origin
    st.session_state[state.CHAT_START_NOTES] = notes
    st.session_state[state.CHAT_BASE] = None  # the code as the editor first reads it: set at the end of this run


def _current_code() -> str:
    """The share code of the conversation as session state holds it (the editor's last reading)."""
    return pack([_plain(m) for m in st.session_state[K_MESSAGES]], _picked(), st.session_state.get(K_TOOLS) or "",
                st.session_state.get(K_THINKING) or {})


def read_kept(text: str | None) -> str | None:
    """This browser's copy as `_keep` wrote it: the share code, KEEP_OFF's "off", or None (nothing, or text
    that is neither: the page's storage holds anything a script of this site put there)."""
    try:
        doc = json.loads(text) if isinstance(text, str) and len(text) <= MAX_KEPT_CHARS + 100 else None
    except ValueError:
        return None
    if doc == {"keep": False}:
        return "off"
    code = doc.get("code") if isinstance(doc, dict) else None
    return code if isinstance(code, str) and code and len(code) <= MAX_KEPT_CHARS else None


def _from_browser() -> None:
    """This browser's copy, looked at once a session when the browser has said what it holds: "Keep" off
    stays off; the conversation comes back when the page started with none of its own (the example, or a link
    too short to carry one) and nothing has changed since.  The copy is checked as a pasted code is."""
    origin = st.session_state.get(state.CHAT_ORIGIN)
    browser_store.ask(BROWSER_ITEM, answer=origin == "cut")  # a link that lost it waits for the browser's word
    if (st.session_state.get(state.CHAT_BROWSER_READ) or not browser_store.answered(BROWSER_ITEM)
            or st.session_state.get(state.CHAT_BASE) is None):  # the base: set at the end of the first run
        return
    st.session_state[state.CHAT_BROWSER_READ] = True
    kept = read_kept(browser_store.stored(BROWSER_ITEM))
    if kept == "off":
        st.session_state[K_KEEP] = False
        return
    if kept is None or origin == "link" or _current_code() != st.session_state.get(state.CHAT_BASE):
        return  # nothing kept, a link's own conversation, or changed already: the page's conversation stays
    notes: list[str] = []
    try:
        messages, models, tools, thinking = unpack_all(kept, notes)
    except ChatFormatError as error:
        st.session_state[state.CHAT_START_NOTES].append(
            f"This browser's copy of your conversation could not be read ({error}), so it was cleared.")
        browser_store.keep(BROWSER_ITEM, None)
        return
    _clear_widgets()
    _set_messages(messages)
    st.session_state[K_PICK] = models
    _set_settings(tools, thinking)
    st.session_state[state.CHAT_RESTORED] = True  # its code as the editor reads it: set at the end of this run
    st.session_state[state.CHAT_START_NOTES] = notes


def _start_notes(code: str) -> None:
    """What the start of this session needs said, while the conversation is as it started: restored from this
    browser, not restored (a link too short for it), or what a link or the copy held that could not be used."""
    restored = st.session_state.get(state.CHAT_RESTORED)
    if restored is True:
        restored = st.session_state[state.CHAT_RESTORED] = code
    if restored is not None:
        if code == restored:
            st.success("**Restored from this browser:** your last conversation on this page, with its models, "
                       "tools and thinking settings (see *Keep in this browser* at the foot of the page).")
    elif code == st.session_state.get(state.CHAT_BASE):
        if st.session_state.get(state.CHAT_ORIGIN) == "cut" and browser_store.answered(BROWSER_ITEM):
            st.warning(CUT_NOTE.format(limit=state.url_limit(K_CONV)))
    else:
        return
    for note in st.session_state.get(state.CHAT_START_NOTES, []):
        st.warning(md(note, 600))


def _picked() -> list[str]:
    return [n for n in st.session_state.get(K_PICK) or [] if n in chat_models()][:MAX_MODELS]


def _clear_widgets() -> None:
    for m in st.session_state.get(K_MESSAGES, []):
        for key in _widget_keys(m):
            st.session_state.pop(key, None)


def _on_code() -> None:
    """A pasted share code replaces the conversation and the models (or says what is wrong)."""
    notes: list[str] = []
    try:
        messages, models, tools, thinking = unpack_all(st.session_state.get(K_CONV) or "", notes)
    except ChatFormatError as error:
        st.session_state[K_CODE_ERROR] = str(error)
        return
    for note in notes:  # a callback: this run shows the notices
        state.notify("warning", note)
    _clear_widgets()
    _set_messages(messages)
    st.session_state[K_PICK] = models
    _set_settings(tools, thinking)


def _set_settings(tools: str, thinking: dict[str, Any]) -> None:
    """Replace the tools text and thinking settings (from a code or a file); their widgets are redrawn."""
    st.session_state[K_TOOLS] = tools
    st.session_state.pop(K_TOOLS_BOX, None)
    st.session_state[K_THINKING] = dict(thinking)
    for name in FORMATS:
        st.session_state.pop(K_THINK_BOX.format(fmt=name), None)


def _add_preset(name: str) -> None:
    """Append a preset tool to the tools box's list (left as it is, with a message, when the box holds
    no valid list: the user's text is never thrown away)."""
    text = st.session_state.get(K_TOOLS_BOX, st.session_state.get(K_TOOLS, ""))
    try:
        tools = json.loads(text) if text.strip() else []
    except ValueError:
        tools = None
    if isinstance(tools, dict):
        tools = [tools]
    if not isinstance(tools, list):
        st.session_state[K_TOOLS_NOTE] = "The tools box does not hold a JSON list, so the preset was not added: fix it first."
        return
    name_taken = any(isinstance(t, dict) and t.get("function", {}).get("name") == PRESETS[name]["function"]["name"]
                     for t in tools)
    if not name_taken and len(tools) < MAX_TOOLS:
        tools.append(PRESETS[name])
    st.session_state[K_TOOLS_BOX] = json.dumps(tools, ensure_ascii=False, indent=1)
    st.session_state[K_TOOLS] = st.session_state[K_TOOLS_BOX]


def _clear_tools() -> None:
    st.session_state[K_TOOLS_BOX] = ""
    st.session_state[K_TOOLS] = ""


def _add(role: str) -> None:
    messages = list(st.session_state[K_MESSAGES])
    if len(messages) < MAX_MESSAGES:
        st.session_state[K_MESSAGES] = messages + [_row({"role": role})]


def _move(uid: int, step: int) -> None:
    messages = list(st.session_state[K_MESSAGES])
    i = next(k for k, m in enumerate(messages) if m["uid"] == uid)
    j = i + step
    if 0 <= j < len(messages):
        messages[i], messages[j] = messages[j], messages[i]
        st.session_state[K_MESSAGES] = messages


def _remove(uid: int) -> None:
    for m in st.session_state[K_MESSAGES]:
        if m["uid"] == uid:
            for key in _widget_keys(m):
                st.session_state.pop(key, None)
    st.session_state[K_MESSAGES] = [m for m in st.session_state[K_MESSAGES] if m["uid"] != uid]


def _first_tool_name() -> str:
    """A new call's name: the first defined tool's, so the call counts at once (any name can be typed)."""
    try:
        tools = parse_tools(st.session_state.get(K_TOOLS) or "")
    except ChatFormatError:
        tools = []
    return tools[0]["function"]["name"] if tools else "get_weather"


def _add_call(uid: int) -> None:
    """Give an assistant message one more tool call; a one-call message (its content the arguments)
    first becomes the list's first call, its content box emptied for text beside the calls."""
    messages = [dict(m) for m in st.session_state[K_MESSAGES]]
    m = next(m for m in messages if m["uid"] == uid)
    calls = list(m.get("tool_calls") or [])
    field = lambda name: f"{state.CHAT_FIELD_PREFIX}{name}_{uid}"  # noqa: E731
    call = st.session_state.get(field("call"), m.get("call"))
    if call:
        calls.append({"uid": _new_uid(), "name": call, "id": st.session_state.get(field("tool_call_id"), m.get("tool_call_id")) or "",
                      "arguments": st.session_state.get(field("content"), m.get("content")) or ""})
        m.update(call=None, content="", tool_call_id=None)
        for name in ("call", "content", "tool_call_id"):
            st.session_state.pop(field(name), None)
    if len(calls) < state.CHAT_MAX_CALLS:
        calls.append({"uid": _new_uid(), "name": _first_tool_name(), "id": "", "arguments": "{}"})
    m["tool_calls"] = calls
    st.session_state[K_MESSAGES] = messages


def _remove_call(uid: int, call_uid: int) -> None:
    messages = [dict(m) for m in st.session_state[K_MESSAGES]]
    m = next(m for m in messages if m["uid"] == uid)
    m["tool_calls"] = [c for c in m.get("tool_calls") or [] if c["uid"] != call_uid]
    for prefix in (state.CHAT_CALL_NAME_PREFIX, state.CHAT_CALL_ID_PREFIX, state.CHAT_CALL_ARGS_PREFIX):
        st.session_state.pop(f"{prefix}{uid}_{call_uid}", None)
    st.session_state[K_MESSAGES] = messages


def _on_content(uid: int, number: int) -> None:
    """A message box changed: cut its text to what the conversation limit leaves (before the box is drawn
    again, so the box shows the cut text) and keep the warning for the box to show."""
    key = f"chat_content_{uid}"
    text = st.session_state.get(key) or ""
    others = sum(len(m.get("content") or "") for m in st.session_state.get(K_MESSAGES, []) if m["uid"] != uid)
    limit = max_conversation_chars()
    room = max(0, limit - others)
    if len(text) > room:
        st.session_state[key] = text[:room]
        st.session_state[K_CUT.format(uid=uid)] = (
            f"Message {number} was cut to {room:,} characters: the text had {len(text):,}, and a conversation "
            f"holds at most {limit:,} characters in all (the same limit as the text box's).")


# ------------------------------------------------------------------ drawing
def token_chips(result: engine.chat.ChatTokens, enc: Any) -> list[tuple[str, str, int | None, bool, int]]:
    """(kind, text, id, special, message) per token, for chat_tokens; past `DRAWN_PER_MESSAGE` content
    tokens of a message, one ("elided", "… n more tokens", None, False, message) chip stands for the rest
    (a 30,000-character prompt is 7,000 chips per model; the counts always cover everything)."""
    out: list[tuple[str, str, int | None, bool, int]] = []
    drawn: dict[int, int] = {}
    for seg in result.segments:
        ids = seg.ids
        skipped = 0
        if seg.kind == "content":
            room = max(0, DRAWN_PER_MESSAGE - drawn.get(seg.message, 0))
            ids, skipped = seg.ids[:room], max(0, len(seg.ids) - room)
            drawn[seg.message] = drawn.get(seg.message, 0) + len(ids)
        for token_id in ids:
            if token_id is None:
                out.append((seg.kind, seg.text, None, False, seg.message))
                continue
            data = enc.decode_single_token_bytes(token_id)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = f"‹{html.hex_bytes(data)}›"
            out.append((seg.kind, text, token_id, enc.is_special_token(token_id), seg.message))
        if skipped:
            out.append(("elided", f"… {html.plural(skipped, 'more token')} …", None, False, seg.message))
    return out


# ------------------------------------------------------------------ the page
def render() -> None:
    header("Chat formats", "what a conversation costs each model: template tokens, content tokens, reply priming.")
    styles("chat")
    _init()
    _from_browser()
    notes = st.container()  # filled once the editor has been read: they hold while the conversation is unchanged
    counts = st.container()  # the table is drawn here once the editor has been read: first on the page
    _import_export()
    _editor()
    tools = _tools_editor()
    messages = [_plain(m) for m in st.session_state[K_MESSAGES]]
    with counts:
        results = _table(messages, tools)
        _breakdown(results)
        media = media_parts.counts(results, [m["uid"] for m in st.session_state[K_MESSAGES]], MODEL_LABELS)
        gemini_request.render(results, messages, tools)
        prices.chat_window(results, messages, tools, media)
    _drawings(results)
    claude_counts.render(messages, tools)
    code = _share(messages)
    _keep(code)
    with notes:
        _start_notes(code)


def _keep(code: str) -> None:
    """"Keep in this browser" and this browser's copy (`browser_store`'s chat item, localStorage): written as
    the conversation changes; a link's own conversation, unchanged, never writes over it; off clears it."""
    if st.session_state.get(state.CHAT_BASE) is None:
        st.session_state[state.CHAT_BASE] = code  # the session's first conversation, as the editor read it
    st.session_state.setdefault(K_KEEP, True)
    on = st.toggle("Keep in this browser", key=K_KEEP, persist_state="session",
                   help="A copy in this browser's storage brings the conversation back after a reload. Off: the "
                        "copy is cleared and nothing is kept.")
    if not on:
        browser_store.keep(BROWSER_ITEM, KEEP_OFF)
        st.caption("Not kept in this browser: a reload shows the example conversation. Export the JSON or copy the "
                   "share code to keep it.")
        return
    if len(code) > MAX_KEPT_CHARS:
        browser_store.keep(BROWSER_ITEM, None)  # an older, shorter version must not come back instead
        st.caption(f"This conversation is too large for this browser's copy ({len(code):,} characters packed; at "
                   f"most {MAX_KEPT_CHARS:,}): a reload loses it. Export the JSON to keep it.")
        return
    if code != st.session_state.get(state.CHAT_BASE):
        browser_store.keep(BROWSER_ITEM, json.dumps({"code": code}))
    elif browser_store.holds(BROWSER_ITEM) == KEEP_OFF:  # turned on again with nothing changed: nothing is off
        browser_store.keep(BROWSER_ITEM, None)
    why = browser_store.refused(BROWSER_ITEM)
    if why:
        st.warning(f"This browser refused to keep a copy ({md(why)}): a reload loses this conversation. Export the "
                   "JSON to keep it.")
    else:
        st.caption(KEPT_NOTE)


def _share(messages: list[dict]) -> str:
    """The share code, set just before its field is drawn (so it always matches the page); returned."""
    code = pack(messages, _picked(), st.session_state.get(K_TOOLS) or "", st.session_state.get(K_THINKING) or {})
    st.session_state[K_CONV] = code
    error = st.session_state.pop(K_CODE_ERROR, None)
    if error:
        st.error(f"**That share code was not used:** {md(error, 600)}")
    st.text_input("Share code (paste one here to load its conversation)", key=K_CONV, persist_state="session",
                  on_change=_on_code, help="The conversation and models, packed. The page's link carries it "
                  f"when it is at most {state.url_limit(K_CONV)} characters.")
    if len(code) > state.url_limit(K_CONV):
        st.caption(f"This conversation is too long for the share link ({len(code):,} characters packed, "
                   f"{state.url_limit(K_CONV)} fit): pass on the share code or the exported JSON.")
    return code


def _import_export() -> None:
    with st.expander("Import / export JSON"):
        limit_mb = -(-max_json_bytes() // 2**20)
        upload = st.file_uploader(f"Import a conversation: this page's export, or OpenAI's `messages` JSON with "
                                  f"`tool_calls` (up to {limit_mb} MB, {max_conversation_chars():,} characters)",
                                  type=["json"], key=K_IMPORT, max_upload_size=limit_mb)
        if upload is not None and st.session_state.get(K_IMPORTED) != upload.file_id:
            st.session_state[K_IMPORTED] = upload.file_id
            try:
                repaired: list[str] = []
                doc = read_file(upload.getvalue(), repaired)  # parsed once, within limits; its two parts read from it
                messages, models, notes = conversation_of(doc)
                notes = repaired + notes
                tools, thinking = settings_of(doc)
            except ChatFormatError as error:
                st.error(f"**Not imported:** {md(error, 600)}")
            else:
                _clear_widgets()
                _set_messages(messages)
                _set_settings(tools, thinking)
                if models:
                    st.session_state[K_PICK] = models
                st.success(f"Imported {html.plural(len(messages), 'message')}.")
                for note in notes:
                    if note.startswith(("The conversation had", "The imported file held")):  # cut, or repaired
                        st.warning(md(note))
                    else:
                        st.caption(md(note[:1].upper() + note[1:] + "."))
        try:
            tools = parse_tools(st.session_state.get(K_TOOLS) or "")
        except ChatFormatError:
            tools = []  # the tools box says what is wrong; the export leaves them out until they are fixed
        st.download_button("Export JSON", to_json(st.session_state[K_MESSAGES], tools, st.session_state.get(K_THINKING)),
                           file_name="conversation.json",
                           mime="application/json", key=state.CHAT_EXPORT, on_click="ignore")


def _summary(role: str, name: str, call_id: str, call: str, reasoning: str | None = None) -> str:
    """What the popover holds, in a few words beside it (so a tool call is visible without opening it)."""
    parts = [f"calls {call}" if role == "assistant" and call else "",
             f"id {call_id}" if role in ("assistant", "tool") and call_id else "",
             f"name {name}" if name else "",
             f"reasoning {len(reasoning):,} characters" if role == "assistant" and reasoning else ""]
    return " · ".join(p for p in parts if p)


def _call_editors(uid: int, calls: list[dict]) -> list[dict]:
    """One row per tool call of an assistant message: its tool, its id, remove, and its JSON arguments."""
    out = []
    for k, c in enumerate(calls):
        suffix = f"{uid}_{c['uid']}"
        name_key, id_key = f"{state.CHAT_CALL_NAME_PREFIX}{suffix}", f"{state.CHAT_CALL_ID_PREFIX}{suffix}"
        args_key = f"{state.CHAT_CALL_ARGS_PREFIX}{suffix}"
        st.session_state.setdefault(name_key, c.get("name") or "")
        st.session_state.setdefault(id_key, c.get("id") or "")
        st.session_state.setdefault(args_key, c.get("arguments") or "")
        with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
            name = text_field(f"call {k + 1} · tool", key=name_key, limit=MAX_FIELD_CHARS, width=220)
            call_id = text_field("call id", key=id_key, limit=MAX_FIELD_CHARS, width=160,
                                 help="Ties a tool result to this call (Mistral, Harmony and DeepSeek V4 use it).")
            st.button("✕", key=f"{state.CHAT_CALL_DEL_PREFIX}{suffix}", on_click=_remove_call, args=(uid, c["uid"]),
                      help=f"Remove call {k + 1}")
        arguments = text_field(f"call {k + 1} · arguments (JSON)", key=args_key, limit=state.MAX_TEXT_CHARS, area=True,
                               height=68, label_visibility="collapsed",
                               placeholder="JSON arguments, e.g. {\"city\": \"Paris\"}")
        # a field over its limit stays whole in its box (text_field says so under it) and counts as empty
        out.append({"uid": c["uid"], "name": name or "", "id": call_id or "", "arguments": arguments or ""})
    return out


def _editor() -> None:
    """One bordered box per message: the role and the text; name, tool call, images and PDFs, move and remove in
    a popover (seven controls side by side stacked into four phone screens); a message's images and PDFs are
    listed under its text."""
    st.subheader("Conversation")
    messages = [dict(m) for m in st.session_state[K_MESSAGES]]
    for i, m in enumerate(messages):
        uid = m["uid"]
        calls = m.get("tool_calls") or []
        for field in FIELDS:
            st.session_state.setdefault(f"{state.CHAT_FIELD_PREFIX}{field}_{uid}", m.get(field) or ("user" if field == "role" else ""))
        with st.container(border=True, key=f"{state.CHAT_MSG_PREFIX}{uid}"):
            with st.container(horizontal=True, vertical_alignment="center", gap="small"):
                role = st.selectbox(f"Message {i + 1}", ROLES, key=f"{state.CHAT_ROLE_PREFIX}{uid}", width=150,
                                    format_func=lambda r, n=i + 1: f"{n} · {r}", label_visibility="collapsed")
                with st.popover("More ⋯", help="Name, tool calls, reasoning, images and PDFs, move, remove"):
                    name = text_field("name", key=f"{state.CHAT_NAME_PREFIX}{uid}", limit=MAX_FIELD_CHARS,
                                      help="The speaker's name (OpenAI, Harmony) or, on a tool message, the tool's name.")
                    call = text_field("calls tool", key=f"{state.CHAT_CALL_PREFIX}{uid}", limit=MAX_FIELD_CHARS,
                                      disabled=role != "assistant" or bool(calls),
                                      help="Make this assistant message a tool call: the content is then its JSON arguments.")
                    call_id = text_field("tool call id", key=f"{state.CHAT_TOOL_CALL_ID_PREFIX}{uid}", limit=MAX_FIELD_CHARS,
                                         disabled=role not in ("assistant", "tool") or bool(calls),
                                         help="Ties a tool result to its call (Mistral v3 needs it).")
                    st.button("+ tool call", key=f"{state.CHAT_ADD_CALL_PREFIX}{uid}", on_click=_add_call, args=(uid,),
                              disabled=role != "assistant" or len(calls) >= state.CHAT_MAX_CALLS,
                              help=f"Add a call to this assistant message (up to {state.CHAT_MAX_CALLS}); its text "
                                   "then goes beside the calls.")
                    reasoning_key = f"{state.CHAT_REASONING_PREFIX}{uid}"
                    st.session_state.setdefault(reasoning_key, m.get("reasoning_content") or "")
                    reasoning_text = text_field("reasoning_content", key=reasoning_key, limit=state.MAX_TEXT_CHARS,
                                                area=True, height=68, disabled=role != "assistant",
                                                help="The model's reasoning kept beside this reply (OpenAI-style "
                                                     "field); the Qwen, GLM, MiniMax-M3 and DeepSeek V4 formats "
                                                     "write it, the others leave it out and say so.")
                    with st.container(horizontal=True, gap="small"):
                        st.button("↑ Up", key=f"{state.CHAT_UP_PREFIX}{uid}", on_click=_move, args=(uid, -1), disabled=i == 0,
                                  help="Move up")
                        st.button("↓ Down", key=f"{state.CHAT_DOWN_PREFIX}{uid}", on_click=_move, args=(uid, 1),
                                  disabled=i == len(messages) - 1, help="Move down")
                        st.button("✕ Remove", key=f"{state.CHAT_DEL_PREFIX}{uid}", on_click=_remove, args=(uid,), help="Remove")
                    media_parts.uploader(uid)
                too_long = [label for label, v in (("name", name), ("calls tool", call), ("tool call id", call_id))
                            if v is None]
                if reasoning_text is None:
                    too_long.append("reasoning_content")
                name, call, call_id, reasoning_text = name or "", call or "", call_id or "", reasoning_text or ""
                reasoning = reasoning_text or ("" if m.get("reasoning_content") == "" else None)
                summary = _summary(role, name, call_id, call, reasoning)
                if summary:
                    st.caption(md(summary, 200))
            content = st.text_area("content", key=f"{state.CHAT_CONTENT_PREFIX}{uid}", height=68, on_change=_on_content,
                                   args=(uid, i + 1), label_visibility="collapsed",
                                   placeholder="text beside the calls (may stay empty)" if calls and role == "assistant"
                                   else f"{role} message")
            if too_long:  # said in the popover too, but it may be closed
                st.warning(f"{md(', '.join(too_long))}: over the limit ({MAX_FIELD_CHARS} characters for a name, "
                           f"tool or id; {state.MAX_TEXT_CHARS:,} for reasoning), left out until shortened "
                           "(under More ⋯). Nothing was cut.")
            if calls and role == "assistant":
                calls = _call_editors(uid, calls)
            media_parts.parts_list(uid)
            cut = st.session_state.pop(K_CUT.format(uid=uid), None)
            if cut:
                st.warning(cut)
        m.update(role=role, name=name or None, content=content,
                 tool_call_id=call_id if role == "tool" or (role == "assistant" and not calls) else None,
                 call=(call or None) if role == "assistant" and not calls else None,
                 tool_calls=calls, reasoning_content=reasoning if role == "assistant" else None)
    st.session_state[K_MESSAGES] = messages
    with st.container(horizontal=True, gap="small"):
        for role in ROLES:
            st.button(f"+ {role}", key=f"{state.CHAT_ADD_PREFIX}{role}", on_click=_add, args=(role,),
                      disabled=len(messages) >= MAX_MESSAGES)
    total = sum(_chars(_plain(m)) for m in messages)
    st.caption(f"{total:,} of {max_conversation_chars():,} characters, call arguments and reasoning included (the text "
               "box's limit; text past it is cut, "
               f"with a warning) · at most {MAX_MESSAGES} messages.")


def _tools_editor() -> list[dict]:
    """The tool definitions: a JSON box (OpenAI's ``tools`` list), presets, and what is wrong with it,
    named by tool and field.  Invalid tools are left out of every count, and the page says so."""
    st.subheader("Tools")
    st.session_state.setdefault(K_TOOLS, "")
    st.session_state.setdefault(K_TOOLS_BOX, st.session_state[K_TOOLS])
    with st.container(horizontal=True, gap="small"):
        for name in PRESETS:
            st.button(f"+ {name}", key=f"{state.CHAT_PRESET_PREFIX}{html.slug(name)}", on_click=_add_preset, args=(name,),
                      help=f"Add the {name} tool ({PRESETS[name]['function']['name']}) to the list")
        st.button("Clear tools", key=state.CHAT_TOOLS_CLEAR, on_click=_clear_tools)
    text = st.text_area("Tool definitions (JSON: OpenAI's tools list)", key=K_TOOLS_BOX, height=140,
                        placeholder='[{"type": "function", "function": {"name": "get_weather", "description": "…", '
                                    '"parameters": {"type": "object", "properties": {…}}}}]',
                        help=f"Each format writes these where its models read them. At most {MAX_TOOLS} tools and "
                             f"{MAX_TOOLS_CHARS:,} characters; names as OpenAI allows them.")
    st.session_state[K_TOOLS] = text
    note = st.session_state.pop(K_TOOLS_NOTE, None)
    if note:
        st.warning(note)
    try:
        tools = parse_tools(text)
    except ChatFormatError as error:
        st.error(f"**Tools not counted:** {md(error, 600)}")
        return []
    if tools:
        st.caption(f"{html.plural(len(tools), 'tool')}: {md(', '.join(t['function']['name'] for t in tools), 400)}")
    return tools


def _thinking_switches(picked: list[str]) -> dict[str, Any]:
    """One switch per picked format that has one, its default marked; the settings by format name."""
    settings = dict(st.session_state.get(K_THINKING) or {})
    formats = list(dict.fromkeys(FORMAT_OF_ROW[n] for n in picked))
    with st.container(horizontal=True, gap="small"):
        for name in formats:
            fmt = FORMATS[name]
            if not fmt.thinking_values:
                continue
            choices = [_word(v) for v in thinking_choices(name)]
            key = K_THINK_BOX.format(fmt=name)
            current = _word(settings.get(name, fmt.thinking_default))
            st.session_state.setdefault(key, current if current in choices else choices[0])
            settings[name] = _value(st.selectbox(THINKING_TITLES.get(name, f"Thinking · {fmt.title}"), choices,
                                                 key=key, width=240,
                                                 format_func=lambda v, n=name: thinking_label(n, _value(v)),
                                                 help=f"{fmt.thinking_note}."))
    st.session_state[K_THINKING] = {k: v for k, v in settings.items() if v != FORMATS[k].thinking_default}
    return settings


def _status(r: engine.chat.ChatTokens | str) -> str:
    if isinstance(r, str):
        return f"not counted: {r}"
    return "estimate" if r.note.startswith("ESTIMATE") else "counted"


def _table(messages: list[dict], tools: list[dict]) -> dict[str, tuple[Any, engine.chat.ChatTokens | str]]:
    """The models picker, the thinking switches, and one row per model: its count, or "not counted:
    why" (one model that cannot express the conversation never hides the others' counts)."""
    st.subheader("Tokens per model")
    st.session_state.setdefault(K_PICK, list(DEFAULT_MODELS))
    picked = st.multiselect("Models", chat_models(), key=K_PICK, max_selections=MAX_MODELS,
                            persist_state="session", format_func=lambda n: MODEL_LABELS.get(n, n),
                            help="Each model's own chat format; counts include the tokens that prime the reply.")
    if not picked:
        st.info("Pick one or more models to see their token counts.")
        return {}
    thinking = _thinking_switches(picked)
    if not messages:
        st.info("Add a message to see what it costs.")
        return {}
    conversation = json.dumps(messages, ensure_ascii=False)
    tools_json = json.dumps(tools, ensure_ascii=False)
    results = {}
    for name in picked:
        enc = encodings.resolve(ROW_ENCODING.get(name, name))
        fmt_name = FORMAT_OF_ROW[name]
        results[name] = (enc, encodings.chat_tokens(name, enc, conversation, tools_json, thinking.get(fmt_name),
                                                    format=fmt_name))
    rows = []
    for name, (_enc, r) in results.items():
        fmt = FORMATS[FORMAT_OF_ROW[name]]
        ok = not isinstance(r, str)
        parts = {p.label: p.tokens for p in r.breakdown()} if ok else {}
        rows.append({"model": MODEL_LABELS.get(name, name), "tokens": r.count if ok else None,
                     "status": _status(r), "tools": parts.get("tools", 0) if ok else None,
                     "template": r.template_count if ok else None, "content": r.content_count if ok else None,
                     "prime the reply": r.priming if ok else None,
                     "thinking": thinking_label(fmt.name, r.thinking) if ok and fmt.thinking_values else "",
                     "format": fmt.title, "checked against": fmt.checked_against})
    # A model that cannot count the conversation has no numbers: "—" in those cells (a bare None read as a bug), the
    # reason in its status.  The browser's table prints an empty number cell as "None" whatever a Styler's display
    # text says (seen in a screenshot of the cost table), so then the counts are written out as text; with every row
    # counted they stay numbers (thousands separators from the Styler, sorting by number).
    numbers = ["tokens", "tools", "template", "content", "prime the reply"]
    if any(row["tokens"] is None for row in rows):
        rows = [{k: prices.count_text(v) if k in numbers else v for k, v in row.items()} for row in rows]
        table = pd.DataFrame(rows)
    else:
        table = pd.DataFrame(rows).style.format("{:,.0f}", subset=numbers)
    st.dataframe(table, hide_index=True, key=state.CHAT_TABLE,
                 column_config={"model": st.column_config.TextColumn(width="medium"),
                                "status": st.column_config.TextColumn(width="large", help="counted: exact, checked "
                                                                      "against the maker's code; estimate: no published "
                                                                      "rule (OpenAI's tools); hover a cell for a reason.")})
    # The table's status column is cut on a phone: each reason is written out under it too.
    for name, (_enc, r) in results.items():
        if isinstance(r, str):
            st.caption(f"**{md(MODEL_LABELS.get(name, name))}** not counted: {md(r, 600)}")
        elif r.note.startswith("ESTIMATE"):
            st.caption(f"**{md(MODEL_LABELS.get(name, name))}** is an estimate: {md(r.note[len('ESTIMATE: '):], 400)}")
    return results


PART_ORDER = ("tools", "system", "user", "assistant", "tool results", "frame", "priming")  # the breakdown's stack order


def breakdown_rows(results: dict[str, tuple[Any, engine.chat.ChatTokens | str]]) -> tuple[list[dict], list[dict]]:
    """(chart rows, table rows): the tokens per model grouped by part (tools, system, user, assistant,
    tool results, frame, priming) for the stacked bar, and per part label (each message) for the table."""
    chart, table = [], {}
    order = PART_ORDER
    for name, (_enc, r) in results.items():
        if isinstance(r, str):
            continue
        label = MODEL_LABELS.get(name, name)
        groups: dict[str, int] = {}
        for p in r.breakdown():
            group = p.label if p.label in ("tools", "frame", "priming") else p.label.split(" · ")[-1]
            group = "tool results" if group == "tool" else group
            groups[group] = groups.get(group, 0) + p.tokens
            table.setdefault(p.label, {"part": p.label})[label] = p.tokens
        # the chart's rows are named by encoding: the full labels are cut to "GPT-4o / 4.1 / o3 (…" on its axis
        chart += [{"model": name, "part": g, "tokens": groups[g]} for g in order if groups.get(g)]
    def key(row: dict) -> tuple:
        label = row["part"]
        if label.startswith("message "):
            return (1, int(label.split()[1].split("·")[0]))
        return (0 if label == "tools" else 2, 0 if label == "frame" else 1)
    return chart, sorted(table.values(), key=key)


def _breakdown(results: dict[str, tuple[Any, engine.chat.ChatTokens | str]]) -> None:
    chart, table = breakdown_rows(results)
    if not chart:
        return
    st.markdown("**Where the tokens go** — tools, system, each role's messages, the frame (begin-of-text and the "
                "like) and the reply priming")
    parts = [p for p in PART_ORDER if any(row["part"] == p for row in chart)]
    bars = alt.Chart(alt.Data(values=chart)).mark_bar().encode(
        x=alt.X("sum(tokens):Q", title="tokens"),
        y=alt.Y("model:N", title=None, sort=list(dict.fromkeys(row["model"] for row in chart))),
        color=alt.Color("part:N", sort=parts, scale=alt.Scale(domain=parts), legend=wrapping_legend(title=None)),
        order=alt.Order("rank:Q"),
        tooltip=["model:N", "part:N", alt.Tooltip("tokens:Q", format=",")],
    ).transform_calculate(rank=f"indexof({json.dumps(parts)}, datum.part)")
    st.altair_chart(charts.sized(bars), width="stretch", height=90 + 48 * len({row["model"] for row in chart}))
    with st.expander("Per message"):
        st.dataframe(table, hide_index=True, key=state.CHAT_BREAKDOWN_TABLE)


def _drawings(results: dict[str, tuple[Any, engine.chat.ChatTokens | str]]) -> None:
    if not results:
        return
    st.subheader("The tokens, drawn")
    st.markdown(chat_legend(), unsafe_allow_html=True)
    for name, (enc, r) in results.items():
        label = MODEL_LABELS.get(name, name)
        if isinstance(r, str):
            st.markdown(f"**{md(label)}** · not counted")
            st.warning(f"{md(r, 600)}")
            continue
        st.markdown(f"**{md(label)}** · {html.plural(r.count, 'token')} "
                    f"({r.template_count:,} template, {r.content_count:,} content; "
                    f"{html.plural(r.priming, 'token')} prime the reply)")
        draw(chat_tokens(token_chips(r, enc), f"chat-{html.slug(name)}"), key=f"{state.CHAT_TOKENS_PREFIX}{name}")
        if r.note:
            st.caption(md(r.note, 400))
