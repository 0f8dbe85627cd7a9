"""One module per page, each a leaf with one ``render()``; `pages.py` imports a view only when its page
runs. `gallery_demos` is the content of the Why-counts-differ page."""
