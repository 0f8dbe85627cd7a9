"""File formats: shipped files are hash-checked; malformed user files get messages naming file and line."""
from __future__ import annotations

import base64
import json
import re

import pytest

import engine
from engine.formats import tiktoken_files as load
from hypothesis import given, strategies as st

from engine.tokenizer.gpt2_bytes import BYTE_TO_CHAR, CHAR_TO_BYTE, decode_printable, decode_printable_reference, encode_printable


def test_gpt2_byte_table_is_a_bijection():
    assert len(BYTE_TO_CHAR) == 256 and len(set(BYTE_TO_CHAR.values())) == 256
    assert all(CHAR_TO_BYTE[c] == b for b, c in BYTE_TO_CHAR.items())
    assert all(ch.isprintable() and not ch.isspace() for ch in BYTE_TO_CHAR.values())
    assert encode_printable(b" hello\n") == "Ġhello\u010a"
    data = bytes(range(256))
    assert decode_printable(encode_printable(data)) == data


@given(st.text(alphabet=st.sampled_from(sorted(CHAR_TO_BYTE) + [" ", "\n", "\u0100", "\u0144", "é", "€", "\x00"])))
def test_fast_decode_printable_equals_the_reference(text):
    """decode_printable (translate) and the per-character reference agree, errors included."""
    try:
        expected = decode_printable_reference(text)
    except KeyError as error:
        with pytest.raises(KeyError) as raised:
            decode_printable(text)
        assert raised.value.args[0] in text and raised.value.args[0] not in CHAR_TO_BYTE
        assert error.args[0] not in CHAR_TO_BYTE
    else:
        assert decode_printable(text) == expected


def _tiktoken_text(pairs):
    return "\n".join(f"{base64.b64encode(t).decode()} {r}" for t, r in pairs).encode()


SMALL = [(bytes([b]), b) for b in range(256)] + [(b"ab", 256), (b"abc", 257)]


def test_tiktoken_round_trip_and_shipped_file():
    ranks = dict(SMALL)
    assert load.parse_tiktoken_bpe(load.dump_tiktoken_bpe(ranks)) == ranks
    enc = engine.get_encoding("cl100k_base")
    data = load.dump_tiktoken_bpe(dict(enc.mergeable_ranks))
    assert load.parse_tiktoken_bpe(data) == dict(enc.mergeable_ranks)


@pytest.mark.parametrize("mutate,message", [
    (lambda lines: lines + ["!!!notbase64 258"], "line 259: bad base64"),
    (lambda lines: lines + [f"{base64.b64encode(b'zz').decode()} 257"], "line 259: duplicate rank 257 \\(first on line 258\\)"),
    (lambda lines: lines + [f"{base64.b64encode(b'ab').decode()} 258"], "line 259: duplicate token b'ab'"),
    (lambda lines: lines + [f"{base64.b64encode(b'zz').decode()} 260"], "ranks have a gap: rank 258 is missing"),
    (lambda lines: lines + ["YWJj"], "line 259: expected '<base64 token> <rank>'"),
    (lambda lines: lines + ["YWJjZA== x1"], "line 259: rank 'x1' is not an integer"),
    (lambda lines: lines[:10] + [f"{base64.b64encode(b'q').decode()} -3"], "line 11: rank -3 is negative"),
    (lambda lines: [], "no tokens found"),
])
def test_malformed_tiktoken_files(mutate, message):
    lines = _tiktoken_text(SMALL).decode().split("\n")
    with pytest.raises(ValueError, match=message) as info:
        load.parse_tiktoken_bpe("\n".join(mutate(lines)), source="upload.tiktoken")
    assert str(info.value).startswith("upload.tiktoken")


def _gpt2_pair():
    bpe = "#version: 0.2\nĠ t\nh e\nĠt he\n"
    return bpe


def test_data_gym_parse_and_encoder_check():
    ranks = load.parse_data_gym(_gpt2_pair())
    assert ranks[b" t"] == 256 and ranks[b"he"] == 257 and ranks[b" the"] == 258
    encoder = {encode_printable(t): r for t, r in ranks.items()}
    encoder["<|endoftext|>"] = 259
    assert load.parse_data_gym(_gpt2_pair(), json.dumps(encoder)) == ranks
    bpe, enc_json = load.dump_data_gym(ranks, {(ranks[b" "], ranks[b"t"]): 256, (ranks[b"h"], ranks[b"e"]): 257,
                                               (256, 257): 258})
    assert load.parse_data_gym(bpe, enc_json) == ranks


