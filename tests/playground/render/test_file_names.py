"""Download file names cut after a whole encoding name, never inside one (issue 33, 8: "…-mistral-.csv")."""
from __future__ import annotations

import engine
from playground.render.html import file_stem


def test_every_builtin_cut_after_a_whole_name():
    names = engine.list_tokenizer_names()
    stem = file_stem("arena-languages", names)
    assert len(stem) <= 80, stem
    kept = stem.removeprefix("arena-languages-").split("-and-")[0]
    n_more = int(stem.rsplit("-and-", 1)[1].removesuffix("-more"))
    assert any(kept == "-".join(names[:k]) and k + n_more == len(names) for k in range(1, len(names))), stem


def test_short_lists_are_whole_and_names_are_slugs():
    assert file_stem("arena-languages", ["gpt2", "o200k_base"]) == "arena-languages-gpt2-o200k_base"
    assert file_stem("x", ["my tok/v1"]) == "x-my-tok-v1"
    assert file_stem("x", ["a" * 200]) == "x-" + "a" * 200  # one name is never cut: there is nothing to say instead
