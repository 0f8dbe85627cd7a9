"""Pure builders, no Streamlit: data in, escaped strings out. `html` draws every markup block and holds
the one whitespace vocabulary; `markdown` makes user text literal for ``st.markdown``."""
