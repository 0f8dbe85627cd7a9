"""Plain data the playground draws, for any family: display units and comparison, vocabulary
facts (scaffold and unreachable tokens among them), writing systems and the token tax, the arena, token-budget chunks, family notes.
"""
