"""Training a byte-level BPE: `trainer` (minbpe's exact merges, fast) and `reference` (minbpe's loop).
"""
