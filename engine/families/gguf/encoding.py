"""A GGUF file's tokenizer -> the engine family that runs it exactly.

The header (`engine.formats.gguf`) says which kind of tokenizer the model
uses in ``tokenizer.ggml.model``, and llama.cpp (``src/llama-vocab.cpp``)
runs each kind as its makers' library does.  Here each kind becomes the
family that is already exact to that library:

* ``gpt2`` -- byte-level BPE (tokens in GPT-2's byte alphabet, ``merges`` as
  ``"a b"`` lines): a ``tokenizer.json`` tree with the makers' normalizer and
  pre-tokenizer for ``tokenizer.ggml.pre`` (`engine.families.gguf.pre_tokenizers`),
  run by the Hugging Face family;
* ``gemma4`` -- BPE over characters with ``▁`` for spaces and byte fallback,
  as Gemma's ``tokenizer.json`` (spaces replaced by ``▁``, no split), built
  straight from the header's arrays (`gemma4_spec`: the 262,144-entry
  vocabulary is not checked a second time, the 514,906 merges are split in one
  pass); that tree through the Hugging Face loader is its reference;
* ``llama`` -- SentencePiece BPE by piece scores (Llama 2, Phi-3, Mistral v1):
  a SentencePiece ``ModelProto`` rebuilt from tokens, scores and token types
  (GGUF's token types are SentencePiece's: 1 normal, 2 unknown, 3 control,
  4 user-defined, 5 unused, 6 byte), ``add_space_prefix`` as the dummy prefix;
* ``t5`` -- SentencePiece Unigram, with the ``precompiled_charsmap``;
* ``bert`` -- WordPiece: llama.cpp's converter wrote word-initial pieces as
  ``▁word`` and continuations bare; they are turned back into BERT's ``word`` /
  ``##piece`` and run as a ``BertNormalizer`` + ``BertPreTokenizer`` + WordPiece
  ``tokenizer.json`` tree.

Control tokens (type 3) are special: never produced from text unless allowed,
as llama.cpp with ``parse_special=false``; user-defined ones (type 4) are
always matched whole.  `GgufTokenizer` keeps what the encoding itself does not
carry: ``add_bos`` / ``add_eos`` and their ids (`with_special_tokens` adds them
as ``llama_tokenize(add_special=true)`` does), the chat template, the kind.
Any other ``tokenizer.ggml.model`` (``rwkv``, ``plamo2`` ...) is refused by name.

Only `TOKENIZER_KEYS` are decoded from the header, each within its limit; every
other key of the model's metadata is walked past unread (`engine.formats.gguf`).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import count, repeat
from operator import add, mul
from typing import Any

from ...errors import UnsupportedModelError
from ...formats.charsmap import MAX_CHARSMAP_BYTES
from ...formats.gguf import KeyLimit, read_gguf
from ...formats.limits import MAX_MERGES, MAX_TOKEN_BYTES, MAX_TOKENS, MAX_TOTAL_TOKEN_BYTES, TokenizerTooLargeError, check_count
from ..sentencepiece.model_proto import (
    BYTE, CONTROL, NORMAL, UNKNOWN, UNUSED, USER_DEFINED, ModelProto, NormalizerSpec, TrainerSpec,
)
from .pre_tokenizers import rules_for

__all__ = ["GgufTokenizer", "load_gguf", "read_gguf_tokenizer", "KINDS", "TOKENIZER_KEYS", "gemma4_spec", "merge_table"]

KINDS = {"gpt2": "byte-level BPE", "gemma4": "BPE with byte fallback (Gemma 4)", "llama": "SentencePiece BPE",
         "t5": "SentencePiece Unigram", "bert": "WordPiece"}
_TYPES = (NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE)

_NAME = KeyLimit(1, 256, "names", "a tokenizer kind's name has a few characters")
_SCALAR = KeyLimit(1, 8, "values", "a number or a flag")
_PER_TOKEN = KeyLimit(MAX_TOKENS, 8 * MAX_TOKENS, "values", "one per token")
# The header keys a tokenizer is read from, and the most each may hold (`engine.formats.gguf.KeyLimit`).  A
# token's and a merge's own length are checked once decoded (`_check_sizes`); these bound what decoding costs.
TOKENIZER_KEYS: dict[str, KeyLimit] = {
    "tokenizer.ggml.model": _NAME,
    "tokenizer.ggml.pre": _NAME,
    "tokenizer.ggml.tokens": KeyLimit(MAX_TOKENS, MAX_TOTAL_TOKEN_BYTES, "tokens",
                                      "real GGUF vocabularies have at most about 262,000 tokens"),
    "tokenizer.ggml.merges": KeyLimit(MAX_MERGES, 2 * MAX_TOTAL_TOKEN_BYTES + MAX_MERGES, "merges",
                                      "real files have at most about 515,000"),
    "tokenizer.ggml.scores": _PER_TOKEN,
    "tokenizer.ggml.token_type": _PER_TOKEN,
    "tokenizer.ggml.precompiled_charsmap": KeyLimit(MAX_CHARSMAP_BYTES, MAX_CHARSMAP_BYTES, "bytes of charsmap",
                                                    "real maps are a few hundred kB"),
    **{f"tokenizer.ggml.{key}": _SCALAR for key in (
        "bos_token_id", "eos_token_id", "unknown_token_id", "add_bos_token", "add_eos_token", "add_space_prefix",
        "remove_extra_whitespaces")},
}
# A chat template is text the encoding never runs: read only when asked for (`read_gguf_tokenizer`).
CHAT_TEMPLATE = KeyLimit(1, 1_000_000, "templates", "real chat templates are under 50 kB")


@dataclass(frozen=True)
class GgufTokenizer:
    """A GGUF file's tokenizer: the encoding and the settings it does not carry itself."""

    encoding: Any
    kind: str  # tokenizer.ggml.model
    pre: str | None  # tokenizer.ggml.pre
    bos_id: int | None
    eos_id: int | None
    add_bos: bool
    add_eos: bool
    chat_template: str | None
    metadata_end: int  # bytes of header the file needs (what a cut copy must keep)

    def with_special_tokens(self, ids: list[int]) -> list[int]:
        """`ids` with BOS/EOS added as llama.cpp adds them for ``add_special=true``."""
        out = list(ids)
        if self.add_bos and self.bos_id is not None:
            out.insert(0, self.bos_id)
        if self.add_eos and self.eos_id is not None:
            out.append(self.eos_id)
        return out


