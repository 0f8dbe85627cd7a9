"""SuperBPE's held-out sample (playground.render.training.superword_sample): one chip per token, superwords
marked in class and tooltip, every token's text escaped."""
from __future__ import annotations

from playground.render.training import superword_sample


def test_superwords_are_marked_and_text_is_escaped():
    html = superword_sample([(300, b" of the", True), (60, b"<", False), (400, b'"><b>x</b> y', True)])
    assert html.count('class="tok superword"') == 2 and html.count('class="tok"') == 1
    assert 'title="id 300 · superword"' in html and 'title="id 60"' in html
    assert "<b>" not in html and "&lt;b&gt;" in html and "&lt;</bdi>" in html
