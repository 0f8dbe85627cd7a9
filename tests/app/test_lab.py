"""The Lab page (playground/views/lab.py): every result shows its paper and finding, its button sets what opens
the demo, and every demo it names is there when its page runs with those values."""
from __future__ import annotations

import pytest

from playground import pages, state
from playground.views import lab
from tests.conftest import plain, run_view


@pytest.fixture(scope="module")
def at():
    return run_view("views.lab")


def test_every_result_has_its_paper_finding_and_button(at):
    source = "\n".join(m.value for m in at.markdown)
    for number, result in enumerate(lab.RESULTS):
        assert f"]({result.url})" in source and result.url.startswith("https://")
        assert plain(result.finding) in plain(source) or result.finding in plain(source)
        assert result.page in pages._VIEWS
        assert at.button(key=state.LAB_DEMO_PREFIX + str(number)).label == "Open the demo"
    assert len(at.button) == len(lab.RESULTS)


def test_a_button_sets_its_demos_values_and_goes(at):
    number = next(i for i, r in enumerate(lab.RESULTS) if r.page == "train" and r.opens)
    at.button(key=state.LAB_DEMO_PREFIX + str(number)).click().run()
    for key, value in lab.RESULTS[number].opens:
        assert at.session_state[key] == value
    assert not at.exception


def _arena(at, metric: str) -> bool:
    return (at.segmented_control(key=state.ARENA_METRIC).value == metric
            and any("Fertility and parity" in m.value for m in at.markdown) and bool(at.table)
            and any("Add your own sentences" in e.label for e in at.expander))


def _train(at, algorithm: str) -> bool:
    return at.segmented_control(key=state.TRAIN_ALGORITHM).value == algorithm


def _tokenize(at) -> bool:
    return at.toggle(key=state.TOK_NC_OPEN).value and any("**BPE-dropout**" in m.value for m in at.markdown)


def _vocab(at, pane: str) -> bool:
    return at.segmented_control(key=state.VOCAB_PANE).value == pane and any(
        "LiteToken" in c.value or "Magikarp" in c.value for c in [*at.caption, *at.markdown])


# how a page shows that the demo is open (the values a widget ends with, not the ones preset)
DRAWN = {"vocab": lambda at, o: _vocab(at, o[state.VOCAB_PANE]), "arena": lambda at, o: _arena(at, o[state.ARENA_METRIC]), "train": lambda at, o: _train(at, o[state.TRAIN_ALGORITHM]),
         "tokenize": lambda at, o: _tokenize(at)}
DEMOS = sorted({(r.page, r.opens) for r in lab.RESULTS}, key=repr)


@pytest.mark.parametrize("page, opens", DEMOS, ids=[f"{p}-{o[0][1] if o else ''}" for p, o in DEMOS])
def test_every_demo_opens_on_its_page(page, opens):
    values = {state.TEXT: "Hello world 1234567", state.ENCODINGS: ["gpt2"], **dict(opens)}
    if page == "arena":
        values[state.ARENA_PICK] = ["gpt2"]
    at = run_view(f"views.{page}", timeout=120, **values)
    assert DRAWN[page](at, dict(opens))


def test_the_glossary_explains_the_labs_words():
    at = run_view("views.glossary")
    page = "\n".join(m.value for m in at.markdown)
    for term in ("fertility", "relative cost", "parity", "Gini", "non-canonical tokenization", "BPE-dropout",
                 "scaffold token", "superword"):
        assert f'id="g-{term.lower().replace(" ", "-")}"' in page and f">{term}</dt>" in page
