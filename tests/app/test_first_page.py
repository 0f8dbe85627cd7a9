"""The first page of a fresh server stays light: what it draws needs neither pandas nor pyarrow.

Importing them costs a cold server about half a second of its first page (and the warm-up imports them
in the background afterwards, `playground.serving.warmup`).  Streamlit's inline components import
them to look for a dataframe in any component value that is not a str, number, tuple or set, so the
components on every page pass only those.
"""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import APP_DIR

CODE = """
import sys
from streamlit.testing.v1 import AppTest
assert 'pandas' not in sys.modules
at = AppTest.from_file(sys.argv[1], default_timeout=120)
at.run()
assert not at.exception, [e.value for e in at.exception]
print(sorted(m for m in ('pandas', 'pyarrow') if m in sys.modules))
"""


def test_first_page_imports_no_pandas():
    out = subprocess.run([sys.executable, "-c", CODE, str(APP_DIR / "app.py")], cwd=APP_DIR,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


TREE = """
import sys
from streamlit.testing.v1 import AppTest
assert 'pandas' not in sys.modules
at = AppTest.from_file(sys.argv[1], default_timeout=120)
at.session_state["_view"] = "views.tree"
at.session_state["token_encoding"] = "o200k_base"
at.run()
assert not at.exception, [e.value for e in at.exception]
assert [m for m in at.markdown if 'class="merge-tree"' in m.value] and "The same bytes in other encodings" in [h.value for h in at.subheader]
print(sorted(m for m in ('pandas', 'pyarrow', 'altair') if m in sys.modules))
"""


def test_first_merge_tree_imports_no_pandas():
    """The Merge tree of a fresh server: its table of the same bytes in other encodings is markdown, not a
    dataframe, so the first tree a teacher opens does not wait for pandas (half a second of CPU) nor the browser
    for the data grid's scripts; and the line under the tree (scaffold counts) needs no chart, so no altair
    (0.48 s of a fresh server's first tree)."""
    out = subprocess.run([sys.executable, "-c", TREE, str(APP_DIR / "tests" / "app" / "view_app.py")], cwd=APP_DIR,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"
