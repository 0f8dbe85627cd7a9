"""Streamlit views of the BPE playground, by role:

- `views/`: one module per page, each a leaf with one ``render()``;
- `widgets/`: Streamlit helpers shared by views (sidebar, pickers, page header and drawing, share link);
- `components/`: inline custom components, each ``.py`` beside its ``.js``;
- `render/`: pure builders, no Streamlit (escaped HTML, markdown-literal text);
- `cache/`: every cached call (engine calls, drawn tokens, the shared memo, a session's uploads);
- `serving/`: what keeps one server fair (job processes, turns for script runs, the page error net).

`pages.py` (the view table) and `state.py` (every session and URL key) stay at the top.
"""
