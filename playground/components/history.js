// One navigation, one history entry (history.py beside it).  Streamlit calls history.pushState for a
// page switch and again for every write of the query parameters (the share link); the second kind
// changes only the query string of the address on screen, so it replaces the entry instead.
export default function () {
  if (window.__bpeHistory) return;
  window.__bpeHistory = true;
  const push = window.history.pushState.bind(window.history);
  window.history.pushState = function (state, title, url) {
    if (url != null) {
      const next = new URL(String(url), window.location.href);
      if (next.origin === window.location.origin && next.pathname === window.location.pathname) {
        return window.history.replaceState(state, title, url);
      }
    }
    return push(state, title, url);
  };
}
