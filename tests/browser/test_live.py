"""The playground feels live and draws every script right, in Debian chromium.

* typing updates the counts with no Ctrl+Enter and no blur;
* every drawn unit starts and ends on a grapheme boundary (regex ``\\X``) for
  emoji with ZWJ and skin tones, flags, Devanagari and Arabic, on Tokenize and Compare;
  Arabic sits in one right-to-left run;
* hovering shows the tooltip at once and lights up the ids and, on Compare, the
  same characters in the other encoding; a click pins it, and its link opens the tree;
* the landing page on desktop and phone, the Arabic/emoji text and a pinned token
  are saved as screenshots (test-results/screenshots/).
"""
from __future__ import annotations

import pytest

import re
from urllib.parse import quote

import regex
from playwright.sync_api import Page, expect

import engine
from tests.conftest import SCREENSHOTS, settle, until

FIRST = 60_000  # ms: the first render of a page may load vocabularies (slow on a loaded 2-core machine)
SCRIPTS = "Family 👨‍👩‍👧 wave 👋🏽 flags 🇯🇵🇫🇷 नमस्ते दुनिया · مرحبا بالعالم · é"


def bounds(text: str) -> set[int]:
    return {0} | {m.end() for m in regex.finditer(r"\X", text)}


def units_of(page: Page, selector: str) -> list[tuple[int, int, str]]:
    return page.locator(selector).evaluate_all(
        "els => els.map(e => [+e.dataset.start, +e.dataset.end, e.textContent])")


def links_ready(page: Page) -> None:
    """Wait until the hover/pin listeners (playground/components/token_links.js) are installed."""
    page.wait_for_function("() => window.__bpeLinks && window.__bpeLinks.trigger", timeout=FIRST)


