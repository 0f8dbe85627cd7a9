"""How much memory an upload takes: the most its parse can need, known before parsing, and what it keeps.

The playground weighs every upload against one server-wide budget (``playground/cache/uploads.py``), and
must know *before* a file is parsed the most the parse can take -- the file's lines or ``json.loads``'s
tree, the tables built from them, the encoding -- and, once built, what the encoding keeps.  Both depend on
how the engine reads each format, so both are here.

`upload_cost(kind, files)` reads what a file holds the cheap way -- its lines, its JSON shape
(`engine.formats.json_limits.scan_json`), its GGUF header's key sizes (`engine.formats.gguf.read_gguf` with
``values=False``), its SentencePiece pieces -- under the same limits the loaders apply, so a file past one
is refused *here*, having cost a few MB, never after its tables were built.  The peak is then a sum of
measured costs per unit: per byte of the file, per line, per JSON value and container, per token, merge
or piece (`COSTS`).  Each cost is the largest seen per unit on real files and on crafted ones (tracemalloc
peaks of `engine.sources.uploads.load_files` / `load_tokenizer`; ``bench/bench_upload_parse.py`` prints
them), rounded up; ``tests/engine/sources/test_upload_memory.py`` checks the peak of every one of those files
stays below its bound.  An upper bound, then, in the sense of "the worst measured, with room": the units
are the ones each parse allocates per, so a file cannot make one unit cost much more than the worst case of
its kind.

`held_bytes(enc)` is the memory an encoding keeps, from its counts and class (per token, plus a
SentencePiece model's user-defined symbols and character map).

Both count Python allocations (what tracemalloc sees); the process's RSS runs a little higher (malloc's own
bookkeeping and free pages it keeps), which the playground adds on top.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import WrongFileKindError
from ..formats.file_kinds import KIND_TITLES, sniff
from ..formats.json_limits import LARGE, scan_json
from ..formats.limits import MAX_MERGES
from ..formats.minbpe import check_minbpe_lines
from ..formats.tiktoken_files import check_merge_lines, check_rank_lines
from ..formats.vocab_files import MERGES_TXT_REAL, check_vocab_lines

__all__ = ["UploadCost", "upload_cost", "held_bytes", "COSTS", "PEAK_FIXED"]

PEAK_FIXED = 8_000_000  # what any load allocates besides its file's tables: the probe text, patterns, caches


@dataclass(frozen=True)
class Cost:
    """Bytes per unit a kind's parse takes at its peak."""

    per_byte: float  # of the file (the text it decodes to, copies of it)
    per_line: float = 0.0  # lines of a line file (a token or a merge each)
    per_value: float = 0.0  # JSON values (the scan's count: separators + containers)
    per_container: float = 0.0  # JSON arrays and objects
    per_token: float = 0.0  # tokens (GGUF), pieces (SentencePiece), members of a JSON file's largest object
    per_merge: float = 0.0  # merges (GGUF), items of a JSON file's largest array
    per_user_symbol: float = 0.0  # SentencePiece user-defined symbols (matched through a trie of them)


# Measured per kind (see the module doc); the kinds are `engine.sources.uploads.KINDS` and what `load_files`
# detects.  A line or a value costs more than its own objects: the tables built from it, the encoding.
COSTS: dict[str, Cost] = {
    "tiktoken": Cost(per_byte=6, per_line=300),  # o200k (3.6 MB, 199,998 lines): 53 MB
    "data_gym": Cost(per_byte=8, per_line=300),  # vocab.bpe / merges.txt; its encoder.json is "json"
    "minbpe": Cost(per_byte=8, per_line=750),  # 300,000 merges (2.3 MB): 221 MB
    # tokenizer.json, Tekken .json, encoder.json: the text (at most 2 bytes a character, engine.formats.json_limits
    # .narrow_text) and its strings; a value of json.loads's tree; an array or object; a member of the largest
    # object (a vocabulary: a token the encoding builds) and an item of the largest array (the merges, or a Unigram
    # or Tekken vocabulary).  Gemma 3 (33.4 MB, 2.17 M values, 521,355 containers, a vocabulary of 262,144 and
    # 514,906 merges): 260 MB; Qwen 3.5 (12.8 MB, 744,145 values, 248,070 tokens, 247,587 merges): 148 MB;
    # Tekken 240911 (19.3 MB, 1.05 M values, a list of 150,000 tokens): 87 MB.
    "json": Cost(per_byte=3, per_value=45, per_container=60, per_token=300, per_merge=100),
    # per piece, and per user-defined symbol besides: 250,000 of them (4.5 MB): 238 MB; a 7.9 MB map: 42 MB
    "sentencepiece": Cost(per_byte=6, per_token=700, per_user_symbol=300),
    # per byte of the tokenizer keys' strings (tokens, merges) and map, per token, per merge; the other keys cost
    # nothing.  Gemma 4 (262,144 tokens, 514,906 merges): 239 MB; nomic-bert-moe (250,048 Unigram pieces): 175 MB.
    "gguf": Cost(per_byte=8, per_token=700, per_merge=150),
    "vocab.txt": Cost(per_byte=8, per_line=600),  # BERT (30,522 lines): 10 MB
}


