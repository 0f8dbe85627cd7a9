"""Model name -> encoding name, as tiktoken 0.14's `model.py`, plus open models by name.

    >>> encoding_name_for_model("gpt-4o-mini")
    'o200k_base'
    >>> encoding_name_for_model("meta-llama/Llama-3.1-8B-Instruct")
    'llama3'

Four rules, tried in order:

1. an exact OpenAI model name (`MODEL_TO_ENCODING`, tiktoken's table);
2. an OpenAI name prefix (`MODEL_PREFIX_TO_ENCODING`, tiktoken's prefixes:
   ``gpt-4o-2024-05-13`` is a ``gpt-4o-`` model).  Like tiktoken, a prefix
   also matches models that do not exist (``gpt-3.5-turbo-FAKE``);
3. a Gemini model Google's SDK counts offline (`GEMINI_MODEL_TO_ENCODING`, exact names, an API
   ``models/`` prefix allowed);
4. an open model family (`OPEN_MODEL_RULES`), matched case-insensitively on
   the name after any ``org/`` part, so ``meta-llama/Llama-3.1-8B`` and
   ``llama3.1:8b`` both find ``llama3``.

The table only names encodings; whether `get_encoding` can build one depends
on the vocabularies shipped (``p50k_base`` is named here, as in tiktoken, but
not shipped).  An unknown name raises `UnknownModelError` (a KeyError, as in
tiktoken) that suggests close matches.
"""
from __future__ import annotations

import difflib
import re

from ..errors import UnknownModelError
from ..tokenizer.encoding import Encoding
from .registry import get_encoding

MODEL_PREFIX_TO_ENCODING: dict[str, str] = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    # chat
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",  # e.g. gpt-4o-2024-05-13
    "gpt-4-": "cl100k_base",  # e.g. gpt-4-0314, gpt-4-32k
    "gpt-3.5-turbo-": "cl100k_base",  # e.g. gpt-3.5-turbo-0301
    "gpt-35-turbo-": "cl100k_base",  # Azure deployment name
    "gpt-oss-": "o200k_harmony",
    # fine-tuned
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}

_R50K_MODELS = [
    "text-davinci-001", "text-curie-001", "text-babbage-001", "text-ada-001",
    "davinci", "curie", "babbage", "ada",
    "text-similarity-davinci-001", "text-similarity-curie-001", "text-similarity-babbage-001",
    "text-similarity-ada-001", "text-search-davinci-doc-001", "text-search-curie-doc-001",
    "text-search-babbage-doc-001", "text-search-ada-doc-001", "code-search-babbage-code-001",
    "code-search-ada-code-001",
]
_P50K_MODELS = [
    "text-davinci-003", "text-davinci-002", "code-davinci-002", "code-davinci-001",
    "code-cushman-002", "code-cushman-001", "davinci-codex", "cushman-codex",
]

MODEL_TO_ENCODING: dict[str, str] = {
    # reasoning
    "o1": "o200k_base", "o3": "o200k_base", "o4-mini": "o200k_base",
    # chat
    "gpt-5": "o200k_base", "gpt-4.1": "o200k_base", "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base", "gpt-3.5-turbo": "cl100k_base", "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",  # Azure deployment name
    # base
    "davinci-002": "cl100k_base", "babbage-002": "cl100k_base",
    # embeddings
    "text-embedding-ada-002": "cl100k_base", "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
    # deprecated text, code, edit and embedding models
    **dict.fromkeys(_P50K_MODELS, "p50k_base"),
    "text-davinci-edit-001": "p50k_edit", "code-davinci-edit-001": "p50k_edit",
    **dict.fromkeys(_R50K_MODELS, "r50k_base"),
    # open source
    "gpt2": "gpt2", "gpt-2": "gpt2",
}

# Gemini models by exact name: google-genai 3.3.0's _local_tokenizer_loader.py, its three maps as one -- every
# model its LocalTokenizer counts offline, with the Gemma vocabulary it counts them with (engine.chat.gemini).
GEMINI_MODEL_TO_ENCODING: dict[str, str] = {
    **dict.fromkeys((
        "gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.0-flash", "gemini-2.0-flash-lite",
        "gemini-2.5-pro-preview-06-05", "gemini-2.5-pro-preview-05-06", "gemini-2.5-pro-exp-03-25",
        "gemini-live-2.5-flash", "gemini-2.5-flash-preview-05-20", "gemini-2.5-flash-preview-04-17",
        "gemini-2.5-flash-lite-preview-06-17", "gemini-2.0-flash-001", "gemini-2.0-flash-lite-001",
        "gemini-3-pro-preview", "gemini-3-flash-preview"), "gemma3"),
    **dict.fromkeys(("gemini-3.5-flash", "gemini-3.1-flash-lite", "gemini-3.1-pro-preview"), "gemma4"),
}


def gemini_encoding_name(model_name: str) -> str | None:
    """The encoding Google's SDK counts Gemini ``model_name`` with (``models/gemini-2.5-flash``, the API's
    spelling, too), or None."""
    return GEMINI_MODEL_TO_ENCODING.get(model_name.rsplit("/", 1)[-1])


