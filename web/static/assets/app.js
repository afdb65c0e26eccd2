// semcat's catalog page: the home page (metalakes), a metalake's catalogs,
// an entity's own page (catalogs and schemas list their children), and the
// faceted search with type-ahead. The state is in the URL (state.js).

import {ApiError, apiPath, get, getAuth, onUnauthorized, setAuth} from "./api.js";
import {badge, count, h, plural, replace, typeLabel} from "./dom.js";
import {crumbs, listing, loadEntity, systemTag} from "./entity.js";
import {emptyState, entityKey, FILTERS, parseEntityKey, readState, searchKey, stateURL, viewOf} from "./state.js";

const PAGE_SIZE = 20;
const FACETS = FILTERS.map((f) => f.facet).join(",");
const FACET_SHOWN = 10; // values shown before "more"
const FACET_ALL = 1000; // the API's largest facetSize

const $ = (id) => document.getElementById(id);
const els = {
  form: $("search-form"), q: $("q"), helpToggle: $("help-toggle"), help: $("help"),
  metalake: $("metalake"), queryError: $("query-error"),
  authToggle: $("auth-toggle"), authPanel: $("auth-panel"), authReason: $("auth-reason"),
  authValue: $("auth-value"), authValueLabel: $("auth-value-label"), authSignout: $("auth-signout"),
  filters: $("filters"), facets: $("facets"), activeFilters: $("active-filters"),
  status: $("status"), results: $("results"), more: $("more"), resultsPane: $("results-pane"),
  layout: $("layout"), detail: $("detail"), detailBody: $("detail-body"), home: $("home"), crumbs: $("crumbs"),
  suggestions: $("suggestions"), auth: document.querySelector(".auth"),
};

let state = emptyState();
let metalakes = null; // names, once loaded
let shownSearch = null; // searchKey of the list on screen (or loading)
let shownPage = ""; // what the home / entity view shows
let cursor = ""; // next page of the list on screen
let total = 0;
let shown = 0;
const resultsByKey = new Map();
let searchSeq = 0;
let searchAbort = null;
let pageAbort = null;
let pendingFocus = null; // {facet, value} to focus after the facets re-render
let lastFacets = {}; // the facets of the list on screen
const facetOpen = new Set(); // facets showing all their values
const facetFilter = new Map(); // facet → the text of its filter box
const facetAll = new Map(); // facet → every value (up to FACET_ALL), fetched for "more"

// ---- navigation -------------------------------------------------------------

/** Moves to state s: records it in the URL (push or replace) and shows it. */
function navigate(s, {push = true, force = false, focusDetail = false, message = ""} = {}) {
  const url = stateURL(s);
  const current = location.search || location.pathname;
  if (url !== current) {
    if (push) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
  }
  show(s, {force, focusDetail, message});
}

function show(s, {force = false, focusDetail = false, message = ""} = {}) {
  state = s;
  if (document.activeElement !== els.q || force) els.q.value = s.q === "*" ? "" : s.q;
  if (s.metalake && els.metalake.value !== s.metalake) els.metalake.value = s.metalake;
  const view = viewOf(s);
  document.body.dataset.view = view;
  els.home.hidden = view !== "home" && view !== "metalake";
  els.filters.hidden = view !== "search";
  els.resultsPane.hidden = view !== "search";
  els.detail.hidden = view !== "entity";
  renderCrumbs(s, view);
  if (view !== "entity") {
    document.title = view === "search" ? `${s.q && s.q !== "*" ? `${s.q} · ` : ""}search · semcat` : view === "metalake" ? `${s.metalake} · semcat` : "semcat · catalog";
  }
  if (view === "search") {
    shownPage = "";
    pageAbort?.abort();
    if (force || searchKey(s) !== shownSearch) search();
    markSelected();
    return;
  }
  shownSearch = null;
  searchAbort?.abort();
  const pageKey = JSON.stringify([view, s.metalake, s.open]);
  if (!force && pageKey === shownPage) return;
  shownPage = pageKey;
  pageAbort?.abort();
  pageAbort = new AbortController();
  if (view === "entity") showEntity(s, pageAbort.signal, {focus: focusDetail, message});
  else if (view === "metalake") showMetalake(s, pageAbort.signal);
  else showHome();
}

window.addEventListener("popstate", () => {
  const s = readState();
  els.q.value = s.q;
  show(s);
});

