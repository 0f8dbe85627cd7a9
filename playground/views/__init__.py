"""One module per page, each a leaf with one ``render()``; `pages.py` imports a view only when its page
runs. A view with content of its own is a folder: `gallery/` (the view) holds `demos.py`."""
