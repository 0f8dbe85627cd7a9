"""Llama 3/4, Qwen and Tekken: tiktoken ranks plus a model's own text rules.
"""