/** A link to a page of this app that navigates in place (new tab etc. still work). */
function appLink(s, content, attrs = {}) {
  const a = h("a", {href: stateURL(s), ...attrs}, content);
  a.addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    navigate(s, {focusDetail: true});
  });
  return a;
}

function entityLink(key, content, attrs = {}) {
  return appLink({...emptyState(), metalake: state.metalake, open: key}, content, attrs);
}

function homeLink(text, metalake) {
  return appLink({...emptyState(), metalake}, text, {class: metalake ? "crumb-metalake" : "crumb-home"});
}

function renderCrumbs(s, view) {
  if (view === "home") {
    replace(els.crumbs, crumbs("", null, entityLink, (t) => h("span", {"aria-current": "page"}, t)));
    return;
  }
  if (view === "metalake") {
    replace(els.crumbs, h("ol", null, h("li", null, homeLink("Home", "")), h("li", null, h("span", {"aria-current": "page"}, s.metalake))));
    return;
  }
  if (view === "search") {
    replace(els.crumbs, h("ol", null, h("li", null, homeLink("Home", "")), h("li", null, homeLink(s.metalake, s.metalake)),
      h("li", null, h("span", {"aria-current": "page"}, s.q && s.q !== "*" ? `Search “${s.q}”` : "Search"))));
    return;
  }
  replace(els.crumbs, crumbs(s.metalake, parseEntityKey(s.open), entityLink, homeLink));
}

// ---- home, metalake and entity pages ---------------------------------------

function showHome() {
  const names = metalakes || [];
  replace(els.home,
    h("h1", {id: "home-title"}, "Metalakes"),
    names.length === 0
      ? h("p", {class: "muted"}, "There is no metalake yet. Create one through the API (POST /api/metalakes), or start the server with --demo.")
      : h("ul", {class: "listing cards"}, names.map((n) => h("li", {class: "child", dataset: {key: n}},
        appLink({...emptyState(), metalake: n}, h("span", {class: "name"}, n), {class: "child-link"})))));
  setStatus("");
}

function showMetalake(s, signal) {
  const ctx = {signal, link: entityLink};
  replace(els.home,
    h("h1", {id: "home-title"}, badge("metalake"), " ", s.metalake),
    h("p", {class: "muted small"}, "Browse its catalogs, or search everything in it from the box above (", h("kbd", null, "/"), ")."),
    listing(s.metalake, ctx, "Catalogs", {type: "catalog"}, "No catalogs."));
}

let shownEntity = ""; // the key of the entity the detail pane shows

async function showEntity(s, signal, {focus = false, message = ""} = {}) {
  const ent = parseEntityKey(s.open);
  if (!ent) {
    replace(els.detailBody, h("h1", {id: "detail-title"}, "Not found"), h("p", {class: "error", role: "alert"}, `Cannot open “${s.open}”.`));
    shownEntity = "";
    return;
  }
  els.detail.setAttribute("aria-busy", "true");
  // The same entity shown again (after an edit) stays on screen until its
  // new state is there: no flash, and a box being typed in is kept.
  if (shownEntity !== s.open) replace(els.detailBody, h("p", {class: "muted"}, "Loading…"));
  shownEntity = s.open;
  // Columns that matched the search the user came from are marked.
  const hits = new Map();
  for (const mt of resultsByKey.get(s.open)?.matches || []) {
    if (mt.field) hits.set(mt.field.toLowerCase(), mt.in || "name");
  }
  const metalake = s.metalake;
  try {
    const nodes = await loadEntity(metalake, ent, {
      signal, hits, message,
      link: entityLink,
      authRequired: () => authOn,
      reload: (msg = "") => show(state, {force: true, message: msg}),
    });
    if (signal.aborted) return;
    replace(els.detailBody, nodes);
    document.title = `${ent.path[ent.path.length - 1]} · ${typeLabel(ent.type)} · semcat`;
  } catch (e) {
    if (e.name === "AbortError" || signal.aborted) return;
    shownEntity = "";
    replace(els.detailBody,
      h("h1", {id: "detail-title", tabindex: "-1"}, ent.path.join(".")),
      h("p", {class: "error", role: "alert"}, e instanceof ApiError && e.status === 401 ? `${e.message} — sign in to continue.` : e.message));
  } finally {
    if (!signal.aborted) els.detail.removeAttribute("aria-busy");
  }
  if (focus && !signal.aborted) $("detail-title")?.focus();
}

// ---- metalakes --------------------------------------------------------------

