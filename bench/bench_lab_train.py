"""Training speed of the lab's trainers against their references (run by hand; the machine is shared).

Parity-aware BPE (engine.training.parity) vs tokenizers' ParityBpeTrainer, WordPiece
(engine.training.wordpiece) vs tokenizers' WordPieceTrainer, on

* the Arena's 32 translations (one sentence per language, its own dev set), as the Train page uses them;
* three "languages" cut from taylorswift.txt (its lines, the same upper-cased, the same with each word
  reversed; the first 100 lines of each as the dev set) -- parity only;
* taylorswift.txt itself -- WordPiece only.

Best of 3, in this process; the reference runs with its default thread pool.  Also checks that ours and
the reference agree on each case (merges equal for parity; for WordPiece, the number of entries that
differ from one reference run, which varies run to run).

    .venv/bin/python bench/bench_lab_train.py
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

from engine.explain.arena import language_samples  # noqa: E402
from engine.training.parity import train_parity_merges  # noqa: E402
from engine.training.wordpiece import train_wordpiece  # noqa: E402

TAYLOR = ROOT / "tests" / "data" / "corpus" / "taylorswift.txt"
REPEAT = 3


def best(fn) -> tuple[float, object]:
    seconds, out = float("inf"), None
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        out = fn()
        seconds = min(seconds, time.perf_counter() - t0)
    return seconds, out


def ref_parity(train, dev, n):
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.ParityBpeTrainer(num_merges=n, show_progress=False)
    trainer.train_from_iterator(tok, train_iterators=[iter(t) for t in train], dev_iterators=[iter(d) for d in dev])
    return [tuple(m) for m in json.loads(tok.to_str())["model"]["merges"]]


def ref_wordpiece(texts, size):
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=size, special_tokens=["[UNK]"],
                                                             show_progress=False))
    return set(json.loads(tok.to_str())["model"]["vocab"])


def main() -> None:
    arena = [[s.text] for s in language_samples()]
    lines = [line for line in TAYLOR.read_text(encoding="utf-8").splitlines() if line]
    three = [lines, [line.upper() for line in lines], [" ".join(w[::-1] for w in line.split()) for line in lines]]
    print(f"{'case':48} {'ours s':>8} {'ref s':>8}  agreement")
    for label, train, dev, n in [("parity, Arena 32 languages, 256 merges", arena, arena, 256),
                                 ("parity, Arena 32 languages, 768 merges", arena, arena, 768),
                                 (f"parity, taylorswift x3 ({sum(map(len, lines)) * 3:,} chars), 2000 merges",
                                  three, [t[:100] for t in three], 2000)]:
        ours_s, ours = best(lambda: [m.pair for m in train_parity_merges(train, n, dev_texts=dev).merges])
        ref_s, ref = best(lambda: ref_parity(train, dev, n))
        print(f"{label:48} {ours_s:8.2f} {ref_s:8.3f}  merges {'equal' if ours == ref else 'DIFFER'}")
    flat = [t[0] for t in arena]
    for label, texts, size in [("WordPiece, Arena 32 languages, 1000", flat, 1000),
                               ("WordPiece, taylorswift, 4000", lines, 4000)]:
        ours_s, ours = best(lambda: set(train_wordpiece(texts, size).vocab))
        ref_s, ref = best(lambda: ref_wordpiece(texts, size))
        print(f"{label:48} {ours_s:8.2f} {ref_s:8.3f}  {len(ours ^ ref)} entries differ from one reference run")


if __name__ == "__main__":
    main()
