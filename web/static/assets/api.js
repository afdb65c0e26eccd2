// The REST API of the page's own origin (SPEC §2), with the credentials the
// user entered (HTTP Basic user name or Bearer token) kept in sessionStorage.

const AUTH_KEY = "semcat.auth";

// Credentials for this page only, when sessionStorage is unavailable.
let memoryAuth = null;

/** An error answer of the API: {code, type, message} (SPEC §2), or a network failure. */
export class ApiError extends Error {
  constructor(status, code, type, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.type = type;
  }
}

/** The stored credentials: {kind: "basic"|"bearer", value} or null. */
export function getAuth() {
  try {
    const a = JSON.parse(sessionStorage.getItem(AUTH_KEY) || "null");
    if (a && (a.kind === "basic" || a.kind === "bearer") && typeof a.value === "string" && a.value !== "") return a;
  } catch {
    // unreadable or unavailable storage
  }
  return memoryAuth;
}

export function setAuth(auth) {
  try {
    if (auth) sessionStorage.setItem(AUTH_KEY, JSON.stringify(auth));
    else sessionStorage.removeItem(AUTH_KEY);
  } catch {
    // storage disabled: the credentials last for this page only
    memoryAuth = auth;
    return;
  }
  memoryAuth = null;
}

function authorization() {
  const a = getAuth();
  if (!a) return null;
  if (a.kind === "bearer") return `Bearer ${a.value}`;
  // simple mode: the user name; the password is not checked (SPEC §2.7, README).
  const bytes = new TextEncoder().encode(`${a.value}:`);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return `Basic ${btoa(bin)}`;
}

/** Called with the ApiError of every 401 answer. */
let unauthorizedHandler = () => {};
export function onUnauthorized(fn) {
  unauthorizedHandler = fn;
}

/** Builds "api/metalakes/a/catalogs/b" from path segments, each escaped. */
export function apiPath(...segments) {
  return ["api", ...segments.map((s) => encodeURIComponent(s))].join("/");
}

/**
 * GET a path relative to the page (so "api/..." follows any mount prefix) with
 * query parameters (arrays repeat the key), and return the decoded body.
 * Throws ApiError with the server's message for every error answer.
 */
export async function get(path, params = {}, {signal} = {}) {
  const url = new URL(path, document.baseURI);
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === "") continue;
    for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, one);
  }
  return call("GET", url, undefined, signal);
}

/** Sends a JSON body (POST, PUT) to a path relative to the page; as get. */
export async function send(method, path, body, {signal} = {}) {
  return call(method, new URL(path, document.baseURI), body, signal);
}

async function call(method, url, body, signal) {
  const headers = {Accept: "application/json"};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const auth = authorization();
  if (auth) headers.Authorization = auth;

  let res;
  try {
    res = await fetch(url, {method, headers, signal, credentials: "same-origin", cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body)});
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new ApiError(0, 0, "NetworkError", `Cannot reach the server (${e.message}).`);
  }
  const text = await res.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!res.ok || (parsed && typeof parsed.code === "number" && parsed.code !== 0)) {
    const message = parsed && typeof parsed.message === "string" && parsed.message
      ? parsed.message
      : `${res.status} ${res.statusText || "error"}`.trim();
    const err = new ApiError(res.status, parsed?.code ?? 0, parsed?.type ?? "", message);
    if (res.status === 401) unauthorizedHandler(err);
    throw err;
  }
  if (parsed === null || typeof parsed !== "object") {
    throw new ApiError(res.status, 0, "InvalidResponse", "The server's answer is not JSON.");
  }
  return parsed;
}
