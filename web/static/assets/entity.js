// An entity's own page: a catalog or schema with its children (paginated),
// a table with its columns, statistics, owner, properties and tags, a
// semantic model with its datasets, relationships and metrics, a metric with
// its definition, inputs, filter, window and model. Everything on it is read
// from the API for the entity itself, so the page is the same whichever way
// the user arrived (a link, a suggestion, a shared URL). Owners and holders
// of the alter privilege edit the comment, tags and owner here.

import {ApiError, apiPath, get, send} from "./api.js";
import {badge, count, h, propertyList, time} from "./dom.js";

const LIST_PAGE = 50;

/** The REST path segments of an entity's object routes: [type, fullName]. */
function objectRef(ent) {
  return [ent.type, ent.path.join(".")];
}

/**
 * Loads and renders the entity {type, path} of metalake m. ctx:
 *   signal        aborts the requests
 *   link(key, content, attrs)  an element that opens another entity
 *   authRequired  whether the server asks for credentials
 *   reload()      shows the entity again (after an edit)
 * Returns the nodes to show; throws ApiError.
 */
export async function loadEntity(m, ent, ctx) {
  const [c, s, x, y] = ent.path;
  const base = ["metalakes", m, "catalogs", c];
  const opts = {signal: ctx.signal};
  const metadata = (type, full) => get(apiPath("metalakes", m, "objects", type, full, "metadata"), {}, opts)
    .then((b) => b.metadata, (e) => (e.name === "AbortError" ? Promise.reject(e) : null));
  switch (ent.type) {
    case "catalog": {
      const [{catalog}, md] = await Promise.all([get(apiPath(...base), {}, opts), metadata(...objectRef(ent))]);
      return page(m, ent, ctx, {
        title: catalog.name, comment: catalog.comment, md, audit: catalog.audit,
        facts: [["type", catalog.type], ["provider", catalog.provider]],
        body: [listing(m, ctx, "Schemas", {type: "schema", catalog: c}, "No schemas.")],
        properties: catalog.properties, editComment: {path: apiPath(...base)},
      });
    }
    case "schema": {
      const [{schema}, md] = await Promise.all([get(apiPath(...base, "schemas", s), {}, opts), metadata(...objectRef(ent))]);
      const within = {catalog: c, schema: s};
      return page(m, ent, ctx, {
        title: schema.name, comment: schema.comment, md, audit: schema.audit,
        body: [
          listing(m, ctx, "Tables", {type: "table", ...within}, "No tables."),
          listing(m, ctx, "Semantic models", {type: "semantic_model", ...within}, "No semantic models."),
          listing(m, ctx, "Metrics", {type: "metric", ...within}, "No metrics.", {parent: true}),
        ],
        properties: schema.properties,
      });
    }
    case "table": {
      const tablePath = apiPath(...base, "schemas", s, "tables", x);
      const [{table}, md, stats] = await Promise.all([
        get(tablePath, {}, opts), metadata(...objectRef(ent)),
        get(apiPath("metalakes", m, "objects", ...objectRef(ent), "statistics"), {}, opts).then((b) => b.statistics || [], () => null),
      ]);
      const cols = table.columns || [];
      const leaves = countLeaves(cols);
      const grid = cols.length ? columnTable(cols, ctx.hits || new Map()) : null;
      const allTags = grid ? columnTags(m, ent, grid, ctx) : null;
      return page(m, ent, ctx, {
        title: table.name, comment: table.comment, md, audit: table.audit,
        body: [
          section(`Columns (${count(cols.length)}${leaves !== cols.length ? `, ${count(leaves)} leaf fields` : ""})`,
            grid ? [grid, allTags] : h("p", {class: "muted"}, "No columns."), "columns"),
          statistics(stats),
        ],
        properties: table.properties, editComment: {path: tablePath},
      });
    }
    case "semantic_model": {
      const modelPath = apiPath(...base, "schemas", s, "semantic-models", x);
      const [{semanticModel}, md] = await Promise.all([get(modelPath, {}, opts), metadata(...objectRef(ent))]);
      return page(m, ent, ctx, {
        title: semanticModel.name, comment: semanticModel.comment, md, audit: semanticModel.audit,
        facts: [["version", semanticModel.version]],
        body: modelBody(ent, semanticModel, ctx),
        properties: semanticModel.properties, editComment: {path: modelPath},
      });
    }
    case "metric": {
      const [{semanticModel}, md] = await Promise.all([
        get(apiPath(...base, "schemas", s, "semantic-models", x), {}, opts),
        metadata("semantic_model", [c, s, x].join(".")),
      ]);
      const metric = (semanticModel.definition?.metrics || []).find((mt) => mt.name === y);
      if (!metric) throw new ApiError(404, 1003, "NoSuchMetricException", `Metric ${y} is no longer in semantic model ${x}.`);
      const dialects = (metric.expression?.dialects || []).map((d) => d.dialect);
      return page(m, ent, ctx, {
        title: metric.name, comment: metric.description, audit: semanticModel.audit,
        // A metric has its model's owner; its system tags are its dialects.
        md: {system: {properties: {owner: md?.system?.properties?.owner}, tags: dialects}, user: {tags: [], properties: {}}},
        facts: [["datatype", metric.datatype]],
        body: metricBody(ent, metric, ctx),
        readOnly: true,
      });
    }
    default:
      throw new Error(`Unknown entity type ${ent.type}.`);
  }
}

