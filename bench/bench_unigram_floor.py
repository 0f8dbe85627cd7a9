"""How fast *any* pure-Python SentencePiece Unigram encoder could be, against ``sentencepiece`` (C++).  Run by hand.

    python bench/bench_unigram_floor.py

Issue 23 asks the SentencePiece Unigram ``.model`` family for warm >= 100% and cold >= 50% of
``sentencepiece``.  This bench measures, on bench_families' text (English + multilingual) and its file
(sentencepiece's own ``test_model.model``), two lower bounds that leave out everything but the one step no
design can skip:

* **warm floor**: the text cut into words at spaces (one ``str.replace`` and one regex ``findall``) and one
  dict lookup per word, the ids chained -- no normalization, no lattice, no float32 bookkeeping.  Any
  encoder that answers a repeated word from a memo does at least this;
* **cold floor**: the same, plus a plain float64 Viterbi (the textbook double loop over start and end
  positions, one dict lookup per substring up to the longest piece) over each distinct word once -- what an
  encoder with empty caches must at least run in Python.

Both floors are optimistic (their ids are not checked: nmt_nfkc normalization and unknown characters are
skipped); our encoder's own times are shown beside them.  Timings are CPU seconds, best of several runs.
"""
from __future__ import annotations

import gc
import math
import os
import re
import sys
import time
from itertools import chain
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_engine  # noqa: E402
from engine.sources.uploads import load_files  # noqa: E402
from tests.reference_packages import member  # noqa: E402

CLOCK = time.process_time
WORDS = re.compile("▁[^▁]*|[^▁]+")


def best(fn, repeats: int = 7) -> float:
    out = math.inf
    for _ in range(repeats):
        gc.collect()
        t = CLOCK()
        fn()
        out = min(out, CLOCK() - t)
    return out


def viterbi(word: str, scores: dict[str, float], longest: int) -> list[str]:
    """The best-scoring cut of `word` into pieces of `scores` (float64; a character without a piece is one unknown)."""
    n = len(word)
    best_total = [0.0] + [-math.inf] * n
    back = [0] * (n + 1)
    for i in range(n):
        here = best_total[i]
        if here == -math.inf:
            continue
        for j in range(i + 1, min(n, i + longest) + 1):
            s = scores.get(word[i:j])
            if s is not None and here + s > best_total[j]:
                best_total[j] = here + s
                back[j] = i
        if best_total[i + 1] == -math.inf:  # an unknown character
            best_total[i + 1] = here - 20.0
            back[i + 1] = i
    out, j = [], n
    while j:
        out.append(word[back[j]:j])
        j = back[j]
    return out[::-1]


def main() -> None:
    import sentencepiece

    data = member("sentencepiece", "sentencepiece-0.2.1/test/test_model.model")
    corpora = bench_engine.corpora()
    text = corpora["english"][:100_000] + "\n" + corpora["multilingual"][:100_000]
    sp = sentencepiece.SentencePieceProcessor(model_proto=data)
    scores = {sp.id_to_piece(i): sp.get_score(i) for i in range(sp.get_piece_size())
              if not (sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i))}
    longest = max(map(len, scores))
    enc = load_files([("test_model.model", data)])

    spaced = "▁" + text.replace(" ", "▁")
    memo = {w: (1, 2) for w in WORDS.findall(spaced)}

    def warm_floor() -> list[int]:
        words = WORDS.findall("▁" + text.replace(" ", "▁"))
        return list(chain.from_iterable(map(memo.__getitem__, words)))

    def cold_floor() -> list[int]:
        words = WORDS.findall("▁" + text.replace(" ", "▁"))
        fresh = {w: viterbi(w, scores, longest) for w in set(words)}
        return list(chain.from_iterable(map(fresh.__getitem__, words)))

    def ours_cold() -> None:
        enc.clear_cache()
        enc.encode_ordinary(text)

    enc.encode_ordinary(text)
    rows = [
        ("sentencepiece (C++)", best(lambda: sp.encode(text))),
        ("ours, warm", best(lambda: enc.encode_ordinary(text))),
        ("ours, cold", best(ours_cold, 3)),
        ("warm floor: split + one dict lookup a word", best(warm_floor)),
        ("cold floor: + a float64 Viterbi a distinct word", best(cold_floor, 3)),
    ]
    ref = rows[0][1]
    print(f"{len(text):,} characters, {len(memo):,} distinct words, {len(WORDS.findall(spaced)):,} words; "
          f"CPU seconds, best of several; load average {os.getloadavg()[0]:.2f}")
    print(f"{'':50} {'ms':>8} {'% of sentencepiece speed':>26}")
    for label, seconds in rows:
        print(f"{label:50} {1000 * seconds:8.1f} {100 * ref / seconds:25.0f}%")


if __name__ == "__main__":
    main()
