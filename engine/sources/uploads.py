"""A user's tokenizer files -> a checked, uniquely named encoding (what the playground's upload calls).

Six kinds of file (`KINDS`): a tiktoken rank file, GPT-2's ``vocab.bpe`` +
``encoder.json``, a minbpe ``.model``, a Hugging Face ``tokenizer.json``, a
SentencePiece BPE ``.model`` and a Mistral Tekken ``.json``.  The parsers in
`engine.formats.tiktoken_files`, `engine.formats.minbpe` and `engine.families` read one format
each.  Every kind goes through the same gate here:

* **what it is** (`engine.formats.file_kinds`, from the content): a file of another
  kind is named (`WrongFileKindError`: "tokenizer.model is a tiktoken rank
  file, not a SentencePiece .model file"), a model type the engine does not
  run says so first (`UnsupportedModelError`); Llama 3's ``tokenizer.model``
  picked as SentencePiece is recognised (sha256) and loads as Llama 3;
* **size** (`engine.formats.limits`): the file at most `MAX_FILE_BYTES`; JSON nesting
  and value counts scanned before `json.loads` (`engine.formats.json_limits`,
  `JsonLimitError`); then the vocabulary, ids and special tokens counted and
  token lengths added up *before* an encoding is built (`TokenizerTooLargeError`);
* **every byte encodable**: all 256 single bytes are tokens -- or, for
  SentencePiece and ``tokenizer.json``, the model has byte fallback --
  otherwise some text cannot be encoded (`UnusableTokenizerError`);
* **a probe text** (all 256 byte values' characters, several scripts, emoji,
  digits, whitespace runs) must encode and tokenize to the same ids, and for
  tiktoken's kind decode back exactly (`UnusableTokenizerError`); a family
  with a normalizer or ``<unk>`` may be lossy by design and is accepted
  (`engine.explain.lossless` finds the text it does not give back).

`load_files` reads the kind from the content instead (`detect_files`), for
those kinds and also a GGUF header, a WordPiece ``vocab.txt`` and a
``vocab.json`` + ``merges.txt`` pair (`engine.formats.vocab_files`).

All these errors are ValueErrors whose messages name the file and the fix.

The name is the file's stem plus a hash of everything that defines the
encoding, so two different uploads never share a name (the playground keys
its caches by name).
"""
from __future__ import annotations

import hashlib
import json
import re

from typing import Any

from ..errors import NotAFilePairError, UnsupportedModelError, WrongFileKindError
from ..families.hf.tokenizer_json import check_tokenizer_json_size  # noqa: F401  (its home before)
from ..formats.file_kinds import KIND_TITLES, FileKind, describe_json, sniff
from ..formats.gc_paused import gc_paused
from ..formats.json_limits import load_json_bounded
from ..tokenizer.encoding import Encoding
from ..formats.limits import (MAX_SPECIAL_TOKENS, MAX_TOKEN_ID, TokenBudget, TokenizerTooLargeError, check_count,
                     check_pattern_size, check_special_tokens_size, check_token_id, count_lines)
from ..formats.minbpe import parse_minbpe_model
from ..formats.tiktoken_files import parse_data_gym_with_specials, parse_tiktoken_bpe
from ..tokenizer.patterns import RAW_PAT_STR

KINDS = ("tiktoken", "data_gym", "minbpe", "tokenizer.json", "sentencepiece", "tekken")
MODEL_KINDS = ("minbpe", "tokenizer.json", "sentencepiece", "tekken")  # files that carry their own split and specials
# An uploaded tokenizer file (o200k: 3.6 MB; DeepSeek V4 tokenizer.json: 6.4 MB; Tekken .json: 19.3 MB; Gemma 3's
# tokenizer.json, the largest: 33.4 MB).  Loading Gemma 3's through load_files holds +164 MB and peaks at
# +287 MB of RSS (json.loads alone: +285 MB; Hugging Face tokenizers' own load: +360 MB): 40 MB keeps one
# upload's peak well within the store's budget (playground.cache.uploads.BUDGET_BYTES, 600 MB).
MAX_FILE_BYTES = 40_000_000


