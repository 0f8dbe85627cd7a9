"""Crafted inputs in the playground: a chat import and a link value nested past the JSON limits are refused
with a message (the engine's limits: tests/engine/formats/test_limits_crafted_files.py, whose `deep` file
these tests share).
"""
from __future__ import annotations

import pytest

from tests.engine.formats.test_limits_crafted_files import deep


def test_chat_import_is_scanned_before_json_loads():
    from engine.chat import ChatFormatError
    from playground.views import chat as chat_view

    with pytest.raises(ChatFormatError, match=r"nested at least 100,000 levels deep; the limit is 100 levels"):
        chat_view.parse_json(deep())


def test_a_deeply_nested_link_value_is_named_not_a_crash():
    """A link's value is JSON too: 3,000 nested brackets were a RecursionError ('Something went wrong')."""
    from tests.conftest import plain, run_view

    at = run_view("views.tokenize", query={"v.tok_decode": "[" * 3_000 + "]" * 3_000}, _net=True)
    notices = [plain(w.value) for w in at.warning]
    assert any("v.tok_decode" in n for n in notices), notices
