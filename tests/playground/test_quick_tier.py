"""The quick tier's selection (scripts/test.sh --quick): `--one-case` keeps the first case that `-m` left of each
parametrized test, and `heavy` tests are left out; the default run keeps every case."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULE = "tests/playground/test_quick_tier_cases.py"


def collected(*args: str) -> list[str]:
    out = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:randomly", *args, MODULE],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [line.split("::", 1)[1] for line in out.splitlines() if "::" in line]


def test_one_case_keeps_the_first_selected_case_of_each_test():
    assert collected("-m", "not slow") == ["test_sizes[1]", "test_sizes[2]", "test_sizes[3]", "test_words[a]",
                                           "test_words[c]", "test_plain", "test_heavy[x]", "test_heavy[y]"]
    # test_words[b] is slow: the first case `-m` leaves is [a]; a test without parameters stays
    assert collected("-m", "not slow and not heavy", "--one-case") == ["test_sizes[1]", "test_words[a]", "test_plain"]
    assert collected("-m", "slow", "--one-case") == ["test_words[b]"]
