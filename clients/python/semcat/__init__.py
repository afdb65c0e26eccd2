"""semcat: a Python client for the semcat metadata catalog and search service.

    >>> from semcat import Client
    >>> c = Client("http://127.0.0.1:8090")
    >>> c.list_metrics("demo.warehouse.sales")
    >>> c.search("turnover", metalake="demo", types=["metric"]).hits

Standard library only; see README.md.
"""

from .client import DEFAULT_BASE_URL, Client, Identifier, Namespace, __version__
from .errors import (
    AlreadyExistsError,
    ConcurrentModificationError,
    ForbiddenError,
    IllegalArgumentError,
    IndexNotCaughtUpError,
    InternalError,
    InUseError,
    NonEmptyError,
    NotFoundError,
    NotInUseError,
    SemcatConnectionError,
    SemcatError,
    UnauthorizedError,
    UnsupportedError,
)
from .models import FacetValue, MetricInfo, NameIdentifier, SearchHit, SearchResult
from .policies import Policy

__all__ = [
    "__version__",
    "DEFAULT_BASE_URL",
    "Client",
    "Namespace",
    "Identifier",
    "NameIdentifier",
    "MetricInfo",
    "SearchHit",
    "SearchResult",
    "FacetValue",
    "Policy",
    "SemcatError",
    "UnauthorizedError",
    "IllegalArgumentError",
    "InternalError",
    "NotFoundError",
    "AlreadyExistsError",
    "NonEmptyError",
    "UnsupportedError",
    "ForbiddenError",
    "NotInUseError",
    "InUseError",
    "ConcurrentModificationError",
    "IndexNotCaughtUpError",
    "SemcatConnectionError",
]
