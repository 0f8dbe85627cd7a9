"""Cases for tests/playground/test_quick_tier.py to select from (each passes on its own)."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("n", [1, 2, 3])
def test_sizes(n):
    assert n > 0


@pytest.mark.parametrize("word", ["a", pytest.param("b", marks=pytest.mark.slow), "c"])
def test_words(word):
    assert word.isalpha()


def test_plain():
    assert True


@pytest.mark.heavy
@pytest.mark.parametrize("s", ["x", "y"])
def test_heavy(s):
    assert s
