// Show an error next to the control that caused it, and tie it to the control for screen
// readers (aria-describedby, aria-invalid). The message is text, never markup.

function messageFor(control) {
  const id = `${control.id}-error`;
  let message = document.getElementById(id);
  if (message === null) {
    message = document.createElement("span");
    message.id = id;
    message.className = "field-error";
    message.setAttribute("role", "alert");
    control.insertAdjacentElement("afterend", message);
  }
  return message;
}

/** Show `text` beside `control`. */
export function showError(control, text) {
  const message = messageFor(control);
  message.textContent = text;
  message.hidden = false;
  control.setAttribute("aria-invalid", "true");
  const described = (control.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
  if (!described.includes(message.id)) described.push(message.id);
  control.setAttribute("aria-describedby", described.join(" "));
}

/** Remove the error beside `control`, if any. */
export function clearError(control) {
  const message = document.getElementById(`${control.id}-error`);
  if (message !== null) {
    message.textContent = "";
    message.hidden = true;
  }
  control.removeAttribute("aria-invalid");
}

/** Remove every error shown inside `container`. */
export function clearErrors(container) {
  for (const control of container.querySelectorAll("[aria-invalid]")) clearError(control);
}
