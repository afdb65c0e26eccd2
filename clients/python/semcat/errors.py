"""The exceptions of the semcat client.

Every error the client raises for a failed request is a :class:`SemcatError`.
Errors the server reports (its body is ``{"code", "type", "message"}``) map to
a subclass by their numeric code, so callers can write
``except NotFoundError`` instead of comparing codes. Invalid arguments that
the client itself detects (a malformed namespace, say) are plain
``ValueError`` and never reach the server.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

__all__ = [
    "SemcatError",
    "UnauthorizedError",
    "IllegalArgumentError",
    "InternalError",
    "NotFoundError",
    "AlreadyExistsError",
    "NonEmptyError",
    "UnsupportedError",
    "ForbiddenError",
    "ConcurrentModificationError",
    "IndexNotCaughtUpError",
    "SemcatConnectionError",
    "error_from_response",
]


class SemcatError(Exception):
    """A request to semcat failed.

    Attributes:
        code: the server's error code (1001-1013), or None when the server
            did not answer with an error body (network failure, a proxy's
            HTML page, ...).
        type: the server's exception name, e.g. ``NoSuchSchemaException``.
        message: what went wrong, safe to show.
        status: the HTTP status, or None when there was no response.
        url: the URL of the failed request, if known.
    """

    #: The server code this class stands for (None for the base class).
    CODE: Optional[int] = None

    def __init__(
        self,
        message: str,
        *,
        code: Optional[int] = None,
        type: Optional[str] = None,
        status: Optional[int] = None,
        url: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.type = type
        self.message = message
        self.status = status
        self.url = url

    def __str__(self) -> str:
        parts = []
        if self.status is not None:
            parts.append("HTTP %d" % self.status)
        if self.code is not None:
            parts.append("code %d" % self.code)
        if self.type:
            parts.append(self.type)
        prefix = "[" + ", ".join(parts) + "] " if parts else ""
        return prefix + self.message

    def __repr__(self) -> str:
        return "%s(code=%r, type=%r, message=%r, status=%r)" % (
            self.__class__.__name__,
            self.code,
            self.type,
            self.message,
            self.status,
        )


class UnauthorizedError(SemcatError):
    """401, code 1011: missing or invalid credentials."""

    CODE = 1011


class IllegalArgumentError(SemcatError):
    """400 (or 413), code 1001: invalid argument, body or validation failure."""

    CODE = 1001


class InternalError(SemcatError):
    """500, code 1002: a storage failure or another internal error."""

    CODE = 1002


class NotFoundError(SemcatError):
    """404, code 1003: no such metalake, catalog, schema, table, model, ..."""

    CODE = 1003


class AlreadyExistsError(SemcatError):
    """409, code 1004: the entity already exists."""

    CODE = 1004


class NonEmptyError(SemcatError):
    """409, code 1005: drop of a non-empty parent without force/cascade."""

    CODE = 1005


class UnsupportedError(SemcatError):
    """405, code 1006: unsupported for the catalog type."""

    CODE = 1006


class ForbiddenError(SemcatError):
    """403, code 1008: the caller may not do this."""

    CODE = 1008


class NotInUseError(SemcatError):
    """409, code 1009: an operation under a disabled metalake or catalog."""

    CODE = 1009


class InUseError(SemcatError):
    """409, code 1010: drop of an enabled metalake or catalog without force."""

    CODE = 1010


class ConcurrentModificationError(SemcatError):
    """409, code 1012: an If-Match mismatch or another concurrent change."""

    CODE = 1012


class IndexNotCaughtUpError(SemcatError):
    """503, code 1013: the search index did not reach ``min_position`` in time."""

    CODE = 1013


class SemcatConnectionError(SemcatError):
    """The server could not be reached, or the connection failed or timed
    out before a complete response arrived. ``url`` is the request's URL and
    ``__cause__`` the underlying exception."""


_BY_CODE: Dict[int, Type[SemcatError]] = {
    cls.CODE: cls
    for cls in (
        UnauthorizedError,
        IllegalArgumentError,
        InternalError,
        NotFoundError,
        AlreadyExistsError,
        NonEmptyError,
        UnsupportedError,
        ForbiddenError,
        NotInUseError,
        InUseError,
        ConcurrentModificationError,
        IndexNotCaughtUpError,
    )
    if cls.CODE is not None
}

# Used only when a response has no semcat error body (e.g. a proxy's page).
_BY_STATUS: Dict[int, Type[SemcatError]] = {
    400: IllegalArgumentError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    413: IllegalArgumentError,
    405: UnsupportedError,
    500: InternalError,
}


def error_from_response(status: Optional[int], body: Any, url: Optional[str] = None, raw: str = "") -> SemcatError:
    """Return the exception for an error response: by the body's ``code``
    when the body is a semcat error, otherwise by the HTTP status."""
    if isinstance(body, dict) and isinstance(body.get("code"), int) and not isinstance(body.get("code"), bool):
        code = body["code"]
        message = body.get("message")
        if not isinstance(message, str):
            message = "request failed with code %d" % code
        typ = body.get("type") if isinstance(body.get("type"), str) else None
        cls = _BY_CODE.get(code, SemcatError)
        return cls(message, code=code, type=typ, status=status, url=url)
    cls = _BY_STATUS.get(status or 0, SemcatError)
    snippet = raw.strip()
    if len(snippet) > 200:
        snippet = snippet[:200] + "..."
    message = "unexpected response from %s" % (url or "the server")
    if snippet:
        message += ": " + snippet
    return cls(message, status=status, url=url)
