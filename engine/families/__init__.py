"""Tokenizer families beyond tiktoken-style rank files, each with the `Encoding` API.

* `hf_tokenizer_json` -- Hugging Face ``tokenizer.json`` byte-level BPE (DeepSeek V4 and
  any file made of the supported components), built on `hf_pipeline` (normalizers,
  pre-tokenizers, added tokens), `hf_bpe` (the BPE model) and `hf_encoding` (the facade).
"""