class UnusableTokenizerError(ValueError):
    """A tokenizer file that parses but cannot encode every text (a missing byte, a failed round trip)."""
PROBE = (
    "".join(map(chr, range(256)))
    + " Hello, world! 12345 6789  \t\n\n  tokenization ünïcödé こんにちは 世界 Привет مرحبا नमस्ते 👋🏽🇯🇵👨‍👩‍👧 "
)


def short_hash(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()[:8]


def _byte_coverage_problem(enc: Any) -> str | None:
    """Why some text cannot be encoded by a byte-level `enc` (a byte of UTF-8 text that is no token, no byte
    fallback), or None.  A family that writes what it cannot spell as ``<unk>`` (SentencePiece without byte
    fallback, WordPiece, Unigram) encodes every text, lossily: accepted (`engine.explain.lossless`)."""
    from ..families.hf.bpe import NOT_IN_UTF8  # bytes no str encodes to: never required
    from ..families.hf.encoding import HfEncoding

    if enc.family not in ("tiktoken", "tokenizer.json"):
        return None
    if isinstance(enc, HfEncoding):
        model = getattr(enc.spec, "model", None)
        if not hasattr(model, "complete") or model.complete or model.byte_fallback_ids is not None:
            return None  # not the byte-level fast path, or nothing missing: the model handles unknown text
    missing = [b for b in range(256) if bytes([b]) not in enc.mergeable_ranks and b not in NOT_IN_UTF8]
    if not missing:
        return None
    shown = ", ".join(f"0x{b:02x}" for b in missing[:8]) + (" …" if len(missing) > 8 else "")
    return (f"{len(missing)} of the bytes that occur in UTF-8 text have no token ({shown}), so text containing "
            "them cannot be encoded. A byte-level BPE vocabulary must start from every such byte.")


def _encodes(enc: Any, text: str) -> bool:
    """Whether `enc` has ids for `text` (False: a model without an unknown token lacks one of its characters)."""
    from ..families.hf.models.base import UnknownTokenMissingError

    try:
        enc.encode_ordinary(text)
    except UnknownTokenMissingError:
        return False
    return True


def check_usable(enc: Any, source: str) -> None:
    """`UnusableTokenizerError` unless `enc` can encode any text: every byte, and a probe text encodes,
    tokenizes to the same ids and decodes.  A text that does not come back is refused only for tiktoken's
    kind, which has no normalizer: there it means a split pattern that drops text.  Any other family may
    be lossy by design (NFKC, lower-casing, ``<unk>``): accepted, and `engine.explain.lossless` shows how."""
    from ..families.hf.models.base import UnknownTokenMissingError

    problem = _byte_coverage_problem(enc)
    if problem:
        raise UnusableTokenizerError(f"{source}: {problem}")
    probe = PROBE
    try:
        enc.encode_ordinary(probe)
    except UnknownTokenMissingError:
        # A tokenizer.json model without an unknown token (a Unigram with no unk_id: afaanoromo-tokenizer's) has
        # no id for a character its vocabulary lacks.  tokenizers loads such a file and fails only those texts,
        # and so does this engine (the error names the character); the probe keeps the characters it can spell.
        probe = "".join(c for c in PROBE if _encodes(enc, c))
    except (KeyError, ValueError):
        pass  # said below, with the reason
    try:
        ids = enc.encode_ordinary(probe)
        tokens = enc.tokenize(probe, allowed_special=set(), disallowed_special=())
        back = enc.decode(ids)
    except (KeyError, ValueError) as exc:
        raise UnusableTokenizerError(
            f"{source}: the tokenizer fails on a test text ({exc}); check the file and the split pattern") from None
    if [t.id for t in tokens] != ids or (back != probe and enc.family == "tiktoken"):
        raise UnusableTokenizerError(
            f"{source}: the tokenizer does not give back a test text it encoded; check that the split pattern "
            "matches every character (e.g. ends with |\\s+|.) and that the normalizer keeps spaces as they are")


# ------------------------------------------------------- sizes, before building
def check_tekken_size(root: dict, source: str) -> None:
    """Refuse a parsed Tekken ``.json`` whose vocabulary or special tokens pass `engine.formats.limits`."""
    vocab, config = root.get("vocab"), root.get("config")
    if isinstance(vocab, list):
        check_count(len(vocab), "vocabulary entries", source)
        budget = TokenBudget(source)
        for i, item in enumerate(vocab):
            raw = item.get("token_bytes") if isinstance(item, dict) else None
            if isinstance(raw, str):
                budget.add(len(raw) * 3 // 4, f"vocab[{i}]")  # base64: 4 characters per 3 bytes
    if isinstance(config, dict):
        for key, limit in (("default_vocab_size", MAX_TOKEN_ID), ("default_num_special_tokens", MAX_SPECIAL_TOKENS)):
            value = config.get(key)
            if isinstance(value, int):
                check_count(value, key.replace("_", " "), source, limit)
    listed = root.get("special_tokens")
    if isinstance(listed, list):
        check_special_tokens_size((item["token_str"] for item in listed
                                   if isinstance(item, dict) and isinstance(item.get("token_str"), str)),
                                  source, "special_tokens")


def check_sentencepiece_size(model: Any, source: str) -> None:
    """Refuse a parsed SentencePiece model past `engine.formats.limits` (the file itself is at most MAX_FILE_BYTES)."""
    check_count(len(model.pieces), "pieces", source)
    budget = TokenBudget(source)
    for i, (piece, _, _) in enumerate(model.pieces):
        budget.add(len(piece.encode("utf-8")), f"piece {i}")


def _stem(filename: str) -> str:
    # Names are shown everywhere (labels, messages, HTML ids): only safe characters from a file name.
    return re.sub(r"[^A-Za-z0-9_-]+", "-", filename.rsplit("/", 1)[-1].rsplit(".", 1)[0]).strip("-")[:40] or "uploaded"


def _what_it_is(data: bytes, filename: str) -> FileKind:
    """The kind of an upload from its content (a JSON file parsed within `engine.formats.limits` to tell which)."""
    return _read_kind(data, filename)[0]


def _read_kind(data: bytes, filename: str) -> tuple[FileKind, Any]:
    """`_what_it_is` and, for a JSON file, the parsed JSON it was told from (None otherwise): a 33 MB
    tokenizer.json is parsed once, not again to load it."""
    found = sniff(data)
    if found.kind != "json":
        return found, None
    root = load_json_bounded(data, name=filename)
    return describe_json(root), root


def _check_kind(kind: str, data: bytes, filename: str) -> None:
    """`WrongFileKindError` saying what the file is when its content is plainly another kind than `kind`."""
    found = sniff(data)
    if found.kind == kind or found.kind in ("text", "binary") or found.guessed:
        return  # the parser says what is wrong, naming the line
    if kind == "json":  # a tokenizer.json or Tekken upload: which JSON file it is, the caller tells
        raise WrongFileKindError(filename, "a JSON file", found.title, found.how_to_upload())
    found = _what_it_is(data, filename)
    if found.kind != kind:
        raise WrongFileKindError(filename, KIND_TITLES[kind], found.title, found.how_to_upload())


def _known_rank_file(data: bytes, filename: str) -> Any:
    """A rank file that is byte for byte a shipped model's (Llama 3's tokenizer.model is one): that model's
    encoding -- split pattern, special tokens, id offset -- under an upload name; None for any other file."""
    from ..families.tiktoken_models.encoding import ModelEncoding, _first_ranks
    from ..families.tiktoken_models.specs import MODEL_SPECS

    sha = hashlib.sha256(data).hexdigest()
    spec = next((spec for spec in MODEL_SPECS.values() if spec.file[1] == sha), None)
    if spec is None:
        return None
    ranks = parse_tiktoken_bpe(data, source=filename)
    if spec.n_ranks is not None:
        ranks = _first_ranks(ranks, spec.n_ranks, filename)
    specials = {tok: spec.special_start + i for i, tok in enumerate(spec.specials)}
    return ModelEncoding(f"{_stem(filename)}-{spec.name}-{sha[:8]}", pat_str=spec.pat_str, ranks=ranks,
                         special_tokens=specials, eot=spec.eot, id_offset=spec.id_offset,
                         normalization=spec.normalization, presplit=spec.presplit)


def _load_model_file(kind: str, filename: str, data: bytes, root: Any = None) -> Any:
    """A tokenizer.json, SentencePiece or Tekken file -> its encoding: what it is and its sizes checked first.
    `root`: the JSON file already parsed (by `_read_kind`), or None to parse it here."""
    name = f"{_stem(filename)}-{short_hash(kind, data)}"
    if kind in ("tokenizer.json", "tekken"):
        _check_kind("json", data, filename)
        if root is None:
            root = load_json_bounded(data, name=filename)  # depth and size counted before json.loads builds anything
        found = describe_json(root)
        if found.kind != kind:
            raise WrongFileKindError(filename, KIND_TITLES[kind], found.title, found.how_to_upload())
    if kind == "tokenizer.json":
        from ..families.hf.load import encoding_from_root

        return encoding_from_root(root, name, filename)  # byte-level BPE's fast path, or the general pipeline
    if kind == "tekken":
        from ..families.tiktoken_models.tekken import load_tekken

        check_tekken_size(root, filename)
        return load_tekken(root, name=name, source=filename)
    from ..families.sentencepiece.encoding import SentencePieceEncoding
    from ..families.sentencepiece.model_proto import parse_model_proto

    if sniff(data).kind == "tiktoken":  # Llama 3's "tokenizer.model" is a rank file, not a ModelProto
        known = _known_rank_file(data, filename)
        if known is not None:
            return known
        lines = count_lines(data)
        raise WrongFileKindError(
            filename, KIND_TITLES["sentencepiece"], f"{KIND_TITLES['tiktoken']}, {lines:,} lines",
            "upload it as 'tiktoken rank file' and pick the model's split pattern (Llama 3 used cl100k_base's); "
            "its special tokens go in the box beside it")
    _check_kind(kind, data, filename)
    model = parse_model_proto(data, filename)
    check_sentencepiece_size(model, filename)
    return SentencePieceEncoding(name, model, source=filename)


def load_tokenizer(
    kind: str,
    main_file: tuple[str, bytes],
    encoder_json: tuple[str, bytes] | None = None,
    pat_str: str | None = None,
    special_tokens: list[str] | tuple[str, ...] = (),
) -> Any:
    """An encoding from an uploaded tokenizer; ValueError naming the file and line for bad input.

    `kind` is one of `KINDS`: a tiktoken rank file, GPT-2's vocab.bpe (+ `encoder_json`), a
    minbpe ``.model``, a ``tokenizer.json``, a SentencePiece ``.model`` or a Tekken ``.json``
    (`MODEL_KINDS` carry their own split and special tokens: `pat_str` and `special_tokens`
    are ignored for them).  `pat_str` None means raw bytes (the whole text is one piece).
    Too big: `TokenizerTooLargeError`; unable to encode every text: `UnusableTokenizerError`.
    """
    with gc_paused():  # a big file's tables are built without the collector walking them again and again
        return _load_tokenizer(kind, main_file, encoder_json, pat_str, special_tokens)


def _load_tokenizer(kind: str, main_file: tuple[str, bytes], encoder_json: tuple[str, bytes] | None,
                    pat_str: str | None, special_tokens: list[str] | tuple[str, ...]) -> Any:
    filename, data = main_file
    if kind not in KINDS:
        raise ValueError(f"unknown tokenizer file kind {kind!r}; use one of {', '.join(KINDS)}")
    for name, content in (main_file, *([encoder_json] if encoder_json is not None else [])):
        if len(content) > MAX_FILE_BYTES:
            raise TokenizerTooLargeError(f"{name} is {len(content) / 1e6:.1f} MB; the limit for a tokenizer file is "
                                         f"{MAX_FILE_BYTES / 1e6:.0f} MB. Use a smaller tokenizer.")
    stem = _stem(filename)
    if kind in ("tiktoken", "minbpe", "data_gym"):
        _check_kind(kind, data, filename)
    if kind in ("tokenizer.json", "sentencepiece", "tekken"):
        enc = _load_model_file(kind, filename, data)
        check_usable(enc, filename)
        return enc
    if kind == "minbpe":
        parsed = parse_minbpe_model(data, source=filename)
        enc = Encoding(f"{stem}-{short_hash(data)}", pat_str=parsed.pat_str,
                       mergeable_ranks=dict(parsed.mergeable_ranks),
                       special_tokens=dict(parsed.special_tokens), merges=parsed.merges)
        check_usable(enc, filename)
        return enc
    pattern = RAW_PAT_STR if pat_str is None else pat_str
    check_pattern_size(pattern, filename, "the split pattern")
    if kind == "tiktoken":
        ranks = parse_tiktoken_bpe(data, source=filename)
        special_ids: dict[str, int] = {}
    else:
        if encoder_json is None:
            raise ValueError("upload encoder.json too: it holds the ids (vocab.bpe holds the merges)")
        json_name, json_data = encoder_json
        # encoder.json's ids past the merges are special tokens, e.g. GPT-2's <|endoftext|> 50256
        ranks, special_ids = parse_data_gym_with_specials(data, json_data, vocab_source=filename,
                                                          encoder_source=json_name)
        data = data + json_data
    next_id = max([len(ranks) - 1, *special_ids.values()]) + 1
    for tok in special_tokens:
        if tok not in special_ids:
            special_ids[tok] = next_id
            next_id += 1
    check_special_tokens_size(special_ids, filename, "special tokens")
    check_token_id(next_id - 1, filename, "the last special token")
    name = f"{stem}-{short_hash(data, pattern, json.dumps(special_ids))}"
    enc = Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=special_ids)
    check_usable(enc, filename)
    return enc


# ------------------------------------------------------- any file, its kind read from its content
DETECTED_KINDS = ("tokenizer.json", "tekken", "sentencepiece", "minbpe", "tiktoken", "gguf", "vocab.txt",
                  "vocab.json + merges.txt")


def detect_files(files: list[tuple[str, bytes]]) -> str:
    """Which tokenizer one or two uploaded files hold, from their content (not their names): one of
    `DETECTED_KINDS`; `WrongFileKindError` naming what was found otherwise.  Two files are a
    ``vocab.json`` + ``merges.txt`` pair (GPT-2's ``encoder.json`` + ``vocab.bpe`` are the same formats)."""
    return _detect(files)[0]


def _detect(files: list[tuple[str, bytes]]) -> tuple[str, Any]:
    """`detect_files`, and the parsed JSON of a single JSON file (None otherwise) for `load_files` to build from."""
    if not files:
        raise ValueError("no file given: upload one tokenizer file, or two for a vocab.json + merges.txt pair")
    if len(files) > 2:
        raise ValueError(f"{len(files)} files were given together ({', '.join(name for name, _ in files)}): upload "
                         "one tokenizer file, or two for a vocab.json + merges.txt pair, and remove the others")
    for name, content in files:
        if len(content) > MAX_FILE_BYTES and not content.startswith(b"GGUF"):
            raise TokenizerTooLargeError(f"{name} is {len(content) / 1e6:.1f} MB; the limit for a tokenizer file is "
                                         f"{MAX_FILE_BYTES / 1e6:.0f} MB. Use a smaller tokenizer.")
    read = [_read_kind(data, name) for name, data in files]
    found = [kind for kind, _ in read]
    if len(files) == 2:
        kinds = sorted(f.kind for f in found)
        if kinds == ["data_gym", "encoder.json"]:
            return "vocab.json + merges.txt", None
        raise NotAFilePairError([(files[0][0], found[0].title), (files[1][0], found[1].title)],
                                "a vocab.json + merges.txt pair", "upload two files together only for such a pair; "
                                "otherwise one file at a time")
    (name, _), kind = files[0], found[0]
    if kind.kind in ("tokenizer.json", "tekken", "sentencepiece", "minbpe", "tiktoken", "gguf", "vocab.txt"):
        return kind.kind, read[0][1]
    if kind.kind in ("encoder.json", "data_gym"):
        other = "merges.txt (or vocab.bpe)" if kind.kind == "encoder.json" else "vocab.json (or encoder.json)"
        raise WrongFileKindError(name, "a whole tokenizer", kind.title, f"upload it together with its {other}")
    raise WrongFileKindError(name, "a tokenizer file", kind.title, kind.how_to_upload())


def load_files(files: list[tuple[str, bytes]]) -> Any:
    """An encoding from one or two uploaded files whose kind is read from their content (`detect_files`),
    through the same checks as `load_tokenizer`.  A tiktoken rank file loads only when it is a shipped
    model's (Llama 3's): any other needs its split pattern chosen (`load_tokenizer`)."""
    with gc_paused():  # a big file's tables are built without the collector walking them again and again
        return _load_files(files)


def _load_files(files: list[tuple[str, bytes]]) -> Any:
    kind, root = _detect(files)
    (filename, data) = files[0]
    if kind in ("tokenizer.json", "tekken"):  # `load_tokenizer`'s path, from the JSON detection parsed
        enc = _load_model_file(kind, filename, data, root)
        check_usable(enc, filename)
        return enc
    if kind in ("sentencepiece", "minbpe"):
        return load_tokenizer(kind, files[0])
    if kind == "tiktoken":
        known = _known_rank_file(data, filename)
        if known is None:
            raise WrongFileKindError(filename, "a tokenizer with its split rules", KIND_TITLES["tiktoken"],
                                     "a rank file holds no split pattern: upload it as 'tiktoken rank file' and "
                                     "pick the pattern it was made with")
        return known
    if kind == "gguf":
        enc = _load_gguf(filename, data)
    else:
        from ..families.hf.load import encoding_from_root
        from ..formats.vocab_files import byte_level_bpe_root, wordpiece_root

        if kind == "vocab.txt":
            root = wordpiece_root(data, filename)
        else:
            vocab, merges = sorted(files, key=lambda f: sniff(f[1]).kind != "json")  # vocab.json first
            root = byte_level_bpe_root(vocab[1], merges[1], vocab[0], merges[0])
            filename, data = vocab[0], vocab[1] + b"\0" + merges[1]
        enc = encoding_from_root(root, f"{_stem(filename)}-{short_hash(kind, data)}", filename)
    check_usable(enc, filename)
    return enc


def _load_gguf(filename: str, data: bytes) -> Any:
    """A GGUF file's tokenizer (its header is enough: the weights after it are never read)."""
    try:
        from ..families.gguf import load_gguf
    except ImportError:
        raise UnsupportedModelError(filename, f"this is {KIND_TITLES['gguf']}; GGUF files are not supported (yet)",
                                    "upload the model's tokenizer.json or tokenizer.model instead") from None
    return load_gguf(data, name=f"{_stem(filename)}-{short_hash('gguf', data)}", source=filename)