// ---- the page's frame -------------------------------------------------------

function section(title, body, id) {
  const content = [body].flat().filter(Boolean);
  if (content.length === 0) return null;
  return h("section", {class: "detail-section", dataset: id ? {section: id} : null}, h("h2", null, title), content);
}

function page(m, ent, ctx, p) {
  const sys = p.md?.system || {};
  const user = p.md?.user || {};
  const owner = sys.properties?.owner || "";
  const head = h("header", {class: "entity-header"},
    h("div", {class: "detail-kicker"}, badge(ent.type)),
    h("h1", {id: "detail-title", tabindex: "-1"}, p.title),
    h("div", {class: "entity-comment"}, p.comment ? h("p", {class: "comment"}, p.comment) : h("p", {class: "muted comment-empty"}, "No comment.")),
    h("dl", {class: "facts"},
      h("div", {class: "fact owner"}, h("dt", null, "Owner"), h("dd", {class: "owner-name"}, owner || "—")),
      (p.facts || []).filter(([, v]) => v !== undefined && v !== null && v !== "").map(([k, v]) =>
        h("div", {class: "fact"}, h("dt", null, k), h("dd", null, String(v))))),
    h("div", {class: "entity-tags"}, tagChips(ent.type, user.tags || [], sys.tags || [])),
    audit(p.audit));
  const out = [head, ...p.body.filter(Boolean),
    p.properties !== undefined ? section("Properties", propertyList(p.properties, {cls: "props props-full"}) || h("p", {class: "muted"}, "No properties.")) : null];
  // The edit controls appear once the API says the user may alter it;
  // data-editable says what was decided ("pending", "yes", "no").
  head.dataset.editable = p.readOnly ? "no" : "pending";
  if (!p.readOnly) {
    mayEdit(m, ent, ctx).then((can) => {
      if (ctx.signal.aborted) return;
      if (can) addEditors(m, ent, ctx, head, {comment: p.comment || "", tags: user.tags || [], ownerName: owner, alter: can.alter, changeOwner: can.owner, editComment: p.editComment});
      head.dataset.editable = can ? "yes" : "no";
    }, () => {
      if (!ctx.signal.aborted) head.dataset.editable = "no";
    });
  }
  return out;
}

function tagChips(type, user, system) {
  if (user.length + system.length === 0) return h("p", {class: "muted small tags-empty"}, "No tags.");
  return h("div", {class: "chips"}, user.map((t) => h("span", {class: "chip tag"}, t)), system.map((t) => systemTag(type, t)));
}

function audit(a) {
  if (!a || !a.creator) return null;
  const parts = [`Created by ${a.creator}`, a.createTime ? ` on ${time(a.createTime)}` : ""];
  if (a.lastModifier && a.lastModifiedTime && a.lastModifiedTime !== a.createTime) {
    parts.push(` · modified by ${a.lastModifier} on ${time(a.lastModifiedTime)}`);
  }
  return h("p", {class: "audit muted small"}, parts.join(""));
}

