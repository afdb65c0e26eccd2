"""The semcat REST client (standard library only)."""

from __future__ import annotations

import base64
import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from .errors import SemcatConnectionError, SemcatError, error_from_response
from .models import MetricInfo, NameIdentifier, SearchHit, SearchResult
from .policies import PolicyMethods
from .synonyms import SynonymMethods

__all__ = ["Client", "DEFAULT_BASE_URL", "Namespace", "Identifier"]

__version__ = "0.1.0"

DEFAULT_BASE_URL = "http://127.0.0.1:8090"

#: A schema namespace: ``"metalake.catalog.schema"``, a 3-tuple or 3-list of
#: names, or a :class:`NameIdentifier` of a schema.
Namespace = Union[str, Sequence[str], NameIdentifier]

#: An entity identifier: ``"metalake.catalog.schema.name"``, a 4-tuple or
#: 4-list of names, or a :class:`NameIdentifier` (as the list methods return).
Identifier = Union[str, Sequence[str], NameIdentifier]

_SCHEMA_PARTS = ("metalake", "catalog", "schema")

# The server's search waits at most waitMs (default 5 s, max 30 s) for
# minPosition; the HTTP timeout must outlast it.
_DEFAULT_WAIT_SECONDS = 5.0
_WAIT_MARGIN_SECONDS = 5.0


def _split(value: Any, labels: Tuple[str, ...], arg: str) -> Tuple[str, ...]:
    """Split a dotted name, tuple, list or NameIdentifier into len(labels)
    non-empty names; raise ValueError (TypeError for a wrong type) naming
    the argument otherwise."""
    dotted = "'" + ".".join(labels) + "'"
    if isinstance(value, NameIdentifier):
        parts: Tuple[Any, ...] = value.parts
    elif isinstance(value, str):
        parts = tuple(value.split("."))
    elif isinstance(value, (tuple, list)):
        parts = tuple(value)
    else:
        raise TypeError(
            "%s: want a string %s or a tuple of %d names, got %s"
            % (arg, dotted, len(labels), type(value).__name__)
        )
    if len(parts) != len(labels):
        hint = ""
        if isinstance(value, str) and len(parts) > len(labels):
            hint = " (a name that contains '.' must be passed in the tuple form)"
        raise ValueError("%s: want %d parts %s, got %d in %r%s" % (arg, len(labels), dotted, len(parts), value, hint))
    for part, label in zip(parts, labels):
        if not isinstance(part, str):
            raise TypeError("%s: the %s name must be a string, got %s in %r" % (arg, label, type(part).__name__, value))
        if part == "":
            raise ValueError("%s: the %s name is empty in %r" % (arg, label, value))
    return parts


def _check_metalake(metalake: Any) -> None:
    if not isinstance(metalake, str):
        raise TypeError("metalake: want a string, got %s" % type(metalake).__name__)
    if not metalake:
        raise ValueError("metalake: the name is empty")


def _names(value: Union[None, str, Iterable[str]], arg: str) -> List[str]:
    """A str or an iterable of str as a list; a str may be a comma list."""
    if value is None:
        return []
    if isinstance(value, str):
        items = value.split(",")
    else:
        items = list(value)
    out = []
    for item in items:
        if not isinstance(item, str):
            raise TypeError("%s: want strings, got %s" % (arg, type(item).__name__))
        item = item.strip()
        if item:
            out.append(item)
    return out


