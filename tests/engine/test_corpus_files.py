"""The copied corpus in tests/data/corpus is exactly the shared one (hashes in its PROVENANCE.md)."""
from __future__ import annotations

import hashlib

import pytest

from tests.conftest import CORPUS

HASHES = {
    "cases.jsonl": "e72dc3dcad27e1a20bd42b12b1e201460a71ca0519a2ff57dfbb812980262fe6",
    "decode_cases.jsonl": "4b703acf16765db9932ee75839819023c44290de97ae72ea744c2ef3beb082f1",
    "taylorswift.txt": "c2e39cb822d4ae0caac22152cefc306d466e31217a9c5524e493ad2b76792f57",
}


@pytest.mark.parametrize("name", sorted(HASHES))
def test_corpus_copy_is_unchanged(name):
    assert hashlib.sha256((CORPUS / name).read_bytes()).hexdigest() == HASHES[name]
    assert HASHES[name] in (CORPUS / "PROVENANCE.md").read_text(encoding="utf-8")
