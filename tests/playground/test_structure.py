"""The playground's shape: views are leaves, markup and styles come from playground/render/html.py."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PLAYGROUND = Path(__file__).resolve().parents[2] / "playground"
# a view is a module of playground/views/, or the __init__.py of a folder there (a view with content of its own)
VIEWS = sorted([p for p in (PLAYGROUND / "views").glob("*.py") if p.stem != "__init__"]
               + list((PLAYGROUND / "views").glob("*/__init__.py")))


def view_name(path: Path) -> str:
    return path.parent.name if path.stem == "__init__" else path.stem


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


@pytest.mark.parametrize("view", VIEWS, ids=view_name)
def test_no_view_imports_another_view_or_the_page_list(view):
    others = ({f"playground.views.{view_name(p)}" for p in VIEWS if p != view}
              | {"playground.pages", "playground.pages.PAGES"})
    assert not imported_modules(view) & others


# views owned by this branch; train_view is built elsewhere
@pytest.mark.parametrize("view", [p for p in VIEWS if view_name(p) != "train"], ids=view_name)
def test_views_write_no_style_blocks_or_markup_of_their_own(view):
    source = view.read_text(encoding="utf-8")
    assert "<style" not in source
    assert not re.search(r"""["']<(span|div|p|table|style)\b""", source)


def test_one_space_glyph_everywhere():
    from playground.render import html

    assert html.visible("a b\tc\n") == "a␣b→c↵"
    assert html.visible("\u200d") == "‹ZWJ›"  # a lone joiner is named ...
    assert html.visible("👨\u200d👩") == "👨\u200d👩"  # ... but inside an emoji it joins
    assert '<span class="ws">␣</span>' in html.show_whitespace(" ")


@pytest.mark.parametrize("n, text", [(0, "0 tokens"), (1, "1 token"), (2, "2 tokens"), (1234, "1,234 tokens")])
def test_plural(n, text):
    from playground.render import html

    assert html.plural(n, "token") == text


def test_rtl_runs_take_in_the_spaces_between_rtl_words():
    from playground.render import tokens

    texts = ["Hi", " ", "مرح", "با", " ", "بالعالم", " ", "ok"]
    assert tokens.direction_runs(texts) == [(0, 2, False), (2, 6, True), (6, 8, False)]


def test_style_blocks_have_no_blank_line():
    """A blank line ends markdown's HTML block: the rest of the CSS would show as a paragraph."""
    from playground.render import css

    for name in ("base", "tokens", "tree", "gallery"):  # styles/<name>.css, as a page's <style> block
        assert "\n\n" not in css.style_block(name), name


def test_test_hooks_live_in_the_test_seam_module_only():
    """Counters, clocks and tasks that only tests use sit in playground/serving/test_seams.py, not in the
    production modules they watch."""
    from playground.cache import uploads
    from playground.serving import job_tasks, jobs, test_seams

    assert not hasattr(jobs, "started") and not hasattr(job_tasks, "_clock") and not hasattr(uploads, "given_back")
    assert "preloaded" not in job_tasks.TASKS and "preloaded" in test_seams.TASKS
    hooks = re.compile(r"\((for )?tests( and the load bench)? (read|replace) it\)")
    assert not [p for p in PLAYGROUND.rglob("*.py") if hooks.search(p.read_text(encoding="utf-8"))]
