"""Tokenizer families beside the byte-level BPE of `engine.tokenizer`, each keeping `engine.api.EncodingAPI`.

Each folder holds one family with its own file format:

* `tiktoken_models` -- `ModelEncoding`, an `engine.Encoding` with a model's own rules
  (`rules`: Meta's cutting of long runs, NFC with offsets back to the user's text; `specs`:
  which file, pattern, special tokens and id offset each of Llama 3/4, Qwen 2.5/3.6 and
  Tekken uses), and `tekken` for Mistral's ``tekken_*.json``.
* `sentencepiece` -- SentencePiece BPE ``.model`` files (Mistral v1/v3): `encoding`, built
  on `bpe` (the merge loop), `normalize` and `model_proto` (the protobuf reader).
* `hf` -- Hugging Face ``tokenizer.json`` byte-level BPE (DeepSeek V4 and any file made of
  the supported components): `tokenizer_json` (the file, as plain data), `pipeline`
  (normalizers, pre-tokenizers, added tokens), `bpe` (the BPE model) and `encoding` (the facade).
"""
