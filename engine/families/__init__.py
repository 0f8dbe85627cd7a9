"""Tokenizer families beside the byte-level BPE of `engine.core`: each module one file format and its algorithm."""
