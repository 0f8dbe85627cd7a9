"""Training tokenizers: `trainer` (minbpe's exact merges, fast) and `reference` (minbpe's loop) for
byte-level BPE; `parity` (parity-aware BPE, as tokenizers' ParityBpeTrainer) and `wordpiece` (on
`hf_bpe`, tokenizers' BpeTrainer loop), with `byte_level` (tokenizers' ByteLevel words) and `lab`
(what the Train page runs for them).
"""
