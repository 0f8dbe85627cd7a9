"""SuperBPE training time in pure Python (engine.training.superbpe), run by hand; the machine is shared.

For corpus sizes cut from taylorswift.txt (185 kB; repeated for the 1 MB size, which the Train page
allows), at vocabulary 1024 and 4096 with the transition at 80%:

* ``fast``: `train_superbpe` (both stages);
* ``lab``: what the Train page's job runs (`engine.training.lab.train_superbpe_lab`: plain BPE and SuperBPE
  on nine tenths, both encoders on the held-out tenth);
* ``reference``: `train_superbpe_reference` (recounts every pair every step) on the two smallest cases only.

Also prints the bytes/token of plain BPE and SuperBPE on the held-out tenth.  Best of 3 for the smaller runs.

    .venv/bin/python bench/bench_superbpe.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.training import lab  # noqa: E402
from engine.training.superbpe import train_superbpe, train_superbpe_reference, transition_merges  # noqa: E402

TAYLOR = (ROOT / "tests" / "data" / "corpus" / "taylorswift.txt").read_text(encoding="utf-8")
SIZES = (20_000, 185_000, 1_000_000)
VOCABS = (1024, 4096)


def timed(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    print(f"{'chars':>9} {'vocab':>5} {'t':>5} {'fast s':>7} {'lab s':>7} {'ref s':>7} "
          f"{'plain B/t':>9} {'super B/t':>9} {'superwords':>10}")
    for size in SIZES:
        text = (TAYLOR * (size // len(TAYLOR) + 1))[:size]
        for vocab in VOCABS:
            t = transition_merges(vocab, 0.8)
            repeat = 3 if size <= 185_000 and vocab == 1024 else 1
            fast, _ = timed(lambda: train_superbpe(text, vocab, t), repeat)
            whole, result = timed(lambda: lab.train_superbpe_lab(text, vocab, 0.8), 1)
            ref = "-"
            if size == SIZES[0] and vocab == VOCABS[0]:
                ref = f"{timed(lambda: train_superbpe_reference(text, vocab, t), 1)[0]:.1f}"
            c = result.superbpe
            print(f"{size:>9,} {vocab:>5} {t:>5} {fast:>7.2f} {whole:>7.2f} {ref:>7} "
                  f"{c.plain_bytes_per_token:>9.3f} {c.super_bytes_per_token:>9.3f} {len(c.superwords):>10}",
                  flush=True)


if __name__ == "__main__":
    main()
