// The entity detail panel: tables with their (nested) columns, semantic models
// with datasets, relationships and metrics, metrics, schemas and catalogs.

import {apiPath, get} from "./api.js";
import {badge, h, propertyList, time} from "./dom.js";

/**
 * Loads and renders the entity {type, path} of metalake m. ctx:
 *   signal   aborts the requests
 *   result   the search result of this entity, if the list has it (metadata, matches);
 *            read after ctx.ready settles (the list may be loading at the same time)
 *   link(key, text)  an element that opens another entity
 * Returns the nodes to show; throws ApiError.
 */
export async function loadDetail(m, ent, ctx) {
  const [c, s, x, y] = ent.path;
  const base = ["metalakes", m, "catalogs", c];
  const opts = {signal: ctx.signal};
  const settle = async () => {
    try {
      await ctx.ready;
    } catch {
      // the list failed: render without its metadata
    }
  };
  switch (ent.type) {
    case "table": {
      const {table} = await get(apiPath(...base, "schemas", s, "tables", x), {}, opts);
      await settle();
      return renderTable(m, ent, table, ctx);
    }
    case "semantic_model": {
      const {semanticModel} = await get(apiPath(...base, "schemas", s, "semantic-models", x), {}, opts);
      await settle();
      return renderModel(m, ent, semanticModel, ctx);
    }
    case "metric": {
      const {metrics} = await get(apiPath(...base, "schemas", s, "semantic-model-metrics"), {details: "true"}, opts);
      const found = (metrics || []).find((mm) => mm.namespace?.[3] === x && mm.metric?.name === y);
      if (!found) throw new Error(`Metric ${y} is no longer in model ${x}.`);
      await settle();
      return renderMetricPage(m, ent, found.metric, ctx);
    }
    case "schema": {
      const {schema} = await get(apiPath(...base, "schemas", s), {}, opts);
      let metrics = null;
      try {
        metrics = (await get(apiPath(...base, "schemas", s, "semantic-model-metrics"), {}, opts)).identifiers;
      } catch (e) {
        if (e.name === "AbortError") throw e;
        metrics = null; // e.g. a non-relational catalog (501): no metrics to list
      }
      await settle();
      return renderSchema(m, ent, schema, metrics, ctx);
    }
    case "catalog": {
      const {catalog} = await get(apiPath(...base), {}, opts);
      await settle();
      return renderCatalog(m, ent, catalog, ctx);
    }
    default:
      throw new Error(`Unknown entity type ${ent.type}.`);
  }
}

function header(m, ent, name, comment, extra) {
  const parents = ent.path.slice(0, -1);
  return h("header", {class: "detail-header"},
    h("div", {class: "detail-kicker"}, badge(ent.type), h("span", {class: "crumbs"}, [m, ...parents].join(" › "))),
    h("h2", {id: "detail-title", tabindex: "-1"}, name),
    comment ? h("p", {class: "comment"}, comment) : null,
    extra || null);
}

function section(title, ...body) {
  const content = body.flat().filter(Boolean);
  if (content.length === 0) return null;
  return h("section", {class: "detail-section"}, h("h3", null, title), content);
}

function properties(props) {
  return section("Properties", propertyList(props, {cls: "props props-full"}) || h("p", {class: "muted"}, "No properties."));
}

function audit(a) {
  if (!a || !a.creator) return null;
  const parts = [`Created by ${a.creator}`, a.createTime ? ` on ${time(a.createTime)}` : ""];
  if (a.lastModifier && a.lastModifiedTime && a.lastModifiedTime !== a.createTime) {
    parts.push(` · modified by ${a.lastModifier} on ${time(a.lastModifiedTime)}`);
  }
  return h("p", {class: "audit muted small"}, parts.join(""));
}

// Tags and metadata come from the search result when the list has the entity.
function tagsOf(ctx) {
  const md = ctx.result?.metadata;
  if (!md) return null;
  const user = md.user?.tags || [];
  const system = md.system?.tags || [];
  if (user.length + system.length === 0) return null;
  return section("Tags", h("div", {class: "chips"},
    user.map((t) => h("span", {class: "chip tag"}, t)),
    system.map((t) => systemTag(ctx.result?.entity?.type, t))));
}

