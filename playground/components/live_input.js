// The live text box (live_input.py beside it): sends the text to Python a moment after the last
// keystroke, so tokens follow the typing with no Ctrl+Enter.  Nothing is fetched; no build step.
//
// Python sends the text only when *it* changed it (first run of a session, a gallery "open" button),
// tagged with a revision number; otherwise the box keeps what the user typed.  The last text lives in
// window.__bpeLive so a page switch (a fresh mount) starts from it without sending megabytes back.
const LATE_FILL = 100000;  // characters from which the box is filled after the page is drawn

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  const g = window.__bpeLive || (window.__bpeLive = { text: null, rev: -1 });
  const box = parentElement.querySelector("textarea");
  const count = parentElement.querySelector(".count");
  const label = parentElement.querySelector("label");
  if (label && data && data.label && label.textContent !== data.label) {
    label.textContent = data.label;
    box.setAttribute("aria-label", data.label);
  }
  const max = (data && data.max) || 2000000;
  // The limit and the counter are in Unicode code points, as Python's len() and the Characters metric
  // count (the browser's own count is UTF-16 units: an emoji is 2 there, so the box said 231 for a text
  // of 227).  maxlength counts UTF-16 units, so it is set to the most `max` code points can take; Python
  // cuts a text past `max` code points and says so.
  box.maxLength = 2 * max;
  const fmt = (n) => n.toLocaleString("en-US") + " / " + max.toLocaleString("en-US") + (n === 1 ? " character" : " characters");
  const codePoints = (s) => {  // UTF-16 units less one per surrogate pair; a loop, no copy of 2 MB
    let n = s.length;
    for (let i = 0; i < s.length - 1; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xD800 && c <= 0xDBFF) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xDC00 && d <= 0xDFFF) { n--; i++; }
      }
    }
    return n;
  };
  // A lone surrogate (half of an emoji, e.g. from a broken paste) cannot travel as UTF-8: it becomes U+FFFD
  // here, visibly, instead of the whole text being dropped on the way.
  const clean = (s) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
  box.__send = () => {
    box.__timer = null;
    const text = clean(box.value);
    if (text !== box.value) box.value = text;
    g.text = text;
    setTriggerValue("text", text);  // a trigger, not state: later reruns do not send the text up again
  };
  // Filling a text area with a long text makes the browser lay all of it out (0.4-0.7 s for 2 MB in
  // chromium).  A long text is put back after the page around it is drawn, the box read-only meanwhile,
  // so the tokens of a page switch show first and no keystroke lands in a half-restored box.
  const fill = (text) => {
    const id = box.__fill = (box.__fill || 0) + 1;  // a newer fill cancels a pending one
    if (text.length < LATE_FILL) { box.value = text; box.readOnly = false; return; }
    box.readOnly = true;
    const put = () => {
      if (box.__fill !== id) return;
      box.value = text;
      box.readOnly = false;
    };
    // "Drawn": a token block (html_block.js stamps window.__bpeBlockDrawn) was drawn after this fill was
    // asked for, the script run is over and nothing is stale -- checked every 50 ms, for at most 2 s (a
    // page with no block: a refused text); then one more frame, so the tokens are painted before the
    // text area's layout starts.
    const asked = performance.now();
    const busy = () => !((window.__bpeBlockDrawn || 0) > asked) || document.querySelector("[data-stale='true']") !== null ||
      [...document.querySelectorAll("[data-testid='stStatusWidget']")].some((e) => e.textContent.includes("Running"));
    let waited = 0;
    const later = () => {
      if (box.__fill !== id) return;
      if (busy() && waited < 2000) { waited += 50; setTimeout(later, 50); return; }
      requestAnimationFrame(() => setTimeout(put, 0));
    };
    setTimeout(later, 0);
  };
  if (data && data.text != null && data.rev > g.rev) {
    g.rev = data.rev;
    g.text = data.text;
    if (box.value !== data.text) fill(data.text);
  } else if (!box.__bound && g.text != null && box.value !== g.text) {
    fill(g.text);
  }
  if (count) count.textContent = fmt(codePoints(g.text != null ? g.text : box.value));
  if (!box.__bound) {
    box.__bound = true;
    let composing = false;
    const wait = (data && data.debounce) || 150;
    box.addEventListener("compositionstart", () => { composing = true; });
    box.addEventListener("compositionend", () => { composing = false; box.dispatchEvent(new Event("input")); });
    box.addEventListener("input", () => {
      g.text = box.value;
      if (count) count.textContent = fmt(codePoints(box.value));
      if (composing) return;
      clearTimeout(box.__timer);
      box.__timer = setTimeout(() => box.__send(), wait);
    });
    box.addEventListener("blur", () => {
      if (box.__timer) { clearTimeout(box.__timer); box.__send(); }
    });
  }
}
