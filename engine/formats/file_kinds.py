"""What a tokenizer file is, read from its content (not its name): for messages that name the real problem.

Users pick a kind and a file; a file named ``tokenizer.model`` may be a
SentencePiece ModelProto (Llama 2, Mistral) or a tiktoken rank file (Llama 3),
and a ``tokenizer.json`` may hold a BPE, WordPiece, Unigram or WordLevel
model.  `sniff` looks at the first few kilobytes of the bytes (magic numbers,
the shape of the first lines); `describe_json` looks at a parsed JSON file's
keys.  Both return a `FileKind` whose `title` says what the file is and
`supported` whether the engine runs it, so the upload can say that first
("a model type tokenizers may not know") instead of the first component the
parser happens to refuse.  `engine.sources.uploads.load_files` loads by it: a
tokenizer.json of any model type, a SentencePiece or tiktoken ``.model``, a
Tekken ``.json``, a GGUF file (its header: `GGUF_HEADER_BYTES`), a WordPiece
``vocab.txt`` and a ``vocab.json`` + ``merges.txt`` pair.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..errors import UnsupportedModelError

# A GGUF file holds the whole model; the tokenizer is in its header, the metadata before the weights.
# llama.cpp's vocab-only files (the header alone) are at most 15.8 MB (Gemma 4, 262,144 tokens), so the
# first 32 MiB of any model file hold it; that cut fits under the upload cap.
GGUF_HEADER_BYTES = 32 * 2**20
GGUF_CUT_COMMAND = "head -c 32M model.gguf > model-header.gguf"

# Kinds of `engine.sources.uploads.KINDS`, plus kinds no upload reads.
KIND_TITLES = {
    "tiktoken": "a tiktoken rank file ('<base64 token> <rank>' lines)",
    "data_gym": "GPT-2's vocab.bpe (merge lines)",
    "encoder.json": "GPT-2's encoder.json (token text -> id)",
    "minbpe": "a minbpe .model file",
    "tokenizer.json": "a Hugging Face tokenizer.json",
    "sentencepiece": "a SentencePiece .model file (a serialized ModelProto)",
    "tekken": "a Mistral Tekken .json file",
    "tokenizer_config": "a Hugging Face tokenizer_config.json (settings and chat template, no vocabulary)",
    "chat": "a conversation export of the Chat view",
    "vocab.txt": "a WordPiece vocab.txt (one token per line, BERT-style)",
    "gguf": "a GGUF model file (llama.cpp)",
    "gzip": "a gzip-compressed file",
    "zip": "a zip archive",
    "json": "a JSON file that is no tokenizer file this playground knows",
    "text": "a text file that is no tokenizer file this playground knows",
    "binary": "a binary file",
    "empty": "an empty file",
}
UPLOAD_AS = {  # how the upload form names each kind it reads
    "tiktoken": "'tiktoken rank file'",
    "data_gym": "'encoder.json + vocab.bpe' (vocab.bpe in the first box)",
    "encoder.json": "'encoder.json + vocab.bpe' (encoder.json in the second box)",
    "minbpe": "'minbpe .model'",
    "tokenizer.json": "'tokenizer.json (Hugging Face)'",
    "sentencepiece": "'SentencePiece .model'",
    "tekken": "'Tekken .json (Mistral)'",
    "gguf": "'Any tokenizer file' (only its header is read: the first 32 MB of a model are enough, "
            f"cut with `{GGUF_CUT_COMMAND}`)",
    "vocab.txt": "'Any tokenizer file'",
}


@dataclass(frozen=True)
class FileKind:
    kind: str  # a key of KIND_TITLES
    model: str | None = None  # the model type inside, when the file says: "BPE", "WordPiece", "Unigram", ...
    supported: bool = True  # whether the engine runs this model type
    detail: str = ""  # what else identifies it ("byte-level", "with a Metaspace pre-tokenizer", ...)
    guessed: bool = False  # from the shape of a few text lines only (no magic number, no version line)

    @property
    def title(self) -> str:
        base = KIND_TITLES[self.kind]
        if self.model:
            base += f" with a {self.model} model" + (f" ({self.detail})" if self.detail else "")
        elif self.detail:
            base += f" ({self.detail})"
        return base

    def how_to_upload(self) -> str:
        if self.kind in UPLOAD_AS:
            return f"upload it as {UPLOAD_AS[self.kind]}"
        return {
            "tokenizer_config": "upload the model's tokenizer.json instead (it sits beside this file)",
            "chat": "import it in the Chat view",
            "gzip": "unpack it first (gunzip) and upload what it holds",
            "zip": "unpack it first and upload the tokenizer file it holds",
        }.get(self.kind, "upload a tokenizer file of one of the kinds listed")


_LEADING_SPACE = re.compile(rb"[ \t\n\r\x0b\x0c]*+")  # what bytes.strip() takes
_RANK_LINE = re.compile(rb"[A-Za-z0-9+/]+={0,2} [0-9]+")
_MERGE_LINE = re.compile(rb"\S+ \S+")
_VOCAB_TXT_FIRST = re.compile(rb"\[(?:PAD|UNK|CLS|unused0)\]|<pad>|<unk>")  # BERT-style vocab.txt's first line


def _first_lines(data: bytes, n: int = 8) -> list[bytes]:
    head = data[:4096]
    lines = [line for line in re.split(rb"\r\n|\r|\n", head) if line.strip()]
    if len(head) < len(data) and lines:
        lines.pop()  # the last one may be cut
    return lines[:n]


def sniff(data: bytes) -> FileKind:
    """The kind of `data` from its first bytes; "json" for any JSON text (`describe_json` tells which).
    Nothing here copies `data` (a 39 MB upload is not stripped whole to look at its first byte)."""
    if not data or data.isspace():
        return FileKind("empty")
    if data.startswith(b"GGUF"):
        return FileKind("gguf")
    if data.startswith(b"\x1f\x8b"):
        return FileKind("gzip")
    if data.startswith(b"PK\x03\x04"):
        return FileKind("zip")
    lines = _first_lines(data)
    if lines and _VOCAB_TXT_FIRST.fullmatch(lines[0].strip()) and all(b" " not in line.strip() for line in lines):
        return FileKind("vocab.txt")  # "[PAD]" opens like a JSON array, so this is asked first
    first = _LEADING_SPACE.match(data).end()
    if data[first : first + 1] in (b"{", b"["):
        return FileKind("json")
    if data[:1] == b"\x0a" and len(data) > 4 and data[2] == 0x0A:  # field 1 (pieces), then its field 1 (the piece)
        return FileKind("sentencepiece")
    if lines and lines[0].strip() == b"minbpe v1":
        return FileKind("minbpe")
    if lines and _RANK_LINE.fullmatch(lines[0].strip()):
        return FileKind("tiktoken")
    if lines and lines[0].startswith(b"#version"):
        return FileKind("data_gym")
    try:
        head = data[:4096].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < 4000:  # not a character cut at the end of the sample
            return FileKind("binary")
        head = data[: exc.start].decode("utf-8")
    if lines and all(_MERGE_LINE.fullmatch(line.strip()) for line in lines):
        return FileKind("data_gym", guessed=True)
    return FileKind("text" if head.isprintable() or "\n" in head else "binary")


def describe_json(root: Any) -> FileKind:
    """The kind of a parsed JSON file, and for a tokenizer.json its model type and whether it is supported."""
    if isinstance(root, list):
        return FileKind("chat") if root and all(isinstance(m, dict) and "role" in m for m in root[:50]) else FileKind("json")
    if not isinstance(root, dict):
        return FileKind("json")
    if isinstance(root.get("model"), dict):
        return _tokenizer_json_kind(root)
    if isinstance(root.get("config"), dict) and isinstance(root.get("vocab"), list):
        return FileKind("tekken")
    if "tokenizer_class" in root or "added_tokens_decoder" in root or "chat_template" in root:
        return FileKind("tokenizer_config")
    if isinstance(root.get("messages"), list):
        return FileKind("chat")
    if root and all(type(v) is int for v in root.values()):
        return FileKind("encoder.json")
    return FileKind("json")


def _tokenizer_json_kind(root: dict) -> FileKind:
    model = root["model"]
    mtype = model.get("type")
    if mtype is None:  # tokenizers infers it from the fields
        mtype = "BPE" if "merges" in model else "WordPiece" if "continuing_subword_prefix" in model else \
            "Unigram" if isinstance(model.get("vocab"), list) else "WordLevel"
    mtype = str(mtype)
    if mtype != "BPE":
        known = {"WordPiece": "BERT-style", "Unigram": "SentencePiece Unigram, e.g. T5, ALBERT, XLM-R",
                 "WordLevel": "one id per whole word"}
        # The loader runs these (engine.families.hf.models) and names any component it cannot run.
        return FileKind("tokenizer.json", mtype, mtype in known, known.get(mtype, "a model type tokenizers may not know"))
    kinds = _component_types(root.get("pre_tokenizer"), "pretokenizers")
    decoders = _component_types(root.get("decoder"), "decoders")
    if "ByteLevel" in kinds or "ByteLevel" in decoders:
        return FileKind("tokenizer.json", "BPE", True, "byte-level")
    if "Metaspace" in kinds or "Metaspace" in decoders or "ByteFallback" in decoders or model.get("byte_fallback"):
        return FileKind("tokenizer.json", "BPE", True,
                        "SentencePiece-style: ▁ for spaces (Metaspace) and byte fallback, as Llama 2, Mistral 7B "
                        "and Gemma write it")
    return FileKind("tokenizer.json", "BPE", True)  # the parser names the component it cannot run


def _component_types(node: Any, list_key: str) -> list[str]:
    if not isinstance(node, dict):
        return []
    if node.get("type") == "Sequence" and isinstance(node.get(list_key), list):
        return [str(item.get("type")) for item in node[list_key] if isinstance(item, dict)]
    return [str(node.get("type"))]


def unsupported_error(found: FileKind, source: str) -> UnsupportedModelError:
    """The error for a tokenizer file whose model the engine does not run: what it is first, then the fix."""
    return UnsupportedModelError(
        source, f"this is {found.title}; {found.model} models are not supported ($.model.type is "
                f"{found.model!r}): this playground runs BPE, WordPiece, Unigram and WordLevel models",
        "check that the file is a tokenizer.json made by Hugging Face tokenizers")
