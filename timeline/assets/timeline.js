(function () {
  "use strict";
  var body = document.body;
  window.addEventListener("error", function (e) { body.setAttribute("data-rendered", "error: " + e.message); });
  var D = JSON.parse(document.getElementById("data").textContent);
  var RAW = null;
  // The objects' JSON comes gzipped in base64 (see packBlobs).
  function unpack() {
    var bin = atob(JSON.parse(document.getElementById("raw").textContent)), u = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { u[i] = bin.charCodeAt(i); }
    var stream = new Blob([u]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(function (t) { RAW = JSON.parse(t); });
  }
  var NS = "http://www.w3.org/2000/svg";
  var LABELW = 230, ROWH = 18, LANEH = 22, TOP = 30, BIN = 4;
  // The axis: "time" (the marks' at: recorded offsets in a recording's
  // timeline, virtual time in a run's), "recorded" (a run's truth at its
  // recorded offsets) or "rv".
  var axis = "time", view = null, chart = document.getElementById("chart");
  var rows = [], total = 0;
  D.lanes.forEach(function (l) {
    rows.push({ head: l.name });
    (l.rows || []).forEach(function (r) {
      // Each mark gets its position in the page's data as its id, which
      // the drawing names (data-m) beside where it drew it (data-x).
      (r.marks || []).forEach(function (m) { m.id = total++; });
      rows.push({ name: r.name, marks: r.marks || [], untimed: !!r.untimed });
    });
  });

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (parent) { parent.appendChild(e); }
    return e;
  }
  function xval(m) {
    if (axis === "rv") { return m[3]; }
    if (axis === "recorded") { return m[7]; }
    return Math.max(m[2], 0);
  }
  // shown says whether the axis places m, of row r: the time axis no mark
  // of an untimed row, the others no mark without an RV or recorded offset.
  function shown(r, m) {
    if (axis === "rv") { return m[3] >= 0; }
    if (axis === "recorded") { return m[7] !== undefined && m[7] >= 0; }
    return !r.untimed;
  }
  function extent() {
    var lo = Infinity, hi = -Infinity;
    rows.forEach(function (r) {
      (r.marks || []).forEach(function (m) {
        if (!shown(r, m)) { return; }
        var v = xval(m); if (v < lo) { lo = v; } if (v > hi) { hi = v; }
      });
    });
    // The violation, judged at the end of a run, can lie far past the
    // marks; the view starts on the marks and points to it.
    if (lo === Infinity && D.violation && axis === "time") { lo = hi = D.violation.at; }
    if (lo === Infinity) { lo = 0; hi = 1; }
    if (hi === lo) { hi = lo + 1; }
    var pad = (hi - lo) * 0.02;
    return [lo - pad, hi + pad];
  }
  function fmt(v) {
    if (axis === "rv") { var i = Math.round(v); return D.rvs[i] !== undefined ? "rv " + D.rvs[i] : ""; }
    if (D.ordinal && axis === "time") { return "#" + Math.round(v * 1e6); }
    if (Math.abs(v) >= 1000) { return (v / 1000).toFixed(2) + "s"; }
    return v.toFixed(1) + "ms";
  }
  function shape(m, x, y, parent, untimed) {
    var kind = D.kinds[m[0]], cls = "m k-" + kind + " t-" + m[1], e;
    switch (kind) {
      case "event": e = el("circle", { cx: x, cy: y, r: 4 }); break;
      case "page": e = el("rect", { x: x - 4, y: y - 4, width: 8, height: 8 }); break;
      case "bookmark": e = el("path", { d: "M" + x + " " + (y - 5) + "l5 5l-5 5l-5-5z" }); break;
      case "error": e = el("path", { d: "M" + x + " " + (y - 6) + "l6 11h-12z" }); break;
      case "request": e = el("rect", { x: x - 1.5, y: y - 7, width: 3, height: 14 }); break;
      case "firing": e = el("path", { d: "M" + (x - 5) + " " + (y - 5) + "l10 10m0-10l-10 10", "stroke-width": 2.5, stroke: "#000" }); break;
      case "write": e = el("path", { d: "M" + (x - 5) + " " + (y - 5) + "h10l-5 10z" }); break;
      case "end": e = el("path", { d: "M" + (x - 4) + " " + (y - 7) + "h4v14h-4", fill: "none", "stroke-width": 2 }); break;
      default: e = el("rect", { x: x - 3, y: y - 6, width: 6, height: 12, rx: 3 });
    }
    e.setAttribute("class", cls);
    if (m.id !== undefined) { e.setAttribute("data-m", m.id); e.setAttribute("data-x", x.toFixed(2)); }
    el("title", {}, e).textContent = m[5];
    e.addEventListener("click", function (ev) { ev.stopPropagation(); show(m, untimed); });
    parent.appendChild(e);
  }
  function dur(v) { return Math.abs(v) >= 1000 ? (v / 1000).toFixed(3) + "s" : v.toFixed(3) + "ms"; }
  function show(m, untimed) {
    var s = D.kinds[m[0]] + " " + m[1] + "\n" + m[5];
    if (untimed) { s += "\nat: no time on the run's clock"; }
    else if (D.ordinal) { s += "\nat: #" + Math.round(Math.max(m[2], 0) * 1e6); }
    else { s += "\nat: " + dur(Math.max(m[2], 0)); }
    if (m[7] !== undefined && m[7] >= 0) { s += "\nrecorded at: " + dur(m[7]); }
    if (m[3] >= 0) { s += "\nrv: " + D.rvs[m[3]]; }
    if (m[4]) { s += "\nkey: " + m[4]; }
    if (m[6] >= 0 && RAW === null) { s += "\n\n(the JSON is still unpacking)"; }
    if (m[6] >= 0 && RAW !== null) {
      var j = RAW[m[6]];
      try { j = JSON.stringify(JSON.parse(j), null, 2); } catch (e) { /* shown as recorded */ }
      s += "\n\n" + j;
    }
    document.getElementById("detail").textContent = s;
  }
  function render() {
    var W = Math.max(640, chart.clientWidth || 1200), plotW = W - LABELW - 10;
    var H = TOP + rows.reduce(function (h, r) { return h + (r.head ? LANEH : ROWH); }, 0) + 6;
    var svg = el("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H });
    var span = view[1] - view[0];
    function sx(v) { return LABELW + (v - view[0]) / span * plotW; }
    for (var i = 0; i <= 8; i++) {
      var v = view[0] + span * i / 8, x = sx(v);
      el("line", { x1: x, x2: x, y1: TOP - 6, y2: H, "class": "tick" }, svg);
      el("text", { x: x + 2, y: 12 }, svg).textContent = fmt(v);
    }
    var y = TOP;
    rows.forEach(function (r) {
      if (r.head) {
        el("text", { x: 2, y: y + 15, "class": "lane" }, svg).textContent = r.head;
        y += LANEH; return;
      }
      el("rect", { x: LABELW, y: y + 1, width: plotW, height: ROWH - 2, "class": "rowbg" }, svg);
      var label = r.name + " (" + r.marks.length + ")";
      el("text", { x: 10, y: y + 13 }, svg).textContent = label.length > 36 ? label.slice(0, 35) + "…" : label;
      var bins = {}, order = [];
      r.marks.forEach(function (m) {
        if (!shown(r, m)) { return; }
        var x = sx(xval(m));
        if (x < LABELW - 4 || x > W) { return; }
        var b = Math.floor(x / BIN);
        if (!bins[b]) { bins[b] = []; order.push(b); }
        bins[b].push(m);
      });
      var cy = y + ROWH / 2;
      order.forEach(function (b) {
        var ms = bins[b];
        if (ms.length === 1) { shape(ms[0], sx(xval(ms[0])), cy, svg, r.untimed); return; }
        var counts = {}, top = ms[0], topN = 0;
        ms.forEach(function (m) {
          var k = m[1] || D.kinds[m[0]]; counts[k] = (counts[k] || 0) + 1;
          if (counts[k] > topN) { topN = counts[k]; top = m; }
        });
        // A cluster takes the colour of its commonest mark, its height
        // grows with the log of its size.
        var h = Math.min(ROWH - 2, 6 + 2 * Math.log(ms.length));
        var a = el("rect", { x: b * BIN, y: y + (ROWH - h) / 2, width: BIN - 0.5, height: h,
          "class": "agg k-" + D.kinds[top[0]] + " t-" + top[1],
          "data-m": ms.map(function (m) { return m.id; }).join(" "),
          "data-x": ms.map(function (m) { return sx(xval(m)).toFixed(2); }).join(" ") }, svg);
        el("title", {}, a).textContent = ms.length + " marks: " + Object.keys(counts).map(function (k) { return counts[k] + " " + k; }).join(", ") + " (click to zoom in)";
        var lo = xval(ms[0]), hi = lo;
        ms.forEach(function (m) { lo = Math.min(lo, xval(m)); hi = Math.max(hi, xval(m)); });
        a.addEventListener("click", function (ev) {
          ev.stopPropagation();
          var pad = Math.max((hi - lo) * 0.5, span / 1000);
          view = [lo - pad, hi + pad]; draw();
        });
      });
      y += ROWH;
    });
    if (D.violation && axis === "time") {
      var vx = sx(D.violation.at), vt = "violation at " + fmt(D.violation.at);
      if (vx > W) {
        el("text", { x: W - 4, y: TOP - 1, fill: "#c00", "text-anchor": "end" }, svg).textContent = vt + " →";
      } else if (vx >= LABELW) {
        el("line", { x1: vx, x2: vx, y1: TOP - 6, y2: H, "class": "viol" }, svg);
        el("text", { x: vx - 3, y: TOP - 1, fill: "#c00", "text-anchor": "end" }, svg).textContent = vt;
      }
    }
    return svg;
  }
  function draw() {
    chart.textContent = "";
    chart.setAttribute("data-axis", axis);
    chart.appendChild(render());
  }
  function zoom(f, at) {
    var c = at === undefined ? (view[0] + view[1]) / 2 : at;
    view = [c - (c - view[0]) * f, c + (view[1] - c) * f]; draw();
  }
  function valueAt(clientX) {
    var r = chart.getBoundingClientRect(), W = Math.max(640, chart.clientWidth || 1200);
    return view[0] + (clientX - r.left - LABELW) / (W - LABELW - 10) * (view[1] - view[0]);
  }
  chart.addEventListener("wheel", function (e) { e.preventDefault(); zoom(e.deltaY < 0 ? 0.8 : 1.25, valueAt(e.clientX)); }, { passive: false });
  var drag = null;
  chart.addEventListener("mousedown", function (e) { drag = { x: e.clientX, view: view.slice() }; });
  window.addEventListener("mouseup", function () { drag = null; });
  window.addEventListener("mousemove", function (e) {
    if (!drag) { return; }
    var W = Math.max(640, chart.clientWidth || 1200), d = (e.clientX - drag.x) / (W - LABELW - 10) * (drag.view[1] - drag.view[0]);
    view = [drag.view[0] - d, drag.view[1] - d]; draw();
  });
  document.getElementById("zin").onclick = function () { zoom(0.5); };
  document.getElementById("zout").onclick = function () { zoom(2); };
  document.getElementById("reset").onclick = function () { view = extent(); draw(); };
  var rvButton = document.getElementById("axis"), recButton = document.getElementById("recaxis");
  function setAxis(a) {
    axis = a;
    rvButton.textContent = axis === "rv" ? "time axis" : "RV axis";
    recButton.textContent = axis === "recorded" ? "time axis" : "recorded offsets";
    view = extent(); draw();
  }
  rvButton.onclick = function () { setAxis(axis === "rv" ? "time" : "rv"); };
  recButton.onclick = function () { setAxis(axis === "recorded" ? "time" : "recorded"); };
  recButton.hidden = !D.recorded;
  window.addEventListener("resize", draw);
  var legend = document.getElementById("legend"), seen = {};
  rows.forEach(function (r) { (r.marks || []).forEach(function (m) { seen[m[0] + " " + m[1]] = m; }); });
  Object.keys(seen).sort().forEach(function (k) {
    var m = seen[k], s = document.createElement("span"), svg = el("svg", { width: 14, height: 16 });
    shape([m[0], m[1], 0, -1, "", k, -1], 7, 8, svg);
    s.appendChild(svg);
    s.appendChild(document.createTextNode(" " + D.kinds[m[0]] + " " + m[1]));
    legend.appendChild(s);
  });
  if (D.violation) {
    var v = document.getElementById("violation");
    v.hidden = false;
    v.textContent = "violation at " + fmt(D.violation.at) + "\n" + (D.violation.broken || []).join("\n") +
      ((D.violation.diff || []).length ? "\n\nfinal state against the truth's:\n" + D.violation.diff.join("\n") : "");
  }
  view = extent();
  draw();
  body.setAttribute("data-marks", String(total));
  unpack().then(function () {
    if (body.getAttribute("data-rendered") === "no") { body.setAttribute("data-rendered", "ok"); }
  }, function (e) { body.setAttribute("data-rendered", "error: " + e); });
})();