def _get(md: dict, key: str, kind: type, source: str, default: Any = None) -> Any:
    value = md.get(key, default)
    if value is not None and kind is int and isinstance(value, bool):
        value = int(value)
    if value is not None and not isinstance(value, kind):
        raise UnsupportedModelError(source, f"{key} is a {type(value).__name__}, not a {kind.__name__}",
                                    "the file's metadata is damaged; convert the model again")
    return value


def _array(md: dict, key: str, n: int | None, source: str, required: bool = True) -> Any:
    value = md.get(key)
    if value is None:
        if required:
            raise UnsupportedModelError(source, f"the header has no {key}", "this GGUF file holds no tokenizer; "
                                        "use a model file converted with its vocabulary")
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise UnsupportedModelError(source, f"{key} is not an array", "the file's metadata is damaged")
    if n is not None and len(value) < n:
        raise UnsupportedModelError(source, f"{key} has {len(value):,} entries for {n:,} tokens",
                                    "the file's metadata is damaged; convert the model again")
    return value


def token_types(types: Any, n: int) -> list[int]:
    """The first `n` of ``tokenizer.ggml.token_type`` (None: all NORMAL); a type llama.cpp does not define
    reads as NORMAL.  The usual array of defined int32 types is taken in bulk (a 262k vocabulary's types
    one by one cost a quarter of a second)."""
    if types is None:
        return [NORMAL] * n
    head = list(types[:n])
    if set(map(type, head)) <= {int} and set(head) <= set(_TYPES):
        return head
    return [int(t) if int(t) in _TYPES else NORMAL for t in head]