/** The labels of system tags, by entity type (SPEC §4.2): what they are. */
const SYSTEM_TAG_LABELS = {metric: "dialect", semantic_model: "dataset"};

/** A system tag chip, labelled as what it is (a dialect, a dataset). */
export function systemTag(type, t) {
  const label = SYSTEM_TAG_LABELS[type] || "system";
  return h("span", {class: "chip systag", title: `system tag: ${label} ${t}`}, h("span", {class: "k"}, label), h("span", {class: "v"}, t));
}

/** Breadcrumb links: Home › metalake › catalog › schema › … › the entity. */
export function crumbs(m, ent, link, homeLink) {
  const items = [homeLink("Home", ""), m ? homeLink(m, m) : null];
  if (ent) {
    const [c, s, x] = ent.path;
    const keys = [`catalog:${c}`, `schema:${c}.${s}`, `semantic_model:${c}.${s}.${x}`];
    ent.path.slice(0, -1).forEach((name, i) => items.push(link(keys[i], name)));
    items.push(h("span", {"aria-current": "page"}, ent.path[ent.path.length - 1]));
  }
  return h("ol", null, items.filter(Boolean).map((it) => h("li", null, it)));
}

// ---- listings of children (paginated through search, sorted by name) ------

/**
 * A section listing the entities of params (type, catalog, schema) sorted by
 * name, a page at a time: search answers it from its columns, fast at any
 * size, and shows only what the user may see.
 */
export function listing(m, ctx, title, params, empty, {parent = false, id} = {}) {
  const list = h("ul", {class: "listing", "aria-label": title});
  const more = h("button", {type: "button", class: "secondary more-children", hidden: true}, "Load more");
  const heading = h("h2", null, title);
  const sec = h("section", {class: "detail-section listing-section", dataset: {listing: id || params.type}}, heading, list, more);
  let cursor = "";
  let shown = 0;
  const load = async () => {
    more.disabled = true;
    let body;
    try {
      body = await get(apiPath("metalakes", m, "search"), {query: "*", sort: "name", limit: LIST_PAGE, ...params, cursor}, {signal: ctx.signal});
    } catch (e) {
      if (e.name !== "AbortError") list.append(h("li", {class: "error"}, e.message));
      return;
    }
    const first = list.children.length;
    for (const r of body.results || []) {
      const e = r.entity;
      const key = `${e.type}:${[...e.namespace.slice(1), e.name].join(".")}`;
      const sys = r.metadata?.system?.properties || {};
      const desc = sys.comment || sys.description || "";
      list.append(h("li", {class: "child", dataset: {key}},
        ctx.link(key, [parent ? h("span", {class: "ns"}, `${e.namespace[e.namespace.length - 1]}.`) : null, h("span", {class: "name"}, e.name)], {class: "child-link"}),
        desc ? h("span", {class: "muted small child-comment", title: desc.length > 120 ? desc : null}, desc) : null));
    }
    shown += (body.results || []).length;
    const total = body.total || 0;
    heading.textContent = `${title} (${count(total)})`;
    if (total === 0) list.append(h("li", {class: "muted"}, empty));
    cursor = body.cursor || "";
    more.hidden = !cursor;
    more.disabled = false;
    more.textContent = `Load more (${count(Math.max(total - shown, 0))} left)`;
    if (first > 0) list.children[first]?.querySelector("a")?.focus();
  };
  more.addEventListener("click", load);
  load();
  return sec;
}

// ---- tables ---------------------------------------------------------------

/** A short label of a type: "integer", "struct", "list<string>", "map<string, integer>". */
function typeText(t) {
  if (t === null || t === undefined) return "?";
  if (typeof t === "string") return t;
  switch (t.type) {
    case "list":
      return isNested(t.elementType) ? "list" : `list<${typeText(t.elementType)}>`;
    case "map":
      return isNested(t.keyType) || isNested(t.valueType) ? "map" : `map<${typeText(t.keyType)}, ${typeText(t.valueType)}>`;
    case "union":
      return (t.types || []).some(isNested) ? "union" : `union<${(t.types || []).map(typeText).join(", ")}>`;
    default:
      return String(t.type || "?");
  }
}

