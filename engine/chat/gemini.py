"""Gemini's request, counted the way Google's own SDK counts it offline (google-genai 3.3.0).

Follows ``google/genai/local_tokenizer.py`` (``LocalTokenizer.count_tokens`` and its ``_TextsAccumulator``)
and ``google/genai/_local_tokenizer_loader.py`` (the model -> tokenizer map) of google-genai 3.3.0.
The SDK does not render a prompt: it walks the request and collects *texts*, encodes each text on its
own and adds up the lengths: no template, no reply priming.  So a Gemini count here is a list of texts
(`request_texts`), each encoded with the model's Gemma vocabulary (`MODEL_TO_ENCODING`): ``gemma3`` for
Gemini 2.0, 2.5 and the 3 previews, ``gemma4`` for 3.1 and 3.5.

The two vocabularies go through two different tokenizer objects in the SDK, and that changes the count
(`BOS_PER_TEXT`): Gemma 3's SentencePiece model is called as ``SentencePieceProcessor.encode(texts)``,
which adds nothing; Gemma 4's is a transformers tokenizer (``AutoProcessor(...).tokenizer``), whose
``encode(texts)`` encodes each text as transformers does by default: special-token text typed in it
(``<start_of_turn>``, ``<bos>``) read as that one token, and ``<bos>`` added in front, since Gemma 4's
tokenizer adds it (``add_bos_token``: true in llama.cpp's GGUF of it).  So Gemini 3.1 / 3.5 pay one
``<bos>`` per text, an empty text included.  (SentencePiece reads control tokens as plain text.)

What the accumulator reads, in its order (`count_tokens`: contents, then tools, then
``generationConfig.responseSchema``, then ``systemInstruction``):

- each part of each content: a ``functionCall``'s name and then its ``args`` (every key of an object,
  then each value: strings counted, objects and lists walked, numbers, booleans and null *not* counted);
  a ``functionResponse``'s name and its ``response`` (the same walk); a ``text`` (an empty text too:
  0 tokens).  ``inlineData`` / ``fileData`` are refused, as the SDK refuses them;
- each function declaration: its name, description, ``parameters`` and ``response`` schemas;
- a schema: ``format``, ``description``, every ``enum`` value, every ``required`` name, ``items``
  (walked), each property's name then its schema, ``example`` (walked like args).  ``type``, ``title``,
  ``default``, ``anyOf``, ``nullable``, bounds and ``parametersJsonSchema`` cost nothing in this count;
- the system instruction: a string, or a content whose parts are walked as above.

Traps: a falsy value is skipped where the SDK tests ``if x:`` (an empty name, empty args, an ``example``
of 0) but an empty ``text`` is still a text; the role is never counted; the count is the same
whatever the order, but `request_texts` keeps the SDK's order so the drawing reads like its list.

The chat format (`render`) makes that request of a conversation as Google's API takes it
(`request_of`): system messages go to ``systemInstruction``, an assistant is ``role: "model"`` with a
text part and a ``functionCall`` part per call (its JSON arguments as ``args``), a tool result is a
``functionResponse`` part of a user content (consecutive results in one content, as parallel calls are
answered), named by the message's name or its call; a result that is not a JSON object is sent as
``{"output": ...}``, the key Google's API documents.  OpenAI-form tools become one tool's
``functionDeclarations`` with the schema as ``parameters``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..sources.model_names import GEMINI_MODEL_TO_ENCODING as MODEL_TO_ENCODING, gemini_encoding_name
from ..sources.registry import get_encoding
from .base import TOOLS, Builder, ChatFormatError, ChatTokens, Kind, Message, ignored_names

FORMAT = "gemini"
SDK = "google-genai 3.3.0"

# Whether the SDK's tokenizer for that vocabulary puts a <bos> before every text it counts (see the docstring).
BOS_PER_TEXT: dict[str, bool] = {"gemma3": False, "gemma4": True}
BOS = "<bos>"
# The Chat formats page's rows: one per vocabulary the map uses, named for the models it counts.
ROW_ENCODING: dict[str, str] = {"gemini-2.5": "gemma3", "gemini-3.1": "gemma4"}
ROW_MODELS: dict[str, tuple[str, ...]] = {
    row: tuple(m for m, e in MODEL_TO_ENCODING.items() if e == enc) for row, enc in ROW_ENCODING.items()}


@dataclass(frozen=True)
class RequestText:
    """One text the SDK's accumulator collects: where it is in the request, the text, and whether the
    user typed it as content (texts, descriptions, string values) or it names structure (keys, names)."""

    path: str
    text: str
    kind: Kind


def _get(obj: Mapping, camel: str) -> Any:
    """A field by its API name or the SDK's snake_case one (pydantic takes both)."""
    if camel in obj:
        return obj[camel]
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    return obj.get(snake)


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ChatFormatError(f"{path} must be text, not {type(value).__name__}: Gemini's API takes a string here")
    return value


