"""Benchmark the tokenizer.json family (`deepseek-v4`) against Hugging Face `tokenizers`.  Run by hand.

    python bench/bench_hf_tokenizer.py            # all
    python bench/bench_hf_tokenizer.py --quick    # fewer repeats

Both sides encode the same texts with special tokens as plain text
(`tokenizers` with ``encode_special_tokens = True``, ``add_special_tokens=False``)
and the ids are checked equal first.  Corpora are bench_engine.py's (English,
code, multilingual).  Each corpus is measured as one document, and as a list of
~2 kB documents encoded the way a user would: one `encode` call per document,
and (tokenizers only) one `encode_batch` call, which uses every core.

* cold: our piece cache and split memos emptied; tokenizers freshly loaded (its BPE cache empty);
* warm: the same text encoded a second time;
* load: a fresh process, `engine.get_encoding("deepseek-v4")` vs `Tokenizer.from_file` (import excluded);
* long pieces: one 100,000-character piece (spaces, one letter word, é).

Timings are CPU seconds of this process (`time.process_time`, all threads), not
wall time: the machines this runs on are shared, and CPU time is what a busy
machine does not inflate.  The load average is printed with the tables.
"""
from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import engine  # noqa: E402
import bench_engine  # noqa: E402
from bench_engine import corpora  # noqa: E402
from engine.families.hf.builtins import BUILTIN_FILES  # noqa: E402
from engine.formats.tiktoken_files import read_data_file  # noqa: E402

NAME = "deepseek-v4"


best_of = functools.partial(bench_engine.best_of, clock=time.process_time)  # least CPU time of `repeats` runs


def reference_file() -> Path:
    path = Path(tempfile.gettempdir()) / "bench_deepseek_v4_tokenizer.json"
    path.write_bytes(read_data_file(*BUILTIN_FILES[NAME].json))
    return path


def fresh_reference(path: Path):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    tok.encode_special_tokens = True
    return tok


def documents(text: str, size: int = 2000) -> list[str]:
    docs, start = [], 0
    while start < len(text):
        end = text.find("\n", start + size)
        end = len(text) if end < 0 else end + 1
        docs.append(text[start:end])
        start = end
    return docs


def cold_reset(enc) -> None:
    enc.clear_cache()
    for memo in enc.spec.pre_tokenizer._memos:
        memo.clear()


def throughput(repeats: int) -> None:
    enc = engine.get_encoding(NAME)
    path = reference_file()
    ref = fresh_reference(path)
    print(f"\n## Throughput, MB per CPU second (best of {repeats}); load average {os.getloadavg()[0]:.1f}\n")
    print("| corpus | calls | ours cold | ours warm | tokenizers cold | tokenizers warm | tokenizers encode_batch warm | warm ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for corpus, text in corpora().items():
        mb = len(text.encode("utf-8")) / 1e6
        docs = documents(text)
        assert enc.encode_ordinary(text) == ref.encode(text, add_special_tokens=False).ids, f"{corpus}: ids differ"
        for calls, items in (("1 document", [text]), (f"{len(docs)} documents", docs)):
            def ours():
                for d in items:
                    enc.encode_ordinary(d)

            def theirs(tok):
                for d in items:
                    tok.encode(d, add_special_tokens=False)

            cold_times = []
            for _ in range(repeats):
                cold_reset(enc)
                t = time.process_time()
                ours()
                cold_times.append(time.process_time() - t)
            ours_cold = min(cold_times)
            ours_warm = best_of(ours, repeats)
            ref_cold_times = []
            for _ in range(repeats):
                tok = fresh_reference(path)
                t = time.process_time()
                theirs(tok)
                ref_cold_times.append(time.process_time() - t)
            ref_cold = min(ref_cold_times)
            ref_warm = best_of(lambda: theirs(ref), repeats)
            batch = best_of(lambda: ref.encode_batch(items, add_special_tokens=False), repeats)
            print(f"| {corpus} ({mb:.2f} MB) | {calls} | {mb / ours_cold:.2f} | {mb / ours_warm:.2f} | {mb / ref_cold:.2f} | "
                  f"{mb / ref_warm:.2f} | {mb / batch:.2f} | {ref_warm / ours_warm:.0%} |")


def long_pieces() -> None:
    enc = engine.get_encoding(NAME)
    ref = fresh_reference(reference_file())
    print(f"\n## One 100,000-character piece, CPU seconds (cold); load average {os.getloadavg()[0]:.1f}\n")
    print("| piece | ours | tokenizers |")
    print("|---|---|---|")
    word = "".join(random.Random(0).choices("abcdefghijklmnopqrstuvwxyz", k=100_000))
    for label, text in (("100k spaces", " " * 100_000), ("100k-letter word", word), ("100k x 'é'", "é" * 100_000),
                        ("100k digits", "7" * 100_000)):
        cold_reset(enc)
        t = time.process_time()
        ours = enc.encode_ordinary(text)
        mine = time.process_time() - t
        t = time.process_time()
        theirs = ref.encode(text, add_special_tokens=False).ids
        other = time.process_time() - t
        assert ours == theirs, label
        print(f"| {label} | {mine:.3f} | {other:.3f} |")


def load_times(repeats: int) -> None:
    path = reference_file()
    ours = ("import time, engine; t=time.process_time(); e=engine.get_encoding('deepseek-v4'); "
            "t1=time.process_time(); e.encode('hello world'); t2=time.process_time(); print(t1-t, t2-t1)")
    theirs = ("import time; from tokenizers import Tokenizer; t=time.process_time(); "
              f"tok=Tokenizer.from_file({str(path)!r}); t1=time.process_time(); tok.encode('hello world'); "
              "t2=time.process_time(); print(t1-t, t2-t1)")
    imports = "import time; t=time.process_time(); import engine; print(time.process_time()-t, 0)"
    print(f"\n## Load time in a fresh process, CPU seconds (median and best of {repeats}); load average {os.getloadavg()[0]:.1f}\n")
    print("| what | load median | load best | first encode median |")
    print("|---|---|---|---|")
    for label, code in (("import engine", imports), ("ours: get_encoding('deepseek-v4')", ours),
                        ("tokenizers: Tokenizer.from_file", theirs)):
        runs = []
        for _ in range(repeats):
            out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
            runs.append(tuple(map(float, out.stdout.split())))
        loads = [r[0] for r in runs]
        print(f"| {label} | {statistics.median(loads):.3f} | {min(loads):.3f} | {statistics.median(r[1] for r in runs):.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    load_times(repeats)
    long_pieces()
    throughput(repeats)


if __name__ == "__main__":
    main()
