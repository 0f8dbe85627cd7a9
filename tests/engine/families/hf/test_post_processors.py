"""Post-processors of a tokenizer.json: read, described, and applied by ``encode_for_model`` exactly as
Hugging Face `tokenizers`' ``encode(text, add_special_tokens=True)`` (the tiktoken-style ``encode`` adds none)."""
from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer

from engine.families.hf.load import load_tokenizer_json
from engine.families.hf.post_processors import post_processor_from_json
from engine.families.hf.tokenizer_json import _Where
from engine.tokenizer.gpt2_bytes import BYTE_TO_CHAR

SPECIALS = ["<s>", "</s>", "[CLS]", "[SEP]"]


def byte_level_file(post_processor: dict | None) -> str:
    vocab = {BYTE_TO_CHAR[b]: b for b in range(256)}
    vocab.update({"ĠĠ": 256, "he": 257})
    added = [{"id": 258 + i, "content": c, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, c in enumerate(SPECIALS)]
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": post_processor,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": ["Ġ Ġ", "h e"]}})


def _template(single, pair=None):
    table = {"<s>": {"id": "<s>", "ids": [258], "tokens": ["<s>"]}, "</s>": {"id": "</s>", "ids": [259], "tokens": ["</s>"]},
             "DOUBLE": {"id": "DOUBLE", "ids": [260, 261], "tokens": ["[CLS]", "[SEP]"]}}
    return {"type": "TemplateProcessing", "single": single, "pair": pair or single, "special_tokens": table}


S = lambda name: {"SpecialToken": {"id": name, "type_id": 0}}  # noqa: E731
A = {"Sequence": {"id": "A", "type_id": 0}}
PROCESSORS = {
    "template": _template([S("<s>"), A, S("</s>")], [S("<s>"), A, S("</s>"), {"Sequence": {"id": "B", "type_id": 1}}]),
    "template_multi_ids": _template([S("DOUBLE"), A]),
    "llama_bos_only": _template([S("<s>"), A]),
    "bert": {"type": "BertProcessing", "sep": ["[SEP]", 261], "cls": ["[CLS]", 260]},
    "roberta": {"type": "RobertaProcessing", "sep": ["</s>", 259], "cls": ["<s>", 258], "trim_offsets": True,
                "add_prefix_space": False},
    "byte_level": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
    "sequence": {"type": "Sequence", "processors": [
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        _template([S("<s>"), A]),
        {"type": "BertProcessing", "sep": ["[SEP]", 261], "cls": ["[CLS]", 260]}]},
    "none": None,
}


@pytest.mark.parametrize("which", list(PROCESSORS))
def test_encode_for_model_equals_add_special_tokens(which):
    data = byte_level_file(PROCESSORS[which])
    ref, ours = Tokenizer.from_str(data), load_tokenizer_json(data)
    for text in ["hello  world", "", "he <s> said </s>"]:
        assert ours.encode_for_model(text) == ref.encode(text, add_special_tokens=True).ids, text
        assert ours.encode(text, disallowed_special=()) == ref.encode(text, add_special_tokens=False).ids or "<s>" in text


def test_descriptions_say_what_the_file_adds():
    where = _Where("t.json")
    assert post_processor_from_json(PROCESSORS["template"], where).description == "TemplateProcessing: <s> $A </s>"
    assert post_processor_from_json(PROCESSORS["template"], where).pair == "<s> $A </s> $B"
    assert post_processor_from_json(PROCESSORS["bert"], where).description == "BertProcessing: [CLS] $A [SEP]"
    seq = post_processor_from_json(PROCESSORS["sequence"], where)
    assert (seq.before, seq.after) == ((260, 258, 261), (261,))  # Bert sees the template's two parts as a pair
    assert not post_processor_from_json(PROCESSORS["byte_level"], where).adds_tokens


@pytest.mark.parametrize("node,message", [
    ({"type": "BertProcessing", "sep": ["[SEP]"], "cls": ["[CLS]", 1]}, r"\$\.post_processor\.sep: expected"),
    (_template([S("<s>")]), r"\$\.post_processor\.single: the single template must hold the sequence \$A"),
    (_template([S("<nope>"), A]), r"\$\.post_processor\.single\[0\]: special token '<nope>'"),
    ({"type": "Weird"}, r"\$\.post_processor: post-processor 'Weird' is not supported"),
])
def test_bad_post_processors_name_their_path(node, message):
    with pytest.raises(ValueError, match=r"t\.json: " + message):
        post_processor_from_json(node, _Where("t.json"))