function isNested(t) {
  return t !== null && typeof t === "object";
}

/** The child rows of a nested type: [{name, type, nullable, comment, synthetic}]. */
function childrenOf(t) {
  if (!isNested(t)) return [];
  switch (t.type) {
    case "struct":
      return (t.fields || []).map((f) => ({name: f.name, type: f.type, nullable: f.nullable, comment: f.comment}));
    case "list":
      return isNested(t.elementType) ? [{name: "element", type: t.elementType, synthetic: true}] : [];
    case "map": {
      if (!isNested(t.keyType) && !isNested(t.valueType)) return [];
      return [{name: "key", type: t.keyType, synthetic: true}, {name: "value", type: t.valueType, synthetic: true}];
    }
    case "union":
      return (t.types || []).some(isNested) ? (t.types || []).map((u, i) => ({name: `branch ${i}`, type: u, synthetic: true})) : [];
    default:
      return [];
  }
}

function countLeaves(fields) {
  let n = 0;
  for (const f of fields) {
    const kids = childrenOf(f.type);
    n += kids.length ? countLeaves(kids) : 1;
  }
  return n;
}

/**
 * The columns as a table: name (indented by depth), type, nullability and
 * comment. hits maps a matched path (lower-cased) to what matched ("name" or
 * "comment"), from the search the user came from.
 */
function columnTable(cols, hits) {
  const rows = [];
  const walk = (fields, prefix, depth) => {
    for (const f of fields) {
      const path = f.synthetic ? prefix : prefix ? `${prefix}.${f.name}` : f.name;
      const hit = !f.synthetic && hits.get(path.toLowerCase());
      rows.push(h("tr", {class: hit ? "hit" : null, dataset: depth === 0 ? {path, top: "1"} : {path}},
        h("th", {scope: "row", class: "col-name", style: null},
          h("span", {class: `indent d${Math.min(depth, 6)}`}),
          h("span", {class: f.synthetic ? "field-name synthetic" : "field-name"}, f.name),
          hit ? h("span", {class: "field-flag hit-flag"}, `matched ${hit}`) : null),
        h("td", {class: "field-type"}, typeText(f.type)),
        h("td", null, f.nullable === false ? "not null" : ""),
        h("td", {class: "field-comment"}, f.comment || ""),
        h("td", {class: "col-tags"})));
      const kids = childrenOf(f.type);
      if (kids.length) walk(kids, path, depth + 1);
    }
  };
  walk(cols, "", 0);
  return h("table", {class: "grid columns-table"},
    h("caption", {class: "visually-hidden"}, "Columns"),
    h("thead", null, h("tr", null, h("th", {scope: "col"}, "Column"), h("th", {scope: "col"}, "Type"),
      h("th", {scope: "col"}, "Nullable"), h("th", {scope: "col"}, "Comment"), h("th", {scope: "col"}, "Tags"))),
    h("tbody", null, rows));
}

/** How many top-level columns' tags a table's page reads at once, and in parallel. */
const COLUMN_TAGS = 100;
const COLUMN_TAG_READS = 6;

/**
 * Fills in the tags of the table's top-level columns (a column's own tags,
 * not those it inherits), the first COLUMN_TAGS at once and the rest on
 * request (the button returned, or null): one read per column.
 */
function columnTags(m, ent, grid, ctx) {
  const rows = [...grid.querySelectorAll('tbody tr[data-top="1"]')];
  let next = 0;
  let until = Math.min(rows.length, COLUMN_TAGS);
  const worker = async () => {
    while (next < until && !ctx.signal.aborted) {
      const tr = rows[next++];
      try {
        const b = await get(apiPath("metalakes", m, "objects", "column", [...ent.path, tr.dataset.path].join("."), "tags"),
          {details: "true"}, {signal: ctx.signal});
        const own = (b.tags || []).filter((t) => !t.inherited).map((t) => t.name);
        tr.querySelector(".col-tags").replaceChildren(...own.map((t) => h("span", {class: "chip tag"}, t)));
      } catch {
        // a column's tags are a help: the rest of the page stands without them
      }
    }
  };
  const start = () => {
    for (let i = 0; i < COLUMN_TAG_READS; i++) worker();
  };
  start();
  if (rows.length > until) {
    const more = h("button", {type: "button", class: "link-button"}, `Show the tags of all ${count(rows.length)} columns`);
    more.addEventListener("click", () => {
      more.remove();
      until = rows.length;
      start();
    });
    return more;
  }
  return null;
}