# Open models by family (matched on the lower-cased name after any "org/").  A version must
# end where the name ends or at a separator, so "llama-30b" (Llama 1) is not Llama 3 and
# "qwen3.5" is not Qwen 3.
_END = r"(?:$|[-_:. ])"
OPEN_MODEL_RULES: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(rf"(?:meta-)?llama[-_ ]?3(?:\.[0-3])?(?:$|[-_: ])"), "llama3", "Llama-3.1-8B-Instruct"),
    (re.compile(rf"(?:meta-)?llama[-_ ]?4{_END}"), "llama4", "Llama-4-Scout-17B-16E-Instruct"),
    (re.compile(r"qwen[-_ ]?3\.[56](?:$|[-_: ])"), "qwen3.6", "Qwen3.6-27B"),
    (re.compile(r"qwen[-_ ]?(?:1\.5|2\.5|2|3)(?:$|[-_: ])"), "qwen2.5", "Qwen2.5-7B-Instruct"),
    (re.compile(rf"(?:open-)?mistral[-_ ]?nemo{_END}|tekken{_END}"), "mistral-tekken", "Mistral-Nemo-Instruct-2407"),
    # v0.2 kept v0.1's 32,000-token vocabulary; v0.3 extended it to 32,768
    (re.compile(r"mistral-7b(?:-instruct)?-v0\.[12](?:$|[-_: ])"), "mistral-v1", "Mistral-7B-v0.1"),
    (re.compile(r"mistral-7b(?:-instruct)?-v0\.3(?:$|[-_: ])"), "mistral-v3", "Mistral-7B-Instruct-v0.3"),
    (re.compile(rf"deepseek[-_ ]?v4{_END}"), "deepseek-v4", "DeepSeek-V4"),
    # the distilled R1 models use their base model's tokenizer (Qwen's, Llama's), not DeepSeek's
    (re.compile(r"deepseek[-_ ]?(?:v3(?:\.[12])?|r1)(?!.*(?:distill|qwen|llama))(?:$|[-_: ])"), "deepseek-v3", "DeepSeek-V3.1"),
    (re.compile(r"glm[-_ ]?(?:4\.7|5(?:\.\d)?)(?:$|[-_: ])"), "glm5", "GLM-5"),
    # GLM-4 (THUDM/glm-4-9b, GLM-4-32B-0414, GLM-Z1, GLM-4V) and GLM-4.5V/4.6V have the 151,329-token
    # vocabulary GLM-4.7 extended (the same ids, other merges); 4.5V/4.6V only add chat tokens to it
    (re.compile(r"(?:chat)?glm[-_ ]?(?:4v?|z1|4\.[56]v)(?:$|[-_: ])"), "glm4", "glm-4-9b"),
    (re.compile(r"minimax[-_ ]?(?:m1|m3|text[-_ ]?01)(?:$|[-_: ])"), "minimax-m3", "MiniMax-M1"),
    (re.compile(r"claude[-_ ]?(?:v?1|v?2|instant)(?:$|[-_:. ])"), "claude-legacy", "claude-2.1"),
    # Gemma 3 and 3n share one vocabulary; Gemma 4 has its own (llama.cpp's GGUF of it)
    (re.compile(r"gemma[-_ ]?3n?(?:$|[-_:. ])"), "gemma3", "gemma-3-27b-it"),
    (re.compile(r"gemma[-_ ]?4(?:$|[-_:. ])"), "gemma4", "gemma-4"),
    # BERT's uncased vocabulary, reused by BAAI's English bge models and sentence-transformers' MiniLM
    (re.compile(r"bert-(?:base|large)-uncased(?:$|[-_: ])|bge-(?:small|base|large)-en(?:$|[-_: ])|all-minilm-l(?:6|12)-v2(?:$|[-_: ])"),
     "bert-base-uncased", "bert-base-uncased"),
]

# Claude 3 and later: their tokenizer is not published, so no local encoding counts for them
_CLAUDE_PRIVATE = re.compile(r"claude[-_ ]?(?:(?:3|4|5)|(?:opus|sonnet|haiku))")
CLAUDE_PRIVATE_NOTE = ("Claude 3 and later use a private tokenizer: exact counts come only from Anthropic's API "
                       "(messages.count_tokens). A reconstruction of their counts (ctok 1.3.0, not Anthropic's) is "
                       "engine.families.claude: claude_name_for_model(name) and get_claude(...).count_tokens(text), "
                       "shown on the Chat formats page. `claude-legacy` is the Claude 1/2 tokenizer.")


def _open_model_encoding(model_name: str) -> str | None:
    base = model_name.rsplit("/", 1)[-1].lower()
    for pattern, encoding_name, _ in OPEN_MODEL_RULES:
        if pattern.match(base):
            return encoding_name
    return None


def encoding_name_for_model(model_name: str) -> str:
    """The name of the encoding `model_name` uses; `UnknownModelError` (a KeyError) if unknown."""
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    gemini = gemini_encoding_name(model_name)
    if gemini is not None:
        return gemini
    for prefix, encoding_name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return encoding_name
    encoding_name = _open_model_encoding(model_name)
    if encoding_name is not None:
        return encoding_name
    if _CLAUDE_PRIVATE.match(model_name.rsplit("/", 1)[-1].lower()):
        raise UnknownModelError(model_name, [], note=CLAUDE_PRIVATE_NOTE)
    raise UnknownModelError(model_name, suggest_models(model_name))


def encoding_for_model(model_name: str) -> Encoding:
    """The encoding `model_name` uses (`encoding_name_for_model`, then `get_encoding`)."""
    return get_encoding(encoding_name_for_model(model_name))


def known_model_names() -> list[str]:
    """Every exact model name, then one example name per open-model family."""
    return [*MODEL_TO_ENCODING, *GEMINI_MODEL_TO_ENCODING, *(example for _, _, example in OPEN_MODEL_RULES)]


def suggest_models(model_name: str, n: int = 3) -> list[str]:
    """Known model names close to `model_name` (for the error message)."""
    names = known_model_names()
    by_lower = {name.lower(): name for name in names}
    base = model_name.rsplit("/", 1)[-1].lower()
    return [by_lower[m] for m in difflib.get_close_matches(base, list(by_lower), n=n, cutoff=0.6)]
