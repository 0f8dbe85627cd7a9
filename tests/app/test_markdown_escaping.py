"""playground.render.markdown.md and its callers: text with a web address, shown in a message, never becomes a live link.

GitHub-flavoured markdown (Streamlit's) links bare ``http://…``, ``www.…`` and ``name@host.tld`` after
backslash escapes are resolved, so escaping alone left them live (the decode box showed a clickable
``http://evil.example/x.png``).  The patterns below are those of its autolink transform
(mdast-util-gfm-autolink-literal), run over the text a reader sees (escapes resolved, joiners kept).
"""
from __future__ import annotations

import re

import pytest

from tests.conftest import plain
from playground.render.markdown import JOINER, md
from playground.views import train as train_view

URL = re.compile(r"(https?://|www(?=\.))[-.\w]+", re.I | re.A)
EMAIL = re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+", re.A)
OWN_LINK = re.compile(r"\]\(https://[^()\s]+\)")  # a markdown link's target: "](https://...)"
HOSTILE = [
    "x http://evil.example/x.png",
    "HTTPS://EVIL.EXAMPLE",
    "see www.evil.example/page and WWW.evil.example",
    "mail me@evil.example or mailto:me@evil.example",
    "[click](http://evil.example) ![p](https://evil.example/x.png) <http://evil.example>",
    "http://www.evil.example, xmpp:me@evil.example/res",
]


def resolved(markdown: str) -> str:
    """The text after markdown's backslash escapes are resolved (what the autolink transform sees)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


@pytest.mark.parametrize("text", HOSTILE)
def test_no_autolink_survives_md(text):
    shown = resolved(md(text))
    assert not URL.search(shown), shown
    assert not EMAIL.search(shown), shown
    assert plain(md(text)) == text  # a reader sees the same text


def test_md_adds_nothing_to_ordinary_text():
    text = "Decode failed: id 5 is not in gpt2 (ids 0 … 50,256). Time: 10 s; ratio 1.5"
    assert JOINER not in md(text) and resolved(md(text)) == text


def test_upload_messages_and_file_names_do_not_autolink():
    """A bad line of an uploaded file and a file named like an address, as their error says them."""
    for name, data in (("http://evil.example/a.tiktoken", b"!!! 0\n"),
                       ("a.tiktoken", b"x http://evil.example/x.png 0\n")):
        with pytest.raises(ValueError) as info:
            train_view.load_tokenizer("tiktoken rank file", (name, data), None, None, [])
        assert "evil.example" in str(info.value)
        shown = resolved(md(info.value, 600))
        assert not URL.search(shown), shown


# ------------------------------------------------ every page: a name or token like an address
EVIL_NAME = "www.evil.example"  # a name the upload form accepts (letters, digits, '.', '_', '-')


def _evil_encoding():
    import engine

    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"http://evil.example/x.png"] = 256
    return engine.Encoding(EVIL_NAME, pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})


def _markdown_texts(at) -> list[str]:
    """Every string of the page that Streamlit renders as markdown: bodies, labels, option labels."""
    from streamlit.testing.v1.element_tree import Block

    out: list[str] = []

    def walk(node) -> None:
        if isinstance(node, Block):
            for child in node.children.values():
                walk(child)
        proto = getattr(node, "proto", None)
        if proto is None or getattr(proto, "allow_html", False):
            return  # HTML (playground/render/html.py escapes it): markdown does not autolink inside an HTML block
        for field in ("body", "label"):
            value = getattr(proto, field, None)
            if isinstance(value, str):
                out.append(value)
        if type(node).__name__ in ("ButtonGroup", "Radio"):  # options rendered as markdown (not selectboxes')
            for option in proto.options:
                out.append(option if isinstance(option, str) else option.content)
        if getattr(proto, "expandable", None) is not None and proto.HasField("expandable"):
            out.append(proto.expandable.label)

    walk(at._tree)
    return [t for t in out if isinstance(t, str)]


@pytest.mark.parametrize(("view", "pane"), [("views.tokenize", {"tok_pane": "Pieces"}), ("views.compare", {}),
                                            ("views.arena", {}), ("views.vocab", {"vocab_pane": "lengths"}),
                                            ("views.tree", {})])
def test_an_own_tokenizer_named_like_an_address_is_never_a_link(view, pane):
    from tests.conftest import run_view
    from playground import state

    enc = _evil_encoding()
    at = run_view(view, **{state.CUSTOM: {EVIL_NAME: enc}, state.ENCODINGS: [EVIL_NAME, "gpt2"],
                           state.TOKEN_ENC: EVIL_NAME, state.TOKEN_ID: 256, **pane})
    texts = _markdown_texts(at)
    assert any("evil" in t for t in texts), texts  # the name is on the page...
    for t in texts:  # ...but never as something markdown would link (the page's own [title](address) links to
        # the papers it cites are written by the page, not made of the name: they are taken out first)
        bare = OWN_LINK.sub("]", t)
        assert not URL.search(resolved(bare)) and not EMAIL.search(resolved(bare)), t


def test_token_chips_do_not_autolink():
    from playground.widgets import pickers

    label = pickers.chip_label(_evil_encoding(), 256)
    assert not URL.search(resolved(label)) and "evil" in label


def test_a_special_token_like_an_address_is_quoted_inertly():
    """A special token of an uploaded file (shown when its id is picked) may hold a backtick and an address."""
    import engine
    from playground.widgets import pickers

    ranks = {bytes([b]): b for b in range(256)}
    enc = engine.Encoding("www.evil.example", pat_str=r"\S+|\s+", mergeable_ranks=ranks,
                          special_tokens={"`x` http://evil.example/x.png": 256})
    for token_id in (256, 300):
        shown = resolved(pickers.token_problem(enc, token_id))
        assert "evil" in shown and not URL.search(shown) and not EMAIL.search(shown), shown
