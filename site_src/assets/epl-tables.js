/* Execution Primitive Lab: sort and filter the generated tables (epldb/site/html.py `table`).
 *
 * A table of the site with enough rows gets headers that sort its rows (click again: the other way),
 * and a long one a box that keeps the rows holding every word typed. Without this script, or before
 * it runs, each is the plain table the page was built with: nothing here adds content, only order
 * and visibility. No library, no network: the site opens from disk.
 */
(function () {
  "use strict";

  var SORT_MIN = 4;     // rows from which sorting helps
  var FILTER_MIN = 12;  // rows from which a filter box is worth its line

  // The number a cell starts with ("2,806 81%" → 2806, "+3.4%" → 3.4, "1.2e-07" → 1.2e-7), or null
  // for text and for the dash of a missing value.
  var NUMBER = /^[+\u2212-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:e[+-]?\d+)?/i;
  function numberOf(text) {
    var m = NUMBER.exec(text);
    if (!m || !/\d/.test(m[0])) { return null; }
    return parseFloat(m[0].replace(/,/g, "").replace("\u2212", "-"));
  }

  function cellText(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    return (cell.getAttribute("data-sort") || cell.textContent || "").trim();
  }

  function missing(text) {
    return text === "" || text === "\u2014";
  }

  // Rows ordered by one column: numbers as numbers where both cells hold one, else text in the
  // reader's collation; missing values last either way; equal keys keep their built order.
  function sortBy(table, index, descending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (row, i) {
      var text = cellText(row, index);
      return { row: row, i: i, text: text, num: numberOf(text), none: missing(text) };
    });
    rows.sort(function (a, b) {
      if (a.none !== b.none) { return a.none ? 1 : -1; }
      var order = 0;
      if (a.num !== null && b.num !== null) {
        order = a.num - b.num;
      } else {
        order = a.text.localeCompare(b.text, undefined, { numeric: true, sensitivity: "base" });
      }
      if (descending) { order = -order; }
      return order || a.i - b.i;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
  }

  function makeSortable(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, index) {
      if (!th.textContent.trim()) { return; }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "epl-sort";
      button.title = "Sort by this column";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () {
        var descending = th.getAttribute("aria-sort") === "ascending";
        Array.prototype.forEach.call(heads, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        sortBy(table, index, descending);
      });
    });
  }

  function makeFilterable(table, wrapper) {
    var bar = document.createElement("div");
    bar.className = "epl-tablebar";
    var input = document.createElement("input");
    input.type = "search";
    input.className = "epl-filter";
    input.placeholder = "Filter rows";
    input.setAttribute("aria-label", "Filter the rows of the table below");
    var count = document.createElement("span");
    count.className = "epl-filter-count";
    bar.appendChild(input);
    bar.appendChild(count);
    wrapper.parentNode.insertBefore(bar, wrapper);
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    function apply() {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      rows.forEach(function (row) {
        var text = row.textContent.toLowerCase();
        var keep = words.every(function (w) { return text.indexOf(w) >= 0; });
        row.hidden = !keep;
        if (keep) { shown += 1; }
      });
      count.textContent = words.length ? shown + " of " + rows.length + " rows" : rows.length + " rows";
    }
    input.addEventListener("input", apply);
    apply();
  }

  function enhance(root) {
    var tables = root.querySelectorAll(".md-typeset .epl-table table");
    Array.prototype.forEach.call(tables, function (table) {
      if (table.getAttribute("data-epl-enhanced") || !table.tBodies.length || !table.tHead) { return; }
      table.setAttribute("data-epl-enhanced", "1");
      var n = table.tBodies[0].rows.length;
      if (n >= SORT_MIN) { makeSortable(table); }
      if (n >= FILTER_MIN) { makeFilterable(table, table.closest(".epl-table")); }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { enhance(document); });
  } else {
    enhance(document);
  }
})();
