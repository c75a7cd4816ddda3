// The pilot access form: checks the fields as the server does, posts them as JSON to the
// service host, and shows either the server's message for each bad field or the confirmation
// with the request's reference.
import { el, lengthProblem, showFieldError, clearFieldErrors, postJSON, errorMessage, waitText } from "./form.js";

const form = document.getElementById("access-form");
const summary = document.getElementById("form-errors");
const summaryMessage = document.getElementById("form-errors-message");
const summaryList = document.getElementById("form-errors-list");
const confirmation = document.getElementById("confirmation");

// Field titles as the messages name them.
const titles = {
  name: "Name",
  email: "E-mail address",
  organization: "Organization",
  intended_use: "Intended use",
};

// bound reads a length bound from the field's own attribute, which the server's limits fill.
function bound(name, attr, fallback) {
  const v = Number(form.elements.namedItem(name).getAttribute(attr));
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

function emailProblem(s) {
  const lp = lengthProblem(s, 1, bound("email", "maxlength", 254));
  if (lp) {
    return lp;
  }
  const at = s.lastIndexOf("@");
  if (at < 1 || /\s/.test(s) || s.indexOf("@") !== at) {
    return "must be an e-mail address such as name@example.org";
  }
  const domain = s.slice(at + 1);
  if (!domain.includes(".") || domain.startsWith(".") || domain.endsWith(".")) {
    return "must be an e-mail address with a full domain, such as name@example.org";
  }
  return "";
}

function values() {
  const v = {};
  for (const name of Object.keys(titles)) {
    v[name] = form.elements.namedItem(name).value.trim();
  }
  return v;
}

function check(v) {
  const problems = [];
  const add = (field, message) => { if (message) problems.push({ field, message }); };
  add("name", lengthProblem(v.name, 1, bound("name", "maxlength", 200)));
  add("email", emailProblem(v.email));
  add("organization", lengthProblem(v.organization, 1, bound("organization", "maxlength", 200)));
  add("intended_use", lengthProblem(v.intended_use, bound("intended_use", "minlength", 10), bound("intended_use", "maxlength", 2000)));
  return problems;
}

function clearSummary() {
  summary.hidden = true;
  summaryMessage.textContent = "";
  summaryList.replaceChildren();
}

// showProblems puts each message under its field and lists them all, linked to the fields, in
// the summary, which takes the focus so a screen reader reads it.
function showProblems(message, problems) {
  summaryMessage.textContent = message;
  summaryList.replaceChildren();
  for (const p of problems) {
    const title = titles[p.field] || p.field;
    showFieldError(form, p.field, title + " " + p.message + ".");
    summaryList.append(el("li", {}, el("a", { href: "#" + p.field }, title + " " + p.message + ".")));
  }
  summary.hidden = false;
  summary.focus();
}

function confirm(data) {
  form.hidden = true;
  clearSummary();
  document.getElementById("confirmation-message").textContent = data.message || "Request received.";
  document.getElementById("confirmation-id").textContent = data.id || "";
  confirmation.hidden = false;
  confirmation.focus();
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  clearFieldErrors(form);
  clearSummary();
  const v = values();
  const problems = check(v);
  if (problems.length > 0) {
    showProblems("Please correct the fields below.", problems);
    return;
  }
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const resp = await postJSON(form.getAttribute("action"), v);
    if (resp.status === 201 && resp.data) {
      confirm(resp.data);
      return;
    }
    const fields = resp.data && resp.data.error && resp.data.error.details && resp.data.error.details.fields;
    if (Array.isArray(fields) && fields.length > 0) {
      showProblems(errorMessage(resp.data), fields);
      return;
    }
    let message = errorMessage(resp.data) || "The server could not take the request (HTTP " + resp.status + ").";
    if (resp.status === 429) {
      message = "Too many requests were sent from this address. Please try again later." +
        (waitText(resp.retryAfter) ? " Try again " + waitText(resp.retryAfter) + "." : "");
    }
    showProblems(message, []);
  } catch {
    showProblems("The request could not be sent. Check the connection and try again.", []);
  } finally {
    button.disabled = false;
  }
});
