"""The upload page for every family (AppTest): files of any kind loaded by their content (one file, or vocab.json
+ merges.txt together), the lossy badge with its example for Claude's legacy tokenizer.json, and this machine's
Hugging Face cache listed and loaded on a click only when BPE_LOCAL_TOKENIZERS=1."""
from __future__ import annotations

import gzip

import pytest

from engine.formats.tiktoken_files import DATA_DIR
from engine.sources import local_files
from playground import state
from playground.views import train as train_view
from tests.conftest import plain, run_view
from tests.engine.sources.test_load_files import BERT_VOCAB
from tests.engine.sources.test_local_files import hf_model
from tests.reference_packages import member

VOCAB_JSON = gzip.decompress((DATA_DIR / "gpt2_encoder.json.gz").read_bytes())
MERGES_TXT = gzip.decompress((DATA_DIR / "gpt2_vocab.bpe.gz").read_bytes())
DETECT_KEY = f"{train_view.U_FILE}_{train_view.UPLOAD_KINDS.index(train_view.DETECT)}"



def detect_upload(files: list[tuple[str, bytes]]):
    at = run_view("views.train", timeout=120)
    assert at.segmented_control(key=train_view.U_KIND).value == train_view.DETECT  # the default kind
    at.file_uploader(key=DETECT_KEY).set_value([(n, d, "application/octet-stream") for n, d in files]).run()
    at.button(key=train_view.U_GO).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def loaded(at) -> list[str]:
    return [plain(s.value) for s in at.success if "Loaded" in plain(s.value)]


def test_vocab_json_and_merges_txt_uploaded_together_load_as_gpt2():
    at = detect_upload([("vocab.json", VOCAB_JSON), ("merges.txt", MERGES_TXT)])
    assert any("50,257 ids" in m for m in loaded(at)), [e.value for e in at.error]
    assert not [w for w in at.warning if "lossy" in w.value]  # byte-level: every text comes back


def test_claudes_legacy_tokenizer_loads_with_the_lossy_badge():
    at = detect_upload([("tokenizer.json", member("anthropic", "anthropic/tokenizer.json"))])
    assert loaded(at), [e.value for e in at.error]
    (badge,) = [w.value for w in at.warning if "lossy" in w.value]
    assert ":orange-badge[lossy]" in badge and "NFKC" in badge and "comes back as" in badge
    assert "“①” comes back as “1” (U+2460 → U+0031)" in plain(badge)  # the code points: NFKC's output can read like its input


def test_a_generic_file_name_gives_a_plain_default_name():
    at = run_view("views.train", timeout=120)
    at.file_uploader(key=DETECT_KEY).set_value([("tokenizer.json", b"{}", "application/json")]).run()
    assert at.text_input(key=train_view.U_NAME).value == "my-tokenizer"


def test_a_file_that_is_no_tokenizer_says_what_it_is():
    at = detect_upload([("notes.txt", b"just some words\nand more\n")])
    assert not loaded(at)
    assert any("notes.txt is a text file" in plain(e.value) for e in at.error)


def test_this_machines_tokenizers_are_not_listed_unless_switched_on(monkeypatch, tmp_path):
    hf_model(tmp_path / "hub", "google-bert/bert-base-uncased", {"vocab.txt": BERT_VOCAB})
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.delenv(local_files.ENV_SWITCH, raising=False)
    at = run_view("views.train", timeout=120)
    assert "Tokenizers on this machine" not in [h.value for h in at.subheader]
    assert not [s for s in at.selectbox if s.key == train_view.L_PICK]


def test_this_machines_tokenizers_are_listed_and_load_on_a_click(monkeypatch, tmp_path):
    hf_model(tmp_path / "hub", "google-bert/bert-base-uncased", {"vocab.txt": BERT_VOCAB})
    hf_model(tmp_path / "hub", "openai-community/gpt2", {"vocab.json": VOCAB_JSON, "merges.txt": MERGES_TXT})
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv(local_files.ENV_SWITCH, "1")
    at = run_view("views.train", timeout=120)
    assert "Tokenizers on this machine" in [h.value for h in at.subheader]
    pick = at.selectbox(key=train_view.L_PICK)
    assert [o.split(" · ")[0] for o in pick.options] == ["google-bert/bert-base-uncased", "openai-community/gpt2"]
    pick.set_value(pick.options[1]).run()
    at.button(key=train_view.L_GO).click().run()
    assert not at.exception, [e.value for e in at.exception]
    # Named after the model ("gpt2" is a built-in's name, so "my-gpt2"), and in the sidebar's list.
    assert any("my-gpt2" in m and "50,257 ids" in m for m in loaded(at)), loaded(at) + [e.value for e in at.error]
    assert "my-gpt2" in at.session_state[state.CUSTOM]