async function boot() {
  const s = readState();
  els.q.value = s.q === "*" ? "" : s.q;
  setStatus("Loading metalakes…");
  try {
    const body = await get(apiPath("metalakes"));
    metalakes = (body.metalakes || []).map((m) => m.name);
  } catch (e) {
    metalakes = null;
    els.resultsPane.hidden = false;
    showError(e, "Could not list the metalakes");
    return;
  }
  const names = [...metalakes];
  if (s.metalake && !names.includes(s.metalake)) names.unshift(s.metalake);
  replace(els.metalake, names.map((n) => h("option", {value: n}, n)));
  els.metalake.disabled = names.length === 0;
  shownSearch = null;
  shownPage = "";
  navigate(s, {push: false, force: true});
}

els.metalake.addEventListener("change", () => {
  // Filters name catalogs, schemas and tags of one metalake: start afresh.
  const q = viewOf(state) === "search" ? state.q : "";
  navigate({...emptyState(), metalake: els.metalake.value, q});
});

// ---- search -----------------------------------------------------------------

// Enter on a suggestion picks it; the same key must not also submit the
// query (a browser may still send the key's press after its keydown was
// handled): the submit that follows a pick before the key is released is
// ignored.
// The key's release may reach another element (the pick moves the focus to
// the entity page), so it is heard on the whole document; and any other key
// typed in the box ends it too.
let pickedByEnter = false;
document.addEventListener("keyup", (ev) => {
  if (ev.key === "Enter") pickedByEnter = false;
}, true);
els.q.addEventListener("keydown", (ev) => {
  if (ev.key !== "Enter") pickedByEnter = false;
}, true);

els.form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  if (pickedByEnter) return;
  const metalake = state.metalake || els.metalake.value;
  if (!metalake) return;
  closeHelp();
  const q = els.q.value.trim() || "*";
  // A new query keeps the filters of the search on screen, nothing else.
  const base = viewOf(state) === "search" ? state : emptyState();
  navigate({...base, metalake, q, open: ""}, {force: true});
});

function searchParams(s) {
  return {
    query: s.q || "*",
    type: s.type,
    catalog: s.catalog,
    schema: s.schema,
    owner: s.owner,
    tag: s.tag,
    limit: PAGE_SIZE,
  };
}

async function search() {
  const s = state;
  shownSearch = searchKey(s);
  if (!s.metalake) return;
  const seq = ++searchSeq;
  searchAbort?.abort();
  searchAbort = new AbortController();
  facetAll.clear();
  setQueryError(null);
  els.results.setAttribute("aria-busy", "true");
  setStatus("Searching…");
  renderActiveFilters();
  let body;
  try {
    // One more value than shown says whether a facet has more.
    body = await get(apiPath("metalakes", s.metalake, "search"), {...searchParams(s), facets: FACETS, facetSize: FACET_SHOWN + 1}, {signal: searchAbort.signal});
  } catch (e) {
    if (e.name === "AbortError" || seq !== searchSeq) return;
    els.results.removeAttribute("aria-busy");
    clearList();
    renderFacets({});
    if (e instanceof ApiError && e.status === 400) {
      setQueryError(e.message);
      setStatus("Fix the query to search.");
    } else {
      showError(e, "Search failed");
    }
    return;
  }
  if (seq !== searchSeq) return;
  els.results.removeAttribute("aria-busy");
  resultsByKey.clear();
  els.results.replaceChildren();
  shown = 0;
  total = body.total || 0;
  appendResults(body.results || []);
  cursor = body.cursor || "";
  lastFacets = body.facets || {};
  renderFacets(lastFacets);
  renderStatus();
  renderMore();
  markSelected();
}

els.more.addEventListener("click", async () => {
  if (!cursor || !state.metalake) return;
  const seq = searchSeq;
  els.more.disabled = true;
  els.more.textContent = "Loading…";
  let body;
  try {
    body = await get(apiPath("metalakes", state.metalake, "search"), {...searchParams(state), cursor}, {signal: searchAbort?.signal});
  } catch (e) {
    if (e.name === "AbortError" || seq !== searchSeq) return;
    showError(e, "Could not load more results");
    renderMore();
    return;
  }
  if (seq !== searchSeq) return;
  const first = appendResults(body.results || []);
  cursor = body.cursor || "";
  if (typeof body.total === "number") total = body.total;
  renderStatus();
  renderMore();
  markSelected();
  // Keyboard users continue where the new results start.
  first?.querySelector(".result-link")?.focus();
});

