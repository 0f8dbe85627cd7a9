"""Which built-in encodings exist, who made them and which models use them: the data an encoding picker shows.

    >>> entry("o200k_base").models
    'GPT-4o, GPT-4.1, GPT-4.5, GPT-5, o1, o3, o4-mini'
    >>> canonical_name("r50k_base")
    'gpt2'
    >>> [m.name for m in search_encodings("gpt-4o-mini").matches]
    ['o200k_base']

One table, `ENTRIES`: every name `get_encoding` accepts appears exactly once,
either as an entry or as an *alias* of one (``r50k_base`` is GPT-2's
vocabulary under its tiktoken name: same ranks, pattern and special token, so
a picker shows the two as one entry).  Each entry names its maker, the models
that use it (a short label for people) and a few real model names that
`encoding_name_for_model` maps to it (the tests check every one, so the label
and the model table cannot drift apart).

`search_encodings` is what a picker's search box calls: a model name finds
its encoding through `encoding_name_for_model` (``meta-llama/Llama-3.1-8B``
-> ``llama3``), and any other words match names, makers and model labels.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

MAKERS = ("OpenAI", "Meta", "Alibaba", "Mistral", "DeepSeek", "Zhipu AI", "MiniMax", "Anthropic", "Google", "Google Research")
YOURS = "Yours"  # a session's own tokenizers (trained or uploaded) are grouped under this maker

# the families, by the name each encoding class gives as its `family`, for people
FAMILIES = {
    "tiktoken": "tiktoken-style ranks",
    "sentencepiece": "SentencePiece BPE",
    "tokenizer.json": "Hugging Face tokenizer.json",
    "minbpe": "minbpe merges",
    "wordpiece": "WordPiece (tokenizer.json: BERT and the embedding models built on it)",
    "unigram": "Unigram (tokenizer.json: T5, ALBERT, XLM-R)",
    "wordlevel": "WordLevel (tokenizer.json: one id per word)",
    "char-bpe": "BPE over characters (tokenizer.json: Gemma 3, Llama 2-style)",
}


@dataclass(frozen=True)
class CatalogEntry:
    """One built-in vocabulary as a picker shows it."""

    name: str
    maker: str
    models: str  # who uses it, for people: "Llama 3, 3.1, 3.2, 3.3"
    examples: tuple[str, ...]  # model names `encoding_name_for_model` maps to `name` (tested)
    family: str  # a key of FAMILIES
    aliases: tuple[str, ...] = ()
    note: str = ""  # one line a picker shows beside the entry (what it is not)

    @property
    def label(self) -> str:
        """``gpt2 = r50k_base — GPT-2, GPT-3 (…)``: the name, its aliases and its models on one line."""
        names = " = ".join((self.name, *self.aliases))
        return f"{names} — {self.models}"


ENTRIES: tuple[CatalogEntry, ...] = (
    CatalogEntry("gpt2", "OpenAI", "GPT-2, GPT-3 (davinci, curie, babbage, ada)",
                 ("gpt2", "davinci", "text-curie-001", "text-ada-001"), "tiktoken", aliases=("r50k_base",)),
    CatalogEntry("cl100k_base", "OpenAI", "GPT-4, GPT-3.5 Turbo, text-embedding-3, ada-002",
                 ("gpt-4", "gpt-4-0613", "gpt-3.5-turbo", "text-embedding-3-small", "text-embedding-ada-002"), "tiktoken"),
    CatalogEntry("o200k_base", "OpenAI", "GPT-4o, GPT-4.1, GPT-4.5, GPT-5, o1, o3, o4-mini",
                 ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-5", "o1", "o3", "o4-mini"), "tiktoken"),
    CatalogEntry("o200k_harmony", "OpenAI", "gpt-oss (o200k with the Harmony chat tokens)",
                 ("gpt-oss-20b", "gpt-oss-120b"), "tiktoken"),
    CatalogEntry("llama3", "Meta", "Llama 3, 3.1, 3.2, 3.3",
                 ("meta-llama/Llama-3.1-8B", "Llama-3.2-1B-Instruct", "Llama-3.3-70B-Instruct", "llama3.1:8b"), "tiktoken"),
    CatalogEntry("llama4", "Meta", "Llama 4 (Scout, Maverick)",
                 ("Llama-4-Scout-17B-16E-Instruct", "meta-llama/Llama-4-Maverick-17B-128E-Instruct"), "tiktoken"),
    CatalogEntry("qwen2.5", "Alibaba", "Qwen 1.5, 2, 2.5, 3",
                 ("Qwen/Qwen2.5-7B-Instruct", "Qwen2-7B", "Qwen/Qwen3-8B", "Qwen1.5-7B-Chat"), "tiktoken"),
    CatalogEntry("qwen3.6", "Alibaba", "Qwen 3.5, 3.6 (tokenizer.json, 248,070 ids)", ("Qwen3.6-27B", "Qwen/Qwen3.5-9B"),
                 "tokenizer.json"),
    CatalogEntry("mistral-tekken", "Mistral", "Tekken: Mistral NeMo and later",
                 ("mistralai/Mistral-Nemo-Instruct-2407", "open-mistral-nemo"), "tiktoken"),
    CatalogEntry("mistral-v1", "Mistral", "Mistral 7B v0.1, v0.2 (SentencePiece)",
                 ("Mistral-7B-v0.1", "mistralai/Mistral-7B-Instruct-v0.2"), "sentencepiece"),
    CatalogEntry("mistral-v3", "Mistral", "Mistral 7B v0.3 (SentencePiece)",
                 ("mistralai/Mistral-7B-Instruct-v0.3",), "sentencepiece"),
    CatalogEntry("deepseek-v4", "DeepSeek", "DeepSeek V4 (tokenizer.json)", ("deepseek-ai/DeepSeek-V4",),
                 "tokenizer.json"),
    CatalogEntry("deepseek-v3", "DeepSeek", "DeepSeek V3, V3.1, V3.2, R1 (tokenizer.json; V4's vocabulary, V3's added tokens)",
                 ("deepseek-ai/DeepSeek-V3", "DeepSeek-V3.1", "deepseek-r1", "deepseek-ai/DeepSeek-R1-0528", "DeepSeek-V3.2-Exp"),
                 "tokenizer.json",
                 note="R1, V3.1 and V3.2 add a few chat tokens of their own (<think>, search tags); ordinary text counts the same."),
    CatalogEntry("glm5", "Zhipu AI", "GLM-4.7, GLM-5, 5.1, 5.2 (tokenizer.json, 154,856 tokens)",
                 ("glm-5", "zai-org/GLM-4.7", "GLM-4.7-Flash", "glm-5.1"), "tokenizer.json",
                 note="GLM-4 and GLM-4.5V/4.6V use GLM-4's 151k vocabulary (glm4): the same ids, other counts on some text."),
    CatalogEntry("glm4", "Zhipu AI", "GLM-4, GLM-4-0414, GLM-Z1, GLM-4V, GLM-4.5V/4.6V (tokenizer.json, 151,343 tokens)",
                 ("THUDM/glm-4-9b-chat", "zai-org/GLM-4-32B-0414", "GLM-Z1-9B-0414", "glm-4v", "zai-org/GLM-4.5V"),
                 "tokenizer.json",
                 note="GLM-4.5V and 4.6V add chat tokens of their own (<think>, tool tags); ordinary text counts the same."),
    CatalogEntry("minimax-m3", "MiniMax", "MiniMax M1, M3, Text-01 (tokenizer.json, 200,000 tokens)",
                 ("MiniMax-M1", "MiniMaxAI/MiniMax-M1-80k", "MiniMax-Text-01", "minimax-m3"), "tokenizer.json"),
    CatalogEntry("claude-legacy", "Anthropic", "Claude 1 and 2 only: the pre-Claude-3 tokenizer (tokenizer.json)",
                 ("claude-2.1", "claude-2.0", "claude-instant-1.2", "claude-v1"), "tokenizer.json",
                 note="Claude 3 and later use a private tokenizer: their counts come only from Anthropic's API (count_tokens); "
                      "Chat formats shows a reconstruction of them (ctok 1.3.0)."),
    CatalogEntry("gemma3", "Google", "Gemma 3, Gemma 3n; Gemini 2.0, 2.5, 3 preview as Google's SDK counts offline "
                 "(262,144 tokens, byte fallback)",
                 ("gemma-3-27b-it", "google/gemma-3-4b-it", "gemma-3n-E4B-it", "gemma3:12b", "gemini-2.5-flash",
                  "gemini-2.5-pro", "gemini-2.0-flash", "gemini-3-pro-preview"), "char-bpe",
                 note="Installed by the set-up step (scripts/install_gemma.py), not shipped: Gemma's vocabulary is "
                      "under Google's Gemma Terms of Use."),
    CatalogEntry("gemma4", "Google", "Gemma 4; Gemini 3.1, 3.5 as Google's SDK counts offline (262,144 tokens, "
                 "from llama.cpp's GGUF vocabulary)",
                 ("gemma-4", "gemma4:latest", "gemini-3.5-flash", "gemini-3.1-pro-preview", "gemini-3.1-flash-lite"),
                 "char-bpe",
                 note="Installed by the set-up step (scripts/install_gemma.py), not shipped: Gemma's vocabulary is "
                      "Google's, and Gemma 4's terms could not be checked offline."),
    CatalogEntry("bert-base-uncased", "Google Research", "BERT base/large uncased, bge-*-en, all-MiniLM (WordPiece, 30,522 tokens)",
                 ("bert-base-uncased", "BAAI/bge-small-en-v1.5", "sentence-transformers/all-MiniLM-L6-v2", "bert-large-uncased"),
                 "wordpiece"),
)
_BY_NAME = {e.name: e for e in ENTRIES}
_ALIASES = {alias: e.name for e in ENTRIES for alias in e.aliases}

# The selection a newcomer sees: three generations of OpenAI's vocabulary.
DEFAULT_SELECTION = ("gpt2", "cl100k_base", "o200k_base")


def catalog() -> tuple[CatalogEntry, ...]:
    """Every built-in vocabulary on this machine once, grouped by maker in `MAKERS` order (a vocabulary
    installed at set-up time, Gemma 3's, only once installed: `not_installed` lists the others)."""
    missing = set(not_installed())
    return tuple(e for e in ENTRIES if e.name not in missing)


def not_installed() -> dict[str, str]:
    """``{name: how to install it}`` for the built-ins whose set-up step has not run on this machine."""
    from ..families.hf.builtins import INSTALLED_BUILTINS, installed_names

    present = set(installed_names())
    return {name: f"{name} is not installed here: run `python scripts/install_gemma.py` ({spec.terms})."
            for name, spec in INSTALLED_BUILTINS.items() if name not in present}


def entry(name: str) -> CatalogEntry | None:
    """The entry of `name` or of the entry it is an alias of; None for a name not built in."""
    return _BY_NAME.get(_ALIASES.get(name, name))


def canonical_name(name: str) -> str:
    """The entry name for an alias (``r50k_base`` -> ``gpt2``); any other name unchanged."""
    return _ALIASES.get(name, name)


def aliases() -> dict[str, str]:
    """``{alias: entry name}``."""
    return dict(_ALIASES)


def group_by_maker(names: Iterable[str]) -> list[tuple[str, list[str]]]:
    """`names` grouped as ``[(maker, [names…]), …]`` in `MAKERS` order, names not built in under `YOURS`."""
    groups: dict[str, list[str]] = {maker: [] for maker in (*MAKERS, YOURS)}
    for name in names:
        found = entry(name)
        groups[found.maker if found is not None else YOURS].append(name)
    return [(maker, members) for maker, members in groups.items() if members]


@dataclass(frozen=True)
class Match:
    name: str
    why: str  # "gpt-4o-mini uses it", "maker", "models", "name"


@dataclass(frozen=True)
class SearchResult:
    matches: tuple[Match, ...]
    note: str | None = None  # a model we know whose encoding is not shipped, or close model names


def search_encodings(query: str, own: Iterable[str] = ()) -> SearchResult:
    """Encodings for a search box: by model name first (`encoding_name_for_model`), then by words.

    `own` are the session's own tokenizer names, matched by name.  Every word
    of the query must occur (case-insensitively) in an entry's name, aliases,
    maker, model label or example model names.
    """
    from ..errors import UnknownModelError
    from .model_names import encoding_name_for_model, suggest_models

    q = query.strip()
    if not q:
        return SearchResult(())
    matches: list[Match] = []
    note = None
    known_gap = ""  # what we know about a model no local encoding serves (Claude 3+)
    try:
        by_model = canonical_name(encoding_name_for_model(q))
    except UnknownModelError as err:
        by_model, known_gap = None, err.note
    missing = not_installed()
    if by_model is not None:
        if by_model in missing:
            note = missing[by_model]
        elif by_model in _BY_NAME:
            matches.append(Match(by_model, f"{q} uses it"))
        else:
            note = f"{q} uses {by_model}, which this playground does not ship."
    words = q.lower().split()
    for e in catalog():
        if e.name == by_model:
            continue
        fields = {"name": " ".join((e.name, *e.aliases)), "maker": e.maker, "models": e.models + " " + " ".join(e.examples)}
        hits = [kind for kind, text in fields.items() if any(w in text.lower() for w in words)]
        if hits and all(any(w in text.lower() for text in fields.values()) for w in words):
            matches.append(Match(e.name, hits[0]))
    for name in own:
        if all(w in name.lower() for w in words):
            matches.append(Match(name, "yours"))
    if known_gap:
        note = known_gap
    elif not matches and note is None:
        close = suggest_models(q)
        note = f"No tokenizer matches {q!r}." + (f" Close model names: {', '.join(close)}." if close else "")
    return SearchResult(tuple(matches), note)
