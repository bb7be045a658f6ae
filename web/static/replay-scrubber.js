// The replay's scrubber: show the chosen position while it moves, and show the session as
// of it when it is let go (the form is a plain GET form, so it works without this too).
// Times are shown, and picked, in the reader's own zone; the page without this script
// shows and takes UTC, as its label then says, and the server is always sent UTC.

import { localTime } from "./times.js";

const form = document.getElementById("replay-form");
const range = document.getElementById("until-position");
const shown = document.getElementById("position-shown");
const at = document.getElementById("replay-at");

for (const time of document.querySelectorAll("#timeline time[datetime]")) {
  time.textContent = localTime(time.dateTime.replace(" ", "T"));
}

// The picker holds a local time; a hidden field carries it to the server in UTC.
const utc = document.createElement("input");
utc.type = "hidden";
utc.name = at.name;
at.removeAttribute("name");
form.append(utc);
if (at.value) at.value = pickerValue(new Date(`${at.value}Z`));
document.querySelector('label[for="replay-at"]').textContent =
  `Or up to a time (your time, ${localTime(new Date().toISOString()).split(" ").pop()})`;
form.addEventListener("submit", () => {
  utc.value = at.value ? new Date(at.value).toISOString().replace(".000Z", "Z") : "";
});

function pickerValue(date) {
  const two = (number) => String(number).padStart(2, "0");
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  return `${day}T${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

range.addEventListener("input", () => {
  shown.textContent = range.value;
});
range.addEventListener("change", () => {
  at.value = ""; // a position chosen: the time no longer limits it
  form.requestSubmit();
});
at.addEventListener("change", () => {
  range.value = range.max; // a time chosen: it alone limits the replay
  shown.textContent = range.max;
});
