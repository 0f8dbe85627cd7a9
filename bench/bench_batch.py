"""encode_batch on 1,000 documents: serial, threads, processes, next to tiktoken; pickle size and time.

    .venv/bin/python bench/bench_batch.py [--docs 1000] [--repeat 3]

Special-token text is encoded as ordinary text (``disallowed_special=()``) everywhere.
Documents: the corpus cases and taylorswift.txt paragraphs from tests/data/corpus,
cycled to --docs documents (each made distinct by a suffix).  tiktoken is built
offline from our shipped ranks (as in tests/oracles/oracle.py).  Times are best of
--repeat, in seconds; "warm" means the engine's piece cache already holds the
pieces (the second pass over the same documents).

Two columns, because a shared VM makes wall time noisy: "wall s", and "CPU s,
critical path" -- this process's CPU time (all its threads) plus, for
processes, the slowest worker's CPU time.  On an idle machine the critical-path
CPU is the wall time for serial and for GIL-bound threads, and a lower bound on
it for processes; tiktoken's Rust threads run in parallel, so its wall time
there is about CPU / threads.

Rows:
- engine serial: `encode_batch(..., num_threads=1)`;
- engine threads N: the documents encoded by a ThreadPoolExecutor(N) calling `encode`
  (what tiktoken does; measured here to show the GIL cost, not used by the engine);
- engine processes N: `engine.tokenizer.batch.encode_parallel` with N workers of the shared pool
  (started before timing; each worker has encoded the batch once, so its cache is warm);
- engine encode_batch default: what `encode_batch(docs)` chooses (num_threads=8);
- tiktoken N threads: `encode_batch(docs, num_threads=N)`.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import pickle
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.tokenizer import batch  # noqa: E402
from engine.sources.openai_public import SPECS  # noqa: E402
from bench.bench_engine import best_of as best  # noqa: E402


def documents(n: int) -> list[str]:
    corpus = ROOT / "tests" / "data" / "corpus"
    cases = [json.loads(line)["text"] for line in (corpus / "cases.jsonl").read_text(encoding="utf-8").split("\n") if line]
    paragraphs = [p for p in (corpus / "taylorswift.txt").read_text(encoding="utf-8").split("\n\n") if p.strip()]
    pool = cases + paragraphs
    pool = [engine.text.repair_surrogates(t) for t in pool]  # a few corpus cases hold lone surrogates
    return [f"{pool[i % len(pool)]} (document {i})" for i in range(n)]


def best_wall_cpu(fn, repeat: int) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds on the critical path) over `repeat` runs.

    `fn` returns the extra CPU seconds spent outside this process on the critical
    path (the slowest worker), or None.  This process's CPU counts all its threads.
    """
    walls, cpus = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        extra = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0 + (extra or 0.0))
    return min(walls), min(cpus)


def _timed_chunk(enc, texts: list[str], allowed: frozenset[str]) -> tuple[float, list[list[int]]]:
    start = time.process_time()
    ids = batch.encode_serial(enc, texts, allowed)
    return time.process_time() - start, ids


