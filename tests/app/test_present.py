"""Presentation mode (sidebar toggle, share link) and the Glossary page, in AppTest."""
from __future__ import annotations

from tests.conftest import run_view

from playground import state
from playground.render import css, glossary

PRESENT_RULE = "html{font-size:20px}"


def styles_text(at) -> str:
    return "\n".join(m.value for m in at.sidebar.markdown)


def test_toggle_turns_presentation_mode_on_and_the_link_keeps_it():
    at = run_view("views.train_steps")
    assert at.toggle(key=state.PRESENT).value is False
    assert PRESENT_RULE not in styles_text(at) and ".bpe-gloss" in styles_text(at)
    at.toggle(key=state.PRESENT).set_value(True).run()
    assert PRESENT_RULE in styles_text(at)
    assert at.query_params["v.present"] in ("true", ["true"])
    at.toggle(key=state.PRESENT).set_value(False).run()
    assert PRESENT_RULE not in styles_text(at)
    assert "v.present" not in at.query_params


def test_a_link_opens_in_presentation_mode():
    at = run_view("views.diff", query={"v.present": "true"})
    assert at.toggle(key=state.PRESENT).value is True
    assert PRESENT_RULE in styles_text(at)
    bad = run_view("views.diff", query={"v.present": '"yes"'})
    assert bad.toggle(key=state.PRESENT).value is False


def test_present_css_keeps_tokens_on_one_line():
    rules = css.rules("present")
    assert "white-space" not in rules.replace("A token stays", "")  # never overrides tokens.css's nowrap units
    assert ".stApp .tokens .tok" in rules and ".stApp .gchips .tok" in rules


def test_glossary_page_lists_every_term_with_its_anchor():
    at = run_view("views.glossary")
    page = "\n".join(m.value for m in at.markdown)
    for term in ("piece", "rank", "merge", "byte fallback", "special token", "normalizer", "pre-tokenizer"):
        entry = next(t for t in glossary.TERMS if t.term == term)
        assert f'<dt id="{entry.anchor}">{term}</dt>' in page
    anchors = [t.anchor for t in glossary.TERMS]
    assert len(anchors) == len(set(anchors))
    assert "&lt;|endoftext|&gt;" in page  # escaped


def test_a_link_marks_its_term():
    at = run_view("views.glossary", query={"v.glossary_term": '"rank"'})
    page = "\n".join(m.value for m in at.markdown)
    assert '<dt id="g-rank" class="hit">rank</dt>' in page
    at.selectbox(key="glossary_term").set_value("piece").run()
    page = "\n".join(m.value for m in at.markdown)
    assert '<dt id="g-piece" class="hit">piece</dt>' in page and 'class="hit">rank' not in page


def test_link_terms_cover_every_spelling():
    words = {w for t in glossary.link_terms() for w in t["words"]}
    assert {"rank", "ranks", "merge", "piece", "pieces", "split pattern", "special tokens"} <= words
