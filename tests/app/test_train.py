"""The Train view in AppTest (tests/app/view_app.py), and its plain helpers for uploads."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import plain, run_view

import engine
from playground.views import train as train_view
from playground.views.train import decode_upload, load_tokenizer


def train_app(**session) -> AppTest:
    return run_view("views.train", timeout=60, **session)


def train(at: AppTest, vocab: int = 300) -> AppTest:
    at.number_input(key="train_vocab").set_value(vocab)
    at.button(key="train_go").click().run()
    assert not at.exception
    return at


def test_renders_with_defaults():
    at = train_app()
    assert at.text_area(key="train_text").value.startswith("Byte pair encoding")
    assert at.number_input(key="train_vocab").value == 512
    assert at.selectbox(key="train_pattern").value == "none (raw bytes)"
    assert not at.button(key="train_go").disabled
    assert at.button(key="upload_go").disabled  # nothing uploaded yet


def test_train_shows_results_and_uses_them_in_compare():
    at = train(train_app(), 300)
    message = plain(at.success[0].value)
    assert "learned 44 merges: vocabulary of 300 tokens" in message
    name = message.split("**")[1]
    assert name.startswith("trained-300-")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Vocabulary"] == "300"
    assert float(metrics["Bytes/token"]) > 1.5

    at.segmented_control(key="train_pane").set_value("Merges").run()
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["rank", "id", "left", "right", "merged", "count", "tie"]
    assert len(frame) == 44 and list(frame["id"]) == list(range(256, 300))
    assert "tie" in set(frame["tie"])
    assert frame.iloc[0]["merged"] == "␣t" and frame.iloc[0]["left"] == "␣"  # spaces shown as ␣, as everywhere

    at.button(key="train_use").click().run()
    assert not at.exception
    assert at.session_state["encodings"][-1] == name
    assert f"{name} · trained here" in at.multiselect(key="encodings").options  # sidebar.box_label
    assert any(f"**{name}** is selected" in plain(s.value) for s in at.success)

    # The Compare view draws it beside the built-ins.
    at.session_state["_view"] = "views.compare"
    at.run()
    assert not at.exception
    assert name in at.multiselect(key="encodings").value


def test_pattern_and_specials():
    at = train_app()
    at.selectbox(key="train_pattern").set_value("cl100k_base")
    at.text_input(key="train_specials").set_value("<|endoftext|> <|pad|>")
    train(at, 320)
    assert "vocabulary of 320 tokens" in at.success[0].value


def test_bad_custom_pattern_is_reported_and_blocks_training():
    at = train_app()
    at.selectbox(key="train_pattern").set_value("custom").run()
    at.text_input(key="train_custom_pattern").set_value("(unclosed").run()
    assert "invalid split pattern" in plain(at.error[0].value)
    assert at.button(key="train_go").disabled
    at.text_input(key="train_custom_pattern").set_value(r"\w+|\W").run()
    assert not at.error
    train(at, 280)
    assert "vocabulary of 280 tokens" in at.success[0].value


def test_bad_special_tokens_are_reported():
    at = train_app()
    at.text_input(key="train_specials").set_value("<a> <a>").run()
    assert "distinct" in plain(at.error[0].value)
    assert at.button(key="train_go").disabled


def test_early_stop_is_shown():
    at = train_app(train_text="abab abab")
    at.selectbox(key="train_pattern").set_value("gpt2")
    train(at, 400)
    assert not at.success
    assert "stopped after" in at.warning[0].value and "no pair of adjacent tokens is left" in at.warning[0].value


def test_empty_text_disables_training():
    at = train_app(train_text="")
    assert at.button(key="train_go").disabled
    assert "Paste some text" in at.info[0].value


# ------------------------------------------------------------ plain helpers
def test_decode_upload():
    assert decode_upload("héllo".encode(), "a.txt", replace=False).text == "héllo"
    bad = b"ok\nline two \xff\xfe end"
    result = decode_upload(bad, "a.txt", replace=False)
    assert result.text is None and "a.txt is not UTF-8" in plain(result.error) and "line 2" in result.error
    assert "Decode with replacement" in result.error
    result = decode_upload(bad, "a.txt", replace=True)
    assert result.text == "ok\nline two \ufffd\ufffd end" and "2 invalid byte" in result.warning
    big = decode_upload(b"x" * 2_000_001, "big.txt", replace=False)
    assert big.text is None and "limit is 2 MB" in big.error


@pytest.fixture(scope="module")
def small() -> engine.Encoding:
    return engine.train_bpe(train_view.SAMPLE_TEXT, 300,
                            pat_str=train_view.PATTERNS["gpt2"], special_tokens=["<|endoftext|>"])


def test_load_minbpe_model(small):
    data = engine.formats.minbpe.dump_minbpe_model(small).encode()
    enc = load_tokenizer("minbpe .model", ("cats.model", data), None, None, [])
    assert enc.name.startswith("cats-") and enc.merges == small.merges
    assert enc.encode("the cat<|endoftext|>", allowed_special="all") == small.encode("the cat<|endoftext|>", allowed_special="all")
    with pytest.raises(ValueError, match="cats.model, line 1: expected 'minbpe v1'"):
        load_tokenizer("minbpe .model", ("cats.model", b"hello\n"), None, None, [])
    with pytest.raises(ValueError, match="cats.model, line 5: unknown id 999"):
        load_tokenizer("minbpe .model", ("cats.model", b"minbpe v1\n\n0\n97 98\n999 1\n"), None, None, [])


def test_load_tiktoken_rank_file(small):
    data = engine.formats.tiktoken_files.dump_tiktoken_bpe(dict(small.mergeable_ranks))
    enc = load_tokenizer("tiktoken rank file", ("cats.tiktoken", data), None, train_view.PATTERNS["gpt2"], ["<|eot|>"])
    assert dict(enc.mergeable_ranks) == dict(small.mergeable_ranks)
    assert enc.special_tokens == {"<|eot|>": 300}
    assert enc.encode("the cat sat") == small.encode("the cat sat")
    assert enc.name.startswith("cats-")
    with pytest.raises(ValueError, match="cats.tiktoken, line 3"):
        load_tokenizer("tiktoken rank file", ("cats.tiktoken", b"".join(data.splitlines(keepends=True)[:2]) + b"Yw"),
                       None, None, [])


def test_load_data_gym_pair():
    # GPT-2's layout: single bytes in its printable-table order, then one token per merge line.
    ranks = engine.formats.tiktoken_files.parse_data_gym("#version: 0.2\nĠ t\nh e\nt he\nĠt he\n")
    vocab_bpe, encoder_json = engine.formats.tiktoken_files.dump_data_gym(ranks, engine.tokenizer.merges.recover_merges(ranks))
    encoder = json.loads(encoder_json)
    encoder["<|endoftext|>"] = len(ranks)
    files = (("vocab.bpe", vocab_bpe.encode()), ("encoder.json", json.dumps(encoder).encode()))
    enc = load_tokenizer("encoder.json + vocab.bpe", files[0], files[1], train_view.PATTERNS["gpt2"], [])
    assert enc.special_tokens == {"<|endoftext|>": 260}
    assert enc.encode("the the") == [ranks[b"the"], ranks[b" the"]]
    with pytest.raises(ValueError, match="upload encoder.json too"):
        load_tokenizer("encoder.json + vocab.bpe", files[0], None, None, [])
    broken = (vocab_bpe + "zz qq\n").encode()
    with pytest.raises(ValueError, match=r"vocab.bpe, line \d+: merge of unknown token"):
        load_tokenizer("encoder.json + vocab.bpe", ("vocab.bpe", broken), files[1], None, [])


def test_names_differ_for_different_content(small):
    a = load_tokenizer("tiktoken rank file", ("x.tiktoken", engine.formats.tiktoken_files.dump_tiktoken_bpe(dict(small.mergeable_ranks))),
                       None, None, [])
    b = load_tokenizer("tiktoken rank file", ("x.tiktoken", engine.formats.tiktoken_files.dump_tiktoken_bpe(dict(small.mergeable_ranks))),
                       None, train_view.PATTERNS["cl100k_base"], [])
    assert a.name != b.name  # cached results are keyed by name, so names must say what is inside
