// Helpers the form pages share: field messages tied to their inputs, JSON posts to the
// service host, and element building that only ever sets text (never HTML), so nothing a
// server or a user sends can become markup.

// el builds an element with attributes and children (strings become text nodes).
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    node.setAttribute(k, v);
  }
  for (const c of children) {
    if (c !== null && c !== undefined) {
      node.append(c);
    }
  }
  return node;
}

// safeHref returns a link target only for http(s) URLs and same-site paths.
export function safeHref(url) {
  if (typeof url !== "string") {
    return null;
  }
  if (/^https?:\/\//i.test(url) || (url.startsWith("/") && !url.startsWith("//"))) {
    return url;
  }
  return null;
}

// chars counts characters as the server does: code points, not UTF-16 units.
export function chars(s) {
  return Array.from(s).length;
}

// lengthProblem says what is wrong with a text's length, in the server's words, or "".
export function lengthProblem(s, min, max) {
  const n = chars(s);
  if (n === 0) {
    return "is required";
  }
  if (n < min) {
    return "must be at least " + min + " characters";
  }
  if (n > max) {
    return "must be at most " + max + " characters";
  }
  return "";
}

// showFieldError shows a message under a field and marks the field invalid.
export function showFieldError(form, name, text) {
  const input = form.elements.namedItem(name);
  const box = document.getElementById(name + "-error");
  if (input) {
    input.setAttribute("aria-invalid", "true");
  }
  if (box) {
    box.textContent = text;
    box.hidden = false;
  }
}

// clearFieldErrors removes every field message of a form.
export function clearFieldErrors(form) {
  for (const input of form.querySelectorAll("[aria-invalid]")) {
    input.removeAttribute("aria-invalid");
  }
  for (const box of form.querySelectorAll(".field-error")) {
    box.textContent = "";
    box.hidden = true;
  }
}

// postJSON posts a JSON body and returns the status, the Retry-After header and the parsed
// answer (null when the answer is not JSON).
export async function postJSON(url, body) {
  const resp = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Accept": "application/json" },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  let data = null;
  try {
    data = await resp.json();
  } catch {
    data = null;
  }
  return { status: resp.status, retryAfter: resp.headers.get("Retry-After"), data };
}

// waitText says when a Retry-After of seconds runs out, as a person reads it: "in 23 h 52 min
// (after 00:00 UTC)", "in 4 min", "in 30 seconds"; "" for a value that is not a count of
// seconds.
export function waitText(retryAfter, now = Date.now()) {
  if (!/^[0-9]+$/.test(String(retryAfter ?? ""))) {
    return "";
  }
  const seconds = Number(retryAfter);
  if (seconds < 60) {
    return "in " + seconds + (seconds === 1 ? " second" : " seconds");
  }
  const minutes = Math.ceil(seconds / 60);
  const span = minutes < 60 ? minutes + " min" : Math.floor(minutes / 60) + " h" + (minutes % 60 ? " " + (minutes % 60) + " min" : "");
  const at = new Date(now + seconds * 1000);
  const clock = String(at.getUTCHours()).padStart(2, "0") + ":" + String(at.getUTCMinutes()).padStart(2, "0");
  return "in " + span + " (after " + clock + " UTC)";
}

// errorMessage returns the message of an error answer of the service host, if it has one.
export function errorMessage(data) {
  if (data && data.error && typeof data.error.message === "string") {
    return data.error.message;
  }
  return "";
}
