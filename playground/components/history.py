"""One navigation, one entry in the browser's history: Back goes to the previous view in one press.

Streamlit pushes a history entry when the page changes, and another each time the script writes the
query parameters (the share link, `state.save_query_params`: once at the end of the run and again
from a view's fragment, as soon as a value differs).  Each visited view left two to four entries, so
Back needed as many presses (issue 21).  A script-only inline component
(playground/components/history.js), mounted in the sidebar of every page, turns a push that changes only
the query string of the address on screen into a replace: switching views is still one entry, and
the link written after it updates that entry in place.
"""
from __future__ import annotations

from playground import components

KEY = "history_entries"

_component = components.inline("bpe_history", "history.js")


def mount() -> None:
    """Install the history rule in the page (once; later runs find it installed)."""
    _component(key=KEY)
