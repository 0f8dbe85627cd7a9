"""Train your own, Unigram (playground/widgets/unigram_training.py) in AppTest: train, see it, use it everywhere."""
from __future__ import annotations

from playground import state
from playground.widgets import train_lab
from tests.conftest import plain, run_view


def unigram_app(**session):
    """Train your own with "Unigram (SentencePiece)" chosen as the Algorithm."""
    return run_view("views.train", timeout=90, **{state.TRAIN_ALGORITHM: train_lab.UNIGRAM, **session})


def test_unigram_trains_shows_and_goes_to_compare():
    at = unigram_app()
    assert at.number_input(key="train_unigram_vocab").value == 80
    at.button(key="train_unigram_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    message = next(plain(s.value) for s in at.success if "pieces learned" in plain(s.value))
    name = message.split("**")[1]
    assert name.startswith("unigram-80-")
    assert "77 pieces learned" in message and "3 meta pieces" in message
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Vocabulary"] == "80"
    frame = at.dataframe[-1].value
    assert list(frame.columns) == ["id", "piece", "kind", "score"]
    assert list(frame["piece"][:3]) == ["<unk>", "<s>", "</s>"] and len(frame) == 80
    assert "␣the" in set(frame["piece"])  # sentencepiece's ▁ drawn as the page's one space glyph

    at.button(key="train_unigram_use").click().run()
    assert not at.exception
    assert at.session_state["encodings"][-1] == name
    for view in ("views.compare", "views.tokenize", "views.vocab", "views.tree", "views.pipeline", "views.algorithms"):
        at.session_state["_view"] = view
        at.run()
        assert not at.exception, (view, [e.value for e in at.exception])
        assert name in at.multiselect(key="encodings").value


def test_unigram_too_big_a_vocabulary_names_the_size_that_fits():
    at = unigram_app()
    at.number_input(key="train_unigram_vocab").set_value(100)
    at.button(key="train_unigram_go").click().run()
    assert not at.exception
    error = plain(at.error[0].value)
    assert "Unigram training failed" in error and "use vocab_size 86 or less" in error


def test_the_training_box_counts_against_unigrams_own_limit():
    """The box's counter and its over-the-limit warning use Unigram's 400,000, not the page's 2,000,000 (it showed
    "/ 2,000,000" and then refused 400,001 characters on the click)."""
    from playground.widgets import unigram_training

    at = unigram_app(**{state.TRAIN_TEXT: "low lower lowest " * 10})
    assert any(f"/ {unigram_training.MAX_TEXT_CHARS:,} characters" in c.value for c in at.caption)
    at = unigram_app(**{state.TRAIN_TEXT: "a" * (unigram_training.MAX_TEXT_CHARS + 1)})
    assert any(f"{unigram_training.MAX_TEXT_CHARS:,}" in w.value for w in at.warning)
