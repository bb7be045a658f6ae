// The replay's scrubber: show the chosen position while it moves, and show the session as
// of it when it is let go (the form is a plain GET form, so it works without this too).

const form = document.getElementById("replay-form");
const range = document.getElementById("until-position");
const shown = document.getElementById("position-shown");
const at = document.getElementById("replay-at");

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