function renderMore() {
  els.more.disabled = false;
  els.more.hidden = !cursor;
  const left = Math.max(total - shown, 0);
  els.more.textContent = left > 0 ? `Load more (${count(left)} left)` : "Load more";
}

function renderStatus() {
  const where = state.metalake;
  const q = state.q && state.q !== "*" ? state.q : "";
  if (total === 0) {
    setStatus(q ? `No results for “${q}” in ${where}.` : `Nothing to show in ${where}.`);
    els.results.append(h("li", {class: "empty"},
      h("p", null, "Nothing matched."),
      h("p", {class: "muted"}, activeFilterCount() ? "Remove a filter, or try a prefix (wor*), a field (schema:Name) or * for everything." :
        "Try a prefix (wor*), a field (schema:Name), a tag (tags:t) or * for everything.")));
    return;
  }
  const what = q ? ` for “${q}”` : "";
  setStatus(shown < total ? `Showing ${count(shown)} of ${plural(total, "result", "results")}${what}` : `${plural(total, "result", "results")}${what}`);
}

function setStatus(text, isError = false) {
  els.status.textContent = text;
  els.status.classList.toggle("error", isError);
}

function setQueryError(message) {
  els.queryError.hidden = !message;
  els.queryError.textContent = message ? `Query error: ${message}` : "";
  if (message) els.q.setAttribute("aria-invalid", "true");
  else els.q.removeAttribute("aria-invalid");
}

function showError(e, what) {
  if (e.name === "AbortError") return;
  const msg = e instanceof ApiError && e.status === 401 ? `${e.message} — sign in to continue.` : e.message;
  setStatus(`${what}: ${msg}`, true);
}

function clearList() {
  resultsByKey.clear();
  els.results.replaceChildren();
  cursor = "";
  total = 0;
  shown = 0;
  renderMore();
}

// ---- results ----------------------------------------------------------------

const HIDDEN_SYSTEM = new Set(["entity-name", "entity-type", "comment", "schema", "creation-time", "ai-context", "expression", "description", "owner"]);
const SHOWN_SYSTEM = ["datatype", "model", "dialects", "datasets", "sources"];

/** Appends results to the list; returns the first new item. */
function appendResults(results) {
  let first = null;
  // A score helps only to rank a query's hits: not for everything (*), and
  // not when every hit on the page scores the same.
  const scores = new Set(results.map((r) => (typeof r.score === "number" ? r.score.toFixed(2) : "")));
  const withScore = !!state.q && state.q !== "*" && scores.size > 1;
  for (const r of results) {
    const li = renderResult(r, withScore);
    first ??= li;
    els.results.append(li);
  }
  shown += results.length;
  return first;
}

/** A match chip that says what matched: a key, or a column by name or comment. */
function matchChip(m) {
  if (m.field) {
    const what = m.in === "comment" ? `${m.key} comment` : m.key;
    return h("span", {class: `chip match field${m.in === "comment" ? " in-comment" : ""}`, title: m.in === "comment" ? `the comment of ${m.key} ${m.field}: ${m.value}` : `${m.key} ${m.field}`},
      h("span", {class: "k"}, what), h("span", {class: "v"}, m.field));
  }
  return h("span", {class: "chip match", title: `${m.key}: ${m.value}`}, h("span", {class: "k"}, m.key), h("span", {class: "v"}, m.value));
}

const MATCH_CHIPS = 6;

function renderResult(r, withScore = false) {
  const e = r.entity || {};
  const ns = e.namespace || [];
  const key = entityKey({type: e.type, namespace: ns, name: e.name});
  resultsByKey.set(key, r);
  const sys = r.metadata?.system?.properties || {};
  const user = r.metadata?.user?.properties || {};
  const parents = ns.slice(1);
  const description = sys.comment || sys.description || "";

  // The name and description show themselves: their chips would repeat them.
  const matches = (r.matches || []).filter((m) => m.key !== "name" && m.key !== "comment" && m.key !== "description");
  const userTags = r.metadata?.user?.tags || [];
  const sysTags = r.metadata?.system?.tags || [];

  const props = [];
  if (sys.owner) props.push(["owner", sys.owner, true, "owner"]);
  for (const k of Object.keys(user).sort().slice(0, 3)) props.push([k, user[k], false]);
  for (const k of SHOWN_SYSTEM) {
    if (props.length >= 5) break;
    if (k in sys && !HIDDEN_SYSTEM.has(k) && !(k in user)) props.push([k, sys[k], true]);
  }

  return h("li", {class: "result", dataset: {key}},
    h("div", {class: "result-head"},
      badge(e.type),
      entityLink(key, [
        parents.length ? h("span", {class: "ns"}, `${parents.join(".")}.`) : null,
        h("span", {class: "name"}, e.name),
      ], {class: "result-link", title: `${ns.join(".")}.${e.name}`}),
      withScore && typeof r.score === "number" ? h("span", {class: "score", title: "relevance score"}, r.score.toFixed(2)) : null),
    description ? h("p", {class: "comment", title: description.length > 200 ? description : null}, description) : null,
    matches.length ? h("div", {class: "why"},
      h("span", {class: "label"}, "Matched"),
      matches.slice(0, MATCH_CHIPS).map(matchChip),
      matches.length > MATCH_CHIPS ? h("span", {class: "muted small"}, `+${matches.length - MATCH_CHIPS} more`) : null) : null,
    userTags.length + sysTags.length ? h("div", {class: "chips tags"},
      userTags.map((t) => h("span", {class: "chip tag"}, t)),
      sysTags.slice(0, 6).map((t) => systemTag(e.type, t)),
      sysTags.length > 6 ? h("span", {class: "muted small"}, `+${sysTags.length - 6}`) : null) : null,
    props.length ? h("dl", {class: "props"}, props.map(([k, v, system, cls]) =>
      h("div", {class: `${system ? "prop system" : "prop"}${cls ? ` ${cls}` : ""}`}, h("dt", null, k), h("dd", {title: String(v)}, String(v))))) : null);
}

function markSelected() {
  for (const li of els.results.querySelectorAll(".result")) li.classList.remove("selected");
}

// ---- facets and filters -----------------------------------------------------

function activeFilterCount() {
  return FILTERS.reduce((n, f) => n + state[f.param].length, 0);
}

function toggleFilter(f, value) {
  const cur = state[f.param];
  const next = cur.includes(value) ? cur.filter((v) => v !== value) : [...cur, value];
  navigate({...state, q: state.q || "*", [f.param]: next, open: ""});
}

/** Fetches every value of one facet (up to FACET_ALL), for "more" and the filter box. */
async function loadAllValues(f) {
  if (facetAll.has(f.facet)) return;
  const seq = searchSeq;
  facetAll.set(f.facet, null); // loading
  try {
    const body = await get(apiPath("metalakes", state.metalake, "search"),
      {...searchParams(state), limit: 1, facets: f.facet, facetSize: FACET_ALL}, {signal: searchAbort?.signal});
    if (seq !== searchSeq) return;
    facetAll.set(f.facet, body.facets?.[f.facet] || []);
  } catch (e) {
    facetAll.delete(f.facet);
    if (e.name === "AbortError") return;
  }
  renderFacets(lastFacets);
}

function facetValueButton(f, v, active) {
  const on = active.includes(v.value);
  const label = f.facet === "type" ? typeLabel(v.value) : v.value;
  return h("li", null, h("button", {
    type: "button",
    class: "facet-value",
    "aria-pressed": on ? "true" : "false",
    dataset: {facet: f.facet, value: v.value},
    title: on ? `Remove the filter ${f.title.toLowerCase()}: ${v.value}` : `Filter on ${f.title.toLowerCase()}: ${v.value}`,
    onclick: () => {
      pendingFocus = {facet: f.facet, value: v.value};
      toggleFilter(f, v.value);
    },
  },
  h("span", {class: "facet-check", "aria-hidden": "true"}),
  f.facet === "type" ? badge(v.value) : h("span", {class: "facet-label"}, label,
    v.scope === "system" ? h("span", {class: "facet-scope", title: "a system tag: a metric's dialect or a model's dataset"}, " system") : null),
  h("span", {class: "facet-count"}, v.count === null ? "" : count(v.count))));
}

function renderFacets(facets) {
  const groups = FILTERS.map((f) => {
    const active = state[f.param];
    const first = facets[f.facet] || [];
    const hasMore = first.length > FACET_SHOWN;
    const open = facetOpen.has(f.facet);
    const filterText = (facetFilter.get(f.facet) || "").toLowerCase();
    const all = facetAll.get(f.facet);
    let values;
    if ((open || filterText) && all) values = [...all];
    else values = first.slice(0, open || filterText ? first.length : FACET_SHOWN);
    if (filterText) values = values.filter((v) => v.value.toLowerCase().includes(filterText));
    // A chosen value stays listed (to be unchosen) even when the answer lacks it.
    for (const v of active) if (!values.some((x) => x.value === v)) values.unshift({value: v, count: null});
    const id = `facet-${f.facet}`;
    const searchable = hasMore || filterText;
    const box = searchable ? h("input", {
      type: "search", class: "facet-filter", id: `${id}-filter`, placeholder: `Filter ${f.title.toLowerCase()}…`,
      "aria-label": `Filter the values of ${f.title.toLowerCase()}`, value: facetFilter.get(f.facet) || "", spellcheck: "false",
    }) : null;
    if (box) {
      box.addEventListener("input", () => {
        facetFilter.set(f.facet, box.value);
        loadAllValues(f);
        renderFacets(lastFacets);
        const again = $(`${id}-filter`);
        again?.focus();
        again?.setSelectionRange(box.value.length, box.value.length);
      });
    }
    const loading = (open || filterText) && all === null;
    return h("section", {class: "facet", dataset: {facet: f.facet}},
      h("h2", {id}, f.title, f.facet !== "tags" && active.length > 1 ? h("span", {class: "muted small"}, " (any)") : null),
      box,
      values.length === 0
        ? h("p", {class: "muted small"}, loading ? "Loading…" : "No values")
        : h("ul", {"aria-labelledby": id}, values.map((v) => facetValueButton(f, v, active))),
      hasMore && !filterText ? h("button", {
        type: "button", class: "link-button facet-more", "aria-expanded": open ? "true" : "false",
        onclick: () => {
          if (open) facetOpen.delete(f.facet);
          else {
            facetOpen.add(f.facet);
            loadAllValues(f);
          }
          renderFacets(lastFacets);
          els.facets.querySelector(`[data-facet="${CSS.escape(f.facet)}"] .facet-more`)?.focus();
        },
      }, open ? "Fewer" : "More…") : null);
  });
  // A re-render (the facet's values arriving) keeps the filter box being
  // typed in focused, with its caret: keys typed meanwhile are not lost.
  const typing = document.activeElement?.classList.contains("facet-filter") ? document.activeElement : null;
  const caret = typing ? [typing.id, typing.selectionStart, typing.selectionEnd] : null;
  replace(els.facets, groups);
  if (caret) {
    const again = $(caret[0]);
    again?.focus();
    again?.setSelectionRange(caret[1], caret[2]);
  }
  if (pendingFocus) {
    const sel = `button[data-facet="${CSS.escape(pendingFocus.facet)}"][data-value="${CSS.escape(pendingFocus.value)}"]`;
    (els.facets.querySelector(sel) || els.facets.querySelector(`#facet-${CSS.escape(pendingFocus.facet)}`))?.focus();
    pendingFocus = null;
  }
}

function renderActiveFilters() {
  const chips = [];
  for (const f of FILTERS) {
    for (const v of state[f.param]) {
      chips.push(h("button", {
        type: "button",
        class: "chip filter",
        dataset: {param: f.param, value: v},
        "aria-label": `Remove filter ${f.title}: ${v}`,
        onclick: () => {
          toggleFilter(f, v);
          // Focus stays in the chip row, or returns to the search box.
          queueMicrotask(() => (els.activeFilters.querySelector("button") || els.q).focus());
        },
      }, h("span", {class: "k"}, f.title), h("span", {class: "v"}, f.facet === "type" ? typeLabel(v) : v), h("span", {class: "x", "aria-hidden": "true"}, "×")));
    }
  }
  if (chips.length > 1) {
    chips.push(h("button", {
      type: "button", class: "link-button", onclick: () => {
        navigate({...emptyState(), metalake: state.metalake, q: state.q || "*"});
        els.q.focus();
      },
    }, "Clear all"));
  }
  replace(els.activeFilters, chips);
  els.activeFilters.hidden = chips.length === 0;
}

// Filters fold away on a narrow screen; on a wide one they are always shown.
const narrow = window.matchMedia("(max-width: 760px)");
function fitFilters() {
  els.filters.open = !narrow.matches;
}
narrow.addEventListener("change", fitFilters);
fitFilters();
els.filters.querySelector("summary").addEventListener("click", (ev) => {
  if (!narrow.matches) ev.preventDefault();
});

// ---- help popover -----------------------------------------------------------

function openHelp() {
  els.help.hidden = false;
  els.helpToggle.setAttribute("aria-expanded", "true");
  els.help.querySelector("button")?.focus();
}

function closeHelp({focus = false} = {}) {
  if (els.help.hidden) return;
  els.help.hidden = true;
  els.helpToggle.setAttribute("aria-expanded", "false");
  if (focus) els.helpToggle.focus();
}

els.helpToggle.addEventListener("click", () => (els.help.hidden ? openHelp() : closeHelp({focus: true})));
els.help.addEventListener("click", (ev) => {
  const b = ev.target.closest("button[data-example]");
  if (!b) return;
  els.q.value = b.dataset.example;
  closeHelp();
  els.q.focus();
  els.form.requestSubmit();
});

// ---- sign in ----------------------------------------------------------------

function authKind() {
  return els.authPanel.querySelector('input[name="auth-kind"]:checked')?.value || "basic";
}

function fitAuthInput() {
  const bearer = authKind() === "bearer";
  els.authValueLabel.textContent = bearer ? "Bearer token" : "User name";
  els.authValue.type = bearer ? "password" : "text";
  els.authValue.autocomplete = bearer ? "off" : "username";
}

// The sign-in control shows once the server asks for credentials (a 401),
// or while some are kept: a server without authentication never asks.
let authOn = false;

function renderAuthButton() {
  const a = getAuth();
  els.auth.hidden = !authOn && !a;
  els.authToggle.textContent = !a ? "Sign in" : a.kind === "basic" ? `Signed in: ${a.value}` : "Signed in (token)";
  els.authToggle.classList.toggle("signed-in", !!a);
  els.authSignout.hidden = !a;
}

function openAuth(reason = "") {
  const wasOpen = !els.authPanel.hidden;
  els.authReason.textContent = reason;
  els.authReason.hidden = !reason;
  if (wasOpen) return;
  const a = getAuth();
  for (const r of els.authPanel.querySelectorAll('input[name="auth-kind"]')) r.checked = r.value === (a?.kind || "basic");
  fitAuthInput();
  els.authValue.value = a?.kind === "basic" ? a.value : "";
  els.authPanel.hidden = false;
  els.authToggle.setAttribute("aria-expanded", "true");
  els.authValue.focus();
}

function closeAuth({focus = false} = {}) {
  if (els.authPanel.hidden) return;
  els.authPanel.hidden = true;
  els.authToggle.setAttribute("aria-expanded", "false");
  if (focus) els.authToggle.focus();
}

els.authToggle.addEventListener("click", () => (els.authPanel.hidden ? openAuth() : closeAuth({focus: true})));
els.authPanel.addEventListener("change", (ev) => {
  if (ev.target.name === "auth-kind") {
    fitAuthInput();
    els.authValue.value = "";
  }
});
els.authPanel.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const value = els.authValue.value.trim();
  if (!value) return;
  setAuth({kind: authKind(), value});
  renderAuthButton();
  closeAuth({focus: true});
  boot();
});
els.authSignout.addEventListener("click", () => {
  setAuth(null);
  renderAuthButton();
  closeAuth({focus: true});
  boot();
});
onUnauthorized((err) => {
  authOn = true;
  renderAuthButton();
  openAuth(getAuth() ? `Not accepted: ${err.message}` : `Sign in required: ${err.message}`);
});

// ---- keyboard and clicks outside -------------------------------------------

function typing(el) {
  return el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

document.addEventListener("keydown", (ev) => {
  if (ev.key === "/" && !typing(ev.target) && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
    ev.preventDefault();
    els.q.focus();
    els.q.select();
  } else if (ev.key === "Escape") {
    if (!els.suggestions.hidden) closeSuggestions();
    else if (!els.help.hidden) closeHelp({focus: true});
    else if (!els.authPanel.hidden) closeAuth({focus: true});
  }
});

document.addEventListener("click", (ev) => {
  if (!els.suggestions.hidden && !els.suggestions.contains(ev.target) && ev.target !== els.q) closeSuggestions();
  if (!els.help.hidden && !els.help.contains(ev.target) && !els.helpToggle.contains(ev.target)) closeHelp();
  if (!els.authPanel.hidden && !els.authPanel.contains(ev.target) && !els.authToggle.contains(ev.target)) closeAuth();
});

// ---- type-ahead ---------------------------------------------------------------

const SUGGEST_LIMIT = 8;
let suggestSeq = 0;
let suggestAbort = null;
let suggestTimer = 0;
let activeSuggestion = -1;

/** The word being typed, when the box holds one bare word (no operator). */
function typedPrefix() {
  const v = els.q.value.trim();
  return /^[^\s"*:+\-][^\s"*:]*$/.test(v) ? v : "";
}

els.q.addEventListener("input", () => {
  clearTimeout(suggestTimer);
  suggestTimer = setTimeout(suggest, 80);
});

async function suggest() {
  const prefix = typedPrefix();
  const seq = ++suggestSeq;
  suggestAbort?.abort();
  const metalake = state.metalake || els.metalake.value;
  if (!prefix || !metalake || document.activeElement !== els.q) {
    closeSuggestions();
    return;
  }
  suggestAbort = new AbortController();
  let body;
  try {
    body = await get(apiPath("metalakes", metalake, "suggest"), {prefix, limit: SUGGEST_LIMIT}, {signal: suggestAbort.signal});
  } catch {
    if (seq === suggestSeq) closeSuggestions();
    return; // type-ahead is a help: its failure is silent, search still works
  }
  if (seq !== suggestSeq) return;
  renderSuggestions(body.suggestions || []);
}

/** The highlight's text with its <b> runs as marks, built as text nodes. */
function highlighted(html) {
  const out = [];
  for (const [i, part] of html.split(/<\/?b>/).entries()) {
    const text = new DOMParser().parseFromString(`<!doctype html><p>${part}`, "text/html").body.textContent;
    if (text) out.push(i % 2 ? h("mark", null, text) : text);
  }
  return out;
}

function renderSuggestions(list) {
  activeSuggestion = -1;
  els.q.removeAttribute("aria-activedescendant");
  if (list.length === 0) {
    closeSuggestions();
    return;
  }
  replace(els.suggestions, list.map((sg, i) => {
    const e = sg.entity;
    const key = entityKey({type: e.type, namespace: e.namespace, name: e.name});
    const parents = (e.namespace || []).slice(1);
    return h("li", {
      id: `suggestion-${i}`, role: "option", class: "suggestion", "aria-selected": "false", dataset: {key},
      onmousedown: (ev) => ev.preventDefault(), // keep the focus in the box
      onclick: () => pickSuggestion(i),
    }, badge(e.type), h("span", {class: "name"}, highlighted(sg.highlight)),
    parents.length ? h("span", {class: "ns muted small"}, parents.join(".")) : null);
  }));
  els.suggestions.hidden = false;
  els.q.setAttribute("aria-expanded", "true");
}

function closeSuggestions() {
  clearTimeout(suggestTimer);
  suggestSeq++;
  suggestAbort?.abort();
  els.suggestions.hidden = true;
  els.q.setAttribute("aria-expanded", "false");
  els.q.removeAttribute("aria-activedescendant");
  activeSuggestion = -1;
}

function moveSuggestion(by) {
  const items = els.suggestions.querySelectorAll(".suggestion");
  if (items.length === 0) return;
  activeSuggestion = (activeSuggestion + by + items.length) % items.length;
  items.forEach((li, i) => li.setAttribute("aria-selected", i === activeSuggestion ? "true" : "false"));
  els.q.setAttribute("aria-activedescendant", items[activeSuggestion].id);
  items[activeSuggestion].scrollIntoView({block: "nearest"});
}

/**
 * Opens the entity of suggestion i on its own page: a name typed is an
 * entity wanted. The page shows that entity alone (no result list of an
 * earlier query), and the box is left with its name.
 */
function pickSuggestion(i) {
  const li = els.suggestions.querySelectorAll(".suggestion")[i];
  if (!li) return;
  const key = li.dataset.key;
  closeSuggestions();
  els.q.value = "";
  navigate({...emptyState(), metalake: state.metalake || els.metalake.value, open: key}, {focusDetail: true, force: true});
}

els.q.addEventListener("keydown", (ev) => {
  if (els.suggestions.hidden) return;
  if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
    ev.preventDefault();
    moveSuggestion(ev.key === "ArrowDown" ? 1 : -1);
  } else if (ev.key === "Enter" && activeSuggestion >= 0) {
    ev.preventDefault();
    pickedByEnter = true;
    pickSuggestion(activeSuggestion);
  } else if (ev.key === "Escape") {
    ev.preventDefault();
    ev.stopPropagation();
    closeSuggestions();
  }
});
els.q.addEventListener("blur", () => setTimeout(() => {
  if (document.activeElement !== els.q) closeSuggestions();
}, 0));
els.form.addEventListener("submit", closeSuggestions);

renderAuthButton();
boot();
