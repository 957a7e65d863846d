"use strict";
// Node tables: rows are drawn from the JSON block of each table (names arrive already
// quoted and are only ever set as textContent), a page at a time, with search and sort,
// so a 5,000-node case stays one short table.
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const PAGE = 25;

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function shape(tag, attributes) {
    const node = document.createElementNS(SVG, tag);
    for (const key of Object.keys(attributes)) node.setAttribute(key, String(attributes[key]));
    return node;
  }

  // A score with the decimals of its table (data.digits, as the text report shows it).
  function number(value, digits) {
    if (value === null || value === undefined) return "";
    return Number.isInteger(value) ? String(value) : value.toFixed(digits || 2);
  }

  function percent(fraction) {
    return fraction === null ? "n/a" : (fraction * 100).toFixed(1) + "%";
  }

  // One stacked bar: what every node scores alike (data.common, per plugin) drawn once
  // in grey at the start, then each plugin's positive part above that in its colour,
  // scaled so that the node with the most above the common part fills the bar. The bar
  // is as wide with a grey part as without, so the table is as wide as before.
  function scoreBar(values, data) {
    const greyed = data.commonTotal > 0 ? 36 : 0;
    const width = 220 - greyed;
    const bar = shape("svg", { width: 220, height: 14, role: "img" });
    const told = [];
    if (greyed) {
      bar.appendChild(shape("rect", { x: 0, y: 1, width: greyed - 2, height: 12, fill: "#d0d7de" }));
      told.push("common to every node " + number(data.commonTotal, data.digits));
    }
    let x = greyed;
    values.forEach(function (value, index) {
      if (value === null) return;
      told.push(data.plugins[index] + " " + number(value, data.digits));
      const above = Math.max(0, value) - data.common[index];
      if (above <= 0 || data.scale <= 0) return;
      const w = (above / data.scale) * width;
      bar.appendChild(shape("rect", { x: x, y: 1, width: w, height: 12, fill: data.colours[index] }));
      x += w;
    });
    const title = shape("title", {});
    title.textContent = told.join(", ") || "no plugin score";
    bar.appendChild(title);
    return bar;
  }

  // Utilisation of one resource: before in grey, what the case added in amber.
  function useBar(before, after) {
    const width = 90;
    const bar = shape("svg", { width: width, height: 12, role: "img" });
    bar.appendChild(shape("rect", { x: 0, y: 1, width: width, height: 10, fill: "#eaeef2" }));
    const b = Math.min(1, before || 0) * width;
    const a = Math.min(1, Math.max(after || 0, before || 0)) * width;
    bar.appendChild(shape("rect", { x: 0, y: 1, width: b, height: 10, fill: "#8c959f" }));
    if (a > b) bar.appendChild(shape("rect", { x: b, y: 1, width: a - b, height: 10, fill: "#d4a72c" }));
    const title = shape("title", {});
    title.textContent = percent(before) + " before, " + percent(after) + " after";
    bar.appendChild(title);
    return bar;
  }

  function row(node, data) {
    const tr = element("tr");
    tr.appendChild(element("td", "num", node.r === null ? "-" : String(node.r)));
    tr.appendChild(element("td", "name", node.n));
    if (node.why !== null) {
      const why = element("td", "muted", "filtered: " + node.why);
      why.colSpan = 2;
      tr.appendChild(why);
    } else if (data.plugins.length) {
      tr.appendChild(element("td", "num", number(node.t, data.digits)));
      const cell = element("td");
      cell.appendChild(scoreBar(node.p, data));
      tr.appendChild(cell);
    }
    data.resources.forEach(function (_, index) {
      const cell = element("td");
      if (node.b[index] === null && node.a[index] === null) {
        cell.textContent = "-";
      } else {
        cell.appendChild(useBar(node.b[index], node.a[index]));
        cell.appendChild(element("span", "muted", " " + percent(node.a[index])));
      }
      tr.appendChild(cell);
    });
    if (data.placed) tr.appendChild(element("td", "num placed", node.k ? String(node.k) : ""));
    return tr;
  }

  function order(key) {
    if (key === "name") return function (a, b) { return a.n < b.n ? -1 : a.n > b.n ? 1 : 0; };
    if (key === "placed") return function (a, b) { return (b.k || 0) - (a.k || 0); };
    if (key.charAt(0) === "a") {
      const index = Number(key.slice(1));
      return function (a, b) { return (b.a[index] || 0) - (a.a[index] || 0); };
    }
    return function (a, b) {
      return (a.r === null ? Infinity : a.r) - (b.r === null ? Infinity : b.r);
    };
  }

  function setUp(table) {
    const data = JSON.parse(table.querySelector("script[type='application/json']").textContent);
    const body = table.querySelector("tbody");
    const search = table.querySelector("input[type='search']");
    const sort = table.querySelector("select");
    const more = table.querySelector("button");
    const count = table.querySelector(".count");
    let limit = PAGE;

    function draw() {
      const wanted = search.value.toLowerCase();
      const shown = data.nodes.filter(function (node) {
        return node.n.toLowerCase().indexOf(wanted) !== -1;
      });
      shown.sort(order(sort.value));
      body.replaceChildren.apply(body, shown.slice(0, limit).map(function (node) {
        return row(node, data);
      }));
      count.textContent = Math.min(limit, shown.length) + " of " + shown.length + " nodes shown";
      more.hidden = shown.length <= limit;
    }

    search.addEventListener("input", function () { limit = PAGE; draw(); });
    sort.addEventListener("change", draw);
    more.addEventListener("click", function () { limit += 100; draw(); });
    draw();
  }

  document.querySelectorAll(".nodes").forEach(setUp);
})();
