// The evidence demo: posts the question to the service host's demo endpoint and shows the
// answer with its evidence trail, a refusal in plain words, or why there is no answer.
import { el, safeHref, chars, showFieldError, clearFieldErrors, postJSON, errorMessage, waitText } from "./form.js";

const form = document.getElementById("evidence-form");
const result = document.getElementById("result");
const resultHeading = document.getElementById("result-h");
const resultBody = document.getElementById("result-body");

// Why the demo refuses, per refusal code of the evidence query.
const refusals = {
  out_of_scope: "The demo answers questions about the supply of healthcare providers in U.S. states from the datasets it holds, and this question is about something else.",
  predictions: "The demo reports the figures its datasets hold; it does not forecast or predict future numbers.",
  payment_data: "Payments, reimbursement and claims are not in the data the demo answers from.",
  competitor_compare: "The demo does not compare vendors, products or services.",
  individual_provider_lookup: "The demo does not look up or discuss one individual provider.",
  prompt_injection: "The question held instructions aimed at the system rather than a question about the data, so it was not processed.",
  classification_failed: "The demo could not match the question to a dataset and a kind of question it knows. Try naming a specialty and a state.",
};

function show(title, ...nodes) {
  resultHeading.textContent = title;
  resultBody.replaceChildren(...nodes);
  result.hidden = false;
  resultHeading.focus();
}

function link(url, text) {
  const href = safeHref(url);
  return href ? el("a", { href }, text) : document.createTextNode(text);
}

function pair(term, ...desc) {
  return [el("dt", {}, term), el("dd", {}, ...desc)];
}

function evidenceItem(item) {
  const src = item.source || {};
  const meth = item.methodology || {};
  const details = el("dl", {});
  details.append(...pair("Source", link(src.url, String(src.name || "unnamed source")),
    src.tier !== undefined && src.tier !== null ? " (tier " + src.tier + ")" : ""));
  if (src.last_checked) {
    details.append(...pair("Last checked", el("time", { datetime: String(src.last_checked) }, String(src.last_checked))));
  }
  if (typeof src.confidence === "number") {
    details.append(...pair("Confidence", String(src.confidence)));
  }
  if (meth.url || meth.version) {
    details.append(...pair("Methodology", link(meth.url, "methodology " + String(meth.version || ""))));
  }
  return el("li", { class: "evidence-item" }, el("p", { class: "claim" }, String(item.claim || "")), details);
}

// The caveats of the evidence, each once, with the claims (numbered as in the trail) it
// applies to: the API repeats a caveat in every item it concerns.
function caveats(items) {
  const claims = new Map();
  items.forEach((item, i) => {
    const lims = item.methodology && Array.isArray(item.methodology.limitations) ? item.methodology.limitations : [];
    for (const l of lims) {
      const text = String(l);
      if (!claims.has(text)) {
        claims.set(text, []);
      }
      const nums = claims.get(text);
      if (!nums.includes(i + 1)) {
        nums.push(i + 1);
      }
    }
  });
  if (claims.size === 0) {
    return [];
  }
  const list = el("ul", { class: "caveats", id: "caveats" });
  for (const [text, nums] of claims) {
    list.append(el("li", {}, el("p", {}, text), el("p", { class: "small applies" }, appliesTo(nums, items.length))));
  }
  return [el("h3", {}, "Caveats"), list];
}

function appliesTo(nums, total) {
  if (total > 1 && nums.length === total) {
    return "Applies to every claim.";
  }
  if (nums.length === 1) {
    return "Applies to claim " + nums[0] + ".";
  }
  return "Applies to claims " + nums.slice(0, -1).join(", ") + " and " + nums[nums.length - 1] + ".";
}

function answer(data) {
  const a = data.answer || {};
  const nodes = [el("p", { class: "summary", id: "answer-summary" }, String(a.summary || ""))];
  const facts = el("dl", { class: "facts" });
  if (a.value !== null && a.value !== undefined) {
    facts.append(...pair("Value", String(a.value) + (a.unit ? " " + a.unit : "")));
  }
  if (a.dataset) {
    facts.append(...pair("Dataset", String(a.dataset) + (a.dataset_slug ? " (" + a.dataset_slug + ")" : "")));
  }
  if (a.methodology_version) {
    facts.append(...pair("Methodology version", String(a.methodology_version)));
  }
  nodes.push(facts);
  if (a.geo_widened) {
    nodes.push(el("p", { class: "notice" }, "The question named a county. The registry records no county of practice, so the answer gives the state's figures."));
  }
  const items = Array.isArray(data.evidence) ? data.evidence : [];
  nodes.push(el("h3", {}, "Evidence"));
  nodes.push(items.length > 0 ? el("ol", { class: "evidence", id: "evidence-trail" }, ...items.map(evidenceItem)) : el("p", {}, "No evidence items came with this answer."));
  nodes.push(...caveats(items));
  show("Answer", ...nodes);
}

function refusal(data) {
  const r = data.refusal || {};
  const plain = refusals[r.code] || "The demo declined to answer this question.";
  const nodes = [el("p", { class: "notice", id: "refusal-reason", "data-code": String(r.code || "") }, plain)];
  if (r.message) {
    nodes.push(el("p", {}, "The service said: " + String(r.message)));
  }
  show("Not answered", ...nodes);
}

function failure(resp) {
  switch (resp.status) {
    case 404:
      show("Unavailable", el("p", { class: "notice", id: "unavailable" }, "The evidence demo is not available on this server. The rest of the service works; try the supply maps instead."));
      return;
    case 429:
      show("Limit reached", el("p", { class: "notice" }, "The demo answers 10 questions per day from one address, and this address has used them." +
        (waitText(resp.retryAfter) ? " Try again " + waitText(resp.retryAfter) + "." : " Try again tomorrow.")));
      return;
    case 400:
      show("Question not accepted", el("p", { class: "notice" }, errorMessage(resp.data) || "The question could not be read."));
      return;
  }
  show("No answer", el("p", { class: "notice" }, (errorMessage(resp.data) || "The demo could not answer") + " (HTTP " + resp.status + ")."));
}

function check() {
  let ok = true;
  const query = form.elements.namedItem("query").value;
  const max = Number(form.elements.namedItem("query").getAttribute("maxlength")) || 1500;
  if (query.trim() === "") {
    showFieldError(form, "query", "Please write a question.");
    ok = false;
  } else if (chars(query) > max) {
    showFieldError(form, "query", "The question must be at most " + max + " characters.");
    ok = false;
  }
  const itemsInput = form.elements.namedItem("max_evidence_items");
  const items = Number(itemsInput.value);
  const lo = Number(itemsInput.min), hi = Number(itemsInput.max);
  if (!Number.isInteger(items) || items < lo || items > hi) {
    showFieldError(form, "max_evidence_items", "Choose a whole number from " + lo + " to " + hi + ".");
    ok = false;
  }
  return ok ? { query, options: { max_evidence_items: items } } : null;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  clearFieldErrors(form);
  const body = check();
  if (!body) {
    return;
  }
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const resp = await postJSON(form.dataset.endpoint, body);
    const data = resp.data && resp.data.data ? resp.data.data : resp.data;
    if (resp.status !== 200 || !data) {
      failure(resp);
    } else if (data.status === "refusal") {
      refusal(data);
    } else {
      answer(data);
    }
  } catch {
    show("No answer", el("p", { class: "notice" }, "The question could not be sent. Check the connection and try again."));
  } finally {
    button.disabled = false;
  }
});
