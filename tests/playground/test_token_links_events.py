"""The token-links component's events come from the page: anything malformed is ignored, never raised
(a raw client's ``1e400`` is ``inf`` in JSON, and ``int(inf)`` raised OverflowError past the page's handling)."""
from __future__ import annotations

import pytest

from playground.components import token_links


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan"), "1e400", None, [], {"a": 1}])
def test_a_malformed_id_is_ignored(bad):
    calls = []
    token_links.opened({token_links.KEY: {"open": {"page": "tree", "enc": "gpt2", "id": bad}}},
                       lambda *a: calls.append(a))
    token_links.pinned({token_links.KEY: {"pin": {"enc": "gpt2", "id": bad}}}, lambda *a: calls.append(a))
    assert calls == []


def test_a_good_event_is_passed_on():
    calls = []
    token_links.opened({token_links.KEY: {"open": {"page": "vocab", "enc": "gpt2", "id": 42}}},
                       lambda *a: calls.append(a))
    token_links.pinned({token_links.KEY: {"pin": {"enc": "gpt2", "id": "7"}}}, lambda *a: calls.append(a))
    assert calls == [("vocab", "gpt2", 42), ("gpt2", 7)]
