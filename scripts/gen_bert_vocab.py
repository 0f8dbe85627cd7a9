"""Write engine/data/bert_base_uncased_vocab.txt.gz: Google's bert-base-uncased ``vocab.txt``, read back from
the BGE vocabulary that llama.cpp ships (``ggml-vocab-bert-bge.gguf`` in the llama-cpp-python 0.3.36 source
package; BAAI's bge-*-en models use BERT's uncased vocabulary unchanged).

llama.cpp's converter (``convert_hf_to_gguf.py``, BertModel) stores each WordPiece token with a phantom
space instead of the ``##`` mark: a word-start token ``the`` becomes ``▁the``, a continuation ``##ing``
becomes ``ing``, and the bracketed specials (``[PAD]``, ``[unused0]``) stay as they are.  `vocab_txt`
undoes that; the result's sha256 is the published vocab.txt's (07eced37…2038a3), which the script checks.

Run:  python scripts/gen_bert_vocab.py
"""
from __future__ import annotations

import gzip
import hashlib
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.families.hf.builtins import VOCAB_TXT_BUILTINS  # noqa: E402
from engine.formats.tiktoken_files import DATA_DIR  # noqa: E402

_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}


def gguf_tokens(data: bytes) -> list[str]:
    """``tokenizer.ggml.tokens`` of a GGUF (v2/v3) file: the header's key-value pairs read in order."""
    if data[:4] != b"GGUF" or struct.unpack_from("<I", data, 4)[0] not in (2, 3):
        raise ValueError("not a GGUF v2/v3 file")
    _tensors, n_kv = struct.unpack_from("<QQ", data, 8)
    pos = 24

    def string() -> str:
        nonlocal pos
        (n,) = struct.unpack_from("<Q", data, pos)
        pos += 8 + n
        return data[pos - n : pos].decode("utf-8")

    def value(kind: int):
        nonlocal pos
        if kind == 8:
            return string()
        if kind == 9:
            item, n = struct.unpack_from("<IQ", data, pos)
            pos += 12
            return [value(item) for _ in range(n)]
        fmt = "<" + _SCALARS[kind]
        (v,) = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return v

    for _ in range(n_kv):
        key = string()
        (kind,) = struct.unpack_from("<I", data, pos)
        pos += 4
        found = value(kind)
        if key == "tokenizer.ggml.tokens":
            return found
    raise ValueError("no tokenizer.ggml.tokens in this GGUF file")


def vocab_txt(tokens: list[str]) -> bytes:
    """BERT's vocab.txt from llama.cpp's phantom-space spelling of it."""
    lines = []
    for tok in tokens:
        if tok.startswith("▁"):
            lines.append(tok[1:])
        elif len(tok) > 2 and tok.startswith("[") and tok.endswith("]"):
            lines.append(tok)
        else:
            lines.append("##" + tok)
    return ("\n".join(lines) + "\n").encode("utf-8")


def main() -> None:
    from tests.reference_packages import member

    for name, spec in VOCAB_TXT_BUILTINS.items():
        gguf = member(spec.original.package, spec.original.path)
        if hashlib.sha256(gguf).hexdigest() != spec.original.sha256:
            raise SystemExit(f"{spec.original.path}: not the pinned file")
        body = vocab_txt(gguf_tokens(gguf))
        digest = hashlib.sha256(body).hexdigest()
        if digest != spec.file[1]:
            raise SystemExit(f"{name}: the vocabulary read back has sha256 {digest}, not {spec.file[1]}")
        (DATA_DIR / spec.file[0]).write_bytes(gzip.compress(body, 9, mtime=0))
        print(name, spec.file[0], digest)


if __name__ == "__main__":
    main()