@dataclass(frozen=True)
class UploadCost:
    """The most loading a file can take (`peak`, bytes), and the counts it came from (for a message)."""

    peak: int
    counts: str  # "262,144 tokens, 514,906 merges"


def upload_cost(kind: str, files: list[tuple[str, bytes]]) -> UploadCost:
    """The most memory loading `files` as `kind` can take: one of `engine.sources.uploads.KINDS`, or "detected"
    (`load_files`: the kind read from the content).  Raises what the loader would for a file past a limit
    that can be seen without parsing (`TokenizerTooLargeError`, `JsonLimitError`, `GgufError`)."""
    peak, parts = PEAK_FIXED, []
    for name, data in files:
        found = _kind_of(kind, name, data, len(files))
        got, what = _file_cost(found, name, data)
        peak += got
        parts.append(what)
    return UploadCost(int(peak), "; ".join(parts))


def _kind_of(kind: str, name: str, data: bytes, n_files: int) -> str:
    """The `COSTS` key of one file: from the kind chosen, or read from the content for "detected"."""
    if kind in ("tokenizer.json", "tekken"):
        return "json"
    if kind == "data_gym":  # vocab.bpe and its encoder.json, in either order
        return "json" if sniff(data).kind == "json" else "data_gym"
    found = sniff(data).kind
    if kind != "detected":
        if kind not in COSTS:
            raise ValueError(f"unknown tokenizer file kind {kind!r}")
        # A file of another kind than the one picked: the loader redirects it (Llama 3's "tokenizer.model" picked
        # as SentencePiece is a rank file) or refuses it in its own words, so it is weighed as what it is -- the
        # picked kind's scan would refuse it first, with a parse error that names no fix.
        return found if found in COSTS and found != kind else kind
    if found in ("json", "gguf", "sentencepiece", "minbpe", "tiktoken", "vocab.txt"):
        return found
    if found == "data_gym" or n_files == 2:  # merges.txt beside a vocab.json: a merge line file
        return "merges.txt"
    raise WrongFileKindError(name, "a tokenizer file", KIND_TITLES.get(found, found), "upload a tokenizer file")


def _file_cost(kind: str, name: str, data: bytes) -> tuple[float, str]:
    cost, size = COSTS["data_gym" if kind == "merges.txt" else kind], len(data)
    if kind == "json":
        shape = scan_json(data, source=name)
        return (cost.per_byte * size + cost.per_value * shape.values + cost.per_container * shape.containers
                + cost.per_token * max(shape.largest_object, LARGE) + cost.per_merge * max(shape.largest_array, LARGE),
                f"{name}: {size:,} bytes, {shape.values:,} JSON values")
    if kind == "gguf":
        return _gguf_cost(cost, name, data)
    if kind == "sentencepiece":
        return _sentencepiece_cost(cost, name, data)
    lines = _LINE_CHECKS[kind](data, name)  # the loader's own checks: its line count, its longest line
    return cost.per_byte * size + cost.per_line * lines, f"{name}: {size:,} bytes, {lines:,} lines"


