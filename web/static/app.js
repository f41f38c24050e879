// newsrank pages work without JavaScript: a vote is a form POST that
// redirects back. With JavaScript, the same form is sent with fetch and
// the count and buttons update in place.
"use strict";
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
    // Every form for this article on the page (hot list and latest).
    document.querySelectorAll('form.vote[data-id="' + data.id + '"]').forEach((f) => {
      const count = f.querySelector(".count");
      if (count) count.textContent = data.votes_text;
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
