"""playground/components/html_block.js in Debian's chromium: big markup blocks are cleaned and merged in place.

The script is loaded into a blank page (no Streamlit) and called as Streamlit
calls a component, so its allowlist and its in-place merge are tested alone;
the last test checks the merge on the served app while the user types.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Page, expect

import engine

ROOT = Path(__file__).resolve().parents[2]
SOURCE = (ROOT / "playground" / "components" / "html_block.js").read_text(encoding="utf-8")
FIRST = 60_000  # ms


def load(page: Page, requests: list[str]) -> None:
    """A blank page with the component's function as window.__draw(markup) into #root."""
    page.route("**/*", lambda route: (requests.append(route.request.url), route.abort()))
    page.set_content("<div id='root'></div>")
    script = re.sub(r"^export default function", "window.__blockDraw = function", SOURCE, flags=re.M)
    script = re.sub(r"^export function", "function", script, flags=re.M)
    page.add_script_tag(content=script)
    page.evaluate("""() => { window.__draw = (markup) =>
        window.__blockDraw({ data: { html: markup }, parentElement: document.getElementById('root') }); }""")


HOSTILE = (
    '<div class="tokens" id="t">'
    '<span class="tok" data-ids="1" onclick="alert(1)" onmouseover="alert(2)">a</span>'
    '<img src="http://attacker.example/x.png" onerror="alert(3)">'
    '<script>window.__pwned = 1</script>'
    '<a href="javascript:alert(4)">js</a><a href="http://attacker.example/">out</a><a href="?tok=5&amp;tenc=gpt2">in</a>'
    '<span style="background:url(http://attacker.example/bg.png)">styled</span>'
    '<style>@import url("http://attacker.example/s.css"); .x{color:red}</style>'
    '<iframe src="http://attacker.example/"></iframe><svg><script>window.__pwned = 2</script></svg>'
    '<form action="http://attacker.example/"><button formaction="http://attacker.example/">b</button></form>'
    '<span class="tok" data-ids="2" title="t" dir="rtl">b</span></div>'
)


def test_hostile_markup_is_cleaned_and_fetches_nothing(page: Page):
    requests: list[str] = []
    load(page, requests)
    page.evaluate("m => window.__draw(m)", HOSTILE)
    root = page.locator("#root")
    expect(root.locator(".tok").first).to_be_attached()  # drawn
    inner = root.inner_html()
    for bad in ("<img", "<script", "<iframe", "<svg", "<form", "<button", "onclick", "onmouseover", "onerror",
                "javascript:", "attacker.example", "@import"):
        assert bad not in inner, (bad, inner)
    assert page.evaluate("window.__pwned") is None
    assert not any("attacker" in url for url in requests), requests
    # what playground/render/ writes survives: token spans with their data, titles and direction, in-app links
    assert root.locator("span.tok").count() == 2
    assert root.locator("span.tok").last.get_attribute("dir") == "rtl"
    assert root.locator("span.tok").first.get_attribute("data-ids") == "1"
    assert root.locator("a").evaluate_all("els => els.map(a => a.getAttribute('href'))") == [None, None, "?tok=5&tenc=gpt2"]


def test_an_edit_keeps_the_unchanged_units_and_moves_the_rest_in_place(page: Page):
    load(page, [])

    def row(words: list[str]) -> str:
        spans, start = [], 0
        for w in words:
            spans.append(f'<span class="tok" data-start="{start}" data-end="{start + len(w)}">{w}</span>')
            start += len(w)
        return f'<div class="tokens" id="tokens-x" data-n="{len(words)}">' + "".join(spans) + "</div>"

    page.evaluate("m => window.__draw(m)", row(["Hello", " world", "!", " Bye"]))
    page.evaluate("""() => document.querySelectorAll('#root .tok').forEach((e, k) => e.__mark = k)""")
    page.evaluate("m => window.__draw(m)", row(["Hello", " big", " world", "!", " Bye"]))  # an insertion
    got = page.evaluate("""() => Array.from(document.querySelectorAll('#root .tok')).map(e =>
        [e.__mark === undefined ? null : e.__mark, e.textContent, +e.dataset.start, +e.dataset.end])""")
    assert got == [[0, "Hello", 0, 5], [None, " big", 5, 9], [1, " world", 9, 15], [2, "!", 15, 16], [3, " Bye", 16, 20]]
    assert page.locator("#tokens-x").get_attribute("data-n") == "5"
    assert page.locator("#root .bpe-block").get_attribute("data-rev") == "2"
    # a different block (another id) replaces the old one whole
    page.evaluate("m => window.__draw(m)", row(["Hi"]).replace("tokens-x", "tokens-y"))
    assert page.evaluate("() => document.querySelectorAll('#root .tok').length") == 1
    assert page.locator("#tokens-x").count() == 0 and page.locator("#tokens-y").count() == 1


def test_typing_merges_the_served_row_in_place(page: Page):
    """On the served app, a keystroke at the end leaves the row's first units as the same DOM nodes."""
    text = "The quick brown fox jumps over the lazy dog. " * 20
    page.goto("/compare?enc=gpt2,cl100k_base&ws=0&text=" + quote(text))
    first = page.locator("#cmp-gpt2 .tok").first
    expect(first).to_be_visible(timeout=FIRST)
    page.evaluate("() => { document.querySelector('#cmp-gpt2 .tok').__mark = 'kept'; }")
    box = page.get_by_label("Text", exact=True)
    box.click()
    page.keyboard.press("Control+End")
    page.keyboard.type(" Zebra")
    n = len(engine.get_encoding("gpt2").encode(text + " Zebra"))
    expect(page.locator("#cmp-gpt2")).to_have_text(text + " Zebra", timeout=10_000)
    assert page.locator("#cmp-gpt2 .tok").count() == n
    assert page.evaluate("() => document.querySelector('#cmp-gpt2 .tok').__mark") == "kept"