class Client(PolicyMethods, SynonymMethods):
    """A client of one semcat server.

    Args:
        base_url: the server, e.g. ``http://127.0.0.1:8090`` (``make run``'s
            address). A path prefix is kept: ``https://host/semcat``.
        token: a JWT for servers in auth mode ``jwt`` (sent as
            ``Authorization: Bearer <token>``).
        user: a user name for servers in auth mode ``simple`` (sent as HTTP
            Basic credentials; the server ignores the password).
        timeout: seconds to wait for each response.
        metalake: the metalake :meth:`search` uses when none is given.

    Namespaces and identifiers are dotted strings
    (``"metalake.catalog.schema"``, ``"metalake.catalog.schema.name"``) or
    tuples/lists of the same parts; use the tuple form for a name that
    contains a dot. Every method raises a :class:`~semcat.SemcatError`
    subclass when the request fails, and ``ValueError`` for an argument it
    can reject without asking the server.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        token: Optional[str] = None,
        user: Optional[str] = None,
        timeout: float = 30,
        *,
        metalake: Optional[str] = None,
    ) -> None:
        split = urllib.parse.urlsplit(base_url)
        if split.scheme not in ("http", "https") or not split.netloc:
            raise ValueError("base_url: want an http:// or https:// URL, got %r" % (base_url,))
        if split.query or split.fragment:
            raise ValueError("base_url: must not have a query or fragment, got %r" % (base_url,))
        if token is not None and user is not None:
            raise ValueError("token, user: give at most one (token for auth mode jwt, user for auth mode simple)")
        if timeout is None or timeout <= 0:
            raise ValueError("timeout: want a positive number of seconds, got %r" % (timeout,))
        if metalake is not None:
            _check_metalake(metalake)
        self.base_url = base_url.rstrip("/")
        self.timeout = float(timeout)
        self.metalake = metalake
        self._auth = "none"
        self._headers = {
            "Accept": "application/json",
            "User-Agent": "semcat-python/" + __version__,
        }
        if token is not None:
            if not token or any(c in token for c in "\r\n"):
                raise ValueError("token: must be a non-empty single-line string")
            self._headers["Authorization"] = "Bearer " + token
            self._auth = "token"
        elif user is not None:
            if not user or ":" in user or any(c in user for c in "\r\n"):
                raise ValueError("user: must be a non-empty user name without ':'")
            creds = base64.b64encode((user + ":").encode("utf-8")).decode("ascii")
            self._headers["Authorization"] = "Basic " + creds
            self._auth = "user=%r" % (user,)
        self._opener = urllib.request.build_opener()

    def __repr__(self) -> str:
        return "Client(base_url=%r, auth=%s)" % (self.base_url, self._auth)

    # ---- operations ---------------------------------------------------

    def version(self) -> str:
        """semcat's own version (``GET /api/version``'s ``semcatVersion``);
        from a server that is not semcat, its version."""
        version = self._get(["version"], member="version")  # Gravitino's {"version": {"version": "..."}}
        if not isinstance(version, dict):
            return str(version)
        return str(version.get("semcatVersion") or version.get("version", ""))

    def api_version(self) -> str:
        """The Gravitino API version the server implements (``version`` of
        ``GET /api/version``)."""
        version = self._get(["version"], member="version")
        return str(version.get("version", "")) if isinstance(version, dict) else str(version)

    # ---- schema-level metric discovery (SPEC §2.4) ---------------------

    def list_metrics(
        self,
        namespace: Namespace,
        *,
        names: Union[None, str, Iterable[str]] = None,
        query: Optional[str] = None,
        page_size: Optional[int] = None,
    ) -> List[NameIdentifier]:
        """The identifiers of every metric of every semantic model of the
        schema the caller may see, in one request: namespace
        ``(metalake, catalog, schema, model)`` and the metric's name, sorted
        by model name then metric name.

        ``names`` keeps the metrics of those names; ``query`` keeps those a
        search within the schema's metrics matches, best first.
        ``page_size`` fetches the listing that many at a time (following
        the server's cursors) instead of in one answer."""
        ids = self._metric_pages(namespace, False, names, query, page_size, "identifiers")
        return [NameIdentifier.from_json(i) for i in ids]

    def list_metric_infos(
        self,
        namespace: Namespace,
        *,
        names: Union[None, str, Iterable[str]] = None,
        query: Optional[str] = None,
        page_size: Optional[int] = None,
    ) -> List[MetricInfo]:
        """Like :meth:`list_metrics`, with each metric's complete stored
        definition (``details=true``), in the same order."""
        metrics = self._metric_pages(namespace, True, names, query, page_size, "metrics")
        return [MetricInfo.from_json(m) for m in metrics]

    def _metric_pages(
        self,
        namespace: Namespace,
        details: bool,
        names: Union[None, str, Iterable[str]],
        query: Optional[str],
        page_size: Optional[int],
        member: str,
    ) -> List[Dict[str, Any]]:
        params: List[Tuple[str, str]] = [("details", "true")] if details else []
        if names is not None:
            params += [("names", n) for n in ([names] if isinstance(names, str) else list(names))]
        if query is not None:
            params.append(("query", query))
        if page_size is not None:
            if not isinstance(page_size, int) or isinstance(page_size, bool) or not 1 <= page_size <= 1000:
                raise ValueError("page_size: must be a whole number from 1 to 1000")
            params.append(("limit", str(page_size)))
        path = self._schema_path(namespace) + ["semantic-model-metrics"]
        out: List[Dict[str, Any]] = []
        cursor: Optional[str] = None
        while True:
            url = self._url(path, params + ([("cursor", cursor)] if cursor else []))
            body = self._request("GET", url)
            _require(body, member, url)
            out.extend(body[member])
            cursor = body.get("cursor")
            if not cursor:
                return out

    # ---- semantic models and tables ------------------------------------

    def list_models(self, namespace: Namespace) -> List[NameIdentifier]:
        """The identifiers of the schema's semantic models the caller may
        see, sorted by name."""
        ids = self._get(self._schema_path(namespace) + ["semantic-models"], member="identifiers")
        return [NameIdentifier.from_json(i) for i in ids]

    def get_model(self, ident: Identifier) -> Dict[str, Any]:
        """A semantic model: ``{name, comment, definition, properties,
        audit}`` as the server returns it."""
        parts = _split(ident, _SCHEMA_PARTS + ("model",), "ident")
        return self._get(self._schema_path(parts[:3]) + ["semantic-models", parts[3]], member="semanticModel")

    def list_tables(self, namespace: Namespace) -> List[NameIdentifier]:
        """The identifiers of the schema's tables, sorted by name."""
        ids = self._get(self._schema_path(namespace) + ["tables"], member="identifiers")
        return [NameIdentifier.from_json(i) for i in ids]

    def get_table(self, ident: Identifier) -> Dict[str, Any]:
        """A table: ``{name, comment, columns, properties, audit}`` as the
        server returns it (nested column types included)."""
        parts = _split(ident, _SCHEMA_PARTS + ("table",), "ident")
        return self._get(self._schema_path(parts[:3]) + ["tables", parts[3]], member="table")

    # ---- search (SPEC §2.6, §5) -----------------------------------------

    def search(
        self,
        query: str,
        *,
        metalake: Optional[str] = None,
        types: Union[None, str, Iterable[str]] = None,
        catalog: Optional[str] = None,
        schema: Optional[str] = None,
        tags: Union[None, str, Iterable[str]] = None,
        scope: Optional[str] = None,
        facets: Union[None, str, Iterable[str]] = None,
        facet_size: Optional[int] = None,
        sort: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        cursor: Optional[str] = None,
        min_position: Optional[str] = None,
        wait_ms: Optional[int] = None,
    ) -> SearchResult:
        """One page of search results.

        Args:
            query: the query (``word``, ``wor*``, ``key:value``,
                ``schema:field``, ``tags:t``, ``+must``, ``-not``, ``*``, ...).
            metalake: where to search; defaults to the client's ``metalake``.
            types: entity types to keep: ``catalog``, ``schema``, ``table``,
                ``semantic_model``, ``metric`` (a list or a comma list).
            catalog, schema: restrict to this catalog / schema name.
            tags: only entities that have every one of these tags.
            scope: ``"user"`` or ``"system"`` metadata only (default both).
            facets: facets to count: ``type``, ``catalog``, ``schema``, ``tags``.
            facet_size: the most values per facet (server default 10).
            sort: ``relevance`` (default), ``name``, ``-name``, ``created``,
                ``-created``.
            limit: page size (server default 20, max 1000).
            offset: results to skip (max 10,000; not with ``cursor``).
            cursor: the ``cursor`` of the previous page.
            min_position: an ``X-Semcat-Position`` header value of a write;
                the search first waits until the index covers it (read your
                own writes) and raises :class:`~semcat.IndexNotCaughtUpError`
                if that takes longer than ``wait_ms``.
            wait_ms: the longest wait for ``min_position`` (server default
                5000, max 30000).
        """
        metalake = metalake if metalake is not None else self.metalake
        if metalake is None:
            raise ValueError("metalake: required (pass metalake= or create the Client with metalake=)")
        _check_metalake(metalake)
        if not isinstance(query, str):
            raise TypeError("query: want a string, got %s" % type(query).__name__)
        params: List[Tuple[str, str]] = [("query", query)]
        params += [("type", t) for t in _names(types, "types")]
        if catalog is not None:
            params.append(("catalog", catalog))
        if schema is not None:
            params.append(("schema", schema))
        params += [("tag", t) for t in _names(tags, "tags")]
        if scope is not None:
            params.append(("scope", scope))
        facet_names = _names(facets, "facets")
        if facet_names:
            params.append(("facets", ",".join(facet_names)))
        for name, value in (("facetSize", facet_size), ("limit", limit), ("offset", offset), ("waitMs", wait_ms)):
            if value is not None:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise TypeError("%s: want an int, got %r" % (_snake(name), value))
                params.append((name, str(value)))
        if sort is not None:
            params.append(("sort", sort))
        if cursor:
            params.append(("cursor", cursor))
        timeout = self.timeout
        if min_position:
            params.append(("minPosition", min_position))
            wait = wait_ms / 1000.0 if wait_ms is not None else _DEFAULT_WAIT_SECONDS
            timeout = max(timeout, wait + _WAIT_MARGIN_SECONDS)
        url = self._url(["metalakes", metalake, "search"], params)
        body = self._request("GET", url, timeout=timeout)
        _require(body, "results", url)
        return SearchResult.from_json(body)

    def iter_search(
        self,
        query: str,
        *,
        page_size: int = 100,
        metalake: Optional[str] = None,
        types: Union[None, str, Iterable[str]] = None,
        catalog: Optional[str] = None,
        schema: Optional[str] = None,
        tags: Union[None, str, Iterable[str]] = None,
        scope: Optional[str] = None,
        sort: Optional[str] = None,
        min_position: Optional[str] = None,
        wait_ms: Optional[int] = None,
    ) -> Iterator[SearchHit]:
        """Every hit of a search, page after page (following ``cursor``), each
        once. The arguments are those of :meth:`search`; ``page_size`` is the
        ``limit`` of each request."""
        cursor: Optional[str] = None
        while True:
            page = self.search(
                query,
                metalake=metalake,
                types=types,
                catalog=catalog,
                schema=schema,
                tags=tags,
                scope=scope,
                sort=sort,
                limit=page_size,
                cursor=cursor,
                # Harmless once reached, and right if pages hit different
                # servers behind a load balancer.
                min_position=min_position,
                wait_ms=wait_ms,
            )
            for hit in page.hits:
                yield hit
            if not page.cursor or not page.hits:
                return
            cursor = page.cursor

    # ---- transport -------------------------------------------------------

    def _schema_path(self, namespace: Namespace) -> List[str]:
        m, c, s = _split(namespace, _SCHEMA_PARTS, "namespace")
        return ["metalakes", m, "catalogs", c, "schemas", s]

    def _url(self, segments: Sequence[str], params: Optional[Sequence[Tuple[str, str]]] = None) -> str:
        # safe="": a '/' inside a name must travel as %2F, one path segment.
        url = self.base_url + "/api/" + "/".join(urllib.parse.quote(s, safe="") for s in segments)
        if params:
            url += "?" + urllib.parse.urlencode(list(params), quote_via=urllib.parse.quote)
        return url

    def _get(
        self,
        segments: Sequence[str],
        params: Optional[Sequence[Tuple[str, str]]] = None,
        *,
        member: str,
        timeout: Optional[float] = None,
    ) -> Any:
        """GET the route and answer the member of the success body that
        holds the result ("table", "identifiers", ...)."""
        url = self._url(segments, params)
        body = self._request("GET", url, timeout=timeout)
        _require(body, member, url)
        return body[member]

    def _request(self, method: str, url: str, *, timeout: Optional[float] = None, body: Any = None) -> Dict[str, Any]:
        headers, data = dict(self._headers), None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode("utf-8")
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        status: Optional[int] = None
        try:
            try:
                with self._opener.open(req, timeout=timeout or self.timeout) as resp:
                    status = resp.status
                    raw = resp.read()
            except urllib.error.HTTPError as e:
                status = e.code
                try:
                    raw = e.read()
                finally:
                    e.close()
                text = raw.decode("utf-8", "replace")
                raise error_from_response(status, _loads(text), url, text) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
            reason = getattr(e, "reason", None) or e
            where = "reading the response of" if status is not None else "cannot reach"
            raise SemcatConnectionError("%s %s: %s" % (where, url, reason), status=status, url=url) from e
        text = raw.decode("utf-8", "replace")
        body = _loads(text)
        if not isinstance(body, dict):
            raise SemcatError("invalid response from %s: not a JSON object" % url, status=status, url=url)
        if body.get("code", 0) != 0:
            raise error_from_response(status, body, url, text)
        return body


def _require(body: Dict[str, Any], member: str, url: str) -> None:
    if body.get(member) is None:
        raise SemcatError("invalid response from %s: no '%s' member" % (url, member), url=url)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)