function statistics(stats) {
  if (!stats || stats.length === 0) return null;
  return section(`Statistics (${stats.length})`, h("table", {class: "grid"},
    h("thead", null, h("tr", null, h("th", {scope: "col"}, "Statistic"), h("th", {scope: "col"}, "Value"))),
    h("tbody", null, stats.map((st) => h("tr", null, h("th", {scope: "row"}, st.name),
      h("td", null, typeof st.value === "object" ? JSON.stringify(st.value) : String(st.value ?? "")))))), "statistics");
}

// ---- semantic models and metrics -----------------------------------------

/** An expression: {dialects: [{dialect, expression}]} or a plain string. */
function expression(e) {
  if (e === null || e === undefined) return null;
  if (typeof e === "string") return h("pre", {class: "code"}, e);
  const ds = e.dialects || [];
  return h("div", {class: "expr"}, ds.map((d) =>
    h("div", {class: "dialect"}, h("span", {class: "dialect-name"}, d.dialect), h("pre", {class: "code"}, d.expression))));
}

function aiContext(a) {
  if (a === null || a === undefined || a === "") return null;
  if (typeof a === "string") return h("p", {class: "ai-context"}, h("span", {class: "label"}, "AI context"), " ", a);
  const parts = [];
  if (a.instructions) parts.push(h("p", null, a.instructions));
  if (Array.isArray(a.synonyms) && a.synonyms.length) parts.push(h("p", null, "Synonyms: ", a.synonyms.join(", ")));
  if (Array.isArray(a.examples) && a.examples.length) parts.push(h("ul", null, a.examples.map((x) => h("li", null, String(x)))));
  const rest = Object.keys(a).filter((k) => !["instructions", "synonyms", "examples"].includes(k));
  if (rest.length) parts.push(h("pre", {class: "code small"}, JSON.stringify(Object.fromEntries(rest.map((k) => [k, a[k]])), null, 2)));
  return parts.length ? h("div", {class: "ai-context"}, h("span", {class: "label"}, "AI context"), parts) : null;
}

/** The first dialect's text of an expression, for table cells. */
function exprText(e) {
  if (!e) return "—";
  if (typeof e === "string") return h("code", null, e);
  const d = (e.dialects || [])[0];
  if (!d) return "—";
  return h("code", {title: (e.dialects || []).map((x) => `${x.dialect}: ${x.expression}`).join("\n")}, d.expression);
}

