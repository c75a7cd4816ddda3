// Sorts the tables marked "sortable" by the column whose heading button is chosen. Each cell
// carries its raw value in data-value; a heading's data-type says whether the column compares
// as numbers or as text. Choosing the sorted column again reverses the order. The heading's
// aria-sort tells assistive technology the current order, and a polite live region says it.

function compare(type) {
  if (type === "number") {
    return (a, b) => Number(a) - Number(b);
  }
  const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });
  return (a, b) => collator.compare(a, b);
}

function sortBy(table, index, status) {
  const heads = Array.from(table.tHead.rows[0].cells);
  const head = heads[index];
  const ascending = head.getAttribute("aria-sort") !== "ascending";
  const cmp = compare(head.dataset.type);
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  rows.sort((ra, rb) => {
    const d = cmp(ra.cells[index].dataset.value, rb.cells[index].dataset.value);
    return ascending ? d : -d;
  });
  body.append(...rows);
  for (const h of heads) {
    h.removeAttribute("aria-sort");
  }
  head.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  if (status) {
    status.textContent = "Sorted by " + head.textContent.trim() + ", " + (ascending ? "ascending" : "descending") + ".";
  }
}

for (const table of document.querySelectorAll("table.sortable")) {
  const status = document.getElementById("sort-status");
  Array.from(table.tHead.rows[0].cells).forEach((cell, index) => {
    const button = cell.querySelector("button");
    if (button) {
      button.addEventListener("click", () => sortBy(table, index, status));
    }
  });
}
