"""tiktoken 0.14.0's own test suite, run against `engine` through a rename-only shim.

The suite's files are vendored unchanged in `tests/data/tiktoken_0_14_tests/` (hashes in its
PROVENANCE.md, checked here). They run in a child pytest whose `PYTHONPATH` starts with a
`tiktoken.py` that only does ``sys.modules[__name__] = engine`` -- ``import engine as tiktoken``
for every import, including the suite's own subprocesses.

Skipped, each for a vocabulary we do not ship (never for a behaviour we claim):
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "data" / "tiktoken_0_14_tests"

# test id -> why it cannot pass here. p50k_base/p50k_edit are named by `encoding_for_model` as in
# tiktoken, but not shipped (engine/sources/model_names.py; the catalog's search says so on the page).
SKIPPED = {
    "test_encoding.py::test_basic_encode": "calls get_encoding('p50k_base'), a vocabulary the engine does not ship",
    "test_misc.py::test_encoding_for_model": "expects encoding_for_model('text-davinci-003') to build p50k_base "
                                             "(not shipped); the other names it checks are in test_tiktoken_api.py",
    "test_simple_public.py::test_encoding_for_model": "same as test_misc.py::test_encoding_for_model (p50k_base, "
                                                      "p50k_edit)",
}
__doc__ += "".join(f"\n- ``{k}``: {v}" for k, v in SKIPPED.items())

RUNNER_CONFTEST = f'''
import sys

import pytest

import engine
import hypothesis
import tiktoken

# the suite's property tests run on a machine shared with other test processes: no per-example deadline
hypothesis.settings.register_profile("shared-machine", deadline=None,
                                     suppress_health_check=[hypothesis.HealthCheck.too_slow])
hypothesis.settings.load_profile("shared-machine")

# the shim is in force: every `import tiktoken` of the suite is the engine
assert tiktoken is engine and sys.modules["tiktoken"] is engine, tiktoken

SKIPPED = {SKIPPED!r}


def pytest_collection_modifyitems(items):
    seen = set()
    for item in items:
        key = item.nodeid.split("/", 1)[-1].split("[", 1)[0]
        if key in SKIPPED:
            seen.add(key)
            item.add_marker(pytest.mark.skip(reason=SKIPPED[key]))
    assert seen == set(SKIPPED), set(SKIPPED) - seen  # a renamed test must not hide behind a stale skip
'''


def vendored_hashes() -> dict[str, str]:
    """``{file: sha256}`` from the PROVENANCE.md table."""
    text = (SUITE / "PROVENANCE.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| `([^`]+)` \| `([0-9a-f]{64})` \|$", text, flags=re.M))


def test_vendored_files_are_tiktokens_unchanged():
    hashes = vendored_hashes()
    assert {"LICENSE", "test_encoding.py", "test_simple_public.py", "test_helpers.py"} <= set(hashes)
    for name, sha in hashes.items():
        assert hashlib.sha256((SUITE / name).read_bytes()).hexdigest() == sha, f"{name} differs from tiktoken 0.14.0's"
    assert "MIT License" in (SUITE / "LICENSE").read_text(encoding="utf-8")


@pytest.mark.heavy
def test_tiktoken_suite_passes_through_the_shim(tmp_path):
    tests = tmp_path / "tests"
    tests.mkdir()
    for name in vendored_hashes():
        if name.endswith(".py"):
            shutil.copyfile(SUITE / name, tests / name)
    (tmp_path / "conftest.py").write_text(RUNNER_CONFTEST, encoding="utf-8")
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "tiktoken.py").write_text("import sys\n\nimport engine\n\nsys.modules[__name__] = engine\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shim), str(ROOT)])}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "tests", "-q", "-rs", "-p", "no:randomly", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), "-c", os.devnull],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    summary = run.stdout.strip().splitlines()[-1]
    passed = int(re.search(r"(\d+) passed", summary).group(1))
    skipped = int(re.search(r"(\d+) skipped", summary).group(1))
    assert skipped == len(SKIPPED) and passed >= 28, summary


def test_list_encoding_names_keeps_tiktokens_contract():
    """tiktoken's `test_simple` for every listed name, over each whole vocabulary (the suite checks 10,000 ids)."""
    for name in engine.list_encoding_names():
        enc = engine.get_encoding(name)
        for token in range(enc.n_vocab):
            try:
                token_bytes = enc.decode_single_token_bytes(token)
            except KeyError:
                continue  # a hole in the ids, as tiktoken's test_single_token_roundtrip allows
            assert enc.encode_single_token(token_bytes) == token, (name, token)


def single_token_or_none(enc, token_bytes: bytes) -> int | None:
    try:
        return enc.encode_single_token(token_bytes)
    except KeyError:
        return None


def test_every_tokenizer_is_listed_and_the_exceptions_say_why():
    """`list_tokenizer_names()` is every name `get_encoding` builds; the ones left out of
    `list_encoding_names()` are exactly those whose ids are not one-to-one with byte strings."""
    everything = engine.list_tokenizer_names()
    tiktoken_like = engine.list_encoding_names()
    assert [n for n in everything if n in tiktoken_like] == tiktoken_like  # same order, a subset
    assert sorted(everything) == sorted(e.name for e in engine.sources.catalog.catalog()) + ["r50k_base"]
    for name in set(everything) - set(tiktoken_like):
        enc = engine.get_encoding(name)
        # a byte-fallback piece such as <0x41> decodes to the same byte as the ordinary piece "A"
        shared = [t for t in range(enc.n_vocab) if single_token_or_none(enc, enc.decode_single_token_bytes(t)) != t]
        assert shared, f"{name} keeps tiktoken's contract: list it in list_encoding_names()"
        for t in shared:  # the only excuse: another id has the same bytes (never "no token has these bytes")
            data = enc.decode_single_token_bytes(t)
            other = single_token_or_none(enc, data)
            assert other is not None and enc.decode_single_token_bytes(other) == data, (name, t, data)
    with pytest.raises(engine.UnknownEncodingError, match="list_tokenizer_names"):
        engine.get_encoding("mistral-v2")
