"""One long message in the chat formats that encode the whole conversation as one string (Qwen, DeepSeek V4).

Their ids are cut into runs per message; a new tuple per token once made that quadratic (442 s for a
2,000,000-character message).  Prints seconds per format for 250k, 500k and 1M characters: linear means each
doubling about doubles the time.  (tests/app/test_chat_limits.py checks the counts, not the time.)

    python bench/bench_chat_long.py
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from engine.chat import Message, chat_tokens  # noqa: E402


def main() -> None:
    text = (ROOT / "tests" / "data" / "corpus" / "taylorswift.txt").read_text(encoding="utf-8")
    print("| format | 250,000 chars (s) | 500,000 (s) | 1,000,000 (s) |\n|---|---|---|---|")
    for name in ("qwen2.5", "deepseek-v4"):
        enc = engine.get_encoding(name)
        chat_tokens([Message("user", "warm up")], enc)
        row = []
        for n in (250_000, 500_000, 1_000_000):
            big = (text * (n // len(text) + 1))[:n]
            start = time.perf_counter()
            chat_tokens([Message("system", big), Message("user", "hi")], enc)
            row.append(f"{time.perf_counter() - start:.2f}")
        print(f"| {name} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
