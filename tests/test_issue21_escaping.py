"""Issue 21, item 15 (escaping): text with a web address, shown in a message, never becomes a live link.

GitHub-flavoured markdown (Streamlit's) links bare ``http://…``, ``www.…`` and ``name@host.tld`` after
backslash escapes are resolved, so escaping alone left them live (the decode box showed a clickable
``http://evil.example/x.png``).  The patterns below are those of its autolink transform
(mdast-util-gfm-autolink-literal), run over the text a reader sees (escapes resolved, joiners kept).
"""
from __future__ import annotations

import re

import pytest

from conftest import plain
from playground import train_view
from playground.escaping import JOINER, md

URL = re.compile(r"(https?://|www(?=\.))[-.\w]+", re.I | re.A)
EMAIL = re.compile(r"[-.\w+]+@[-\w]+(?:\.[-\w]+)+", re.A)
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
