// Small DOM helpers. Every piece of data reaches the page as text nodes or
// attribute values, never as HTML.

/**
 * h("a", {href: "#", class: "x", dataset: {k: "v"}, onclick: fn}, "text", node, [more])
 * builds an element. null, undefined and false children are skipped; arrays
 * are flattened.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "dataset") Object.assign(el.dataset, v);
      else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
      else if (v === true) el.setAttribute(k, "");
      else el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

/** Replaces the children of el. */
export function replace(el, ...children) {
  // A text box being typed in that the new content has again (by id) keeps
  // what was typed, its caret and the focus: a re-render that lands while
  // someone types (an answer arriving) loses no keys.
  const typing = document.activeElement;
  const kept = typing && typing.id && el.contains(typing) && "value" in typing && typing.type !== "button" && typing.type !== "submit"
    ? {id: typing.id, value: typing.value, start: typing.selectionStart, end: typing.selectionEnd} : null;
  el.replaceChildren();
  append(el, children);
  if (kept) {
    const again = document.getElementById(kept.id);
    if (again && again !== typing && "value" in again) {
      again.value = kept.value;
      again.focus();
      try { again.setSelectionRange(kept.start, kept.end); } catch { /* not a text box */ }
    }
  }
}

/** Entity type → label shown on badges and facets. */
export const typeLabels = {
  metalake: "metalake",
  catalog: "catalog",
  schema: "schema",
  table: "table",
  semantic_model: "semantic model",
  metric: "metric",
};

export function typeLabel(t) {
  return typeLabels[t] || t;
}

/** A coloured badge naming an entity type. */
export function badge(type) {
  return h("span", {class: `badge badge-${/^[a-z_]+$/.test(type) ? type : "other"}`}, typeLabel(type));
}

/** Formats a count: 1234 → "1,234". */
export function count(n) {
  return Number(n || 0).toLocaleString("en-US");
}

/** "1 result" / "2 results". */
export function plural(n, one, many) {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** A definition list of a string map, keys sorted; null when the map is empty. */
export function propertyList(props, {skip = [], limit = Infinity, cls = "props"} = {}) {
  const keys = Object.keys(props || {}).filter((k) => !skip.includes(k)).sort();
  if (keys.length === 0) return null;
  const shown = keys.slice(0, limit);
  const dl = h("dl", {class: cls});
  for (const k of shown) {
    const v = String(props[k]);
    dl.append(h("div", {class: "prop"}, h("dt", null, k), h("dd", {title: v.length > 80 ? v : null}, v)));
  }
  if (keys.length > shown.length) {
    dl.append(h("div", {class: "prop more"}, h("dt", null, `+${keys.length - shown.length} more`)));
  }
  return dl;
}

/** Formats an RFC 3339 time in the browser's locale; the raw text otherwise. */
export function time(s) {
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? String(s) : d.toLocaleString();
}