/** The labels of system tags, by entity type (SPEC §4.2): what they are. */
const SYSTEM_TAG_LABELS = {metric: "dialect", semantic_model: "dataset"};

/** A system tag chip, labelled as what it is (a dialect, a dataset). */
export function systemTag(type, t) {
  const label = SYSTEM_TAG_LABELS[type] || "system";
  return h("span", {class: "chip systag", title: `system tag: ${label} ${t}`}, h("span", {class: "k"}, label), h("span", {class: "v"}, t));
}

function matchesOf(ctx) {
  const ms = ctx.result?.matches || [];
  if (ms.length === 0) return null;
  return h("div", {class: "detail-matches"}, h("span", {class: "label"}, "Matched"),
    ms.map((mt) => h("span", {class: `chip match${mt.key === "schema" ? " field" : ""}`, title: `${mt.key}: ${mt.value}`}, h("span", {class: "k"}, mt.key), h("span", {class: "v"}, mt.value))));
}

// ---- tables ---------------------------------------------------------------

/** The paths of fields the query matched, lower-cased ("empcontact.emptel"). */
function schemaHits(ctx) {
  return new Set((ctx.result?.matches || []).filter((mt) => mt.key === "schema").map((mt) => String(mt.value).toLowerCase()));
}

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

function fieldRows(fields, prefix, hits, depth) {
  // Nested lists: screen readers announce the nesting level of each field.
  const ul = h("ul", {class: depth === 0 ? "field-tree" : "field-tree nested", "aria-label": depth === 0 ? "Columns" : null});
  for (const f of fields) {
    // The index names struct fields by their dotted path; list elements, map
    // values and union branches add no name of their own.
    const path = f.synthetic ? prefix : prefix ? `${prefix}.${f.name}` : f.name;
    const kids = childrenOf(f.type);
    const hit = !f.synthetic && hits.has(path.toLowerCase());
    const li = h("li", {class: hit ? "hit" : null},
      h("div", {class: "field-row"},
        h("span", {class: f.synthetic ? "field-name synthetic" : "field-name"}, f.name),
        h("span", {class: "field-type"}, typeText(f.type)),
        f.nullable === false ? h("span", {class: "field-flag"}, "not null") : null,
        hit ? h("span", {class: "field-flag hit-flag"}, "matched") : null,
        f.comment ? h("span", {class: "field-comment"}, f.comment) : null),
      kids.length ? fieldRows(kids, path, hits, depth + 1) : null);
    ul.append(li);
  }
  return ul;
}

function countLeaves(fields) {
  let n = 0;
  for (const f of fields) {
    const kids = childrenOf(f.type);
    n += kids.length ? countLeaves(kids) : 1;
  }
  return n;
}

