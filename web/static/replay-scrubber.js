// The replay's scrubber and time picker: each move shows the session as of the chosen event
// in place (the page is fetched and its view swapped, so the page, and the focus, stay), and
// times read in the viewer's own zone. The form is a plain GET form, so it works without this.

import { localTime } from "./times.js";

const form = document.getElementById("replay-form");
const range = document.getElementById("until-event");
const shown = document.getElementById("position-shown");
const at = document.getElementById("replay-at");
const view = document.getElementById("replay-view");
const steps = JSON.parse(range.dataset.steps);
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

const pad = (n) => String(n).padStart(2, "0");

// "2026-12-01T19:20:44" in the viewer's zone, from a UTC time.
function localText(date) {
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  return `${day}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function showLocalTimes(root) {
  for (const time of root.querySelectorAll("time[datetime]")) {
    const date = new Date(time.getAttribute("datetime").replace(" ", "T"));
    if (!Number.isNaN(date.getTime())) time.textContent = localTime(date.toISOString());
  }
}

function label() {
  const text = steps[Number(range.value) - 1] ?? "";
  shown.textContent = text;
  range.setAttribute("aria-valuetext", text);
}

let latest = 0;
async function show(params) {
  const asked = ++latest;
  const url = `${form.action}?${params}`;
  const response = await fetch(url, { headers: { Accept: "text/html" } });
  if (asked !== latest) return; // a later move is on its way: it shows instead
  if (!response.ok) {
    window.location.href = url; // let the server's page say what went wrong
    return;
  }
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  const fresh = page.getElementById("replay-view");
  if (asked !== latest || fresh === null) return;
  view.replaceChildren(...fresh.childNodes);
  showLocalTimes(view);
  history.replaceState(null, "", url);
}

range.addEventListener("input", () => {
  label();
  at.value = ""; // an event chosen: the time no longer limits it
  show(new URLSearchParams({ until_event: range.value }));
});
range.addEventListener("change", label);

form.addEventListener("submit", (event) => {
  event.preventDefault();
  if (!at.value) {
    show(new URLSearchParams({ until_event: range.value }));
    return;
  }
  const picked = new Date(at.value); // a datetime-local reads in the viewer's zone
  range.value = range.max; // a time chosen: it alone limits the replay
  label();
  show(new URLSearchParams({ at: picked.toISOString().slice(0, 19) + "Z" }));
});

document.getElementById("replay-zone").textContent = `your time, ${zone}`;
if (at.value) at.value = localText(new Date(`${at.value}Z`));
showLocalTimes(view);
