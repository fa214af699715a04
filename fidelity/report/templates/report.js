// The question browser: filters, search and paging over the JSON data island.
// Rows are drawn one page at a time and a row's details only when it is opened, so a run
// of 100,000 questions costs one JSON.parse and a filter pass per change, never 100,000 rows.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var S = data.strings, F = data.files, A = data.artifacts, Q = data.questions;
  function positions(names) {
    var at = {};
    names.forEach(function (name, index) { at[name] = index; });
    return at;
  }
  var q = positions(data.fields.question);
  var c = positions(data.fields.check);
  var a = positions(data.fields.artifact);
  var stringIndex = new Map();
  S.forEach(function (value, index) { stringIndex.set(value, index); });
  var fileIndex = new Map();
  F.forEach(function (value, index) { fileIndex.set(value, index); });

  var FILTERS = ["app", "category", "status", "rejected_by", "check", "verdict", "file", "q"];
  // The status a coverage tile links to: what it counts as kept (unverified included).
  var KEPT = "kept or unverified";
  // Also read from the address: page (1-based) and open (a candidate id).
  var table = document.getElementById("questions");
  var body = document.getElementById("question-rows");
  var count = document.getElementById("question-count");
  var pageInfo = document.getElementById("page-info");
  var prev = document.getElementById("page-prev");
  var next = document.getElementById("page-next");
  var form = document.getElementById("filters");
  var pageSize = Number(table.getAttribute("data-page-size")) || 50;
  var haystacks = new Array(Q.length);
  var state = { page: 0, visible: [] };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function haystack(i) {
    if (haystacks[i] === undefined) {
      var row = Q[i], art = A[row[q.artifact]];
      haystacks[i] = [row[q.id], row[q.question], row[q.answer].join(" "), F[row[q.file]],
        art ? art[a.locator] : "", art ? art[a.id] : "", S[row[q.reason]]].join(" ").toLowerCase();
    }
    return haystacks[i];
  }

  function currentFilters() {
    var wanted = {};
    FILTERS.forEach(function (name) { wanted[name] = form.elements[name].value; });
    return wanted;
  }

  // A filter value as the index it has in the string (or file) table; -2 matches nothing.
  function indexOf(map, value) {
    if (!value) return -1;
    return map.has(value) ? map.get(value) : -2;
  }

  function select() {
    var f = currentFilters();
    var app = indexOf(stringIndex, f.app), category = indexOf(stringIndex, f.category);
    var kept = f.status === KEPT;
    var status = kept ? -1 : indexOf(stringIndex, f.status), check = indexOf(stringIndex, f.check);
    var keptStatuses = [indexOf(stringIndex, "kept"), indexOf(stringIndex, "unverified")];
    var rejectedBy = indexOf(stringIndex, f.rejected_by);
    var verdict = indexOf(stringIndex, f.verdict), file = indexOf(fileIndex, f.file);
    var needle = f.q.trim().toLowerCase();
    var out = [];
    for (var i = 0; i < Q.length; i++) {
      var row = Q[i];
      if (app !== -1 && row[q.app] !== app) continue;
      if (category !== -1 && row[q.category] !== category) continue;
      if (status !== -1 && row[q.status] !== status) continue;
      if (kept && keptStatuses.indexOf(row[q.status]) === -1) continue;
      // A stage (ablation) or one of its checks (ablation:text): the candidates it rejected.
      if (rejectedBy !== -1 && row[q.rejected_by] !== rejectedBy && row[q.stage] !== rejectedBy) continue;
      if (file !== -1 && row[q.file] !== file) continue;
      if (check !== -1 || verdict !== -1) {
        var checks = row[q.checks], hit = false;
        for (var k = 0; k < checks.length && !hit; k++) {
          hit = (check === -1 || checks[k][c.check] === check) &&
            (verdict === -1 || checks[k][c.verdict] === verdict);
        }
        if (!hit) continue;
      }
      if (needle && haystack(i).indexOf(needle) === -1) continue;
      out.push(i);
    }
    return out;
  }

  function statusBadge(value) {
    return el("span", "status status-" + value.replace(/[^a-z0-9-]/gi, "-"), value);
  }

  function cell(tr, content, className) {
    var td = el("td", className);
    if (content instanceof Node) td.appendChild(content); else td.textContent = content;
    tr.appendChild(td);
  }

  // Tables come from the documents: parsed inertly (DOMParser runs no script and loads nothing)
  // and rebuilt from table elements and text only, so the page shows each table once, at its
  // own size, in the page's styles.
  var TABLE_TAGS = ["TABLE", "CAPTION", "COLGROUP", "COL", "THEAD", "TBODY", "TFOOT", "TR", "TD",
    "TH", "BR", "P", "B", "STRONG", "I", "EM", "U", "S", "SUB", "SUP", "SPAN"];
  function copyTable(source, target) {
    Array.prototype.forEach.call(source.childNodes, function (child) {
      if (child.nodeType === 3) { target.appendChild(document.createTextNode(child.nodeValue)); return; }
      if (child.nodeType !== 1) return;
      if (TABLE_TAGS.indexOf(child.tagName) === -1) { copyTable(child, target); return; }
      var copy = document.createElement(child.tagName.toLowerCase());
      ["colspan", "rowspan"].forEach(function (name) {
        var value = Number(child.getAttribute(name));
        if (value > 1) copy.setAttribute(name, String(Math.min(value, 1000)));
      });
      copyTable(child, copy);
      target.appendChild(copy);
    });
  }

  function evidenceTable(html) {
    var parsed = new DOMParser().parseFromString(html, "text/html");
    var box = el("div", "evidence-table");
    copyTable(parsed.body, box);
    return box;
  }

  function picture(src, label) {
    // Shown at a readable size; a click opens the picture at full size in a new tab.
    var figure = el("figure", "evidence-picture");
    var url = src.split("/").map(encodeURIComponent).join("/");
    var link = el("a", "enlarge");
    link.setAttribute("href", url);
    link.setAttribute("target", "_blank");
    link.setAttribute("title", "open at full size");
    var img = el("img");
    img.setAttribute("loading", "lazy");
    img.setAttribute("alt", label);
    img.setAttribute("src", url);
    link.appendChild(img);
    figure.appendChild(link);
    figure.appendChild(el("figcaption", "muted", label + " (click to enlarge): " + src));
    return figure;
  }

  function details(i) {
    var row = Q[i], art = A[row[q.artifact]] || [];
    var box = el("div", "details");
    var meta = el("p", "muted", "id " + row[q.id] + " · " + S[row[q.question_type]] + " · " +
      S[row[q.generator]] + " · artifact " + (art[a.id] || "") + " (" + (art[a.kind] || "?") +
      ", " + (art[a.modality] || "?") + ") at " + (art[a.locator] || "?"));
    box.appendChild(meta);
    box.appendChild(el("h4", null, "Answer statements"));
    var list = el("ul", "answers");
    row[q.answer].forEach(function (statement) { list.appendChild(el("li", null, statement)); });
    box.appendChild(list);
    if (S[row[q.rejected_by]]) {
      box.appendChild(el("p", "rejection", "Rejected by " + S[row[q.rejected_by]] + ": " + S[row[q.reason]]));
    }
    box.appendChild(el("h4", null, "Evidence"));
    // A table is shown rendered; its text (the same cells) only when there is no table.
    if (art[a.html]) box.appendChild(evidenceTable(art[a.html]));
    else if (art[a.text]) box.appendChild(el("pre", "evidence-text", art[a.text]));
    if (art[a.media]) box.appendChild(picture(art[a.media], art[a.caption] || "picture"));
    if (art[a.slide]) box.appendChild(picture(art[a.slide], "rendered slide"));
    if (!art[a.text] && !art[a.html] && !art[a.media]) box.appendChild(el("p", "muted", "no stored evidence"));
    box.appendChild(el("h4", null, "Checks"));
    var checks = el("table", "compact checks");
    var head = el("tr");
    ["check", "view", "verdict", "match", "reason", "answered", "model calls"].forEach(function (name) {
      head.appendChild(el("th", null, name));
    });
    checks.appendChild(head);
    row[q.checks].forEach(function (check) {
      var tr = el("tr");
      cell(tr, S[check[c.check]]);
      cell(tr, S[check[c.view]]);
      cell(tr, el("span", "verdict verdict-" + S[check[c.verdict]], S[check[c.verdict]]));
      cell(tr, S[check[c.match]]);
      cell(tr, S[check[c.reason]]);
      cell(tr, check[c.answered], "answered");
      cell(tr, S[check[c.calls]]);
      checks.appendChild(tr);
    });
    box.appendChild(checks);
    return box;
  }

  function toggle(tr, i) {
    var open = tr.nextSibling && tr.nextSibling.className === "q-detail" ? tr.nextSibling : null;
    if (open) { open.parentNode.removeChild(open); tr.setAttribute("aria-expanded", "false"); return; }
    var detail = el("tr", "q-detail");
    var td = el("td");
    td.setAttribute("colspan", "7");
    td.appendChild(details(i));
    detail.appendChild(td);
    tr.parentNode.insertBefore(detail, tr.nextSibling);
    tr.setAttribute("aria-expanded", "true");
  }

  function rowFor(i) {
    var row = Q[i];
    var tr = el("tr", "q-row");
    tr.setAttribute("data-id", row[q.id]);
    tr.setAttribute("data-category", S[row[q.category]]);
    tr.setAttribute("data-status", S[row[q.status]]);
    tr.setAttribute("tabindex", "0");
    tr.setAttribute("aria-expanded", "false");
    cell(tr, statusBadge(S[row[q.status]]));
    cell(tr, S[row[q.app]]);
    cell(tr, S[row[q.category]]);
    cell(tr, row[q.question], "question");
    cell(tr, row[q.answer].join(" "), "answer");
    cell(tr, F[row[q.file]].split("/").pop(), "file");
    cell(tr, S[row[q.rejected_by]]);
    tr.querySelector(".file").setAttribute("title", F[row[q.file]]);
    tr.addEventListener("click", function () { toggle(tr, i); });
    tr.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); toggle(tr, i); }
    });
    return tr;
  }

  function draw() {
    var pages = Math.max(1, Math.ceil(state.visible.length / pageSize));
    state.page = Math.min(Math.max(0, state.page), pages - 1);
    var start = state.page * pageSize;
    var fragment = document.createDocumentFragment();
    state.visible.slice(start, start + pageSize).forEach(function (i) { fragment.appendChild(rowFor(i)); });
    if (!state.visible.length) {
      var empty = el("tr", "q-empty");
      var td = el("td", "muted", "No candidate matches these filters.");
      td.setAttribute("colspan", "7");
      empty.appendChild(td);
      fragment.appendChild(empty);
    }
    body.textContent = "";
    body.appendChild(fragment);
    count.textContent = state.visible.length + " of " + Q.length + " candidates match";
    pageInfo.textContent = "page " + (state.page + 1) + " of " + pages;
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
  }

  // #open=ID opens that candidate's details when it is on the page shown.
  function openRow(id) {
    if (!id) return;
    var rows = body.querySelectorAll("tr.q-row");
    for (var k = 0; k < rows.length; k++) {
      if (rows[k].getAttribute("data-id") === id) rows[k].click();
    }
  }

  function writeHash() {
    var params = new URLSearchParams();
    var f = currentFilters();
    FILTERS.forEach(function (name) { if (f[name]) params.set(name, f[name]); });
    if (state.page) params.set("page", String(state.page + 1));
    var text = params.toString();
    history.replaceState(null, "", text ? "#" + text : location.pathname + location.search);
  }

  function refilter() {
    state.visible = select();
    state.page = 0;
    draw();
    writeHash();
  }

  // The address holds the filters (#category=Table&status=kept&page=2); plain anchors are left alone.
  function readHash() {
    var hash = location.hash.slice(1);
    if (hash.indexOf("=") === -1) return false;
    var params = new URLSearchParams(hash);
    FILTERS.forEach(function (name) {
      var control = form.elements[name], value = params.get(name) || "";
      if (control.tagName === "SELECT" && value &&
          !Array.prototype.some.call(control.options, function (o) { return o.value === value; })) {
        control.appendChild(el("option", null, value)).value = value;
      }
      control.value = value;
    });
    state.visible = select();
    state.page = (Number(params.get("page")) || 1) - 1;
    draw();
    openRow(params.get("open"));
    return true;
  }

  var typing = null;
  form.addEventListener("change", function (event) {
    // The search box refilters as one types; its change event (on leaving it) would redraw
    // the rows again and close the one just opened.
    if (event.target !== form.elements.q) refilter();
  });
  form.elements.q.addEventListener("input", function () {
    clearTimeout(typing);
    typing = setTimeout(refilter, 200);
  });
  form.addEventListener("submit", function (event) { event.preventDefault(); refilter(); });
  form.addEventListener("reset", function () { setTimeout(refilter, 0); });
  prev.addEventListener("click", function () { state.page -= 1; draw(); writeHash(); });
  next.addEventListener("click", function () { state.page += 1; draw(); writeHash(); });
  window.addEventListener("hashchange", function () {
    if (readHash()) document.getElementById("questions-section").scrollIntoView();
  });
  // Links that set filters (heatmap tiles, checks, files) apply them even when the address
  // already holds the same filters, which would fire no hashchange.
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[href^='#']") : null;
    var href = link ? link.getAttribute("href") : "";
    if (href.indexOf("=") === -1) return;
    event.preventDefault();
    history.replaceState(null, "", href);
    readHash();
    document.getElementById("questions-section").scrollIntoView();
  });

  if (!readHash()) {
    state.visible = select();
    draw();
  }
})();
