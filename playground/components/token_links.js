// Hover and pin for drawn tokens (token_links.py beside it), and a wide merge tree opened at its root.  No request
// leaves the page.
//
// Hovering a unit (<span class="tok" data-ids data-t data-start data-end data-b data-x>) shows its
// tooltip (composed by tipText, the same text as playground/render/tokens.py's unit_tip) at once and lights up (class "hl") its ids in the ids list and, on Compare, the units of
// the other encodings that cover the same characters.  A click pins it: the tooltip stays, with
// links to the token's merge tree and vocabulary entry, and tells Python (a "pin" trigger) that this
// token is the chosen one.  The links are real URLs (?tok=&tenc=, read
// by playground/state.py), but a plain click goes through Python (a trigger value), so the session,
// and with it the text and the user's own tokenizers, is kept.
export default function (component) {
  const g = window.__bpeLinks || (window.__bpeLinks = install());
  g.trigger = component.setTriggerValue;
  return () => { if (g.trigger === component.setTriggerValue) g.trigger = null; };
}

function install() {
  const g = { trigger: null, pinned: null, index: new WeakMap() };
  const tip = document.createElement("div");
  tip.id = "bpe-tip";
  tip.setAttribute("role", "tooltip");
  document.body.appendChild(tip);

  const clear = () => document.querySelectorAll(".tok.hl, .idlist .id.hl").forEach((e) => e.classList.remove("hl"));

  // Units of one token view in text order, with their starts, for a binary search.
  function units(view) {
    let entry = g.index.get(view);
    const block = view.closest(".bpe-block");
    const rev = block ? block.dataset.rev : null;  // html_block.js bumps it when it changes the block in place
    if (!entry || entry.rev !== rev || !entry.list[0] || !entry.list[0].isConnected) {
      const list = Array.from(view.querySelectorAll(".tok[data-start]"));
      entry = { list, starts: list.map((e) => +e.dataset.start), rev };
      g.index.set(view, entry);
    }
    return entry;
  }

  function light(tok) {
    clear();
    tok.classList.add("hl");
    const view = tok.closest(".tokens");
    const n = tok.dataset.ids.split(" ").length;
    const t0 = +tok.dataset.t;
    const list = view && view.dataset.idlist ? document.getElementById(view.dataset.idlist) : null;
    if (list) {
      for (let t = t0; t < t0 + n; t++) {
        const id = list.querySelector(`.id[data-t="${t}"]`);
        if (id) id.classList.add("hl");
      }
    }
    const start = +tok.dataset.start, end = +tok.dataset.end;
    document.querySelectorAll(".tokens.cmp").forEach((other) => {
      if (other === view) return;
      const { list, starts } = units(other);
      let lo = 0, hi = starts.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (starts[mid] < end) lo = mid + 1; else hi = mid; }
      for (let k = lo - 1; k >= 0 && +list[k].dataset.end > start; k--) list[k].classList.add("hl");
    });
  }

  function place(tok) {
    const r = tok.getBoundingClientRect();
    tip.style.display = "block";
    const w = tip.offsetWidth, h = tip.offsetHeight;
    const left = Math.max(4, Math.min(r.left, window.innerWidth - w - 8));
    const below = r.bottom + 6 + h < window.innerHeight;
    tip.style.left = left + "px";
    tip.style.top = (below ? r.bottom + 6 : Math.max(4, r.top - h - 6)) + "px";
  }

  function show(tok, pinned) {
    tip.textContent = tipText(tok);
    tip.classList.toggle("pinned", pinned);
    const view = tok.closest(".tokens");
    const enc = view ? view.dataset.enc : null;
    const id = tok.dataset.ids.split(" ")[0];
    if (pinned && enc && !tok.classList.contains("special")) {
      const links = document.createElement("div");
      links.className = "links";
      // Merge tree for BPE; another family names its own explanation (data-explain: "Best path", "Longest match")
      const tree = (view && view.dataset.explain) || "Merge tree";
      for (const [page, label] of [["tree", tree + " →"], ["vocab", "Vocabulary →"]]) {
        const a = document.createElement("a");
        a.href = `${page}?tok=${encodeURIComponent(id)}&tenc=${encodeURIComponent(enc)}`;
        a.textContent = label;
        a.dataset.page = page;
        a.addEventListener("click", (e) => {
          if (!g.trigger || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
          e.preventDefault();
          g.trigger("open", { page, id: +id, enc });
        });
        links.appendChild(a);
      }
      tip.appendChild(links);
    }
    place(tok);
  }

  function unpin() {
    if (g.pinned) g.pinned.classList.remove("pin");
    g.pinned = null;
    tip.style.display = "none";
    clear();
  }

  document.addEventListener("mouseover", (e) => {
    const tok = e.target.closest && e.target.closest(".tokens .tok[data-ids]");
    if (g.pinned && !g.pinned.isConnected) unpin();
    if (!tok || g.pinned) return;
    g.hovered = tok;
    light(tok);
    show(tok, false);
  });
  document.addEventListener("mouseout", (e) => {
    const tok = e.target.closest && e.target.closest(".tokens .tok[data-ids]");
    if (!tok || g.pinned) return;
    if (e.relatedTarget && tok.contains(e.relatedTarget)) return;
    g.hovered = null;
    tip.style.display = "none";
    clear();
  });
  document.addEventListener("click", (e) => {
    if (tip.contains(e.target)) return;
    const tok = e.target.closest && e.target.closest(".tokens .tok[data-ids]");
    if (!tok) { if (g.pinned) unpin(); return; }
    const same = g.pinned === tok;
    unpin();
    if (same) return;
    g.pinned = tok;
    tok.classList.add("pin");
    light(tok);
    show(tok, true);
    // The pinned token becomes the chosen one (Tokenize's "Explain a token" box and its big button).
    const view = tok.closest(".tokens");
    if (g.trigger && view && view.dataset.enc && !tok.classList.contains("special")) {
      g.trigger("pin", { id: +tok.dataset.ids.split(" ")[0], enc: view.dataset.enc });
    }
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") unpin(); });
  // A button or link that switches page removes the pinned (or hovered) token without any event here: drop
  // its tooltip too, or it would stay over the next page.
  setInterval(() => {
    if (tip.style.display === "none") return;
    const target = g.pinned || g.hovered;
    if (!target || !target.isConnected) { unpin(); g.hovered = null; }
  }, 300);
  // A merge tree wider than its box (a phone's column) scrolls sideways: it opens with its root in view, not at its
  // left edge (playground/render/tree.py draws it; the root is the box with data-i="0").  Centred again only when
  // its box's size changes (a later layout), never after the reader's own scrolling.  Only on the tree page,
  // where the query is cheap: the observer sees every change of every page.
  const centreTrees = () => {
    if (!location.pathname.endsWith("/tree")) return;
    document.querySelectorAll(".merge-tree-box").forEach((box) => {
      const root = box.querySelector('g.node[data-i="0"]');
      const size = `${box.scrollWidth}x${box.clientWidth}`;
      if (!root || !box.clientWidth || box.dataset.centred === size) return;  // not laid out yet, or done
      box.dataset.centred = size;
      if (box.scrollWidth <= box.clientWidth) return;
      const r = root.getBoundingClientRect(), b = box.getBoundingClientRect();
      box.scrollLeft += r.left + r.width / 2 - (b.left + b.width / 2);
    });
  };
  new MutationObserver(centreTrees).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", centreTrees);
  centreTrees();  // a tree drawn before this component loaded (a busy machine)
  // Streamlit scrolls its main column, not the window: keep a pinned tooltip by its token.
  document.addEventListener("scroll", () => {
    const target = g.pinned || g.hovered;
    if (target && target.isConnected) place(target);
    else if (tip.style.display !== "none") { tip.style.display = "none"; clear(); g.pinned = null; }
  }, true);
  return g;
}

// A unit's tooltip from its span and its view: ids, bytes in hex, rank (when ids are ranks) or
// "special token", then the extra lines the span carries (piece, family notes).
const fmt = (n) => Number(n).toLocaleString("en-US");
function tipText(tok) {
  const ids = tok.dataset.ids.split(" ");
  const view = tok.closest(".tokens");
  const lines = [(ids.length === 1 ? "id " : `${ids.length} tokens: ids `) + ids.slice(0, 12).join(" ")
                 + (ids.length > 12 ? " …" : "")];
  lines.push("bytes " + (tok.dataset.b || ""));
  if (tok.classList.contains("special")) lines.push("special token: added whole");
  else if (ids.length === 1 && view && view.dataset.ranks) {
    lines.push(`rank ${fmt(ids[0])}` + (view.dataset.nv ? ` of ${fmt(view.dataset.nv)}` : ""));
  }
  if (tok.dataset.x) lines.push(tok.dataset.x);
  return lines.join("\n");
}
window.__bpeTipText = tipText;  // for the browser tests, which compare it with the server's text