def _obj(value: Any, path: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise ChatFormatError(f"{path} must be a JSON object, not {type(value).__name__}")
    return value


class _Walk:
    """The accumulator: texts appended in the SDK's order."""

    def __init__(self) -> None:
        self.texts: list[RequestText] = []

    def add(self, path: str, text: Any, kind: Kind) -> None:
        self.texts.append(RequestText(path, _str(text, path), kind))

    def value(self, value: Any, path: str) -> None:  # _any_traverse
        if isinstance(value, str):
            self.add(path, value, "content")
        elif isinstance(value, Mapping):
            self.mapping(value, path)
        elif isinstance(value, list):
            for k, item in enumerate(value):
                self.value(item, f"{path}[{k}]")

    def mapping(self, d: Mapping, path: str) -> None:  # _dict_traverse: every key first, then the values
        for key in d:
            self.add(f"{path}.{key}", key, "template")
        for key, val in d.items():
            self.value(val, f"{path}.{key}")

    def content(self, content: Any, path: str) -> None:
        parts = _get(_obj(content, path), "parts") or []
        if not isinstance(parts, list):
            raise ChatFormatError(f"{path}.parts must be a list of parts")
        for j, part in enumerate(parts):
            where = f"{path}.parts[{j}]"
            part = _obj(part, where)
            if _get(part, "inlineData") is not None or _get(part, "fileData") is not None:
                raise ChatFormatError(f"{where}: the SDK's local count reads text only and refuses inline and file "
                                      "data (\"LocalTokenizers do not support non-text content types\"): remove it")
            call = _get(part, "functionCall")
            if call is not None:
                call = _obj(call, f"{where}.functionCall")
                if call.get("name"):
                    self.add(f"{where}.functionCall.name", call["name"], "template")
                if call.get("args"):
                    self.mapping(_obj(call["args"], f"{where}.functionCall.args"), f"{where}.functionCall.args")
            response = _get(part, "functionResponse")
            if response is not None:
                response = _obj(response, f"{where}.functionResponse")
                if response.get("name"):
                    self.add(f"{where}.functionResponse.name", response["name"], "template")
                if response.get("response"):
                    self.mapping(_obj(response["response"], f"{where}.functionResponse.response"),
                                 f"{where}.functionResponse.response")
            if part.get("text") is not None:
                self.add(f"{where}.text", part["text"], "content")

    def schema(self, schema: Any, path: str) -> None:  # add_schema
        schema = _obj(schema, path)
        if schema.get("format"):
            self.add(f"{path}.format", schema["format"], "template")
        if schema.get("description"):
            self.add(f"{path}.description", schema["description"], "content")
        for key in ("enum", "required"):
            values = schema.get(key)
            if values:
                if not isinstance(values, list):
                    raise ChatFormatError(f"{path}.{key} must be a list of strings")
                for k, v in enumerate(values):
                    if not isinstance(v, str):
                        raise ChatFormatError(f"{path}.{key}[{k}] is {type(v).__name__}: Gemini's schema holds "
                                              f"{key} values as strings: write it as \"{v}\"")
                    self.add(f"{path}.{key}[{k}]", v, "template")
        if schema.get("items"):
            self.schema(schema["items"], f"{path}.items")
        properties = schema.get("properties")
        if properties:
            for key, value in _obj(properties, f"{path}.properties").items():
                self.add(f"{path}.properties.{key}", key, "template")
                self.schema(value, f"{path}.properties.{key}")
        if schema.get("example"):
            self.value(schema["example"], f"{path}.example")

    def tools(self, tools: Any) -> None:
        if not isinstance(tools, list):
            raise ChatFormatError("tools must be a list of tools")
        for i, tool in enumerate(tools):
            declarations = _get(_obj(tool, f"tools[{i}]"), "functionDeclarations") or []
            for k, fd in enumerate(declarations):
                where = f"tools[{i}].functionDeclarations[{k}]"
                fd = _obj(fd, where)
                if fd.get("name"):
                    self.add(f"{where}.name", fd["name"], "template")
                if fd.get("description"):
                    self.add(f"{where}.description", fd["description"], "content")
                if fd.get("parameters"):
                    self.schema(fd["parameters"], f"{where}.parameters")
                if fd.get("response"):
                    self.schema(fd["response"], f"{where}.response")


def request_texts(request: Mapping) -> list[RequestText]:
    """Every text `LocalTokenizer.count_tokens` counts in a ``generateContent``-shaped request
    (``contents``, ``tools``, ``generationConfig.responseSchema``, ``systemInstruction``; camelCase or
    snake_case), in its order.  A malformed field raises `ChatFormatError` naming its path."""
    walk = _Walk()
    contents = _get(_obj(request, "the request"), "contents") or []
    if isinstance(contents, str):
        contents = [{"role": "user", "parts": [{"text": contents}]}]
    if not isinstance(contents, list):
        raise ChatFormatError("contents must be a list of contents (or one string)")
    for i, content in enumerate(contents):
        walk.content(content, f"contents[{i}]")
    if _get(request, "tools"):
        walk.tools(_get(request, "tools"))
    config = _get(request, "generationConfig")
    if config and _get(_obj(config, "generationConfig"), "responseSchema"):
        walk.schema(_get(config, "responseSchema"), "generationConfig.responseSchema")
    system = _get(request, "systemInstruction")
    if system:
        if isinstance(system, str):
            system = {"parts": [{"text": system}]}
        walk.content(system, "systemInstruction")
    return walk.texts


def count_request(request: Mapping, encoding: Any, *, bos_per_text: bool | None = None) -> int:
    """What `LocalTokenizer.count_tokens` answers for ``request``: each text encoded alone, lengths added.
    ``encoding``: the engine encoding of the model (`MODEL_TO_ENCODING`), or a Gemini model name.
    ``bos_per_text``: whether each text also costs a ``<bos>`` (default: `BOS_PER_TEXT` of the encoding)."""
    if isinstance(encoding, str):
        name = gemini_encoding_name(encoding)
        if name is None:
            raise ChatFormatError(f"{encoding!r} is not a model google-genai 3.3.0 counts offline: use one of "
                                  f"{', '.join(MODEL_TO_ENCODING)}")
        encoding = get_encoding(name)
    if bos_per_text is None:
        bos_per_text = BOS_PER_TEXT.get(encoding.name, False)
    return sum(len(_encode(encoding, t.text, bos_per_text)) for t in request_texts(request))


def _encode(enc: Any, text: str, transformers_path: bool) -> list[int]:
    """One text's ids as the SDK's tokenizer for that vocabulary makes them (see `BOS_PER_TEXT`)."""
    if transformers_path:
        return [enc.encode_single_token(BOS), *enc.encode(text, allowed_special="all")]
    return enc.encode_ordinary(text)


# ------------------------------------------------------------------ a conversation as Gemini's request
def _args(m: Message, i: int) -> list[dict]:
    out = []
    for call in m.calls:
        try:
            args = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError:
            args = None
        if not isinstance(args, dict):
            raise ChatFormatError(f"message {i + 1}: Gemini's functionCall.args is a JSON object, and the arguments of "
                                  f"the call to {call.name} are not one: write them as {{\"name\": value, ...}}")
        fc: dict[str, Any] = {"name": call.name, "args": args}
        if call.id:
            fc["id"] = call.id
        out.append({"functionCall": fc})
    return out


def _response(m: Message, i: int, calls: dict[str, str], last: str | None) -> dict:
    name = m.name or calls.get(m.tool_call_id or "") or last
    if not name:
        raise ChatFormatError(f"message {i + 1}: Gemini's functionResponse needs the function's name: give the tool "
                              "message a name, or put it after the assistant message that calls the tool")
    try:
        value = json.loads(m.content)
    except ValueError:
        value = m.content
    fr: dict[str, Any] = {"name": name, "response": value if isinstance(value, dict) else {"output": value}}
    if m.tool_call_id:
        fr["id"] = m.tool_call_id
    return {"functionResponse": fr}


def request_parts(messages: Sequence[Message], tools: Sequence[dict] = ()) -> tuple[dict, list[list[int]], list[int]]:
    """(request, the message index of each part of each content, the message index of each system part)."""
    contents: list[dict] = []
    origin: list[list[int]] = []
    system: list[dict] = []
    system_origin: list[int] = []
    calls: dict[str, str] = {}
    last: str | None = None
    for i, m in enumerate(messages):
        if m.role == "system":
            system.append({"text": m.content})
            system_origin.append(i)
            continue
        if m.role == "user":
            role, parts = "user", [{"text": m.content}]
        elif m.role == "assistant":
            role = "model"
            parts = ([{"text": m.text}] if m.text or not m.calls else []) + _args(m, i)
            for c in m.calls:
                calls[c.id or ""] = c.name
                last = c.name
        else:
            role, parts = "user", [_response(m, i, calls, last)]
        if m.role == "tool" and contents and i and messages[i - 1].role == "tool":
            contents[-1]["parts"] += parts
            origin[-1] += [i] * len(parts)
        else:
            contents.append({"role": role, "parts": parts})
            origin.append([i] * len(parts))
    request: dict[str, Any] = {"contents": contents}
    if tools:
        declarations = []
        for t in tools:
            f = t["function"]
            declarations.append({k: f[k] for k in ("name", "description", "parameters") if f.get(k) is not None})
        request["tools"] = [{"functionDeclarations": declarations}]
    if system:
        request["systemInstruction"] = {"parts": system}
    return request, origin, system_origin


def request_of(messages: Sequence[Message], tools: Sequence[dict] = ()) -> dict:
    """The conversation as the JSON body of Gemini's ``generateContent`` (contents, tools, systemInstruction)."""
    return request_parts(messages, tools)[0]


def _message_of(path: str, origin: list[list[int]], system_origin: list[int]) -> int:
    if path.startswith("tools") or path.startswith("generationConfig"):
        return TOOLS
    head = path.split(".parts[", 1)
    j = int(head[1].split("]", 1)[0])
    if head[0] == "systemInstruction":
        return system_origin[j]
    return origin[int(head[0][len("contents["):-1])][j]


def render(enc: Any, messages: Sequence[Message], tools: Sequence[dict] = (), thinking: Any = None) -> ChatTokens:
    """The conversation's Gemini request, its texts encoded one by one as the SDK counts them (each after a
    ``<bos>`` for a vocabulary whose SDK tokenizer adds one, `BOS_PER_TEXT`)."""
    request, origin, system_origin = request_parts(messages, tools)
    bos = BOS_PER_TEXT.get(enc.name, False)
    b = Builder(enc)
    texts = request_texts(request)
    for t in texts:
        b.message = _message_of(t.path, origin, system_origin)
        if bos:
            b.special(BOS)
            b.encoded(t.kind, t.text, _encode(enc, t.text, True)[1:])
        else:
            (b.content if t.kind == "content" else b.text)(t.text)
    notes = [ignored_names("Gemini's request", [m for m in messages if m.role != "tool"])]
    if bos:
        notes.append(f"Google's SDK counts Gemini 3.1 / 3.5 with a transformers tokenizer that puts <bos> before each "
                     f"of the request's {len(texts):,} texts: {len(texts):,} of these tokens are those.")
    note = " ".join(n for n in notes if n)
    return ChatTokens(FORMAT, enc.name, tuple(b.segments), priming=0, note=note)
