// The page's state lives in its query string, so that reload, back/forward and
// shared links show the same view:
//   /                                   the home page: the metalakes
//   ?metalake=demo                      a metalake: its catalogs
//   ?metalake=demo&open=schema:rel.hr   an entity's own page (any type)
//   ?metalake=demo&q=EmpTel&type=table&type=metric&catalog=rel&schema=hr&owner=alice&tag=pii
//                                       a search; every filter repeats
// open names the entity as "<type>:<dotted name below the metalake>" (names
// never contain '.' or ':').

export const FILTERS = [
  // facet name in the API response, URL/API parameter, repeatable
  // Values of one filter are alternatives (any of them), except tags: an
  // entity has every tag chosen (SPEC §2.6).
  {facet: "type", param: "type", multi: true, title: "Type"},
  {facet: "catalog", param: "catalog", multi: true, title: "Catalog"},
  {facet: "schema", param: "schema", multi: true, title: "Schema"},
  {facet: "owner", param: "owner", multi: true, title: "Owner"},
  {facet: "tags", param: "tag", multi: true, title: "Tags"},
];

export function emptyState() {
  return {metalake: "", q: "", type: [], catalog: [], schema: [], owner: [], tag: [], open: ""};
}

export function readState(search = location.search) {
  const p = new URLSearchParams(search);
  const s = emptyState();
  s.metalake = p.get("metalake") || "";
  s.q = p.get("q") || "";
  for (const f of FILTERS) {
    const values = p.getAll(f.param).flatMap((v) => (f.param === "type" ? v.split(",") : [v])).filter(Boolean);
    s[f.param] = f.multi ? [...new Set(values)] : values.slice(0, 1);
  }
  s.open = p.get("open") || "";
  return s;
}

export function stateURL(s) {
  const p = new URLSearchParams();
  if (s.metalake) p.set("metalake", s.metalake);
  if (s.q) p.set("q", s.q);
  for (const f of FILTERS) for (const v of s[f.param]) p.append(f.param, v);
  if (s.open) p.set("open", s.open);
  const qs = p.toString();
  return qs ? `?${qs}` : location.pathname;
}

/** The key of everything that changes the result list (not the detail panel). */
export function searchKey(s) {
  return JSON.stringify([s.metalake, s.q, ...FILTERS.map((f) => s[f.param])]);
}

/** "table:rel.hr.employees" for an entity {type, namespace: [metalake, ...], name}. */
export function entityKey(e) {
  return `${e.type}:${[...e.namespace.slice(1), e.name].join(".")}`;
}

/** Parses an entity key back to {type, path: [catalog, schema, ..., name]}; null if malformed. */
export function parseEntityKey(key) {
  const i = key.indexOf(":");
  if (i <= 0) return null;
  const type = key.slice(0, i);
  const path = key.slice(i + 1).split(".");
  const depth = {catalog: 1, schema: 2, table: 3, semantic_model: 3, metric: 4}[type];
  if (!depth || path.length !== depth || path.some((p) => p === "")) return null;
  return {type, path};
}

/** The view a state shows: "home", "metalake", "search" or "entity". */
export function viewOf(s) {
  if (s.open) return "entity";
  if (!s.metalake) return "home";
  if (s.q || FILTERS.some((f) => s[f.param].length)) return "search";
  return "metalake";
}
