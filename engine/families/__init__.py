"""Tokenizer families beyond OpenAI's: the open models' own rules on top of the BPE engine.

* `model_rules` -- what a model does to the text before tiktoken sees it:
  Meta's cutting of long runs, Unicode normalisation with offsets back to the
  user's text.
* `tiktoken_specs` -- data only: which shipped file, pattern, special tokens,
  id offset and rules each tiktoken-style model uses (Llama 3/4, Qwen, Tekken).
* `tiktoken_models` -- `ModelEncoding`, an `engine.Encoding` that applies those
  rules, and `build_model_encoding` for the registry.
* `tekken_format` -- `load_tekken`: Mistral's ``tekken_*.json`` files.
"""