def read_gguf_tokenizer(data: bytes, name: str | None = None, *, source: str = "<gguf>",
                        chat_template: bool = True) -> GgufTokenizer:
    """Read a GGUF file's header (or its first megabytes) and build its tokenizer (`chat_template` False: its
    chat template is not read, and `GgufTokenizer.chat_template` is None)."""
    keys = {**TOKENIZER_KEYS, "tokenizer.chat_template": CHAT_TEMPLATE} if chat_template else TOKENIZER_KEYS
    header = read_gguf(data, source, keys)
    md = header.metadata
    kind = _get(md, "tokenizer.ggml.model", str, source)
    if kind is None:
        raise UnsupportedModelError(source, "the header has no tokenizer.ggml.model",
                                    "this GGUF file holds no tokenizer; use a model file converted with its vocabulary")
    if kind not in KINDS:
        raise UnsupportedModelError(source, f"tokenizer.ggml.model is {kind!r}, a tokenizer kind this engine does not run "
                                    f"(it runs {', '.join(sorted(KINDS))})", "upload the model's tokenizer.json instead")
    tokens = _array(md, "tokenizer.ggml.tokens", None, source)
    n = len(tokens)
    _check_sizes(md, tokens, source)
    if not all(isinstance(t, str) for t in tokens[:1]):
        raise UnsupportedModelError(source, "tokenizer.ggml.tokens is not an array of strings", "the file is damaged")
    types = _array(md, "tokenizer.ggml.token_type", n, source, required=False)
    types = token_types(types, n)
    pre = _get(md, "tokenizer.ggml.pre", str, source)
    bos = _get(md, "tokenizer.ggml.bos_token_id", int, source)
    eos = _get(md, "tokenizer.ggml.eos_token_id", int, source)
    defaults = {"llama": (True, False), "bert": (True, False), "t5": (False, True)}.get(kind, (False, False))
    if kind == "gpt2" and pre in ("llama-bpe", "llama3", "llama-v3"):
        defaults = (True, False)
    add_bos = bool(_get(md, "tokenizer.ggml.add_bos_token", bool, source, defaults[0]))
    add_eos = bool(_get(md, "tokenizer.ggml.add_eos_token", bool, source, defaults[1]))
    label = name or source
    if kind == "gemma4":
        from ..hf.general import HfPipelineEncoding

        encoding = HfPipelineEncoding(label, gemma4_spec(md, tokens, types, source))
    elif kind in ("gpt2", "bert"):
        root = _tokenizer_json(kind, pre, md, tokens, types, source)
        from ..hf.load import encoding_from_root

        encoding = encoding_from_root(root, label, source)
    else:
        from ..sentencepiece.encoding import SentencePieceEncoding

        encoding = SentencePieceEncoding(label, _model_proto(kind, md, tokens, types, source), source=source)
    template = md.get("tokenizer.chat_template")
    return GgufTokenizer(encoding, kind, pre, bos, eos, add_bos, add_eos,
                         template if isinstance(template, str) else None, header.metadata_end)


def _check_sizes(md: dict, tokens: list[str], source: str) -> None:
    """The engine's vocabulary limits (`engine.formats.limits`), before any table is built: the reader only
    bounded the arrays by the file's size."""
    check_count(len(tokens), "tokens", source, real="real GGUF vocabularies have at most about 262,000 tokens")
    merges = md.get("tokenizer.ggml.merges")
    if merges is not None and hasattr(merges, "__len__"):
        check_count(len(merges), "merges", source, MAX_MERGES, real="real files have at most about 515,000")
    longest = max(map(len, tokens), default=0)
    if longest > MAX_TOKEN_BYTES:
        raise TokenizerTooLargeError(f"{source}: a token of {longest:,} characters; the limit is {MAX_TOKEN_BYTES:,}. "
                                     "The file may be corrupt or built to exhaust memory. Use a smaller tokenizer.")
    total = sum(map(len, tokens))
    if total > MAX_TOTAL_TOKEN_BYTES:
        raise TokenizerTooLargeError(f"{source}: {total:,} characters of tokens in all; the limit is "
                                     f"{MAX_TOTAL_TOKEN_BYTES:,}. Use a smaller tokenizer.")