function renderTable(m, ent, t, ctx) {
  const cols = t.columns || [];
  const leaves = countLeaves(cols);
  return [
    header(m, ent, t.name, t.comment, matchesOf(ctx)),
    section(`Columns (${cols.length}${leaves !== cols.length ? `, ${leaves} leaf fields` : ""})`,
      cols.length ? fieldRows(cols, "", schemaHits(ctx), 0) : h("p", {class: "muted"}, "No columns.")),
    tagsOf(ctx),
    properties(t.properties),
    audit(t.audit),
  ];
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

function metricBlock(metric, extra, {named = true} = {}) {
  return h("article", {class: "metric"},
    h("header", null,
      named ? h("h4", null, metric.name) : null,
      metric.datatype ? h("span", {class: "pill"}, metric.datatype) : null,
      extra || null),
    metric.description ? h("p", {class: "comment"}, metric.description) : null,
    expression(metric.expression),
    aiContext(metric.aiContext));
}

function renderModel(m, ent, sm, ctx) {
  const [c, s] = ent.path;
  const def = sm.definition || {};
  const datasets = def.datasets || [];
  const rels = def.relationships || [];
  const metrics = def.metrics || [];
  return [
    header(m, ent, sm.name, sm.comment, matchesOf(ctx)),
    aiContext(def.aiContext),
    section(`Datasets (${datasets.length})`, datasets.map((d) => {
      const src = d.source || {};
      const srcNs = src.namespace || [];
      const srcKey = srcNs.length === 2 ? `table:${srcNs[0]}.${srcNs[1]}.${src.name}` : null;
      const srcText = [...srcNs, src.name].filter(Boolean).join(".");
      const fields = d.fields || [];
      return h("article", {class: "dataset"},
        h("header", null, h("h4", null, d.name),
          srcText ? h("span", {class: "source"}, "source ", srcKey ? ctx.link(srcKey, srcText) : srcText) : null),
        d.description ? h("p", {class: "comment"}, d.description) : null,
        d.primaryKey?.length ? h("p", {class: "small"}, "Primary key: ", h("code", null, d.primaryKey.join(", "))) : null,
        fields.length
          ? h("table", {class: "grid"},
            h("caption", {class: "visually-hidden"}, `Fields of dataset ${d.name}`),
            h("thead", null, h("tr", null, h("th", {scope: "col"}, "Field"), h("th", {scope: "col"}, "Type"),
              h("th", {scope: "col"}, "Dimension"), h("th", {scope: "col"}, "Expression"))),
            h("tbody", null, fields.map((f) => h("tr", null,
              h("th", {scope: "row"}, f.name, f.label ? h("span", {class: "muted small"}, ` ${f.label}`) : null),
              h("td", null, f.datatype || "—"),
              h("td", null, f.dimension ? (f.dimension.isTime ? "time" : "yes") : "—"),
              h("td", null, exprText(f.expression))))))
          : h("p", {class: "muted small"}, "No fields."));
    })),
    section(`Relationships (${rels.length})`, rels.length ? h("ul", {class: "relationships"}, rels.map((r) =>
      h("li", null, h("strong", null, r.name), ": ",
        h("code", null, `${r.from}(${(r.fromColumns || []).join(", ")})`), " → ",
        h("code", null, `${r.to}(${(r.toColumns || []).join(", ")})`)))) : null),
    section(`Metrics (${metrics.length})`, metrics.map((mt) =>
      metricBlock(mt, ctx.link(`metric:${c}.${s}.${sm.name}.${mt.name}`, "open")))),
    tagsOf(ctx),
    properties(sm.properties),
    audit(sm.audit),
  ];
}

/** The first dialect's text of an expression, for table cells. */
function exprText(e) {
  if (!e) return "—";
  if (typeof e === "string") return h("code", null, e);
  const d = (e.dialects || [])[0];
  if (!d) return "—";
  return h("code", {title: (e.dialects || []).map((x) => `${x.dialect}: ${x.expression}`).join("\n")}, d.expression);
}

function renderMetricPage(m, ent, metric, ctx) {
  const [c, s, model] = ent.path;
  return [
    header(m, ent, metric.name, null, matchesOf(ctx)),
    h("p", {class: "small"}, "In semantic model ", ctx.link(`semantic_model:${c}.${s}.${model}`, `${c}.${s}.${model}`)),
    metricBlock(metric, null, {named: false}),
    tagsOf(ctx),
  ];
}

// ---- schemas and catalogs ------------------------------------------------

function renderSchema(m, ent, schema, metrics, ctx) {
  const [c, s] = ent.path;
  const byModel = new Map();
  for (const id of metrics || []) {
    const model = id.namespace?.[3];
    if (!byModel.has(model)) byModel.set(model, []);
    byModel.get(model).push(id.name);
  }
  return [
    header(m, ent, schema.name, schema.comment, matchesOf(ctx)),
    metrics && metrics.length
      ? section(`Metrics of this schema (${metrics.length})`, [...byModel].map(([model, names]) =>
        h("div", {class: "metric-group"},
          h("h4", null, ctx.link(`semantic_model:${c}.${s}.${model}`, model)),
          h("ul", {class: "inline-list"}, names.map((n) => h("li", null, ctx.link(`metric:${c}.${s}.${model}.${n}`, n))))))) : null,
    tagsOf(ctx),
    properties(schema.properties),
    audit(schema.audit),
  ];
}

function renderCatalog(m, ent, catalog, ctx) {
  return [
    header(m, ent, catalog.name, catalog.comment, h("p", {class: "small"}, "Type: ", h("span", {class: "pill"}, catalog.type))),
    matchesOf(ctx),
    tagsOf(ctx),
    properties(catalog.properties),
    audit(catalog.audit),
  ];
}
