// A "Copy" button (copy_button.py beside it): puts data.text on the clipboard, says so for a moment;
// with data.address, the page's address at the moment of the click (the share link).
// navigator.clipboard needs a secure context (https or localhost); elsewhere a hidden text area and
// execCommand("copy") do the same.
export default function (component) {
  const { data, parentElement } = component;
  const button = parentElement.querySelector("button.copy");
  const label = (data && data.label) || "Copy";
  button.__text = (data && data.text) || "";
  button.__address = Boolean(data && data.address);
  button.__label = label;
  if (!button.classList.contains("done")) button.textContent = label;
  if (button.__bound) return;
  button.__bound = true;
  const fallback = (text) => {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    parentElement.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    area.remove();
    return ok;
  };
  const said = (text, ok) => {
    button.classList.toggle("done", ok);
    button.textContent = text;
    setTimeout(() => { button.classList.remove("done"); button.textContent = button.__label; }, 1500);
  };
  button.addEventListener("click", async () => {
    const text = button.__address ? window.location.href : button.__text;
    let ok = false;
    if (navigator.clipboard && window.isSecureContext) {
      try { await navigator.clipboard.writeText(text); ok = true; } catch (e) { ok = false; }
    }
    if (!ok) ok = fallback(text);
    const failed = button.__address ? "Copy failed: copy the address bar" : "Copy failed: select the ids and press Ctrl+C";
    said(ok ? "Copied ✓" : failed, ok);
  });
}
