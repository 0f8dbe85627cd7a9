"""GGUF files (llama.cpp): the tokenizer in a model's header, run by the family that is exact to it."""
from .encoding import GgufTokenizer, load_gguf, read_gguf_tokenizer

__all__ = ["GgufTokenizer", "load_gguf", "read_gguf_tokenizer"]
