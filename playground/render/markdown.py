"""`md(text)`: any text that came from a user or a file, made safe to put inside Streamlit markdown.

Streamlit renders the body of `st.error`, `st.warning`, `st.info`,
`st.success`, `st.caption`, `st.markdown` and most labels as GitHub-flavoured
markdown.  A bad line quoted from an uploaded file such as
``![p](http://host/x.png)`` would make the browser fetch that image, and
``[Your file is outdated](http://...)`` would become a live link.  `md`
puts a backslash before every ASCII punctuation character (CommonMark lets
any of them be escaped), which stops links, images, Streamlit's
``:red[...]`` / ``:material/...:`` directives and ``$math$``; HTML is off in
these elements, so ``<`` shows as text.  Line breaks become spaces, so a
quoted line cannot start a heading or a list.

Escaping does not stop *autolinks*: GitHub-flavoured markdown turns bare
``http://…``, ``www.…`` and ``name@host.tld`` into links after the escapes are
resolved (a decode box holding ``x http://evil.example/x.png`` showed a live
link).  So `md` also puts an invisible WORD JOINER (U+2060) inside each of
those openings -- ``http:⁠//``, ``www⁠.``, ``name@⁠host`` -- where no autolink
pattern accepts it; the text reads the same.

HTML built for `st.html` / ``unsafe_allow_html`` is escaped separately, in
`playground.render.html`.
"""
from __future__ import annotations

import re

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]+")
JOINER = "\u2060"  # WORD JOINER: invisible, and never part of a URL or an e-mail address
# where an autolink would start, in the escaped text: between ':' and '//', after '@', between 'www' and '.'
_AUTOLINK = re.compile(r"(?<=\\:)(?=\\/)|(?<=\\@)|(?<=[wW]{3})(?=\\\.)")


def md(text: object, limit: int = 300) -> str:
    """`text` as literal markdown: punctuation escaped, line breaks folded, no autolink, at most `limit` characters."""
    s = str(text)
    if len(s) > limit:
        s = s[:limit] + "…"
    return _AUTOLINK.sub(JOINER, _PUNCT.sub(r"\\\1", _BREAKS.sub(" ", s)))
