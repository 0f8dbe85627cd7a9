"""Unigram training speed and closeness: engine.training.unigram vs sentencepiece 0.2.3 vs tokenizers 0.23.3.

Each corpus is trained by ours, by sentencepiece's trainer (model_type=unigram,
normalization_rule_name=identity, num_threads=1, fixed seed) and by tokenizers' UnigramTrainer
(Metaspace pre-tokenizer, the same shrinking factor, piece length and EM rounds).  Printed: seconds
(best of --repeat, the machine is shared), pieces shared with sentencepiece, the largest score
difference on shared pieces, and tokenizers' distance to both.

    .venv/bin/python bench/bench_unigram_train.py [--repeat 2] [--quick]

`--quick` runs only the two small corpora.  Run by hand; the tests hold the closeness, not the speed.
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.families.sentencepiece.training import train_unigram  # noqa: E402

TAYLOR = ROOT / "tests" / "data" / "corpus" / "taylorswift.txt"


def corpora(quick: bool) -> list[tuple[str, str, int, bool]]:
    taylor = TAYLOR.read_text(encoding="utf-8")
    languages = json.loads((ROOT / "engine" / "data" / "languages.json").read_text(encoding="utf-8"))["languages"]
    multi = "\n".join(x["text"] for x in languages) * 3
    out = [("languages x3 (12 kB)", multi, 650, False),
           ("taylorswift 20 kB", taylor.encode()[:20_000].decode("utf-8", "ignore"), 400, False)]
    if not quick:
        out += [("taylorswift 20 kB, byte fallback", taylor.encode()[:20_000].decode("utf-8", "ignore"), 400, True),
                ("taylorswift 185 kB", taylor, 2000, False),
                ("taylorswift 185 kB, byte fallback", taylor, 2000, True)]
    return out


def spm_pieces(text: str, vocab: int, byte_fallback: bool) -> dict[str, float]:
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2

    spm.set_random_generator_seed(1)
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text.split("\n")), model_writer=out, model_type="unigram",
                                   vocab_size=vocab, normalization_rule_name="identity", num_threads=1,
                                   byte_fallback=byte_fallback, minloglevel=2)
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(out.getvalue())
    return {p.piece: p.score for p in proto.pieces}


def hf_pieces(text: str, vocab: int, byte_fallback: bool) -> set[str]:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.Unigram(byte_fallback=byte_fallback))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(vocab_size=vocab, special_tokens=["<unk>", "<s>", "</s>"], unk_token="<unk>",
                                      shrinking_factor=0.75, max_piece_length=16, n_sub_iterations=2,
                                      show_progress=False)
    tok.train_from_iterator([line for line in text.split("\n") if line], trainer=trainer)
    return set(tok.get_vocab(with_added_tokens=True))


def best(fn, repeat: int):
    seconds, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        seconds = min(seconds, time.perf_counter() - t0)
    return seconds, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(f"{'corpus':36} {'vocab':>5} {'ours s':>7} {'spm s':>6} {'hf s':>6} {'shared':>11} {'max |Δscore|':>12} "
          f"{'hf≠spm':>6} {'hf≠ours':>7}")
    for name, text, vocab, byte_fallback in corpora(args.quick):
        t_ours, enc = best(lambda: train_unigram(text, vocab, byte_fallback=byte_fallback), args.repeat)
        t_spm, ref = best(lambda: spm_pieces(text, vocab, byte_fallback), args.repeat)
        t_hf, hf = best(lambda: hf_pieces(text, vocab, byte_fallback), args.repeat)
        ours = {p: s for p, s, _ in enc.model.pieces}
        shared = set(ours) & set(ref)
        diff = max(abs(ours[p] - ref[p]) for p in shared)
        print(f"{name:36} {vocab:5} {t_ours:7.2f} {t_spm:6.2f} {t_hf:6.2f} {len(shared):5}/{len(ref):<5} {diff:12.1e} "
              f"{len(hf ^ set(ref)) // 2:6} {len(hf ^ set(ours)) // 2:7}")


if __name__ == "__main__":
    main()