def load_gguf(data: bytes, name: str | None = None, *, source: str = "<gguf>"):
    """The encoding of a GGUF file's tokenizer (see `read_gguf_tokenizer` for its settings)."""
    return read_gguf_tokenizer(data, name, source=source, chat_template=False).encoding


# ------------------------------------------------------------------ SentencePiece kinds
def _model_proto(kind: str, md: dict, tokens: list[str], types: list[int], source: str) -> ModelProto:
    n = len(tokens)
    scores = _array(md, "tokenizer.ggml.scores", n, source, required=False)
    scores = [float(s) for s in scores[:n]] if scores is not None else [0.0] * n
    unk = _get(md, "tokenizer.ggml.unknown_token_id", int, source)
    if unk is not None and 0 <= unk < n:
        # The header's unknown id is the one <unk> (Phi-3 types it CONTROL); other tokens typed UNKNOWN
        # (Phi-3's [PAD32011] ...) are never produced from text: control tokens, as SentencePiece has them.
        types = [CONTROL if t == UNKNOWN else t for t in types]
        types[unk] = UNKNOWN
    pieces = tuple(zip(tokens, scores, types))
    byte_fallback = BYTE in types
    unk_id = types.index(UNKNOWN) if UNKNOWN in types else 0
    bos = _get(md, "tokenizer.ggml.bos_token_id", int, source, -1)
    eos = _get(md, "tokenizer.ggml.eos_token_id", int, source, -1)
    trainer = TrainerSpec(model_type=1 if kind == "t5" else 2, vocab_size=n, byte_fallback=byte_fallback,
                          unk_id=unk_id, bos_id=bos, eos_id=eos)
    charsmap = md.get("tokenizer.ggml.precompiled_charsmap")
    blob = bytes(charsmap) if charsmap is not None and not isinstance(charsmap, str) else b""
    if charsmap is not None and hasattr(charsmap, "typecode") and charsmap.typecode == "b":
        blob = charsmap.tobytes()
    prefix = bool(_get(md, "tokenizer.ggml.add_space_prefix", bool, source, True))
    remove = bool(_get(md, "tokenizer.ggml.remove_extra_whitespaces", bool, source, False))
    normalizer = NormalizerSpec(name="gguf", precompiled_charsmap=blob, add_dummy_prefix=prefix,
                                remove_extra_whitespaces=remove, escape_whitespaces=True)
    return ModelProto(pieces, trainer, normalizer)


# ------------------------------------------------------------------ tokenizer.json kinds
def _added(tokens: list[str], types: list[int]) -> list[dict]:
    return [{"id": i, "content": tokens[i], "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": t == USER_DEFINED, "special": t == CONTROL}
            for i, t in enumerate(types) if t in (CONTROL, USER_DEFINED)]


def _gemma4_nodes(md: dict, tokens: list[str], source: str) -> dict:
    """Gemma 4's stages as its ``tokenizer.json`` writes them (spaces replaced by ``▁``, no split), and its
    model's settings (``$.model`` without vocab and merges)."""
    unk = _get(md, "tokenizer.ggml.unknown_token_id", int, source)
    return {
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        "pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithPrevious",
                          "invert": False},
        "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"},
            {"type": "Fuse"}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": tokens[unk] if unk is not None else None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None, "fuse_unk": True,
                  "byte_fallback": True, "ignore_merges": False},
    }


def merge_table(merges: list[str], vocab: dict[str, int], where: Any) -> tuple[dict[int, int], list[int]]:
    """`engine.families.hf.models.read.bpe_merges` for merges as GGUF holds them (``"left right"`` strings, no
    continuing-subword prefix), split all at once: one join and one split when every merge holds exactly one
    space (llama.cpp's converter writes them so).  Anything else -- a merge with no space or two, a part not
    in the vocabulary -- goes through `bpe_merges`, the reference, which follows tokenizers and names the
    broken merge."""
    from ..hf.bpe import KEY
    from ..hf.models.read import bpe_merges

    try:  # str.count refuses an item that is not a str
        if not merges or set(map(str.count, merges, repeat(" "))) != {1}:
            return bpe_merges(merges, vocab, "", where)
    except TypeError:
        return bpe_merges(merges, vocab, "", where)
    parts = " ".join(merges).split(" ")
    left, right = parts[0::2], parts[1::2]
    get = vocab.__getitem__
    try:
        lid = list(map(get, left))
        rid = list(map(get, right))
        made = list(map(get, map(add, left, right)))
    except KeyError:
        return bpe_merges(merges, vocab, "", where)
    keys = map(add, map(mul, lid, repeat(KEY)), rid)
    return dict(zip(keys, range(len(made)))), made


