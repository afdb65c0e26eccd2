"""Synonym sets (semcat SPEC §2.6): a metalake's lists of words and phrases
that a search takes as one another, applied to the next search with no
reindex.

:class:`SynonymMethods` holds the client's synonym calls; :class:`~semcat.Client`
has them all.
"""

from __future__ import annotations

from typing import Iterable, List

__all__ = ["SynonymMethods"]


class SynonymMethods:
    """The synonym calls of :class:`~semcat.Client` (it provides ``_url``
    and ``_request``)."""

    def _synonyms_call(self, method: str, metalake: str, body: object = None) -> List[List[str]]:
        from .client import _check_metalake, _require

        _check_metalake(metalake)
        url = self._url(["metalakes", metalake, "synonyms"])  # type: ignore[attr-defined]
        out = self._request(method, url, body=body)  # type: ignore[attr-defined]
        _require(out, "synonyms", url)
        return [list(s) for s in out["synonyms"]]

    def get_synonyms(self, metalake: str) -> List[List[str]]:
        """A metalake's synonym sets, e.g. ``[["mau", "monthly active users"]]``;
        none is an empty list."""
        return self._synonyms_call("GET", metalake)

    def set_synonyms(self, metalake: str, sets: Iterable[Iterable[str]]) -> List[List[str]]:
        """Replace a metalake's synonym sets (an empty list clears them); at
        most 10,000 sets of 1 to 16 entries, each 1 to 128 characters. Needs
        the metalake's owner or a service admin."""
        body = []
        for i, s in enumerate(sets):
            if isinstance(s, str):
                raise ValueError("sets[%d]: want a list of words or phrases, got the string %r" % (i, s))
            entries = list(s)
            for j, e in enumerate(entries):
                if not isinstance(e, str):
                    raise TypeError("sets[%d][%d]: want a string, got %s" % (i, j, type(e).__name__))
            body.append(entries)
        return self._synonyms_call("PUT", metalake, {"synonyms": body})
