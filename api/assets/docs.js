// asa API reference: renders the OpenAPI 3.1 document the server generates from its sitedefs.
// A small self-contained renderer (no library, no CDN). Every string from the document goes into the
// page as text, never as HTML; links are kept only for http(s), relative and fragment targets.
"use strict";

(function () {
  var root = document.getElementById("docs");
  if (!root) return;
  fetch(root.getAttribute("data-spec"), { headers: { Accept: "application/json" } })
    .then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    })
    .then(function (spec) { render(root, spec); })
    .catch(function (err) {
      clear(root);
      root.appendChild(el("p", { class: "error" }, "Could not load the API description: " + err.message));
    });

  // ---- DOM helpers ---------------------------------------------------------------------------
  function el(tag, attrs) {
    var n = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) { if (attrs[k] !== undefined && attrs[k] !== null) n.setAttribute(k, attrs[k]); });
    }
    for (var i = 2; i < arguments.length; i++) add(n, arguments[i]);
    return n;
  }
  function add(n, c) {
    if (c === undefined || c === null || c === false) return;
    if (Array.isArray(c)) { c.forEach(function (x) { add(n, x); }); return; }
    n.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  function clear(n) { while (n.firstChild) n.removeChild(n.firstChild); }
  function code(s) { return el("code", null, s); }
  function safeHref(h) { return /^(https?:\/\/|\/|#)/i.test(h) ? h : null; }

  // inline renders `code` and [text](url); everything else is text.
  function inline(s) {
    var out = [], re = /`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)/g, last = 0, m;
    while ((m = re.exec(s)) !== null) {
      if (m.index > last) out.push(s.slice(last, m.index));
      if (m[1] !== undefined) out.push(code(m[1]));
      else {
        var href = safeHref(m[3]);
        out.push(href ? el("a", { href: href }, inline(m[2])) : m[2]);
      }
      last = re.lastIndex;
    }
    if (last < s.length) out.push(s.slice(last));
    return out;
  }
  // markdown renders paragraphs and "- " lists.
  function markdown(s) {
    if (!s) return null;
    var frag = document.createDocumentFragment();
    s.split(/\n\s*\n/).forEach(function (block) {
      var lines = block.split("\n");
      var items = lines.filter(function (l) { return /^\s*- /.test(l); });
      if (items.length && items.length === lines.length - (/^\s*- /.test(lines[0]) ? 0 : 1)) {
        if (!/^\s*- /.test(lines[0])) frag.appendChild(el("p", null, inline(lines[0])));
        frag.appendChild(el("ul", null, items.map(function (l) { return el("li", null, inline(l.replace(/^\s*- /, ""))); })));
      } else {
        frag.appendChild(el("p", null, inline(block)));
      }
    });
    return frag;
  }

  // ---- schemas -------------------------------------------------------------------------------
  function resolve(spec, s) {
    if (s && s.$ref && s.$ref.indexOf("#/components/") === 0) {
      var parts = s.$ref.slice(2).split("/"), cur = spec;
      parts.forEach(function (p) { cur = cur && cur[p.replace(/~1/g, "/").replace(/~0/g, "~")]; });
      return cur || {};
    }
    return s || {};
  }
  function refName(s) { return s && s.$ref ? s.$ref.split("/").pop() : null; }

  function typeLabel(spec, s) {
    if (!s) return "any";
    if (s.$ref) return refName(s);
    var alts = s.oneOf || s.anyOf;
    if (alts) return alts.map(function (a) { return typeLabel(spec, a); }).join(" | ");
    if (s.allOf) return s.allOf.map(function (a) { return typeLabel(spec, a); }).filter(function (l) { return l && l !== "any"; }).join(" & ") || "any";
    var t = s.type;
    if (Array.isArray(t)) t = t.join(" | ");
    if (!t) t = s.const !== undefined ? JSON.stringify(s.const) : (s.enum ? "enum" : "any");
    if (s.type === "array" || (Array.isArray(s.type) && s.type.indexOf("array") >= 0)) {
      t = t.replace("array", "array of " + typeLabel(spec, s.items));
    }
    if (s.format) t += " (" + s.format + ")";
    return t;
  }

  // schemaTree renders an object's properties as a nested list; seen stops recursive schemas.
  function schemaTree(spec, s, seen, depth) {
    seen = seen || {};
    depth = depth || 0;
    var name = refName(s);
    if (name) {
      if (seen[name] || depth > 6) return el("div", { class: "schema muted" }, "(" + name + ", as above)");
      seen = Object.assign({}, seen);
      seen[name] = true;
    }
    var r = resolve(spec, s);
    if (r.allOf) {
      var box = el("div");
      r.allOf.forEach(function (a) { var t = schemaTree(spec, a, seen, depth); if (t) box.appendChild(t); });
      return box;
    }
    var alts = r.oneOf || r.anyOf;
    if (alts) {
      var nonNull = alts.filter(function (a) { return a.type !== "null"; });
      if (nonNull.length === 1) return schemaTree(spec, nonNull[0], seen, depth);
      return el("div", { class: "schema" }, alts.map(function (a) {
        return el("div", { class: "prop" }, el("span", { class: "type" }, "one of: " + typeLabel(spec, a)), schemaTree(spec, a, seen, depth + 1));
      }));
    }
    var isArray = r.type === "array" || (Array.isArray(r.type) && r.type.indexOf("array") >= 0);
    if (isArray && r.items) return schemaTree(spec, r.items, seen, depth + 1);
    if (!r.properties) {
      if (r.enum) return el("div", { class: "schema" }, "one of ", enumList(r.enum));
      return null;
    }
    var req = r.required || [];
    return el("div", { class: "schema" }, Object.keys(r.properties).map(function (k) {
      var p = r.properties[k], pr = resolve(spec, p);
      var sub = null;
      var isObj = pr.properties || (pr.items && (resolve(spec, pr.items).properties || pr.items.$ref)) || p.$ref || pr.anyOf || pr.oneOf;
      if (isObj) sub = schemaTree(spec, p, seen, depth + 1);
      var line = el("div", { class: "prop" },
        code(k), " ", el("span", { class: "type" }, typeLabel(spec, p)),
        req.indexOf(k) >= 0 && r.properties ? null : el("span", { class: "muted" }, " optional"),
        pr.enum && !pr.properties ? [" ", enumList(pr.enum)] : null,
        pr.description ? [" ", el("span", { class: "muted" }, inline(pr.description))] : null);
      if (sub) {
        var d = el("details", null, el("summary", null, line), sub);
        if (depth < 1) d.open = false;
        return d;
      }
      return line;
    }));
  }

  function enumList(values) {
    var shown = values.slice(0, 24).map(function (v) { return v === null ? "null" : String(v); });
    var s = shown.join(", ") + (values.length > shown.length ? ", … (" + values.length + ")" : "");
    return el("span", { class: "muted" }, "[" + s + "]");
  }

  // ---- operations ----------------------------------------------------------------------------
  function anchor(op, method, path) {
    return op["x-asa-endpoint"] || op.operationId || (method + path);
  }

  function curl(spec, method, path, op) {
    var base = (spec.servers && spec.servers[0] && spec.servers[0].url) || "";
    if (base === "/") base = "";
    var q = [];
    (op.parameters || []).forEach(function (p) {
      var ex = p.example !== undefined ? p.example : (p.schema && p.schema.examples ? p.schema.examples[0] : undefined);
      if (p.in === "query" && ex !== undefined) q.push(encodeURIComponent(p.name) + "=" + encodeURIComponent(String(ex)));
      if (p.in === "path") path = path.replace("{" + p.name + "}", p.schema && p.schema.enum ? p.schema.enum[0] : "…");
    });
    q.unshift("api_key=YOUR_KEY");
    var s = "curl ";
    if (method !== "get") s += "-X " + method.toUpperCase() + " -H 'Content-Type: application/json' ";
    s += "'" + base + path + "?" + q.join("&") + "'";
    if (op.requestBody) {
      var media = op.requestBody.content && op.requestBody.content["application/json"];
      var sch = media && resolve(spec, media.schema);
      if (sch && sch.example) s += " \\\n  -d '" + JSON.stringify(sch.example) + "'";
    }
    return s;
  }

  function paramTable(spec, params) {
    if (!params || !params.length) return null;
    return el("table", { class: "list params" },
      el("thead", null, el("tr", null, ["Parameter", "In", "Type", "Default", "Example", "Description"].map(function (h) { return el("th", null, h); }))),
      el("tbody", null, params.map(function (p) {
        var s = p.schema || {};
        var range = [];
        if (s.minimum !== undefined) range.push("≥ " + s.minimum);
        if (s.maximum !== undefined) range.push("≤ " + s.maximum);
        if (s.minLength !== undefined) range.push("length ≥ " + s.minLength);
        if (s.maxLength !== undefined) range.push("length ≤ " + s.maxLength);
        if (s.pattern) range.push("matches " + s.pattern);
        return el("tr", { "data-param": p.name },
          el("td", null, code(p.name), p.required ? el("span", { class: "req" }, " required") : null),
          el("td", null, p.in),
          el("td", null, el("span", { class: "type" }, typeLabel(spec, s)), s.enum ? [el("br"), enumList(s.enum)] : null, range.length ? [el("br"), el("span", { class: "muted" }, range.join(", "))] : null),
          el("td", null, s.default !== undefined ? code(JSON.stringify(s.default)) : ""),
          el("td", null, p.example !== undefined ? code(String(p.example)) : ""),
          el("td", null, markdown(p.description)));
      })));
  }

  function responses(spec, op) {
    var rs = op.responses || {};
    return el("div", { class: "responses" }, Object.keys(rs).map(function (status) {
      var r = resolve(spec, rs[status]);
      var media = r.content && r.content["application/json"];
      var hdrs = r.headers ? Object.keys(r.headers) : [];
      var body = el("div", null,
        markdown(r.description),
        hdrs.length ? el("p", { class: "muted" }, "Headers: ", hdrs.map(function (h, i) { return [i ? ", " : "", code(h)]; })) : null,
        media && media.schema ? schemaTree(spec, media.schema) : null);
      var summary = el("summary", null, el("span", { class: "status s" + status.charAt(0) }, status), " ",
        media && media.schema ? el("span", { class: "type" }, typeLabel(spec, media.schema)) : "");
      return el("details", { "data-status": status, open: status.charAt(0) === "2" ? "" : null }, summary, body);
    }));
  }

  function operation(spec, method, path, op) {
    var id = anchor(op, method, path);
    var body = null;
    if (op.requestBody) {
      var media = op.requestBody.content && op.requestBody.content["application/json"];
      body = el("div", null, el("h4", null, "Request body ", el("span", { class: "type" }, media ? typeLabel(spec, media.schema) : "")),
        media ? schemaTree(spec, media.schema) : null);
    }
    return el("section", { class: "op", id: id, "data-operation": op.operationId },
      el("h3", null, el("span", { class: "method " + method }, method), code(path),
        op["x-asa-extractor-version"] ? el("span", { class: "tag", title: "extractor version" }, op["x-asa-extractor-version"]) : null),
      op.summary ? el("p", null, el("b", null, op.summary)) : null,
      markdown(op.description),
      paramTable(spec, op.parameters),
      body,
      path.charAt(0) === "/" ? [el("h4", null, "Example"), el("pre", { class: "example" }, curl(spec, method, path, op))] : null,
      el("h4", null, "Responses"),
      responses(spec, op));
  }

  // ---- page ----------------------------------------------------------------------------------
  function render(root, spec) {
    clear(root);
    var groups = {}, order = [];
    (spec.tags || []).forEach(function (t) { groups[t.name] = { tag: t, ops: [] }; order.push(t.name); });
    Object.keys(spec.paths || {}).forEach(function (path) {
      var item = spec.paths[path];
      ["get", "post", "put", "delete", "patch"].forEach(function (m) {
        if (!item[m]) return;
        var tag = (item[m].tags && item[m].tags[0]) || "other";
        if (!groups[tag]) { groups[tag] = { tag: { name: tag }, ops: [] }; order.push(tag); }
        groups[tag].ops.push({ method: m, path: path, op: item[m] });
      });
    });

    var toc = el("nav", { class: "toc", "aria-label": "Operations" });
    var main = el("div", { class: "content" });
    var info = spec.info || {};
    main.appendChild(el("h1", null, info.title || "API", " ", el("span", { class: "muted", "data-testid": "api-version" }, "v" + info.version)));
    main.appendChild(el("p", { class: "muted" }, "OpenAPI " + spec.openapi + " · ", el("a", { href: "/api/v1/openapi.json" }, "openapi.json"),
      spec.externalDocs ? [" · ", el("a", { href: safeHref(spec.externalDocs.url) || "#" }, "API reference (errors, limits, billing)")] : null));
    add(main, markdown(info.description));
    var schemes = (spec.components && spec.components.securitySchemes) || {};
    main.appendChild(el("h2", { id: "auth" }, "Authentication"));
    main.appendChild(el("ul", null, Object.keys(schemes).map(function (k) {
      var s = schemes[k];
      return el("li", null, code(s.name), " in the ", s.in, ": ", inline(s.description || ""));
    })));
    toc.appendChild(el("a", { href: "#auth" }, "Authentication"));

    order.forEach(function (name) {
      var g = groups[name];
      if (!g.ops.length) return;
      toc.appendChild(el("h4", null, name));
      main.appendChild(el("h2", { id: "tag-" + name }, name));
      if (g.tag.description) main.appendChild(el("p", { class: "muted" }, inline(g.tag.description)));
      g.ops.forEach(function (o) {
        toc.appendChild(el("a", { href: "#" + anchor(o.op, o.method, o.path) }, o.method.toUpperCase() + " " + o.path.replace("/api/v1", "")));
        main.appendChild(operation(spec, o.method, o.path, o.op));
      });
    });
    var hooks = spec.webhooks || {};
    if (Object.keys(hooks).length) {
      toc.appendChild(el("h4", null, "webhooks"));
      main.appendChild(el("h2", { id: "webhooks" }, "Webhooks"));
      Object.keys(hooks).forEach(function (name) {
        var item = hooks[name];
        Object.keys(item).forEach(function (m) {
          toc.appendChild(el("a", { href: "#" + item[m].operationId }, name));
          main.appendChild(operation(spec, m, name, item[m]));
        });
      });
    }
    root.appendChild(toc);
    root.appendChild(main);
    root.setAttribute("data-rendered", "true");
    if (location.hash) {
      var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target) target.scrollIntoView();
    }
  }
})();
