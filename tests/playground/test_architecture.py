"""The playground's folders keep their roles: no import cycle, views are leaves, renderers draw without
Streamlit, and caches, components and widgets sit below the views (ARCHITECTURE.md 4.1)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLAYGROUND = ROOT / "playground"
UI_LIBRARIES = ("streamlit", "pandas", "altair")
FOLDERS = ("views", "widgets", "components", "render", "cache", "serving")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PLAYGROUND.rglob("*.py"))}


def imports(name: str) -> set[str]:
    """Every module `name` imports, at the top or inside a function (a late import still runs)."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in MODULES)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


GRAPH = {name: {m for m in imports(name) if m in MODULES and m != name} for name in MODULES}


def test_the_folders_exist_and_the_top_holds_only_the_frame_pieces():
    assert all((PLAYGROUND / folder / "__init__.py").is_file() for folder in FOLDERS)
    assert sorted(p.name for p in PLAYGROUND.glob("*.py")) == ["__init__.py", "pages.py", "state.py"]
    assert not (PLAYGROUND / "static").exists()


def test_no_import_cycle():
    """Depth-first search over every playground module's imports: no module reaches itself."""
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> None:
        if name in path:
            cycle = path[path.index(name):] + [name]
            pytest.fail("an import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        path.append(name)
        for other in sorted(GRAPH[name]):
            visit(other)
        path.pop()
        done.add(name)

    for name in MODULES:
        visit(name)


# a view is a module (or a folder) right under playground/views/; a folder holds the view's own content
VIEWS = sorted(m for m in MODULES if m.startswith("playground.views.") and m.count(".") == 2)


@pytest.mark.parametrize("view", VIEWS)
def test_a_view_imports_no_other_view(view):
    assert not {m for m in GRAPH[view] if m.startswith("playground.views.") and not m.startswith(view + ".")}


@pytest.mark.parametrize("view", VIEWS)
def test_every_view_has_one_render(view):
    tree = ast.parse(MODULES[view].read_text(encoding="utf-8"))
    assert [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "render"] == ["render"]


def test_pages_names_exactly_the_views():
    import playground.pages as pages

    assert sorted(f"playground.{module}" for module, *_ in pages._VIEWS.values()) == VIEWS


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith("playground.render")))
def test_a_renderer_imports_no_ui_library_and_nothing_above_it(name):
    for module in imports(name):
        assert module.split(".")[0] not in UI_LIBRARIES, module
        assert not module.startswith("playground.") or module.startswith("playground.render"), module


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith(("playground.cache", "playground.serving",
                                                                             "playground.components",
                                                                             "playground.widgets"))))
def test_nothing_below_the_views_imports_a_view_or_the_page_list(name):
    assert not {m for m in GRAPH[name] if m.startswith("playground.views")}
    late = {m for m in GRAPH[name] if m == "playground.pages"}
    # one late import: pickers.go switches page through pages.PAGES, which imports views only when run
    assert late <= ({"playground.pages"} if name == "playground.widgets.pickers" else set())


def test_serving_and_cache_import_no_widget_component_or_view():
    for name in MODULES:
        if name.startswith(("playground.serving", "playground.cache")):
            above = {m for m in GRAPH[name] if m.startswith(("playground.widgets", "playground.components",
                                                              "playground.views"))}
            assert not above, (name, above)


def test_components_import_no_widget():
    """Widgets mount components (pickers mounts token_links with its callbacks), never the reverse."""
    for name in MODULES:
        if name.startswith("playground.components"):
            assert not {m for m in GRAPH[name] if m.startswith("playground.widgets")}, name


def test_import_engine_imports_no_ui_library():
    import subprocess
    import sys

    code = "import sys, engine; print(sorted({m.split('.')[0] for m in sys.modules} & {'streamlit', 'pandas', 'altair'}))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_css_lives_in_styles_files_loaded_one_way():
    """No Python module under playground/ holds a <style> block; the hue classes match `hue_class`."""
    from playground.render import css, html

    for name, path in MODULES.items():
        assert "<style>\n." not in path.read_text(encoding="utf-8"), name
    hues = css.rules("hues").splitlines()
    assert len(hues) == html.HUES
    assert all(line.startswith(f".tokens .tok.h{k}{{") for k, line in enumerate(hues))
    assert html.hue_class(0) == "h0" and html.hue_class(1) == f"h{int(137.508) * html.HUES // 360}"
