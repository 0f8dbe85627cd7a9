"""The Claude 3+ family without its oracle: model-name and version routing as ctok routes them, the shipped
vocabularies (sha256-checked, ctok's files byte for byte), the conversations it refuses and why."""
from __future__ import annotations

import gzip
import hashlib

import pytest

from engine.errors import UnknownEncodingError, UnknownModelError
from engine.families.claude import (LABEL, SPECS, ClaudeConversationError, claude_name_for_model,
                                    claude_name_for_version, get_claude, list_claude_names, one_user_message)
from engine.formats.tiktoken_files import DATA_DIR
from engine.sources.model_names import encoding_name_for_model


@pytest.mark.parametrize("model, name", [
    ("claude-3-opus-20240229", "claude-3"), ("claude-3-haiku-20240307", "claude-3"),
    ("claude-3-5-sonnet-20241022", "claude-3"), ("claude-3-5-sonnet-v2@20241022", "claude-3"),
    ("anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3"), ("claude-3-7-sonnet-latest", "claude-3"),
    ("claude-sonnet-4-20250514", "claude-3"), ("claude-opus-4-1", "claude-3"), ("claude-opus-4.1", "claude-3"),
    ("claude-sonnet-4-5", "claude-3"), ("claude-haiku-4-5-20251001", "claude-3"), ("claude-opus-4-6", "claude-3"),
    ("claude-opus-4-7", "claude-4.7"), ("anthropic/claude-opus-4.7", "claude-4.7"),
    ("claude-opus-4-8", "claude-4.8"), ("claude-sonnet-5", "claude-4.8"), ("claude-fable-5", "claude-4.8"),
])
def test_model_names_route_as_ctok_routes_their_version(model: str, name: str) -> None:
    assert claude_name_for_model(model) == name


@pytest.mark.parametrize("model", ["claude-2.1", "claude-instant-1.2", "gpt-4o", "claude"])
def test_other_models_are_not_claude_3(model: str) -> None:
    with pytest.raises(UnknownModelError):
        claude_name_for_model(model)


def test_versions_route_as_ctok_does() -> None:
    assert [claude_name_for_version(v) for v in ("3", "3.0", "4.6", "4.7", "4.7.1", "4.8", "4.10", "5")] == \
        ["claude-3", "claude-3", "claude-3", "claude-4.7", "claude-4.7", "claude-4.8", "claude-4.8", "claude-4.8"]
    with pytest.raises(TypeError, match="string"):
        claude_name_for_version(4.7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="claude-legacy"):
        claude_name_for_version("2.1")


def test_claude_3_plus_model_names_point_at_the_reconstruction() -> None:
    with pytest.raises(UnknownModelError, match="reconstruct"):
        encoding_name_for_model("claude-3-5-sonnet-20241022")


def test_shipped_vocabularies_are_ctoks_files() -> None:
    pinned = {"claude_pieces_v3.json.gz": "4c6db216062ef01e70ba033ff52ad3b97f886e79877235f2c7bbbd40d09ffb9b",
              "claude_pieces_v4_7.json.gz": "a785fc240010c855f3d9a498fbd422ee389752dd151f1d5eef57ca8c85c19993"}
    for spec in SPECS.values():
        data = gzip.decompress((DATA_DIR / spec.file).read_bytes())
        assert hashlib.sha256(data).hexdigest() == pinned[spec.file]
    # ctok's README: 48,792 v3 pieces and 15,283 v4.7 pieces
    assert get_claude("claude-3").n_pieces == 48_792 and get_claude("claude-4.7").n_pieces == 15_283
    assert list_claude_names() == ["claude-3", "claude-4.7", "claude-4.8"]


def test_unknown_family_says_which_exist() -> None:
    with pytest.raises(UnknownEncodingError, match="claude-4.7"):
        get_claude("claude-4")


def test_readme_examples_and_the_label() -> None:
    # ctok's README: "hello, world" is 10 on v3, 15 on v4.7, 10 on v4.8
    assert [get_claude(n).count_tokens("hello, world") for n in list_claude_names()] == [10, 15, 10]
    t = get_claude("claude-3").tiling("NASA likes tokenizers")
    assert t.count == 7 + len(t.tokens) and t.tokens[0] == "⟨caps⟩⟨bow⟩nasa⟨eow⟩"
    assert LABEL == ("reconstructed (ctok 1.3.0): counts matched Anthropic's API in its authors' tests; "
                     "the drawn boundaries are one valid tiling, not Claude's")
    with pytest.raises(TypeError, match="str"):
        get_claude("claude-3").count_tokens(b"bytes")  # type: ignore[arg-type]


def test_only_one_plain_user_message_is_counted() -> None:
    assert one_user_message([{"role": "user", "content": "hi", "name": None}]) == "hi"
    cases = [
        ([{"role": "user", "content": "hi"}], [{"name": "f"}], "tools"),
        ([{"role": "system", "content": "s"}, {"role": "user", "content": "hi"}], [], "2 messages"),
        ([{"role": "assistant", "content": "hi"}], [], "'assistant'"),
        ([{"role": "user", "content": "hi", "name": "bob"}], [], "name"),
        ([], [], "0 messages"),
    ]
    for messages, tools, reason in cases:
        with pytest.raises(ClaudeConversationError, match=reason):
            one_user_message(messages, tools)


def test_unicode_properties_are_python_3_12s() -> None:
    """ctok reads Unicode 15.0 (Python 3.12); 3.11 has 14.0: the shipped table gives 15.0's answers."""
    from engine.families.claude import unicode15
    assert unicode15.category("\u0CF3") == "Mc" and unicode15.category("\u0ECE") == "Mn"  # unassigned in 14.0
    assert unicode15.islower("\ua7f2") and unicode15.islower("\u10fc")  # Lm, Other_Lowercase since 15.0
    assert unicode15.combining("\U0001e08f") == 230 and unicode15.combining("a") == 0
    # 15.0's canonical ordering puts the class-220 mark before the class-230 one; 3.11 left them as typed
    assert unicode15.nfc("a\U0001e08f\U00010efd") == "a\U00010efd\U0001e08f"
    assert unicode15.category("a") == "Ll" and unicode15.nfc("e\u0301") == "\u00e9"
