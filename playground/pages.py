"""The views, as `st.Page` objects, for `st.navigation` and `st.switch_page(PAGES[...])` (via playground/pickers.go).

Each view module is imported only when its page runs.  Pages are built on
each access, inside the running script: an `st.Page` made outside a script
run (say, when a test imports a view module) is a bare object that
`st.navigation` and `st.switch_page` cannot use.
"""
from __future__ import annotations

import importlib

import streamlit as st

_VIEWS = {  # name: (module under playground/, title, icon, url path) -- Material icons, one style for every page
    "tokenize": ("views.tokenize", "Tokenize", ":material/text_fields:", "tokenize"),
    "compare": ("views.compare", "Compare", ":material/difference:", "compare"),
    "gallery": ("views.gallery", "Why counts differ", ":material/bar_chart:", "gallery"),
    "arena": ("views.arena", "Arena", ":material/leaderboard:", "arena"),
    "chunks": ("views.chunks", "Token-budget chunks", ":material/view_agenda:", "chunks"),
    "tree": ("views.tree", "Merge tree", ":material/account_tree:", "tree"),
    "steps": ("views.steps", "BPE steps", ":material/footprint:", "steps"),
    "vocab": ("views.vocab", "Vocabulary", ":material/menu_book:", "vocab"),
    "train": ("views.train", "Train your own", ":material/model_training:", "train"),
    "train-steps": ("views.train_steps", "Training, step by step", ":material/slideshow:", "train-steps"),
    "diff": ("views.diff", "Tokenizer diff", ":material/difference:", "diff"),
    "glossary": ("views.glossary", "Glossary", ":material/dictionary:", "glossary"),
    "pipeline": ("views.pipeline", "Pipeline, stage by stage", ":material/linear_scale:", "pipeline"),
    "algorithms": ("views.algorithms", "Three algorithms", ":material/call_split:", "algorithms"),
    "chat": ("views.chat", "Chat formats", ":material/forum:", "chat"),
    "lab": ("views.lab", "Lab: papers and demos", ":material/science:", "lab"),
}
_SECTIONS = {
    "Tokenizers": ["tokenize", "compare", "gallery", "arena", "chat", "chunks", "diff"],
    "How BPE works": ["tree", "steps", "vocab", "train", "train-steps", "pipeline", "algorithms", "lab", "glossary"],
}


def _page(name: str, *, home: bool = False) -> st.Page:
    """The page of a view; ``home=True`` is the same view served at the root URL, hidden from the menu.

    Every view has its own URL (``/tokenize`` opens directly, a share link can name it); the root
    URL shows Tokenize through a hidden default page, because a default page has no URL of its own.
    """
    module, title, icon, url_path = _VIEWS[name]

    def run() -> None:
        importlib.import_module(f"playground.{module}").render()

    leaf = module.rpartition(".")[2]
    run.__name__ = f"{leaf}_home" if home else leaf
    if home:
        return st.Page(run, title=title, icon=icon, url_path="home", default=True, visibility="hidden")
    return st.Page(run, title=title, icon=icon, url_path=url_path)


class _Pages:
    """``PAGES["tree"]``: a fresh `st.Page` for a view, made in the current script run."""

    def __getitem__(self, name: str) -> st.Page:
        return _page(name)


PAGES = _Pages()


def sections() -> dict[str, list[st.Page]]:
    """The navigation menu, for `st.navigation` in app.py."""
    menu = {section: [_page(name) for name in names] for section, names in _SECTIONS.items()}
    first = next(iter(menu))
    menu[first].append(_page(_SECTIONS[first][0], home=True))
    return menu
