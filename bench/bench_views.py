"""Time what the Merge tree, BPE steps and Vocabulary views ask of the engine, on o200k_base (200k tokens).

Run once:  python bench/bench_views.py
Each line is the median of a few runs (cold = first call in a fresh process).
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine  # noqa: E402
from engine.explain import vocab  # noqa: E402
from playground.render.tree import bpe_parts, layout_merge_tree, merge_tree_svg  # noqa: E402


def timed(label: str, fn, repeat: int = 5) -> object:
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    print(f"{label:<58} {statistics.median(times) * 1000:9.1f} ms   (min {min(times) * 1000:.1f})")
    return result


def once(label: str, fn) -> object:
    t = time.perf_counter()
    result = fn()
    print(f"{label:<58} {(time.perf_counter() - t) * 1000:9.1f} ms   (once)")
    return result


def main() -> None:
    name = "o200k_base"
    enc = once(f"load {name}", lambda: engine.get_encoding(name))
    once("merge recovery, cold (enc.merges, first call)", lambda: enc.merges)
    timed("merge recovery, warm (enc.merges, cached: a dict copy)", lambda: enc.merges)
    fresh = engine.Encoding("o200k_copy", pat_str=enc.pat_str, mergeable_ranks=dict(enc.mergeable_ranks),
                            special_tokens=dict(enc.special_tokens))
    once("merge recovery, cold again (a fresh Encoding)", lambda: fresh.merges)

    long_id = max(enc.mergeable_ranks.items(), key=lambda kv: (len(kv[0]), -kv[1]))[1]
    tree = timed(f"merge tree of the longest token (id {long_id}, 128 bytes)", lambda: enc.merge_tree(long_id))
    timed("  + laid out and drawn as SVG, all 255 boxes", lambda: merge_tree_svg(layout_merge_tree(tree)))
    timed("  + laid out and drawn, folded to the default 31 boxes",
          lambda: merge_tree_svg(layout_merge_tree(tree, max_depth=4, left_right=True)))
    word = enc.encode_single_token(" unbelievable")
    timed("merge tree + SVG of ' unbelievable'", lambda: merge_tree_svg(layout_merge_tree(enc.merge_tree(word))))

    for piece in ("a" * 5000, "a" * 100_000):
        trace = timed(f"bpe_trace of {len(piece):,} x 'a'", lambda: enc.bpe_trace(piece), repeat=3)
        n = len(trace.steps)
        timed(f"  replay: parts_at(k) for k = 0, n/2, n ({n:,} steps)",
              lambda: [trace.parts_at(k) for k in (0, n // 2, n)], repeat=3)
        timed("  one slider move: parts_at(n/2) + boxes HTML (160 drawn)",
              lambda: bpe_parts(trace.parts_at(n // 2)[:160], [None] * 160), repeat=3)

    infos = once("vocabulary table, cold (token_infos: 200k rows)", lambda: vocab.token_infos(enc))
    print(f"{'':<58} {len(infos):,} tokens")
    timed("substring search 'ing' over the whole vocabulary", lambda: engine.explain.vocab.search_substring(enc, "ing"))
    timed("substring search 'ING', ignore case", lambda: engine.explain.vocab.search_substring(enc, "ING", ignore_case=True))
    timed(r"regex search ^\s?\d+$ over the whole vocabulary", lambda: engine.explain.vocab.search_regex(enc, r"^\s?\d+$"), repeat=3)
    try:
        once("catastrophic regex (=|=)+x (0.25 s per token, 2 s overall)", lambda: engine.explain.vocab.search_regex(enc, "(=|=)+x"))
    except TimeoutError:
        print(f"{'':<58} -> RegexTimeoutError, as intended")
    timed("families: containing(' the') + contained(longest token)", lambda: (
        engine.explain.vocab.containing(enc, enc.encode_single_token(" the")), engine.explain.vocab.contained(enc, long_id)))
    timed("quick filters: invalid UTF-8, leading space, digits, longest", lambda: [
        engine.explain.vocab.filter_tokens(enc, f) for f in ("invalid_utf8", "leading_space", "digits")] + [engine.explain.vocab.longest(enc)], repeat=3)


if __name__ == "__main__":
    main()