def processes(enc, docs: list[str], n: int) -> tuple[float, list[list[int]]]:
    """`engine.tokenizer.batch.encode_parallel`, instrumented: the slowest worker's CPU seconds, and the ids."""
    size = -(-len(docs) // n)
    futures = [batch._pool().submit(_timed_chunk, enc, docs[i : i + size], frozenset())
               for i in range(0, len(docs), size)]
    results = [f.result() for f in futures]
    return max(cpu for cpu, _ in results), [ids for _, chunk in results for ids in chunk]


def tiktoken_encoding(name: str):
    try:
        import tiktoken
    except ImportError:
        return None
    enc = engine.get_encoding(name)
    return tiktoken.Encoding(name, pat_str=enc.pat_str, mergeable_ranks=dict(enc.mergeable_ranks),
                             special_tokens=dict(enc.special_tokens))


def bench_batch(name: str, docs: list[str], repeat: int) -> None:
    enc = engine.get_encoding(name)
    chars = sum(map(len, docs))
    mb = len("".join(docs).encode("utf-8")) / 1e6
    print(f"\n## encode_batch, {name}: {len(docs):,} documents, {chars:,} characters ({mb:.1f} MB), "
          f"{batch.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n")
    print("| how | workers | wall s | CPU s, critical path | MB per CPU s |")
    print("|---|---:|---:|---:|---:|")

    def row(how: str, workers: int | str, wall: float, cpu: float) -> None:
        print(f"| {how} | {workers} | {wall:.3f} | {cpu:.3f} | {mb / cpu:.1f} |")

    enc.clear_cache()
    w0, c0 = time.perf_counter(), time.process_time()
    expected = enc.encode_batch(docs, num_threads=1, disallowed_special=())
    row("engine serial, cold cache", 1, time.perf_counter() - w0, time.process_time() - c0)
    row("engine serial, warm cache", 1,
        *best_wall_cpu(lambda: enc.encode_batch(docs, num_threads=1, disallowed_special=()) and None, repeat))
    encode = functools.partial(enc.encode, disallowed_special=())
    for n in (2, 4):
        def threads(n=n):
            with ThreadPoolExecutor(n) as pool:
                return list(pool.map(encode, docs))
        assert threads() == expected
        row("engine threads (GIL), warm", n, *best_wall_cpu(lambda: threads() and None, repeat))
    for n in (2, 4):
        assert processes(enc, docs, n)[1] == expected  # starts the pool, warms the workers' caches
        row("engine processes, warm workers", n, *best_wall_cpu(lambda n=n: processes(enc, docs, n)[0], repeat))
    ref = tiktoken_encoding(name)
    if ref is None:
        print("\n(tiktoken not installed: no reference rows)")
        return
    assert ref.encode_batch(docs, disallowed_special=()) == expected
    for n in (1, 2, 4):
        wall, cpu = best_wall_cpu(lambda n=n: ref.encode_batch(docs, num_threads=n, disallowed_special=()) and None,
                                  repeat)
        row("tiktoken encode_batch (Rust threads; CPU = all threads)", n, wall, cpu)


def bench_small_batches(name: str, repeat: int) -> None:
    """Where serial beats processes: the cut-off behind engine.tokenizer.batch.PARALLEL_MIN_CHARS."""
    enc = engine.get_encoding(name)
    print(f"\n## serial vs 2 processes by batch size, {name} (warm caches; CPU s on the critical path)\n")
    print("| documents | characters | serial wall | serial CPU | 2 processes wall | 2 processes CPU |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in (50, 200, 1000, 4000):
        docs = documents(n)
        enc.encode_batch(docs, num_threads=1, disallowed_special=())
        processes(enc, docs, 2)
        serial = best_wall_cpu(lambda: enc.encode_batch(docs, num_threads=1, disallowed_special=()) and None, repeat)
        parallel = best_wall_cpu(lambda: processes(enc, docs, 2)[0], repeat)
        print(f"| {n:,} | {sum(map(len, docs)):,} | {serial[0]:.3f} | {serial[1]:.3f} "
              f"| {parallel[0]:.3f} | {parallel[1]:.3f} |")


def bench_decode(name: str, docs: list[str], repeat: int) -> None:
    enc = engine.get_encoding(name)
    ids = enc.encode_batch(docs, num_threads=1, disallowed_special=())
    serial = best(lambda: enc.decode_batch(ids), repeat)

    def threads():
        with ThreadPoolExecutor(2) as pool:
            return list(pool.map(enc.decode, ids))
    print(f"\n## decode_batch, {name}: serial {serial:.3f} s, 2 threads {best(threads, repeat):.3f} s "
          f"({sum(map(len, ids)):,} ids)")


def bench_pickle(repeat: int) -> None:
    print("\n## pickle per encoding\n")
    print("| encoding | pickle bytes | dumps ms | loads ms |")
    print("|---|---:|---:|---:|")
    trained = engine.train_bpe((ROOT / "tests/data/corpus/taylorswift.txt").read_text(encoding="utf-8"), 512,
                               pat_str=engine.tokenizer.patterns.CL100K_PAT_STR, special_tokens=["<|endoftext|>"])
    base = engine.get_encoding("o200k_base")
    upload = engine.Encoding("uploaded-o200k", pat_str=base.pat_str, mergeable_ranks=dict(base.mergeable_ranks),
                             special_tokens=dict(base.special_tokens))
    cases = [(name, engine.get_encoding(name)) for name in SPECS] + [
        ("trained (512, minbpe-style)", trained), ("uploaded o200k ranks", upload)]
    for label, enc in cases:
        data = pickle.dumps(enc)
        dumps = best(lambda: pickle.dumps(enc), repeat)
        loads = best(lambda: pickle.loads(data), repeat)
        print(f"| {label} | {len(data):,} | {dumps * 1e3:.2f} | {loads * 1e3:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--encodings", default="cl100k_base,o200k_base")
    args = parser.parse_args()
    docs = documents(args.docs)
    for name in args.encodings.split(","):
        bench_batch(name, docs, args.repeat)
    bench_small_batches("cl100k_base", args.repeat)
    bench_decode("cl100k_base", docs, args.repeat)
    bench_pickle(args.repeat)
    batch.shutdown_pool()


if __name__ == "__main__":
    main()
