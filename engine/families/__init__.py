"""Tokenizer families beside the byte-level BPE of `engine.core`, each with the `Encoding` API.

* `sentencepiece` -- SentencePiece BPE ``.model`` files (Mistral v1/v3), built on
  `sentencepiece_bpe` (the merge loop) and `sentencepiece_normalize`.
* `hf_tokenizer_json` -- Hugging Face ``tokenizer.json`` byte-level BPE (DeepSeek V4 and
  any file made of the supported components), built on `hf_pipeline` (normalizers,
  pre-tokenizers, added tokens), `hf_bpe` (the BPE model) and `hf_encoding` (the facade).
* `tiktoken_models` -- `ModelEncoding`, an `engine.Encoding` with a model's own rules
  (`model_rules`: Meta's cutting of long runs, NFC with offsets back to the user's text;
  `tiktoken_specs`: which file, pattern, special tokens and id offset each of Llama 3/4,
  Qwen 2.5/3.6 and Tekken uses), and `tekken_format` for Mistral's ``tekken_*.json``.
"""
