// Glossary links in every help tooltip (glossary_links.py beside it).  Nothing is fetched.
//
// One MutationObserver on the document: when Streamlit adds a help tooltip, a line is appended with
// links to the glossary entries of the terms its text names (whole words, any case), or to the
// Glossary page.  The links open a new tab, so the page being presented stays as it was.
export default function (component) {
  const g = window.__bpeGlossary || (window.__bpeGlossary = install());
  g.terms = (component.data && component.data.terms) || [];
  g.page = (component.data && component.data.page) || "glossary";
  scrollToEntry(g);
}

function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

function found(g, text) {
  const hits = [];
  for (const t of g.terms) {
    const re = new RegExp("(^|[^\\p{L}\\p{N}])(" + t.words.map(escapeRe).join("|") + ")(?=$|[^\\p{L}\\p{N}])", "iu");
    if (re.test(text)) hits.push(t);
  }
  return hits.slice(0, 4);
}

function link(g, term, label) {
  const a = document.createElement("a");
  // A link value the Glossary page reads (playground/state.py's v.glossary_term); a #hash is dropped by the
  // share link's rewrite of the address.
  a.href = g.page + (term ? "?v.glossary_term=" + encodeURIComponent(JSON.stringify(term)) : "");
  a.target = "_blank";
  a.rel = "noopener";
  a.textContent = label;
  return a;
}

function decorate(g, tip) {
  if (tip.querySelector(".bpe-gloss") || !g.terms.length) return;
  const text = tip.textContent || "";
  const line = document.createElement("div");
  line.className = "bpe-gloss";
  line.append("Glossary: ");
  const hits = found(g, text);
  if (!hits.length) line.append(link(g, "", "all terms"));
  hits.forEach((t, i) => { if (i) line.append(" · "); line.append(link(g, t.term, t.term)); });
  tip.append(line);
}

function install() {
  const g = { terms: [], page: "glossary" };
  const scan = (root) => {
    if (!(root instanceof Element)) return;
    const tips = root.matches('[data-testid="stTooltipContent"]') ? [root]
      : root.querySelectorAll('[data-testid="stTooltipContent"]');
    tips.forEach((tip) => decorate(g, tip));
  };
  new MutationObserver((records) => {
    for (const r of records) r.addedNodes.forEach(scan);
  }).observe(document.body, { childList: true, subtree: true });
  return g;
}

function scrollToEntry(g) {
  let tries = 0;
  const look = () => {  // the entry is drawn after the sidebar mounts this component
    const el = document.querySelector(".glossary dt.hit");
    if (el && g.scrolled !== el) { el.scrollIntoView({ block: "center" }); g.scrolled = el; return; }
    if (!el && location.pathname.endsWith(g.page) && ++tries < 50) setTimeout(look, 100);
  };
  look();
}
