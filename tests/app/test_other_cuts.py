"""Tokenize's "Other ways to cut this text" (playground/widgets/other_cuts.py) through AppTest, by widget key:
five lanes drawn with the engine's counts, the slider and seed acting, the word count exact, the link keeping
p and the seed, and no panel for a model that does not merge."""
from __future__ import annotations

import json
import re

import engine
from engine.explain import noncanonical as nc
from playground import state
from tests.conftest import blocks, plain, run_view

TEXT = "Hello world 1234567 naïve 😀"


def _lane_headers(at) -> dict[str, int]:
    """{lane title: its token count} from the bold headers above the rows."""
    out = {}
    for m in at.markdown:
        found = re.match(r"\*\*(.+?)\*\* · ([\d,]+) tokens?", m.value)
        if found:
            out[found.group(1)] = int(found.group(2).replace(",", ""))
    return out


def _spans(markup: str) -> int:
    return len(re.findall(r'<span class="tok', markup))


def _open(enc_name: str = "gpt2", **more):
    return run_view("views.tokenize", **{state.TEXT: TEXT, state.ENCODINGS: [enc_name], state.TOK_NC_OPEN: True}, **more)


def test_the_panel_draws_five_lanes_with_the_engines_counts():
    at = _open()
    enc = engine.get_encoding("gpt2")
    cuts = nc.other_cuts(enc, TEXT, 0.1, 0)
    headers = _lane_headers(at)
    assert headers == {"Canonical": len(cuts.canonical.ids), "BPE-dropout": len(cuts.dropout.ids),
                       "Character level": len(cuts.chars.ids), "A random valid segmentation": len(cuts.random.ids),
                       "Right-aligned digit groups": len(cuts.digits.ids)}
    assert headers["Canonical"] == len(enc.encode(TEXT))
    drawn = {k: b for b in blocks(at) for k in ("canonical", "dropout", "chars", "random", "digits")
             if f'id="nc-{k}-gpt2"' in b}
    assert set(drawn) == {"canonical", "dropout", "chars", "random", "digits"}
    # the 😀's four byte tokens of the character lane are one drawn unit: spans never outnumber tokens
    assert all(0 < _spans(drawn[k]) <= headers[t] for k, t in
               [("canonical", "Canonical"), ("random", "A random valid segmentation")])
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "93.4%" in captions and "+33%" in captions and "2.3 BLEU" in captions and "90.8%" in captions


def test_p_one_gives_single_bytes_and_the_seed_changes_the_draw():
    at = _open()
    at.slider(key=state.TOK_NC_P).set_value(1.0).run()
    assert not at.exception
    assert _lane_headers(at)["BPE-dropout"] == len(TEXT.encode("utf-8"))
    at.slider(key=state.TOK_NC_P).set_value(0.5).run()
    first = [b for b in blocks(at) if 'id="nc-random-gpt2"' in b]
    at.number_input(key=state.TOK_NC_SEED).set_value(12345).run()
    enc = engine.get_encoding("gpt2")
    assert _lane_headers(at)["BPE-dropout"] == len(nc.dropout(enc, TEXT, 0.5, 12345).ids)
    assert _lane_headers(at)["A random valid segmentation"] == len(nc.random_segmentation(enc, TEXT, 12345).ids)
    assert first  # drawn before and after
    # the link carries p and the seed
    assert json.loads(at.query_params["v." + state.TOK_NC_P]) == 0.5
    assert json.loads(at.query_params["v." + state.TOK_NC_SEED]) == 12345


def test_the_word_count_is_exact():
    at = _open()
    word = at.selectbox(key=state.TOK_NC_WORD)
    assert word.value == max(nc.words(engine.get_encoding("gpt2"), TEXT), key=len)
    word.set_value(" world").run()
    count = nc.segmentation_count(engine.get_encoding("gpt2"), " world")
    told = [plain(m.value) for m in at.markdown if "can be spelled in" in m.value]
    assert told and f"{count:,}" in told[0], told


def test_a_link_opens_the_panel_with_its_p_and_seed():
    at = run_view("views.tokenize", query={"v.tok_nc_open": "true", "v.tok_nc_p": "0.35", "v.tok_nc_seed": "7"},
                  **{state.TEXT: TEXT, state.ENCODINGS: ["o200k_base"]})
    assert at.slider(key=state.TOK_NC_P).value == 0.35 and at.number_input(key=state.TOK_NC_SEED).value == 7
    enc = engine.get_encoding("o200k_base")
    assert _lane_headers(at)["BPE-dropout"] == len(nc.dropout(enc, TEXT, 0.35, 7).ids)


def test_sentencepiece_gets_the_panel_and_wordpiece_does_not():
    at = _open("mistral-v1")
    assert len(_lane_headers(at)) == 5
    at = run_view("views.tokenize", **{state.TEXT: TEXT, state.ENCODINGS: ["bert-base-uncased"]})
    assert not [t for t in at.toggle if t.key == state.TOK_NC_OPEN]


def test_a_long_text_says_what_the_lanes_cover():
    at = run_view("views.tokenize", **{state.TEXT: "word " * 500, state.ENCODINGS: ["gpt2"], state.TOK_NC_OPEN: True})
    captions = " ".join(plain(c.value) for c in at.caption)
    assert f"first {nc.MAX_CHARS:,} of the text's 2,500 characters" in captions
