// What a reload would lose, kept in this browser (browser_store.py beside it).  Script only: nothing drawn,
// nothing fetched, nothing put in the page.  Each item has one key, "bpe-playground:<item>", in
// localStorage (kept by this browser) or sessionStorage (kept by this tab, across its reloads).
//
// Per session (data.token, new for every Streamlit session), each item the page asks about is read once,
// *before* any write, and reported (a trigger value) when it holds something, or always when Python asks for
// an answer; then the writes Python sent (numbered, each applied once) are made.  A value is text Python
// wrote; it goes back up as text and Python checks it as any input.
const PREFIX = "bpe-playground:";

function area(where) {
  try {
    return where === "tab" ? window.sessionStorage : window.localStorage;
  } catch (e) {  // storage blocked by the browser's settings
    return null;
  }
}

function opened() {  // how this page load began: "reload", "navigate" or "back_forward"
  try {
    const nav = performance.getEntriesByType("navigation")[0];
    return (nav && nav.type) || "navigate";
  } catch (e) {
    return "navigate";
  }
}

export default function (component) {
  const { setTriggerValue } = component;
  if (!component.data || !component.data.token) return;
  const data = JSON.parse(component.data.message || "{}");
  data.token = component.data.token;
  const g = window.__bpeStore || (window.__bpeStore = { token: null, heard: new Set(), rev: -1, how: null });
  if (g.token !== data.token) {
    // A new session: the first of this page load, or one the server started after it lost the last ("session").
    g.how = g.token === null ? opened() : "session";
    g.token = data.token;
    g.heard = new Set();
    g.rev = -1;
  }
  const items = {};
  const asked = [];
  let answer = false;
  for (const [item, ask] of Object.entries(data.ask || {})) {
    if (g.heard.has(item)) continue;
    g.heard.add(item);
    asked.push(item);
    answer = answer || Boolean(ask.answer);
    const store = area(ask.where);
    let value = null;
    try {
      value = store ? store.getItem(PREFIX + item) : null;
    } catch (e) {
      value = null;
    }
    if (value !== null) items[item] = value;
  }
  const refused = {};
  if (data.writes && data.rev > g.rev) {
    g.rev = data.rev;
    for (const [item, value] of Object.entries(data.writes)) {
      const store = area((data.where || {})[item]);
      try {
        if (!store) throw new Error("storage is blocked in this browser");
        if (value === null) store.removeItem(PREFIX + item);
        else store.setItem(PREFIX + item, value);
      } catch (e) {  // full (QuotaExceededError) or blocked
        refused[item] = String((e && e.name !== "Error" && e.name) || (e && e.message) || e).slice(0, 200);
      }
    }
  }
  if (answer || Object.keys(items).length || Object.keys(refused).length) {
    const p = g.pending || (g.pending = { asked: [], items: {}, refused: {} });
    p.asked.push(...asked);
    Object.assign(p.items, items);
    Object.assign(p.refused, refused);
    p.send = () => setTriggerValue("report", { how: g.how, asked: p.asked, items: p.items, refused: p.refused });
    if (!p.waiting) {
      p.waiting = true;
      whenSettled(() => {
        g.pending = null;
        p.send();
      });
    }
  }
}

// The report starts a run: it waits until the page is drawn and idle, so the run gets every widget's value.  A
// widget still loading (its code fetched on first use: a skeleton) or mid-run holds no value yet, and a run started
// then took its box as empty: a reloaded Chat page lost a message's text under a busy server.
function whenSettled(go) {
  const started = performance.now();
  const busy = () => document.querySelector("[data-testid='stSkeleton'], [data-stale='true']") !== null ||
    [...document.querySelectorAll("[data-testid='stStatusWidget']")].some((e) => e.textContent.includes("Running"));
  const check = () => {
    if (busy() && performance.now() - started < 20000) {
      setTimeout(check, 100);
      return;
    }
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(go, 0)));  // effects of the last paint ran
  };
  setTimeout(check, 0);
}
