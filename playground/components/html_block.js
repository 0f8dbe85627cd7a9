// A big block of markup built by playground/render/ (html_block.py beside it): token rows, bytes,
// pieces, ids lists, chunk cards, chat tokens.
//
// st.html would run every block through DOMPurify and let React replace it whole on each rerun: about
// 100 ms per keystroke for Compare's two rows of 3,000 characters.  Here the markup is parsed inert (a
// <template>) and merged into what is on screen: the unchanged beginning and end of the block stay as
// they are (a keystroke usually changes a few tokens), the end's offsets are updated in place, and
// whatever is taken from the new markup is cleaned against an allowlist first (defence in depth:
// playground/render/ has already escaped every value).
const TAGS = new Set(["DIV", "SPAN", "B", "I", "EM", "STRONG", "SMALL", "CODE", "SUB", "SUP", "BR", "WBR", "BDI",
  "P", "UL", "OL", "LI", "TABLE", "THEAD", "TBODY", "TR", "TD", "TH", "A", "STYLE", "DETAILS", "SUMMARY"]);
const ATTRS = new Set(["class", "id", "title", "dir", "lang", "role", "style", "href", "colspan", "rowspan"]);
const UNSAFE_CSS = /url\s*\(|@import|expression\s*\(/i;

function allowed(name, value) {
  if (name.startsWith("data-") || name.startsWith("aria-")) return true;
  if (!ATTRS.has(name)) return false;  // every on* handler, src, srcset, formaction, ...
  if (name === "style") return !UNSAFE_CSS.test(value);
  if (name === "href") return /^[?#]/.test(value);  // links inside the app only (?tok=...&tenc=...)
  return true;
}

// Drop what playground/render/ never writes: unknown elements (with their content), unsafe attributes and CSS.
export function clean(root) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
  const drop = [];
  for (let el = walker.nextNode(); el; el = walker.nextNode()) {
    if (!TAGS.has(el.tagName) || (el.tagName === "STYLE" && UNSAFE_CSS.test(el.textContent))) { drop.push(el); continue; }
    for (const { name, value } of Array.from(el.attributes)) if (!allowed(name, value)) el.removeAttribute(name);
  }
  for (const el of drop) el.remove();
  return root;
}

// `from` is not cleaned yet: only allowed attributes are copied.
function syncAttributes(to, from) {
  for (const { name } of Array.from(to.attributes)) if (!from.hasAttribute(name)) to.removeAttribute(name);
  for (const { name, value } of Array.from(from.attributes)) {
    if (!allowed(name, value)) to.removeAttribute(name);
    else if (to.getAttribute(name) !== value) to.setAttribute(name, value);
  }
}

// Same element apart from its own attributes (a unit whose offsets moved): its content is compared.
const alike = (a, b) => a.nodeType === b.nodeType && a.nodeName === b.nodeName &&
  (a.nodeType === 1 ? a.innerHTML === b.innerHTML : a.nodeValue === b.nodeValue);

// Make `old`'s children equal `now`'s, touching as little as possible.  One changed element in the
// middle with the same name and id on both sides (a row's container) is merged into, not replaced.
// `old` is clean; what comes from `now` is cleaned as it is taken: a node equal to a clean one is clean,
// a node alike one has its attributes filtered, and new nodes go through `clean` (a keystroke cleans a
// few units, not the whole block).
function merge(old, now) {
  const a = old.childNodes, b = now.childNodes;
  let head = 0;
  while (head < a.length && head < b.length && a[head].isEqualNode(b[head])) head++;
  // One node left on each side (a block's row container): merged into below, not compared whole first
  // (`alike` would serialize both sides of a thousand-span row only to merge it anyway).
  const single = a.length - head === 1 && b.length - head === 1;
  let tail = 0;
  while (!single && tail < a.length - head && tail < b.length - head && alike(a[a.length - 1 - tail], b[b.length - 1 - tail])) tail++;
  for (let k = 0; k < tail; k++) {
    const x = a[a.length - 1 - k], y = b[b.length - 1 - k];
    if (x.nodeType === 1) syncAttributes(x, y);
  }
  if (a.length - head - tail === 1 && b.length - head - tail === 1) {  // always so when `single`
    const x = a[head], y = b[head];
    if (x.nodeType === 1 && y.nodeType === 1 && x.nodeName === y.nodeName && x.id === y.id && x.nodeName !== "STYLE") {
      syncAttributes(x, y);
      merge(x, y);
      return;
    }
  }
  const before = tail ? a[a.length - tail] : null;
  for (let k = a.length - tail - 1; k >= head; k--) a[k].remove();
  const fresh = Array.from(b).slice(head, b.length - tail);
  if (fresh.length) {
    const frag = now.ownerDocument.createDocumentFragment();  // the template's inert document: an <img>
    frag.append(...fresh);  // would start loading as soon as it belonged to this page's document
    old.insertBefore(clean(frag), before);
  }
}

export default function (component) {
  const { data, parentElement } = component;
  const markup = (data && data.html) || "";
  let host = parentElement.querySelector(":scope > .bpe-block");
  if (!host) {
    host = document.createElement("div");
    host.className = "bpe-block";
    parentElement.appendChild(host);
  }
  if (host.__markup === markup) return;
  host.__markup = markup;
  const tpl = document.createElement("template");
  tpl.innerHTML = markup;  // inert: nothing runs or loads while it is parsed and merged
  merge(host, tpl.content);
  host.dataset.rev = String((+host.dataset.rev || 0) + 1);  // token_links.js re-indexes a changed block
  window.__bpeBlockDrawn = performance.now();  // live_text.js fills a long text in after this
}
