"""The views, as `st.Page` objects, so views can link to each other with `st.switch_page(PAGES[...])`.

Each view module is imported only when its page runs.
"""
from __future__ import annotations

import importlib

import streamlit as st


def _view(module: str, title: str, icon: str, url_path: str, default: bool = False) -> st.Page:
    def run() -> None:
        importlib.import_module(f"playground.{module}").render()

    run.__name__ = module
    return st.Page(run, title=title, icon=icon, url_path=url_path, default=default)


PAGES: dict[str, st.Page] = {
    "tokenize": _view("tokenize_view", "Tokenize", "🔤", "tokenize", default=True),
    "compare": _view("compare_view", "Compare", "⚖️", "compare"),
    "gallery": _view("gallery_view", "Why counts differ", "📊", "gallery"),
    "tree": _view("tree_view", "Merge tree", "🌳", "tree"),
    "steps": _view("steps_view", "BPE steps", "👣", "steps"),
    "vocab": _view("vocab_view", "Vocabulary", "📚", "vocab"),
    "train": _view("train_view", "Train your own", "🏋️", "train"),
}

SECTIONS = {
    "Tokenizers": [PAGES["tokenize"], PAGES["compare"], PAGES["gallery"]],
    "How BPE works": [PAGES["tree"], PAGES["steps"], PAGES["vocab"], PAGES["train"]],
}
