"""Declarations of OpenAI's public encodings, as in tiktoken 0.14's `tiktoken_ext/openai_public.py`.

Data only: which shipped file, its sha256, the split pattern (declared in
`engine.tokenizer.patterns`), the special tokens and the expected vocabulary size.  `engine.sources.registry` builds them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..tokenizer.patterns import CL100K_PAT_STR, O200K_PAT_STR, R50K_PAT_STR  # the split patterns live with the splitter

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

GPT2_ENCODER_JSON = ("gpt2_encoder.json.gz", "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783")
GPT2_VOCAB_BPE = ("gpt2_vocab.bpe.gz", "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5")
CL100K_FILE = ("cl100k_base.tiktoken.gz", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7")
O200K_FILE = ("o200k_base.tiktoken.gz", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d")


# gpt-oss's chat format ("harmony"): o200k_base's ranks and pattern with 1,090 special ids
# 199998..201087, as tiktoken 0.14.  Note <|endofprompt|> and <|reserved_200018|> share id 200018
# (tiktoken's table has both); decoding 200018 gives the reserved name.
O200K_HARMONY_SPECIAL_TOKENS: dict[str, int] = {
    ENDOFTEXT: 199999,
    ENDOFPROMPT: 200018,
    "<|startoftext|>": 199998,
    "<|reserved_200000|>": 200000,
    "<|reserved_200001|>": 200001,
    "<|return|>": 200002,
    "<|constrain|>": 200003,
    "<|reserved_200004|>": 200004,
    "<|channel|>": 200005,
    "<|start|>": 200006,
    "<|end|>": 200007,
    "<|message|>": 200008,
    "<|reserved_200009|>": 200009,
    "<|reserved_200010|>": 200010,
    "<|reserved_200011|>": 200011,
    "<|call|>": 200012,
    **{f"<|reserved_{i}|>": i for i in range(200013, 201088)},
}


@dataclass(frozen=True)
class EncodingSpec:
    name: str
    files: tuple[tuple[str, str], ...]  # (file in engine/data, sha256 of its uncompressed bytes)
    format: str  # "data_gym" (vocab.bpe, encoder.json) or "tiktoken"
    pat_str: str
    special_tokens: dict[str, int] = field(default_factory=dict)
    explicit_n_vocab: int | None = None
    description: str = ""


SPECS: dict[str, EncodingSpec] = {
    "gpt2": EncodingSpec("gpt2", (GPT2_VOCAB_BPE, GPT2_ENCODER_JSON), "data_gym", R50K_PAT_STR,
                         {ENDOFTEXT: 50256}, 50257, "GPT-2 (2019), 50,257 tokens"),
    "r50k_base": EncodingSpec("r50k_base", (GPT2_VOCAB_BPE, GPT2_ENCODER_JSON), "data_gym", R50K_PAT_STR,
                              {ENDOFTEXT: 50256}, 50257, "GPT-3 davinci; same ranks and pattern as gpt2"),
    "cl100k_base": EncodingSpec("cl100k_base", (CL100K_FILE,), "tiktoken", CL100K_PAT_STR,
                                {ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260,
                                 ENDOFPROMPT: 100276}, None, "GPT-3.5 / GPT-4, 100,277 ids"),
    "o200k_base": EncodingSpec("o200k_base", (O200K_FILE,), "tiktoken", O200K_PAT_STR,
                               {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}, None, "GPT-4o, 200,019 ids"),
    "o200k_harmony": EncodingSpec("o200k_harmony", (O200K_FILE,), "tiktoken", O200K_PAT_STR,
                                  O200K_HARMONY_SPECIAL_TOKENS, None,
                                  "gpt-oss: o200k_base with the harmony chat format's special tokens, 201,088 ids"),
}