def test_shipped_gpt2_encoder_json_agrees_with_vocab_bpe():
    """The registry skips this cross-check at load time (both files are sha256-checked); it runs here."""
    from engine.sources.openai_public import SPECS

    (bpe_file, bpe_hash), (json_file, json_hash) = SPECS["gpt2"].files
    bpe, encoder = load.read_data_file(bpe_file, bpe_hash), load.read_data_file(json_file, json_hash)
    ranks = load.parse_data_gym(bpe, encoder, vocab_source=bpe_file, encoder_source=json_file)
    assert ranks == engine.get_encoding("gpt2").mergeable_ranks


@given(st.lists(st.tuples(st.integers(0, 300), st.integers(0, 300)), max_size=40),
       st.sampled_from(["", "#version: 0.2\n"]), st.booleans())
def test_data_gym_bulk_parse_equals_the_line_loop(pairs, header, trailing_newline):
    """Random merge lists (many refer to tokens no earlier line made, some repeat): the bulk parse
    gives the line loop's ranks, or the same error."""
    made = [bytes([b]) for b in range(256)]
    lines = []
    for i, j in pairs:
        left, right = made[i % len(made)], made[(i * 7 + j) % len(made)] if j % 5 else b"\xff\xfe"
        lines.append(f"{encode_printable(left)} {encode_printable(right)}")
        made.append(left + right)
    text = header + "\n".join(lines) + ("\n" if trailing_newline and lines else "")
    try:
        want = load.parse_data_gym("")  # the 256 single bytes, in the table's order
        load._merge_lines(text.split("\n"), 1 if header else 0, want, "vocab.bpe")
    except ValueError as exc:
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            load.parse_data_gym(text)
        return
    assert load.parse_data_gym(text) == want


def test_data_gym_fast_path_equals_the_checked_line_loop():
    """A file with one character outside GPT-2's table takes the per-field path: same ranks, or the line named."""
    ranks = load.parse_data_gym(_gpt2_pair())
    assert load.parse_data_gym(_gpt2_pair() + "\u3000\n") == ranks  # a Unicode space: a separator either way
    with pytest.raises(ValueError, match="line 5: character '中' is not in GPT-2's byte table"):
        load.parse_data_gym(_gpt2_pair() + "Ġt 中\n")


@pytest.mark.parametrize("bpe,encoder,message", [
    ("#version: 0.2\nĠ t\nĠt xyz\n", None, "vocab.bpe, line 3: merge of unknown token 'xyz'"),
    ("#version: 0.2\nĠ t\nĠ\n", None, "vocab.bpe, line 3: expected two tokens"),
    ("#version: 0.2\nĠ t\nĠ t\n", None, "vocab.bpe, line 3: duplicate merge"),
    ("#version: 0.2\nĠ t\n", "{not json", "encoder.json: not valid JSON"),
    ("#version: 0.2\nĠ t\n", '{"a": 5}', "encoder.json: token b'!' from vocab.bpe \\(rank 0\\) is missing"),
    (b"\xff\xfe", None, "vocab.bpe: not UTF-8"),
])
def test_malformed_data_gym_files(bpe, encoder, message):
    with pytest.raises(ValueError, match=message):
        load.parse_data_gym(bpe, encoder)


def test_encoder_json_disagreeing_with_vocab_bpe():
    ranks = load.parse_data_gym(_gpt2_pair())
    encoder = {encode_printable(t): r for t, r in ranks.items()}
    encoder["Ġt"] = 999
    with pytest.raises(ValueError, match="has id 999, but vocab.bpe gives rank 256"):
        load.parse_data_gym(_gpt2_pair(), json.dumps(encoder))


def test_shipped_file_hash_is_checked(tmp_path, monkeypatch):
    (tmp_path / "x.tiktoken").write_bytes(b"YQ== 0\n")
    monkeypatch.setattr(load, "DATA_DIR", tmp_path)
    assert load.read_data_file("x.tiktoken", None) == b"YQ== 0\n"
    with pytest.raises(ValueError, match="sha256 is .* expected 00"):
        load.read_data_file("x.tiktoken", "00" * 32)
    with pytest.raises(FileNotFoundError, match="missing"):
        load.read_data_file("nope.tiktoken", None)


def test_encoding_from_user_ranks_validates():
    with pytest.raises(ValueError, match="two tokens share one rank"):
        engine.Encoding("bad", pat_str=r"\S+|\s+", mergeable_ranks={b"a": 0, b"b": 0}, special_tokens={})
    with pytest.raises(ValueError, match="reuses id 0"):
        engine.Encoding("bad", pat_str=r"\S+|\s+", mergeable_ranks={b"a": 0}, special_tokens={"<s>": 0})
    with pytest.raises(ValueError, match="invalid split pattern"):
        engine.Encoding("bad", pat_str=r"(\S+", mergeable_ranks={b"a": 0}, special_tokens={})
    with pytest.raises(ValueError, match="matches the empty string"):
        engine.Encoding("bad", pat_str=r"\S*", mergeable_ranks={b"a": 0}, special_tokens={})