function modelBody(ent, sm, ctx) {
  const [c, s] = ent.path;
  const def = sm.definition || {};
  const datasets = def.datasets || [];
  const rels = def.relationships || [];
  const metrics = def.metrics || [];
  return [
    aiContext(def.aiContext),
    section(`Datasets (${datasets.length})`, datasets.map((d) => {
      const src = d.source || {};
      const srcNs = src.namespace || [];
      const srcKey = srcNs.length === 2 ? `table:${srcNs[0]}.${srcNs[1]}.${src.name}` : null;
      const srcText = [...srcNs, src.name].filter(Boolean).join(".");
      const fields = d.fields || [];
      return h("article", {class: "dataset"},
        h("header", null, h("h3", null, d.name),
          srcText ? h("span", {class: "source"}, "source ", srcKey ? ctx.link(srcKey, srcText) : srcText) : null),
        d.description ? h("p", {class: "comment"}, d.description) : null,
        d.primaryKey?.length ? h("p", {class: "small"}, "Primary key: ", h("code", null, d.primaryKey.join(", "))) : null,
        fields.length
          ? h("table", {class: "grid"},
            h("caption", {class: "visually-hidden"}, `Fields of dataset ${d.name}`),
            h("thead", null, h("tr", null, h("th", {scope: "col"}, "Field"), h("th", {scope: "col"}, "Type"),
              h("th", {scope: "col"}, "Dimension"), h("th", {scope: "col"}, "Expression"), h("th", {scope: "col"}, "Description"))),
            h("tbody", null, fields.map((f) => h("tr", null,
              h("th", {scope: "row"}, f.name, f.label ? h("span", {class: "muted small"}, ` ${f.label}`) : null),
              h("td", null, f.datatype || "—"),
              h("td", null, f.dimension ? (f.dimension.isTime ? "time" : "yes") : "—"),
              h("td", null, exprText(f.expression)),
              h("td", {class: "field-comment"}, f.description || "")))))
          : h("p", {class: "muted small"}, "No fields."));
    }), "datasets"),
    section(`Relationships (${rels.length})`, rels.length ? h("ul", {class: "relationships"}, rels.map((r) =>
      h("li", null, h("strong", null, r.name), ": ",
        h("code", null, `${r.from}(${(r.fromColumns || []).join(", ")})`), " → ",
        h("code", null, `${r.to}(${(r.toColumns || []).join(", ")})`)))) : h("p", {class: "muted"}, "No relationships."), "relationships"),
    section(`Metrics (${metrics.length})`, metrics.length ? h("ul", {class: "listing"}, metrics.map((mt) =>
      h("li", {class: "child"}, ctx.link(`metric:${c}.${s}.${sm.name}.${mt.name}`, mt.name, {class: "child-link"}),
        mt.datatype ? h("span", {class: "pill"}, mt.datatype) : null,
        mt.description ? h("span", {class: "muted small child-comment"}, mt.description) : null,
        h("span", {class: "small"}, exprText(mt.expression))))) : h("p", {class: "muted"}, "No metrics."), "metrics"),
  ];
}

/**
 * What a metric is made of, from its custom extensions (a dbt import keeps
 * the metric's type and type_params there): its inputs (measures and other
 * metrics), its filter and its window.
 */
/** A window as dbt writes it ("7 days", {count: 7, granularity: "day"}). */
function windowText(x) {
  if (x && typeof x === "object" && "count" in x && "granularity" in x) return `${x.count} ${x.granularity}${x.count === 1 ? "" : "s"}`;
  return typeof x === "object" ? JSON.stringify(x) : String(x);
}

function metricParts(metric) {
  const parts = {kind: "", inputs: [], filters: [], windows: []};
  for (const ext of metric.customExtensions || []) {
    let data = ext.data;
    try {
      data = typeof data === "string" ? JSON.parse(data) : data;
    } catch {
      continue;
    }
    if (!data || typeof data !== "object") continue;
    if (typeof data.type === "string") parts.kind = data.type;
    const walk = (v, where) => {
      if (v === null || v === undefined) return;
      if (Array.isArray(v)) {
        v.forEach((x) => walk(x, where));
        return;
      }
      if (typeof v !== "object") return;
      for (const [k, x] of Object.entries(v)) {
        const key = k.toLowerCase();
        if (["measure", "numerator", "denominator", "metrics", "input_metrics", "input_measures", "base_metric", "conversion_metric", "inputs"].includes(key)) {
          for (const one of [x].flat()) {
            if (typeof one === "string") parts.inputs.push({name: one, role: key});
            else if (one && typeof one === "object" && one.name) parts.inputs.push({name: one.name, role: key, alias: one.alias, offset: one.offset_window || one.offset_to_grain});
          }
        }
        if (key === "filter" || key === "where") {
          for (const f of [x].flat()) {
            if (typeof f === "string" && f) parts.filters.push(f);
            else if (f && typeof f === "object") parts.filters.push(...[f.where_filters || f.where_sql_template || f].flat().map((w) => (typeof w === "string" ? w : w.where_sql_template || JSON.stringify(w))));
          }
        }
        if (key === "window" || key === "grain_to_date" || key === "offset_window" || key === "offset_to_grain") {
          if (x) parts.windows.push(`${key.replace(/_/g, " ")}: ${windowText(x)}`);
        }
        if (typeof x === "object") walk(x, key);
      }
    };
    walk(data.type_params || data, "");
  }
  return parts;
}

