// newsrank pages work without JavaScript: a vote is a form POST that
// redirects back, and /ops has a "refresh now" link. With JavaScript, the
// vote form is sent with fetch and the points and buttons update in place,
// and /ops refreshes itself.
"use strict";
document.documentElement.classList.add("js");

document.addEventListener("submit", async (ev) => {
  const form = ev.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains("vote")) return;
  const button = ev.submitter;
  if (!button || !button.name) return;
  ev.preventDefault();
  if (form.classList.contains("busy")) return;
  const body = new URLSearchParams(new FormData(form));
  body.set(button.name, button.value);
  form.classList.add("busy");
  try {
    const res = await fetch(form.action, {
      method: "POST",
      headers: { "Accept": "application/json" },
      body,
      credentials: "same-origin",
    });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      alert(data.error || ("vote failed: HTTP " + res.status));
      return;
    }
    // Points are up-votes minus down-votes; comments are shown apart.
    const points = data.up - data.down;
    // Every form for this article on the page (hot list and latest); a
    // vote on a story's article is the story's, whose forms carry its lead.
    const key = data.story || data.id;
    document.querySelectorAll('form.vote[data-id="' + key + '"]').forEach((f) => {
      const count = f.querySelector(".count");
      if (count) count.textContent = String(points);
      const unit = f.querySelector(".unit");
      if (unit) unit.textContent = Math.abs(points) === 1 ? "point" : "points";
      const up = f.querySelector("button.up"), down = f.querySelector("button.down");
      if (up) up.classList.toggle("on", data.dir === "up");
      if (down) down.classList.toggle("on", data.dir === "down");
    });
  } catch (e) {
    alert("vote failed: " + e);
  } finally {
    form.classList.remove("busy");
  }
});

// Auto-refresh of the operations page: every data-refresh seconds the page
// is fetched again and its content replaced, without a reload, unless the
// box is unticked (remembered in localStorage) or the visitor is typing in
// a field. The message of a button shows once.
(() => {
  const root = document.querySelector("[data-refresh]");
  if (!root) return;
  const seconds = Math.max(1, parseInt(root.dataset.refresh, 10) || 10);
  const key = "newsrank.ops.autorefresh";
  const box = () => document.getElementById("autorefresh");
  const on = () => localStorage.getItem(key) !== "off";
  if (box()) box().checked = on();
  document.addEventListener("change", (ev) => {
    if (ev.target && ev.target.id === "autorefresh") localStorage.setItem(key, ev.target.checked ? "on" : "off");
  });
  const tick = async () => {
    const busy = document.activeElement && document.activeElement.matches("input, textarea, select");
    if (on() && !busy && !document.hidden) {
      try {
        const res = await fetch(location.pathname + location.search, { credentials: "same-origin", headers: { "Accept": "text/html" } });
        if (res.ok) {
          const doc = new DOMParser().parseFromString(await res.text(), "text/html");
          const fresh = doc.querySelector("main"), main = document.querySelector("main");
          if (fresh && main) {
            const y = window.scrollY;
            main.replaceWith(fresh);
            if (box()) box().checked = on();
            window.scrollTo(0, y);
            const footer = doc.querySelector("footer"), old = document.querySelector("footer");
            if (footer && old) old.replaceWith(footer);
          }
        }
      } catch (e) {
        // the server is away: try again at the next tick
      }
    }
    setTimeout(tick, seconds * 1000);
  };
  setTimeout(tick, seconds * 1000);
})();
