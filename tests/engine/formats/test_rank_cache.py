"""engine.formats.rank_cache: a shipped vocabulary parsed once per machine, read back whole and checked, or parsed."""
from __future__ import annotations

import hashlib
import marshal
import subprocess
import sys

import pytest

from engine.formats import rank_cache
from engine.formats.tiktoken_files import parse_tiktoken_bpe, read_data_file
from tests.conftest import APP_DIR

FILE, SHA = "cl100k_base.tiktoken.gz", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_CACHE_DIR", str(tmp_path))
    return tmp_path / "ranks"


def counting_parse(calls: list):
    def parse(data: bytes) -> dict[bytes, int]:
        calls.append(len(data))
        return parse_tiktoken_bpe(data, source=FILE)
    return parse


def test_parsed_once_then_read_back(cache):
    calls: list = []
    first = rank_cache.shipped_ranks(FILE, SHA, counting_parse(calls))
    assert first == parse_tiktoken_bpe(read_data_file(FILE, SHA)) and len(first) == 100_256
    [path] = cache.iterdir()
    assert path.name.startswith(FILE + ".") and path.suffix == ".marshal"
    assert rank_cache.shipped_ranks(FILE, SHA, counting_parse(calls)) == first
    assert len(calls) == 1


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "not ranks", "wrong types"])
def test_a_damaged_cache_file_is_parsed_again_and_rewritten(cache, damage):
    calls: list = []
    good = rank_cache.shipped_ranks(FILE, SHA, counting_parse(calls))
    [path] = cache.iterdir()
    data = path.read_bytes()
    if damage == "flip":
        data = data[:1000] + bytes([data[1000] ^ 1]) + data[1001:]
    elif damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = b""
    else:  # a correct checksum over a payload that is not a dict of bytes to int
        payload = marshal.dumps([1, 2, 3] if damage == "not ranks" else {"a": 1})
        data = hashlib.sha256(payload).digest() + payload
    path.write_bytes(data)
    assert rank_cache.shipped_ranks(FILE, SHA, counting_parse(calls)) == good
    assert len(calls) == 2
    assert rank_cache.shipped_ranks(FILE, SHA, counting_parse(calls)) == good and len(calls) == 2  # rewritten whole


def test_a_changed_parser_or_file_gets_its_own_file_and_the_old_one_goes(cache, monkeypatch):
    calls: list = []
    rank_cache.shipped_ranks(FILE, SHA, counting_parse(calls))
    cache.joinpath("other.tiktoken.gz.0123456789abcdef.marshal").write_bytes(b"kept")
    [old] = cache.glob(FILE + ".*")
    monkeypatch.setattr(rank_cache, "_parser_source", lambda: b"# the parser's source, edited")
    rank_cache.shipped_ranks(FILE, SHA, counting_parse(calls))
    assert len(calls) == 2  # a changed parser never reads the old parse
    [new] = cache.glob(FILE + ".*")
    assert new != old and not old.exists() and cache.joinpath("other.tiktoken.gz.0123456789abcdef.marshal").exists()


def test_no_usable_directory_means_parsing_every_time(tmp_path, monkeypatch):
    blocker = tmp_path / "a file"
    blocker.write_bytes(b"")
    monkeypatch.setenv("BPE_CACHE_DIR", str(blocker))  # ranks/ cannot be made under a file
    calls: list = []
    for _ in range(2):
        assert len(rank_cache.shipped_ranks(FILE, SHA, counting_parse(calls))) == 100_256
    assert len(calls) == 2


@pytest.mark.parametrize("value", ["off", "", "0"])
def test_the_cache_can_be_turned_off(value, monkeypatch, tmp_path):
    monkeypatch.setenv("BPE_CACHE_DIR", value)
    assert rank_cache.cache_dir() is None
    monkeypatch.delenv("BPE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert rank_cache.cache_dir() == tmp_path / "bpe-playground" / "ranks"


CODE = """
import engine
from engine.formats.tiktoken_files import parse_data_gym, parse_tiktoken_bpe, read_data_file
from engine.sources.openai_public import SPECS
from engine.families.tiktoken_models.specs import MODEL_SPECS
for name in ("gpt2", "o200k_base", "llama3"):
    enc = engine.get_encoding(name)
    if name in SPECS and SPECS[name].format == "data_gym":
        want = parse_data_gym(read_data_file(*SPECS[name].files[0]))
    elif name in SPECS:
        want = parse_tiktoken_bpe(read_data_file(*SPECS[name].files[0]))
    else:
        want = parse_tiktoken_bpe(read_data_file(*MODEL_SPECS[name].file))
    assert enc.mergeable_ranks == want or dict(list(want.items())[:len(enc.mergeable_ranks)]) == enc.mergeable_ranks, name
print("ok")
"""


def test_builtins_loaded_from_the_cache_equal_their_parse(cache):
    """Two fresh processes: the first parses and writes, the second reads the cache; both equal the parse."""
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", CODE], cwd=APP_DIR, capture_output=True, text=True, timeout=300)
        assert out.stdout.strip() == "ok", out.stderr[-2000:]
    assert len(list(cache.glob("*.marshal"))) == 3