/** What an input is, by the key it was found under. */
const INPUT_ROLES = {metrics: "metric", input_metrics: "metric", input_measures: "measure", inputs: "input", base_metric: "base metric", conversion_metric: "conversion metric"};

function metricBody(ent, metric, ctx) {
  const [c, s, model] = ent.path;
  const parts = metricParts(metric);
  const dedupe = (xs) => [...new Set(xs)];
  return [
    h("p", {class: "model-link"}, "In semantic model ", ctx.link(`semantic_model:${c}.${s}.${model}`, `${c}.${s}.${model}`)),
    section("Definition", [
      parts.kind ? h("p", {class: "small"}, "Kind: ", h("span", {class: "pill"}, parts.kind)) : null,
      expression(metric.expression),
      aiContext(metric.aiContext),
    ], "definition"),
    section("Inputs", parts.inputs.length ? h("ul", {class: "inputs"}, parts.inputs.map((i) => h("li", null,
      h("code", null, i.name), h("span", {class: "muted small"}, ` ${INPUT_ROLES[i.role] || i.role.replace(/_/g, " ")}`),
      i.alias ? h("span", {class: "small"}, ` as ${i.alias}`) : null,
      i.offset ? h("span", {class: "small"}, ` offset ${i.offset}`) : null))) : h("p", {class: "muted"}, "No inputs recorded: the expression is the definition."), "inputs"),
    section("Filter", parts.filters.length ? dedupe(parts.filters).map((f) => h("pre", {class: "code"}, f)) : h("p", {class: "muted"}, "No filter."), "filter"),
    section("Window", parts.windows.length ? h("ul", null, dedupe(parts.windows).map((w) => h("li", null, w))) : h("p", {class: "muted"}, "No window."), "window"),
    (metric.customExtensions || []).length ? section("Custom extensions", metric.customExtensions.map((e) =>
      h("details", null, h("summary", null, e.vendorName || "extension"), h("pre", {class: "code small"}, e.data || "")))) : null,
  ];
}

// ---- editing ----------------------------------------------------------------

/**
 * What the user may change of the entity, as the API says: GET
 * …/objects/{type}/{fullName}/privileges applies the server's own rules
 * (owning it or a parent, the alter privilege through a role, DENY), which
 * the page could not read itself (roles are for MANAGE_GRANTS holders).
 * Returns null (no edit controls) when it may change nothing, or the API
 * does not say; {alter, owner} otherwise: alter the comment and tags,
 * change the owner.
 */
async function mayEdit(m, ent, ctx) {
  const [type, full] = objectRef(ent);
  let access;
  try {
    access = (await get(apiPath("metalakes", m, "objects", type, full, "privileges"), {}, {signal: ctx.signal})).access;
  } catch (e) {
    if (e.name === "AbortError") throw e;
    return null;
  }
  if (!access || (!access.alter && !access.setOwner)) return null;
  return {alter: Boolean(access.alter), owner: Boolean(access.setOwner)};
}

