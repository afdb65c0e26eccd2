"""The values the semcat client returns.

Each keeps the server's JSON object it was made from in ``raw``, so keys this
client does not know about are never lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

__all__ = ["NameIdentifier", "MetricInfo", "SearchHit", "FacetValue", "SearchResult"]


@dataclass(frozen=True)
class NameIdentifier:
    """An entity by its parent namespace and its name.

    ``namespace`` is the full path from the metalake down to the parent, as
    the server returns it: ``("m", "rel", "sales")`` for a table or model,
    ``("m", "rel", "sales", "model")`` for a metric. ``str()`` gives the dotted
    form; pass the identifier itself (not its string) to the client when a
    name could contain a dot.
    """

    namespace: Tuple[str, ...]
    name: str

    @classmethod
    def from_json(cls, obj: Dict[str, Any]) -> "NameIdentifier":
        return cls(tuple(obj.get("namespace") or ()), obj["name"])

    @property
    def parts(self) -> Tuple[str, ...]:
        """The namespace followed by the name."""
        return self.namespace + (self.name,)

    def __str__(self) -> str:
        return ".".join(self.parts)


@dataclass(frozen=True)
class MetricInfo:
    """A metric of a semantic model with its complete stored definition.

    ``namespace`` is ``(metalake, catalog, schema, model)``; ``metric`` is the
    definition exactly as the server returned it (``name``, ``expression``,
    and whichever of ``description``, ``datatype``, ``aiContext``,
    ``customExtensions`` it has).
    """

    namespace: Tuple[str, ...]
    metric: Dict[str, Any]

    @classmethod
    def from_json(cls, obj: Dict[str, Any]) -> "MetricInfo":
        return cls(tuple(obj.get("namespace") or ()), obj["metric"])

    @property
    def name(self) -> str:
        return self.metric["name"]

    @property
    def model(self) -> str:
        """The name of the semantic model the metric belongs to."""
        return self.namespace[-1]

    @property
    def identifier(self) -> NameIdentifier:
        """The metric's identifier, as :meth:`Client.list_metrics` returns it."""
        return NameIdentifier(self.namespace, self.name)

    @property
    def description(self) -> Optional[str]:
        return self.metric.get("description")

    @property
    def datatype(self) -> Optional[str]:
        return self.metric.get("datatype")

    @property
    def ai_context(self) -> Union[None, str, Dict[str, Any]]:
        """The metric's context for AI agents: a string, or an object
        (``instructions``, ``synonyms``, ``examples`` and any other keys),
        or ``None``."""
        return self.metric.get("aiContext")

    #: The same as :attr:`ai_context`, under the definition's own key.
    aiContext = ai_context

    @property
    def expressions(self) -> Dict[str, str]:
        """The metric's SQL per dialect, e.g. ``{"ANSI_SQL": "SUM(amount)"}``."""
        dialects = (self.metric.get("expression") or {}).get("dialects") or []
        return {d["dialect"]: d["expression"] for d in dialects}


@dataclass(frozen=True)
class SearchHit:
    """One search result: the entity, its score, what the query matched and
    the entity's complete system and user metadata."""

    type: str
    namespace: Tuple[str, ...]
    name: str
    score: float
    matches: List[Dict[str, str]]
    metadata: Dict[str, Any]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, obj: Dict[str, Any]) -> "SearchHit":
        entity = obj.get("entity") or {}
        return cls(
            type=entity.get("type", ""),
            namespace=tuple(entity.get("namespace") or ()),
            name=entity.get("name", ""),
            score=float(obj.get("score") or 0.0),
            matches=list(obj.get("matches") or []),
            metadata=obj.get("metadata") or {},
            raw=obj,
        )

    @property
    def identifier(self) -> NameIdentifier:
        return NameIdentifier(self.namespace, self.name)

    @property
    def user_properties(self) -> Dict[str, str]:
        return ((self.metadata.get("user") or {}).get("properties")) or {}

    @property
    def system_properties(self) -> Dict[str, str]:
        return ((self.metadata.get("system") or {}).get("properties")) or {}

    @property
    def tags(self) -> List[str]:
        """The entity's user tags."""
        return list(((self.metadata.get("user") or {}).get("tags")) or [])

    def __str__(self) -> str:
        return "%s:%s" % (self.type, self.identifier)


@dataclass(frozen=True)
class FacetValue:
    """One value of a facet and how many visible results have it."""

    value: str
    count: int


@dataclass(frozen=True)
class SearchResult:
    """One page of search results.

    ``total`` counts every matching entity the caller may see (not just this
    page); ``position`` is how far the index had applied writes; ``cursor``
    is set when more results follow (pass it as ``cursor=`` for the next
    page, or use :meth:`Client.iter_search`).
    """

    total: int
    hits: List[SearchHit]
    facets: Dict[str, List[FacetValue]]
    cursor: Optional[str]
    position: str
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, obj: Dict[str, Any]) -> "SearchResult":
        facets = {
            name: [FacetValue(v["value"], int(v["count"])) for v in (values or [])]
            for name, values in (obj.get("facets") or {}).items()
        }
        return cls(
            total=int(obj.get("total") or 0),
            hits=[SearchHit.from_json(h) for h in (obj.get("results") or [])],
            facets=facets,
            cursor=obj.get("cursor") or None,
            position=obj.get("position") or "",
            raw=obj,
        )

    @property
    def next_cursor(self) -> Optional[str]:
        """Alias of ``cursor``: the token of the next page, or None."""
        return self.cursor

    def __iter__(self) -> Iterator[SearchHit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)
