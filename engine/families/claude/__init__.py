"""Claude 3 through Opus 4.x, counted offline by ctok 1.3.0's reconstruction (see `tokenizer`).

    markers.py    the stream's notation and ctok's measured character tables
    unicode15.py  the Unicode properties as Python 3.12 answers them (ctok's oracle runs there)
    stream.py     text -> the marked stream (normalisation, word and case markers, the seam)
    tiling.py     the marked stream -> the fewest pieces (trie recurrence, byte floor, frame newlines)
    notation.py   tokens in public notation (⟨bow⟩, ⟨0xNN⟩)
    tokenizer.py  `ClaudeTokenizer`, the three built-ins and the model-name routing
"""
from __future__ import annotations

from .tokenizer import (LABEL, SPECS, ClaudeConversationError, ClaudeTiling, ClaudeTokenizer, claude_name_for_model,
                        claude_name_for_version, get_claude, list_claude_names, one_user_message)

__all__ = ["LABEL", "SPECS", "ClaudeConversationError", "ClaudeTiling", "ClaudeTokenizer", "claude_name_for_model", "claude_name_for_version",
           "get_claude", "list_claude_names", "one_user_message"]