function addEditors(m, ent, ctx, head, cur) {
  const [type, full] = objectRef(ent);
  const status = h("p", {class: "edit-status small", role: "status", "aria-live": "polite"});
  const fail = (e) => {
    status.textContent = `Not saved: ${e.message}`;
    status.classList.add("error");
  };

  // Comment.
  if (cur.alter && cur.editComment) {
    const box = head.querySelector(".entity-comment");
    const edit = h("button", {type: "button", class: "link-button edit-comment", "aria-label": "Edit the comment"}, "Edit comment");
    edit.addEventListener("click", () => {
      const area = h("textarea", {id: "comment-input", rows: 3, "aria-label": "Comment"});
      area.value = cur.comment;
      const form = h("form", {class: "edit-form comment-form"}, area,
        h("div", {class: "row"}, h("button", {type: "submit", class: "primary"}, "Save comment"),
          h("button", {type: "button", class: "ghost", onclick: () => ctx.reload()}, "Cancel")));
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        try {
          await send("PUT", cur.editComment.path, {updates: [{"@type": "updateComment", newComment: area.value}]}, {signal: ctx.signal});
          ctx.reload("Comment saved.");
        } catch (e) {
          fail(e);
        }
      });
      box.replaceChildren(form);
      area.focus();
    });
    box.append(edit);
  }

  // Tags.
  if (cur.alter) addTagEditor(m, ctx, head, cur, type, full, fail);

  // Owner: its owners (of it or above it) and grant managers change it.
  if (cur.changeOwner) {
    const dd = head.querySelector(".fact.owner dd");
    const edit = h("button", {type: "button", class: "link-button edit-owner", "aria-label": "Change the owner"}, "Change");
    edit.addEventListener("click", () => {
      const who = h("input", {id: "owner-input", list: "user-names", "aria-label": "New owner (a user)", spellcheck: "false"});
      who.value = cur.ownerName;
      const users = h("datalist", {id: "user-names"});
      get(apiPath("metalakes", m, "users"), {}, {signal: ctx.signal}).then((b) => {
        for (const n of b.names || []) users.append(h("option", {value: n}));
      }, () => {});
      const form = h("form", {class: "edit-form inline owner-form"}, who, users,
        h("button", {type: "submit", class: "primary"}, "Save owner"),
        h("button", {type: "button", class: "ghost", onclick: () => ctx.reload()}, "Cancel"));
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const name = who.value.trim();
        if (!name) return;
        try {
          await send("PUT", apiPath("metalakes", m, "owners", type, full), {name, type: "USER"}, {signal: ctx.signal});
          ctx.reload(`Owner set to ${name}.`);
        } catch (e) {
          fail(e);
        }
      });
      dd.replaceChildren(form);
      who.focus();
    });
    dd.append(" ", edit);
  }
  head.append(status);
  if (ctx.message) {
    status.textContent = ctx.message;
  }
}

/** The tag editor of addEditors: remove a chip, or add a tag (created first when it is new). */
function addTagEditor(m, ctx, head, cur, type, full, fail) {
  const tagsBox = head.querySelector(".entity-tags");
  const userTags = new Set(cur.tags);
  const tagEditor = h("div", {class: "tag-editor"});
  const input = h("input", {id: "tag-input", list: "tag-names", placeholder: "add a tag", "aria-label": "Add a tag", spellcheck: "false"});
  const datalist = h("datalist", {id: "tag-names"});
  // The metalake's tags: offered as the box is typed in, and what tells a
  // new tag (to create first) from an existing one. A submit waits for
  // them (on a slow day they may come after the user typed).
  const known = get(apiPath("metalakes", m, "tags"), {}, {signal: ctx.signal}).then((b) => {
    for (const n of b.names || []) datalist.append(h("option", {value: n}));
    return new Set(b.names || []);
  }, () => null);
  const associate = async (add, remove) => {
    try {
      await send("POST", apiPath("metalakes", m, "objects", type, full, "tags"), {tagsToAdd: add, tagsToRemove: remove}, {signal: ctx.signal});
      ctx.reload(add.length ? `Tag ${add[0]} added.` : `Tag ${remove[0]} removed.`);
    } catch (e) {
      fail(e);
    }
  };
  const addForm = h("form", {class: "edit-form inline tag-form"}, input, datalist, h("button", {type: "submit", class: "secondary"}, "Add tag"));
  addForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = input.value.trim();
    if (!name || userTags.has(name)) return;
    const names = await known;
    if (names && !names.has(name)) {
      try {
        await send("POST", apiPath("metalakes", m, "tags"), {name}, {signal: ctx.signal});
      } catch (e) {
        if (e.status !== 409) {
          fail(e);
          return;
        }
      }
    }
    associate([name], []);
  });
  if (userTags.size > 0) {
    tagEditor.append(h("ul", {class: "chips removable", "aria-label": "Tags"}, [...userTags].map((t) => h("li", null,
      h("span", {class: "chip tag"}, t,
        h("button", {type: "button", class: "chip-x", "aria-label": `Remove tag ${t}`, title: `Remove tag ${t}`, onclick: () => associate([], [t])}, "×"))))));
  }
  tagEditor.append(addForm);
  tagsBox.querySelectorAll(".chips > .chip.tag").forEach((c) => c.remove());
  tagsBox.querySelector(".tags-empty")?.remove();
  tagsBox.prepend(tagEditor);
}
