"""The parsel/lxml side of `make bench-compare` (cmd/benchcompare drives it).

Reads one JSON request a line on stdin and answers one JSON line on stdout:
  {"op": "load", "id": ID, "page": PATH, "checks": [XPATH...], "fields": [FIELD...]}  -> {"ok": true}
  {"op": "run", "id": ID, "n": N}   -> {"ms": [N], "parse_ms": [N], "values": K, "refused": [XPATH...]}
(parse_ms: the decoding and parsing part of each run).
A run decodes the page's bytes, parses them with parsel (lxml's HTML parser), evaluates every check
XPath (first node) and every field as asa's engine does: a field tries its XPaths in order until one
gives a value; a value is the first node's text (every node's with "all"); a list's fields are
evaluated from each node it selects, an object's from the first. Text is an element's string value
or a text node's or attribute's value, as asa reads it.
"""
import json
import sys
import time

from parsel import Selector

pages = {}
bad = set()


def text(sel):
    root = sel.root
    if isinstance(root, str):
        return root
    if isinstance(root, (bool, float, int)):
        return str(root)
    return sel.xpath("string(.)").get() or ""


def xpath(ctx, xp):
    # An XPath lxml does not take (an antchfx-only function) counts as selecting nothing; the
    # driver reports how many of a page's XPaths that was.
    try:
        return ctx.xpath(xp)
    except ValueError:
        bad.add(xp)
        return []


def value(ctx, xp, all_):
    got = xpath(ctx, xp)
    if not got:
        return None
    if all_:
        return [t for t in (text(s) for s in got) if t]
    t = text(got[0])
    return t or None


def fields(ctx, fs, out):
    for f in fs or []:
        if f["kind"] == "value":
            for xp in f.get("xpaths") or []:
                v = value(ctx, xp, f["all"])
                if v:
                    out.append(v)
                    break
            continue
        nodes = [ctx]
        for xp in f.get("xpaths") or []:
            nodes = xpath(ctx, xp)
            if nodes:
                break
        if f["kind"] == "object":
            nodes = nodes[:1]
        for n in nodes:
            fields(n, f.get("fields") or [], out)


def run_once(p):
    t0 = time.perf_counter()
    sel = Selector(text=p["body"].decode("utf-8", "replace"), type="html")
    parsed = time.perf_counter()
    out = []
    for xp in p["checks"] or []:
        if xpath(sel, xp):
            out.append(True)
    fields(sel, p["fields"], out)
    return (time.perf_counter() - t0) * 1000, (parsed - t0) * 1000, len(out)


def main():
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "load":
            with open(req["page"], "rb") as f:
                body = f.read()
            pages[req["id"]] = {"body": body, "checks": req["checks"], "fields": req["fields"]}
            resp = {"ok": True}
        else:
            p = pages[req["id"]]
            bad.clear()
            ms, parse_ms, k = [], [], 0
            for _ in range(req["n"]):
                t, tp, k = run_once(p)
                ms.append(t)
                parse_ms.append(tp)
            resp = {"ms": ms, "parse_ms": parse_ms, "values": k, "refused": sorted(bad)}
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