def metric(page: Page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


def test_typing_updates_counts_without_ctrl_enter(page: Page):
    page.goto("/?enc=gpt2&ws=0&text=" + quote("start"))
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    box = page.get_by_label("Text", exact=True)
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.type("hello world, typed live", delay=20)  # keystrokes only: no Enter, no blur
    n = len(engine.get_encoding("gpt2").encode("hello world, typed live"))
    expect(metric(page, "Tokens")).to_have_text(str(n), timeout=10_000)
    expect(page.locator("#tokens-gpt2")).to_have_text("hello world, typed live")
    expect(box).to_be_focused()  # the box never lost focus


def test_a_big_paste_travels_up_once(page: Page):
    """The typed text goes to the server once (a trigger value), not again with every later click."""
    page.goto("/?enc=gpt2&ws=0&text=" + quote("start"))
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    sent: list[int] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(len(payload))))
    page.reload()  # the listener sees the page's websocket from its start
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    text = "A paste of three hundred thousand characters. " * 6_500
    page.get_by_label("Text", exact=True).fill(text)
    n = len(engine.get_encoding("gpt2").encode(text))
    expect(metric(page, "Tokens")).to_have_text(f"{n:,}", timeout=FIRST)
    assert max(sent) > len(text)  # the paste went up
    sent.clear()
    page.get_by_test_id("stMain").get_by_role("radio", name="Bytes", exact=True).click()
    expect(page.locator("#bytes-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    assert sent and max(sent) < 20_000, sent  # the pane click did not send the text again


def test_a_long_text_is_back_in_the_box_after_a_page_switch(page: Page):
    """Past 100,000 characters the box is filled after the page is drawn (read-only meanwhile): the
    text is all there afterwards, editable, and still the app's text."""
    page.goto("/?enc=gpt2&ws=0&text=" + quote("start"))
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    text = "Long texts come back after the tokens. " * 4_000  # 156,000 characters
    page.get_by_label("Text", exact=True).fill(text)
    n = len(engine.get_encoding("gpt2").encode(text))
    expect(metric(page, "Tokens")).to_have_text(f"{n:,}", timeout=FIRST)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare", exact=True).click()
    expect(page.locator("#cmp-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    box = page.get_by_label("Text", exact=True)
    expect(box).to_have_value(text, timeout=FIRST)
    expect(box).to_be_editable()
    expect(page.get_by_text(f"{len(text):,} / 2,000,000 characters")).to_be_visible()
    box.press("Control+End")
    box.type("and more words")
    edited = len(engine.get_encoding("gpt2").encode(text + "and more words"))
    assert edited != n
    expect(page.get_by_test_id("stMain")).to_contain_text(f"gpt2 · {edited:,} tokens", timeout=FIRST)  # the edit went up


def test_every_drawn_unit_is_whole_graphemes(page: Page):
    page.goto("/?enc=gpt2,cl100k_base&ws=0&text=" + quote(SCRIPTS))
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    ok = bounds(SCRIPTS)
    for name in ("gpt2", "cl100k_base"):
        if name != "gpt2":
            page.get_by_test_id("stMain").get_by_role("radio", name=name, exact=True).click()
            expect(page.locator(f"#tokens-{name} span.tok").first).to_be_visible()
        units = units_of(page, f"#tokens-{name} span.tok")
        assert [(a, b) for a, b, _ in units if a not in ok or b not in ok] == [], name
        assert [t for _, _, t in units] == [SCRIPTS[a:b] for a, b, _ in units]
        assert "".join(t for _, _, t in units) == SCRIPTS
        rtl = page.locator(f"#tokens-{name} span.rtl[dir=rtl]")
        expect(rtl).to_have_count(1)  # both Arabic words, and the space between, in one run
        assert rtl.text_content().strip() == "مرحبا بالعالم"  # a token may bring its leading space
    page.set_viewport_size({"width": 900, "height": 700})
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#tokens-cl100k_base").screenshot(path=str(SCREENSHOTS / "live-scripts-tokenize.png"))

    page.goto("/compare?enc=gpt2,cl100k_base&ws=0&text=" + quote(SCRIPTS))
    expect(page.locator("#cmp-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    for name in ("gpt2", "cl100k_base"):
        units = units_of(page, f"#cmp-{name} span.tok")
        assert [(a, b) for a, b, _ in units if a not in ok or b not in ok] == [], name
    table = page.get_by_test_id("stDataFrame").last
    expect(table).to_be_visible()


def expected_tips(name: str, text: str) -> dict[int, str]:
    """playground.render.html.unit_tip for every drawn unit of `text` (by its start), as the server would build it."""
    from playground.render.tokens import unit_tip

    enc = engine.get_encoding(name)
    kw = {"allowed_special": set(), "disallowed_special": ()}
    pieces = enc.pretokenize(text, **kw)
    notes = engine.explain.families.tokenize_text(enc, text, **kw).notes
    return {unit.char_start: unit_tip(unit, pieces[unit.tokens[0].piece_index].text, enc.n_vocab, notes, text)
            for unit in engine.explain.compare.group_tokens(enc.tokenize(text, **kw), text)}


@pytest.mark.slow  # slow (issue 32): a sweep over every token; the default run keeps test_hover_shows_tooltip_and_lights_linked_spans
def test_every_tooltip_equals_the_servers_text(page: Page):
    """The page composes each tooltip from a span's attributes; for every unit of a many-script text,
    under a rank-file encoding and a SentencePiece one, it is exactly the server's unit_tip."""
    text = SCRIPTS + " 12345 ﷺ a\tb\n<|endoftext|> Hello▁world"
    for name in ("cl100k_base", "mistral-v1"):
        page.goto(f"/?enc={name}&ws=1&text=" + quote(text))
        expect(page.locator(f"#tokens-{name} span.tok").first).to_be_visible(timeout=FIRST)
        page.wait_for_function("() => window.__bpeTipText", timeout=FIRST)
        shown = page.locator(f"#tokens-{name} span.tok").evaluate_all(
            "els => els.map(e => [+e.dataset.start, window.__bpeTipText(e)])")
        want = expected_tips(name, text)
        assert len(shown) == len(want)
        assert {start: tip for start, tip in shown} == want, name


def test_hover_shows_tooltip_and_lights_linked_spans(page: Page):
    text = "unbelievable 1234567 مرحبا"
    page.goto("/?enc=gpt2,cl100k_base&ws=0&text=" + quote(text))
    first = page.locator("#tokens-gpt2 span.tok").first
    expect(first).to_be_visible(timeout=FIRST)
    links_ready(page)
    first.hover()
    tip = page.locator("#bpe-tip")
    expect(tip).to_be_visible()
    ids = first.get_attribute("data-ids").split()
    expect(tip).to_contain_text(ids[0])
    expect(tip).to_contain_text("bytes ")
    expect(page.locator("#ids-gpt2 .id.hl")).to_have_count(len(ids))
    assert page.locator("#ids-gpt2 .id.hl").first.text_content() == ids[0]

    page.goto("/compare?enc=gpt2,cl100k_base&ws=0&text=" + quote(text))
    digits = page.locator("#cmp-gpt2 span.tok", has_text="45")
    expect(digits).to_be_visible(timeout=FIRST)
    links_ready(page)
    digits.hover()
    start, end = int(digits.get_attribute("data-start")), int(digits.get_attribute("data-end"))
    lit = page.locator("#cmp-cl100k_base span.tok.hl")
    expect(lit.first).to_be_visible()
    for a, b, _ in units_of(page, "#cmp-cl100k_base span.tok.hl"):
        assert a < end and b > start  # the same characters, in the other encoding
    digits.click()
    expect(page.locator("#cmp-gpt2 span.tok.pin")).to_have_count(1)
    page.mouse.move(5, 5)
    expect(tip).to_be_visible()  # pinned: stays without the mouse
    expect(tip.get_by_role("link", name="Merge tree →")).to_be_visible()
    page.get_by_test_id("stMain").screenshot(path=str(SCREENSHOTS / "live-compare-pinned.png"))
    token_id = digits.get_attribute("data-ids").split()[0]
    tip.get_by_role("link", name="Merge tree →").dispatch_event("click")  # a plain left click on the link
    expect(page).to_have_url(re.compile(rf"/tree\?.*tok={token_id}"), timeout=FIRST)
    expect(page.locator("svg.merge-tree").first).to_be_visible(timeout=FIRST)
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_compare_loads_without_console_warnings_from_our_charts(page: Page):
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}") if m.type in ("warning", "error") else None)
    page.goto("/compare?enc=gpt2,cl100k_base,o200k_base")
    bars = page.locator("#cmp-bars .cbar")
    expect(bars).to_have_count(9, timeout=FIRST)  # three charts of three encodings, plain HTML
    # the markup can be in the page a moment before it is laid out (seen on a busy machine): wait for the bars
    page.wait_for_function("() => [...document.querySelectorAll('#cmp-bars .cbar .fill')].slice(0, 3)"
                           ".every(e => e.getBoundingClientRect().width > 0)", timeout=FIRST)
    drawn = bars.evaluate_all("""els => els.slice(0, 3).map(e => [e.querySelector('.fill').getBoundingClientRect().width,
                                                                  +e.querySelector('.val').textContent.replace(/,/g, '')])""")
    top_width, top_count = max(drawn, key=lambda d: d[1])
    for width, count in drawn:  # bar lengths in proportion to the token counts written beside them
        assert abs(width / top_width - count / top_count) < 0.02, drawn
    settle(page)
    assert not [m for m in messages if "fit" in m or "Dropping" in m or "Infinite extent" in m or "vega" in m.lower()], messages


def test_landing_page_on_desktop_and_phone(page: Page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1300, "height": 900})
    page.goto("/")
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    expect(page.locator(".bpe-header h1")).to_have_text("Tokenize")
    page.screenshot(path=str(SCREENSHOTS / "live-landing-desktop.png"), animations="disabled")
    page.set_viewport_size({"width": 390, "height": 844})
    # metrics sized for a phone (Streamlit's default is 36 px), once the page has laid itself out at 390 px
    until(lambda: metric(page, "Tokens").evaluate("e => parseFloat(getComputedStyle(e).fontSize)") <= 20,
          what="the metric's font size <= 20 px at 390 px")
    expect(page.get_by_text("box-shadow")).to_have_count(0)  # no CSS leaks into the page as text
    page.screenshot(path=str(SCREENSHOTS / "live-landing-phone.png"), animations="disabled")


def test_share_link_follows_controls_inside_fragments(page: Page):
    """The Tokenize pane and encoding pickers and Compare's layout redraw only their fragment;
    the address bar still follows them."""
    page.goto("/?enc=gpt2,cl100k_base&ws=0&text=" + quote("hello"))
    expect(page.locator("#tokens-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    main = page.get_by_test_id("stMain")
    main.get_by_role("radio", name="Bytes", exact=True).click()
    expect(page).to_have_url(re.compile(r"v\.tok_pane=%22Bytes%22"), timeout=FIRST)
    main.get_by_role("radio", name="cl100k_base", exact=True).click()
    expect(page).to_have_url(re.compile(r"v\.tok_encoding=%22cl100k_base%22"), timeout=FIRST)
    page.goto("/compare?enc=gpt2,cl100k_base&ws=0&text=" + quote("hello"))
    expect(page.locator("#cmp-gpt2 span.tok").first).to_be_visible(timeout=FIRST)
    page.get_by_test_id("stMain").get_by_role("radio", name="Stacked", exact=True).click()
    expect(page).to_have_url(re.compile(r"v\.cmp_layout=%22Stacked%22"), timeout=FIRST)


def test_arabic_reads_right_to_left_in_tokenize(page: Page):
    """The Arabic words' units run right to left (each unit left of the one before it), and a
    screenshot of the Arabic text is saved for a reader to check the joins."""
    text = "Hello مرحبا بالعالم world"
    page.goto("/?enc=o200k_base&ws=0&text=" + quote(text))
    expect(page.locator("#tokens-o200k_base span.tok").first).to_be_visible(timeout=FIRST)
    units = page.locator("#tokens-o200k_base span.rtl[dir=rtl] span.tok").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right, e.textContent]; })")
    arabic = [u for u in units if u[2].strip()]
    assert len(arabic) >= 2
    assert all(a[0] >= b[1] - 1 for a, b in zip(arabic, arabic[1:])), arabic
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#tokens-o200k_base").screenshot(path=str(SCREENSHOTS / "live-tokenize-arabic.png"))