def gemma4_spec(md: dict, tokens: list[str], types: list[int], source: str) -> Any:
    """Gemma 4's pipeline built straight from the header's arrays: what `_tokenizer_json` + the Hugging Face
    loader (`pipeline_spec_from_root`, the reference) build, without the tree's 262,144-entry vocabulary
    checked again (`_check_sizes` counted it; ids from positions are distinct by construction) nor the merges
    split one by one."""
    from ..hf.decoders import decoder_from_json
    from ..hf.models.bpe import CharBpe
    from ..hf.normalizers import normalizer_from_json
    from ..hf.pre_tokenizers import pre_tokenizer_from_json
    from ..hf.tokenizer_json import PipelineSpec, _added_tokens, _Where

    where = _Where(source)
    nodes = _gemma4_nodes(md, tokens, source)
    vocab = dict(zip(tokens, count()))  # a repeated token keeps its last id, as tokenizers' vocabulary does
    pair_rank, made = merge_table(list(_array(md, "tokenizer.ggml.merges", None, source)), vocab, where)
    settings = nodes.pop("model")
    model = CharBpe(vocab, pair_rank, made, unk_token=settings["unk_token"], fuse_unk=True, byte_fallback=True)
    added = _added_tokens(_added(tokens, types), vocab, where)
    ids = list(vocab.values()) + [t.id for t in added]
    return PipelineSpec(source, normalizer_from_json(nodes["normalizer"], where),
                        pre_tokenizer_from_json(nodes["pre_tokenizer"], where), model,
                        decoder_from_json(nodes["decoder"], where), None, tuple(added), max(ids, default=-1) + 1,
                        nodes, None, None)


def _tokenizer_json(kind: str, pre: str | None, md: dict, tokens: list[str], types: list[int], source: str) -> dict:
    vocab = dict(zip(tokens, count()))  # a repeated token keeps its last id, as tokenizers' vocabulary does
    if kind == "bert":
        return _bert_json(md, tokens, types, source)
    merges = list(_array(md, "tokenizer.ggml.merges", None, source))
    if kind == "gemma4":  # the reference for `gemma4_spec`, which builds the same pipeline without this tree
        root = {"version": "1.0", "added_tokens": _added(tokens, types), **_gemma4_nodes(md, tokens, source)}
        root["model"].update(vocab=vocab, merges=merges)
        return root
    rules = rules_for(pre, source)
    return {
        "version": "1.0", "added_tokens": _added(tokens, types), "normalizer": rules.normalizer,
        "pre_tokenizer": rules.pre_tokenizer, "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": rules.ignore_merges, "vocab": vocab, "merges": merges},
    }


def _bert_json(md: dict, tokens: list[str], types: list[int], source: str) -> dict:
    """BERT's vocabulary back from llama.cpp's spelling: ``▁word`` -> ``word``, ``piece`` -> ``##piece``,
    ``[CLS]``-style tokens as they are."""
    words = []
    for t, kind in zip(tokens, types):
        if kind == CONTROL or (t.startswith("[") and t.endswith("]")):
            words.append(t)
        elif t.startswith("\u2581"):
            words.append(t[1:])
        else:
            words.append("##" + t)
    vocab: dict[str, int] = {}
    for i, w in enumerate(words):
        vocab.setdefault(w, i)
    unk = _get(md, "tokenizer.ggml.unknown_token_id", int, source, 100)
    unk_token = words[unk] if 0 <= unk < len(words) else "[UNK]"
    return {
        "version": "1.0",
        "added_tokens": [{"id": i, "content": words[i], "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i, k in enumerate(types) if k == CONTROL],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"}, "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": unk_token, "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }
