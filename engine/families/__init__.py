"""Tokenizer families beside the byte-level BPE of `engine.core`, each with the `Encoding` API.

* `sentencepiece` -- SentencePiece BPE ``.model`` files (Mistral v1/v3), built on
  `sentencepiece_bpe` (the merge loop) and `sentencepiece_normalize`.
* `hf_tokenizer_json` -- Hugging Face ``tokenizer.json`` byte-level BPE (DeepSeek V4 and
  any file made of the supported components), built on `hf_pipeline` (normalizers,
  pre-tokenizers, added tokens), `hf_bpe` (the BPE model) and `hf_encoding` (the facade).
"""
