/// The page's only script (served as a file: the Content-Security-Policy allows no inline script).
/// It adds Miniflux's keyboard shortcuts and sends the forms marked `data-inline` without a reload;
/// every action works without it, as a plain form post.
enum WebScript {
    static let text = #"""
        "use strict";
        (() => {
          const body = document.body;
          const base = body.dataset.base === "/" ? "" : body.dataset.base;
          const entries = () => Array.from(document.querySelectorAll(".entry"));
          let current = -1;
          let pendingG = false;

          function select(index) {
            const list = entries();
            if (list.length === 0) return;
            current = Math.max(0, Math.min(index, list.length - 1));
            list.forEach((entry, i) => entry.classList.toggle("current", i === current));
            list[current].scrollIntoView({block: "nearest"});
            const link = list[current].querySelector("h2 a");
            if (link) link.focus({preventScroll: true});
          }

          function selected() {
            const list = entries();
            return current >= 0 ? list[current] : (list.length === 1 ? list[0] : null);
          }

          function submit(form) {
            if (form.requestSubmit) form.requestSubmit(); else form.submit();
          }

          function setCount(delta) {
            const total = document.getElementById("unread-total");
            if (!total) return;
            const count = Math.max(0, parseInt(total.textContent, 10) + delta);
            total.textContent = String(count);
            document.title = document.title.replace(/^\(\d+\) /, count > 0 ? "(" + count + ") " : "");
          }

          // After an inline form is sent, flip what it shows (read ↔ unread, star ↔ unstar).
          function flip(form) {
            const kind = form.dataset.inline;
            const input = form.querySelector("input[name=read], input[name=starred]");
            const button = form.querySelector("button");
            const entry = form.closest(".entry, .article");
            if (!input || !button) return;
            const nowOn = input.value === "1";
            input.value = nowOn ? "0" : "1";
            if (kind === "read") {
              button.textContent = nowOn ? "Mark unread" : "Mark read";
              if (entry) { entry.classList.toggle("read", nowOn); entry.classList.toggle("unread", !nowOn); }
              setCount(nowOn ? -1 : 1);
            } else if (kind === "star") {
              button.textContent = nowOn ? "Unstar" : "Star";
              button.setAttribute("aria-pressed", String(nowOn));
            }
          }

          document.addEventListener("submit", async (event) => {
            const form = event.target;
            if (!form.dataset.inline) return;
            event.preventDefault();
            try {
              const response = await fetch(form.action, {
                method: "POST", credentials: "same-origin",
                headers: {"X-Requested-With": "fetch"},
                body: new URLSearchParams(new FormData(form)),
              });
              if (!response.ok) throw new Error(String(response.status));
              if (form.dataset.inline === "above") {
                form.closest(".entries").querySelectorAll(".entry.unread").forEach((entry) => {
                  if (entry.compareDocumentPosition(form) & Node.DOCUMENT_POSITION_FOLLOWING || entry.contains(form)) {
                    const read = entry.querySelector("form[data-inline=read]");
                    if (read) flip(read);
                  }
                });
              } else {
                flip(form);
              }
            } catch (error) {
              form.removeAttribute("data-inline");
              form.submit();
            }
          });

          document.addEventListener("keydown", (event) => {
            if (event.ctrlKey || event.metaKey || event.altKey) return;
            if (event.target.closest("input, textarea, select, [contenteditable]")) return;
            const help = document.getElementById("help");
            const key = event.key;
            if (pendingG) {
              pendingG = false;
              if (key === "u") { location.href = base + "/unread"; return; }
              if (key === "s") { location.href = base + "/starred"; return; }
            }
            const entry = selected();
            switch (key) {
              case "j": select(current + 1); break;
              case "k": select(current < 0 ? 0 : current - 1); break;
              case "o": case "Enter": {
                const link = entry && entry.querySelector("h2 a");
                if (link) location.href = link.href; else return;
                break;
              }
              case "m": {
                const form = (entry || document).querySelector("form[data-inline=read]");
                if (form) submit(form); else return;
                break;
              }
              case "s": {
                const form = (entry || document).querySelector("form[data-inline=star]");
                if (form) submit(form); else return;
                break;
              }
              case "v": {
                const original = (entry || document).querySelector("a.original");
                if (original) window.open(original.href, "_blank", "noopener,noreferrer"); else return;
                break;
              }
              case "g": pendingG = true; break;
              case "/": document.getElementById("q").focus(); break;
              case "?": if (help.open) help.close(); else help.showModal(); break;
              default: return;
            }
            event.preventDefault();
          });
        })();
        """#
}
