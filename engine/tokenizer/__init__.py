"""The byte-level BPE as tiktoken runs it: the `Encoding` facade, merge loops, split patterns,
special tokens, decoding, merges and merge trees, unstable input, batches.
"""
