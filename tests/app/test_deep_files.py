"""The Merge tree of a token 1,499 merges deep (tests/engine/formats/crafted_deep_files.py): drawn folded, no
RecursionError ('Something went wrong') from the view's walks or from `st.cache_data` pickling the tree."""
from __future__ import annotations

import pytest

from engine.families.hf.load import load_tokenizer_json
from playground import state
from tests.conftest import drawn_ok, merge_trees, tree_boxes, view_app
from tests.engine.formats.crafted_deep_files import chain_token, merge_chain


@pytest.mark.parametrize("byte_level", [True, False], ids=["byte-level", "characters"])
def test_a_1499_merges_deep_tree_is_drawn_folded(byte_level):
    enc = load_tokenizer_json(merge_chain(1_500, byte_level=byte_level), name="deep-chain")
    (token_id,) = enc.encode(chain_token(1_500))
    at = view_app("views.tree", _net=True, token_encoding=enc.name, token_id=token_id)
    at.session_state[state.CUSTOM] = {enc.name: enc}
    at.run()
    drawn_ok(at)
    kinds = [kind for kind, _ in tree_boxes(merge_trees(at)[0])]
    assert 0 < len(kinds) <= 31 and "folded" in kinds
    assert at.slider(key=state.TREE_DEPTH).max == 1_499
    at.slider(key=state.TREE_DEPTH).set_value(1_499).run()  # every level: 2,999 boxes
    drawn_ok(at)
    assert len(tree_boxes(merge_trees(at)[0])) == 2_999
