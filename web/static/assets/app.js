// semcat's faceted search page: search box, facets, results with paging, the
// entity detail panel and the sign-in control. The state is in the URL.

import {ApiError, apiPath, get, getAuth, onUnauthorized, setAuth} from "./api.js";
import {badge, count, h, plural, replace, typeLabel} from "./dom.js";
import {loadDetail, systemTag} from "./detail.js";
import {emptyState, entityKey, FILTERS, parseEntityKey, readState, searchKey, stateURL} from "./state.js";

const PAGE_SIZE = 20;
const FACETS = FILTERS.map((f) => f.facet).join(",");

const $ = (id) => document.getElementById(id);
const els = {
  form: $("search-form"), q: $("q"), helpToggle: $("help-toggle"), help: $("help"),
  metalake: $("metalake"), queryError: $("query-error"),
  authToggle: $("auth-toggle"), authPanel: $("auth-panel"), authReason: $("auth-reason"),
  authValue: $("auth-value"), authValueLabel: $("auth-value-label"), authSignout: $("auth-signout"),
  filters: $("filters"), facets: $("facets"), activeFilters: $("active-filters"),
  status: $("status"), results: $("results"), more: $("more"),
  layout: $("layout"), detail: $("detail"), detailBody: $("detail-body"), detailClose: $("detail-close"),
  suggestions: $("suggestions"), auth: document.querySelector(".auth"),
};

let state = emptyState();
let metalakes = null; // names, once loaded
let shownSearch = null; // searchKey of the list on screen (or loading)
let shownOpen = ""; // entity key in the detail panel
let cursor = ""; // next page of the list on screen
let total = 0;
let shown = 0;
const resultsByKey = new Map();
let searchSeq = 0;
let searchAbort = null;
let searching = Promise.resolve(); // the list's latest load
let detailAbort = null;
let pendingFocus = null; // {facet, value} to focus after the facets re-render
let detailOpener = null; // element to return focus to when the panel closes

// ---- navigation -------------------------------------------------------------

/** Moves to state s: records it in the URL (push or replace) and shows it. */
function navigate(s, {push = true, force = false, focusDetail = false} = {}) {
  const url = stateURL(s);
  const current = location.search || location.pathname;
  if (url !== current) {
    if (push) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
  }
  show(s, {force, focusDetail});
}

function show(s, {force = false, focusDetail = false} = {}) {
  state = s;
  if (document.activeElement !== els.q || force) els.q.value = s.q;
  if (s.metalake && els.metalake.value !== s.metalake) els.metalake.value = s.metalake;
  if (force || searchKey(s) !== shownSearch) searching = search();
  if (s.open !== shownOpen) {
    if (s.open) openDetail(s.open, {focus: focusDetail});
    else closeDetailPanel();
  }
  markSelected();
}

window.addEventListener("popstate", () => {
  const s = readState();
  els.q.value = s.q;
  if (!s.metalake) s.metalake = state.metalake;
  show(s);
});

// ---- metalakes --------------------------------------------------------------

async function boot() {
  const s = readState();
  els.q.value = s.q;
  setStatus("Loading metalakes…");
  try {
    const body = await get(apiPath("metalakes"));
    metalakes = (body.metalakes || []).map((m) => m.name);
  } catch (e) {
    metalakes = null;
    showError(e, "Could not list the metalakes");
    return;
  }
  const names = [...metalakes];
  if (s.metalake && !names.includes(s.metalake)) names.unshift(s.metalake);
  replace(els.metalake, names.map((n) => h("option", {value: n}, n)));
  els.metalake.disabled = names.length === 0;
  if (names.length === 0) {
    clearList();
    setStatus("There is no metalake yet. Create one through the API (POST /api/metalakes), or start the server with --demo.");
    return;
  }
  if (!s.metalake) s.metalake = names[0];
  shownSearch = null;
  shownOpen = "";
  navigate(s, {push: false, force: true});
}

els.metalake.addEventListener("change", () => {
  // Filters name catalogs, schemas and tags of one metalake: start afresh.
  navigate({...emptyState(), metalake: els.metalake.value, q: state.q});
});

