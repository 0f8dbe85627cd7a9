"""Streamlit views of the BPE playground. One module per view, each with `render()`.

Shared pieces: `state` (session/URL keys), `encodings` (cached engine
wrappers and the session's own tokenizers), `html` (every HTML string,
escaped), `sidebar` (controls shared by all views).
"""
