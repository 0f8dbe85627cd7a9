"""Hugging Face ``tokenizer.json`` byte-level BPE: the encoding, the file reader, the pipeline
(normalizers, pre-tokenizers, added tokens) and the BPE model.
"""