# What each line format's loader checks first, on the bytes (the same errors, so a file is refused here as it
# would be there).  "merges.txt" is the second file of a vocab.json + merges.txt pair ("data_gym": GPT-2's vocab.bpe).
_LINE_CHECKS = {
    "tiktoken": check_rank_lines,
    "data_gym": check_merge_lines,
    "merges.txt": lambda data, name: check_merge_lines(data, name, MAX_MERGES, real=MERGES_TXT_REAL),
    "minbpe": check_minbpe_lines,
    "vocab.txt": check_vocab_lines,
}


def _gguf_cost(cost: Cost, name: str, data: bytes) -> tuple[float, str]:
    """A GGUF header walked without decoding a value (`read_gguf` with ``values=False``): the tokenizer keys'
    limits checked, their sizes read; the keys a tokenizer does not read cost nothing."""
    from ..families.gguf.encoding import TOKENIZER_KEYS
    from ..formats.gguf import read_gguf

    sizes = read_gguf(data, name, TOKENIZER_KEYS, values=False).sizes
    tokens, token_bytes = sizes.get("tokenizer.ggml.tokens", (0, 0))
    merges, merge_bytes = sizes.get("tokenizer.ggml.merges", (0, 0))
    charsmap = sizes.get("tokenizer.ggml.precompiled_charsmap", (0, 0))[1]
    kept = token_bytes + merge_bytes + charsmap
    return (cost.per_byte * kept + cost.per_token * tokens + cost.per_merge * merges,
            f"{name}: {tokens:,} tokens, {merges:,} merges")


def _sentencepiece_cost(cost: Cost, name: str, data: bytes) -> tuple[float, str]:
    """Pieces counted on the file's top-level fields (`_count_pieces`), user-defined symbols bounded by the
    bytes of their type field (``18 04``: field 3, value 4), which every one of them holds."""
    from ..families.sentencepiece.model_proto import count_pieces

    pieces = count_pieces(data, name)
    user = min(pieces, data.count(b"\x18\x04"))
    return (cost.per_byte * len(data) + cost.per_token * pieces + cost.per_user_symbol * user,
            f"{name}: {pieces:,} pieces")


# ------------------------------------------------------------------ what an encoding keeps
FIXED_BYTES = 4_000_000  # an encoding's own objects besides its tokens (patterns, tables, a model's caches)
# Bytes kept per token id, by the encoding's class: the most measured per token on real files of each (traced
# memory held after a load, bench/bench_upload_parse.py), rounded up: o200k's rank file 175, a minbpe model of
# 300,000 merges 247; DeepSeek V4's tokenizer.json 364, Llama 3's GGUF 484; Gemma 3's tokenizer.json 496;
# Mistral v3's .model 366, nomic-bert-moe's Unigram 604.
PER_TOKEN = {"Encoding": 280, "ModelEncoding": 340, "HfEncoding": 550, "SentencePieceEncoding": 700,
             "HfPipelineEncoding": 600}
PER_TOKEN_DEFAULT = max(PER_TOKEN.values())
PER_CHARSMAP_BYTE = 3  # a character map's blob, its units and their child keys: 18 MB for a 7.9 MB map


def held_bytes(enc: Any) -> int:
    """Memory `enc` keeps (bytes): per token id by its class, plus its character map if it has one (a
    SentencePiece model's, or a tokenizer.json's ``Precompiled`` normalizer's).  A SentencePiece model's
    user-defined symbols cost no more than its other pieces (250,000 of them held 84 MB)."""
    held = FIXED_BYTES + PER_TOKEN.get(type(enc).__name__, PER_TOKEN_DEFAULT) * int(enc.n_vocab)
    return held + PER_CHARSMAP_BYTE * _charsmap_bytes(enc)


def _charsmap_bytes(enc: Any) -> int:
    normalizer = getattr(getattr(enc, "model", None), "normalizer", None)
    blob = getattr(normalizer, "precompiled_charsmap", None)  # a SentencePiece model's NormalizerSpec
    if isinstance(blob, bytes):
        return len(blob)
    spec = getattr(enc, "spec", None)  # a tokenizer.json pipeline: Precompiled, maybe inside a Sequence
    stack, total = [getattr(spec, "normalizer", None)], 0
    while stack:
        node = stack.pop()
        charsmap = getattr(node, "charsmap", None)
        if charsmap is not None:
            total += 4 * len(charsmap.units) + len(charsmap.outputs)
        stack.extend(getattr(node, "normalizers", ()))
    return total