// ---- search -----------------------------------------------------------------

els.form.addEventListener("submit", (ev) => {
  ev.preventDefault();
  if (!state.metalake) return;
  closeHelp();
  navigate({...state, q: els.q.value.trim()}, {force: true});
});

function searchParams(s) {
  return {
    query: s.q || "*",
    type: s.type,
    catalog: s.catalog[0],
    schema: s.schema[0],
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
  setQueryError(null);
  els.results.setAttribute("aria-busy", "true");
  setStatus("Searching…");
  renderActiveFilters();
  let body;
  try {
    body = await get(apiPath("metalakes", s.metalake, "search"), {...searchParams(s), facets: FACETS}, {signal: searchAbort.signal});
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
  renderFacets(body.facets || {});
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
  if (total === 0) {
    setStatus(state.q ? `No results for “${state.q}” in ${where}.` : `Nothing to show in ${where}.`);
    els.results.append(h("li", {class: "empty"},
      h("p", null, "Nothing matched."),
      h("p", {class: "muted"}, activeFilterCount() ? "Remove a filter, or try a prefix (wor*), a field (schema:Name) or * for everything." :
        "Try a prefix (wor*), a field (schema:Name), a tag (tags:t) or * for everything.")));
    return;
  }
  const what = state.q ? ` for “${state.q}”` : "";
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

const HIDDEN_SYSTEM = new Set(["entity-name", "entity-type", "comment", "schema", "creation-time", "ai-context", "expression", "description"]);
const SHOWN_SYSTEM = ["datatype", "model", "dialects", "datasets", "sources", "creator"];

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

function entityLink(key, content, attrs = {}) {
  const a = h("a", {href: stateURL({...state, open: key}), ...attrs}, content);
  a.addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return; // new tab etc.
    ev.preventDefault();
    detailOpener = a.closest(".result") ? a : detailOpener;
    navigate({...state, open: key}, {focusDetail: true});
  });
  return a;
}

function renderResult(r, withScore = false) {
  const e = r.entity || {};
  const ns = e.namespace || [];
  const key = entityKey({type: e.type, namespace: ns, name: e.name});
  resultsByKey.set(key, r);
  const sys = r.metadata?.system?.properties || {};
  const user = r.metadata?.user?.properties || {};
  const parents = ns.slice(1);
  const description = sys.comment || sys.description || "";

  const matches = r.matches || [];
  const userTags = r.metadata?.user?.tags || [];
  const sysTags = r.metadata?.system?.tags || [];

  const props = [];
  for (const k of Object.keys(user).sort().slice(0, 3)) props.push([k, user[k], false]);
  for (const k of SHOWN_SYSTEM) {
    if (props.length >= 4) break;
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
      matches.slice(0, 8).map((m) => h("span", {class: `chip match${m.key === "schema" ? " field" : ""}`, title: `${m.key}: ${m.value}`},
        h("span", {class: "k"}, m.key), h("span", {class: "v"}, m.value))),
      matches.length > 8 ? h("span", {class: "muted small"}, `+${matches.length - 8} more`) : null) : null,
    userTags.length + sysTags.length ? h("div", {class: "chips tags"},
      userTags.map((t) => h("span", {class: "chip tag"}, t)),
      sysTags.slice(0, 6).map((t) => systemTag(e.type, t)),
      sysTags.length > 6 ? h("span", {class: "muted small"}, `+${sysTags.length - 6}`) : null) : null,
    props.length ? h("dl", {class: "props"}, props.map(([k, v, system]) =>
      h("div", {class: system ? "prop system" : "prop"}, h("dt", null, k), h("dd", {title: String(v)}, String(v))))) : null);
}

function markSelected() {
  for (const li of els.results.querySelectorAll(".result")) {
    const on = li.dataset.key === state.open;
    li.classList.toggle("selected", on);
    const a = li.querySelector(".result-link");
    if (on) a?.setAttribute("aria-current", "true");
    else a?.removeAttribute("aria-current");
  }
}

// ---- facets and filters -----------------------------------------------------

function activeFilterCount() {
  return FILTERS.reduce((n, f) => n + state[f.param].length, 0);
}

function toggleFilter(f, value) {
  const cur = state[f.param];
  let next;
  if (cur.includes(value)) next = cur.filter((v) => v !== value);
  else next = f.multi ? [...cur, value] : [value];
  navigate({...state, [f.param]: next});
}

function renderFacets(facets) {
  const groups = FILTERS.map((f) => {
    const active = state[f.param];
    const values = [...(facets[f.facet] || [])];
    // A chosen value stays listed (to be unchosen) even when the answer lacks it.
    for (const v of active) if (!values.some((x) => x.value === v)) values.unshift({value: v, count: null});
    const id = `facet-${f.facet}`;
    return h("section", {class: "facet"},
      h("h2", {id}, f.title),
      values.length === 0
        ? h("p", {class: "muted small"}, "No values")
        : h("ul", {"aria-labelledby": id}, values.map((v) => {
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
        })));
  });
  replace(els.facets, groups);
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
        navigate({...emptyState(), metalake: state.metalake, q: state.q, open: state.open});
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

// ---- detail panel -----------------------------------------------------------

async function openDetail(key, {focus = false} = {}) {
  shownOpen = key;
  const ent = parseEntityKey(key);
  detailAbort?.abort();
  els.detail.hidden = false;
  els.layout.classList.add("with-detail");
  if (!ent) {
    replace(els.detailBody, h("p", {class: "error", role: "alert"}, `Cannot open “${key}”.`));
    return;
  }
  detailAbort = new AbortController();
  const signal = detailAbort.signal;
  els.detail.setAttribute("aria-busy", "true");
  replace(els.detailBody, h("p", {class: "muted"}, "Loading…"));
  if (focus) els.detail.focus();
  const metalake = state.metalake;
  try {
    const nodes = await loadDetail(metalake, ent, {
      signal,
      ready: searching,
      get result() {
        return resultsByKey.get(key) || null;
      },
      link: (k, text) => entityLink(k, text),
    });
    if (signal.aborted) return;
    replace(els.detailBody, nodes);
  } catch (e) {
    if (e.name === "AbortError" || signal.aborted) return;
    replace(els.detailBody,
      h("h2", {id: "detail-title", tabindex: "-1"}, key.slice(key.indexOf(":") + 1)),
      h("p", {class: "error", role: "alert"}, e.message));
  } finally {
    if (!signal.aborted) els.detail.removeAttribute("aria-busy");
  }
  if (focus && !signal.aborted) $("detail-title")?.focus();
}

function closeDetailPanel() {
  shownOpen = "";
  detailAbort?.abort();
  els.detail.hidden = true;
  els.detail.removeAttribute("aria-busy");
  els.layout.classList.remove("with-detail");
  els.detailBody.replaceChildren();
}

function closeDetail() {
  const opener = detailOpener;
  navigate({...state, open: ""});
  const key = opener?.closest(".result")?.dataset.key;
  const again = key && els.results.querySelector(`.result[data-key="${CSS.escape(key)}"] .result-link`);
  (again || els.results).focus();
}

els.detailClose.addEventListener("click", closeDetail);

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
    else if (!els.detail.hidden && ev.target !== els.q) closeDetail();
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
  if (!prefix || !state.metalake || document.activeElement !== els.q) {
    closeSuggestions();
    return;
  }
  suggestAbort = new AbortController();
  let body;
  try {
    body = await get(apiPath("metalakes", state.metalake, "suggest"), {prefix, limit: SUGGEST_LIMIT}, {signal: suggestAbort.signal});
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

/** Opens the entity of suggestion i: a name typed is an entity wanted. */
function pickSuggestion(i) {
  const li = els.suggestions.querySelectorAll(".suggestion")[i];
  if (!li) return;
  const key = li.dataset.key;
  closeSuggestions();
  navigate({...state, open: key}, {focusDetail: true});
}

els.q.addEventListener("keydown", (ev) => {
  if (els.suggestions.hidden) return;
  if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
    ev.preventDefault();
    moveSuggestion(ev.key === "ArrowDown" ? 1 : -1);
  } else if (ev.key === "Enter" && activeSuggestion >= 0) {
    ev.preventDefault();
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
