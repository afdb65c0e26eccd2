"""End-to-end tests of the Python client's synonym calls (semcat SPEC §2.6)
against a live server; run as test_client.py is (SEMCAT_TEST_URL), in a
metalake of their own, dropped afterwards."""

from __future__ import annotations

import unittest
import uuid

from semcat import IllegalArgumentError

from .test_client import new_client, q, rest
from .test_client import setUpModule as _require_server


def setUpModule() -> None:
    _require_server()


class SynonymTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.m = "pysyn_" + uuid.uuid4().hex[:10]
        m = q(cls.m)
        try:
            rest("POST", "/api/metalakes", {"name": cls.m})
            rest("POST", "/api/metalakes/%s/catalogs" % m, {"name": "rel", "type": "relational"})
            rest("POST", "/api/metalakes/%s/catalogs/rel/schemas" % m, {"name": "sales"})
            _, headers = rest("POST", "/api/metalakes/%s/catalogs/rel/schemas/sales/tables" % m,
                              {"name": "glacier_events", "columns": [{"name": "id", "type": "long"}]})
            cls.position = headers.get("X-Semcat-Position")
        except BaseException:
            cls.tearDownClass()
            raise
        cls.c = new_client()

    @classmethod
    def tearDownClass(cls) -> None:
        try:
            rest("DELETE", "/api/metalakes/%s?force=true" % q(cls.m))
        except Exception:
            pass

    def test_synonyms(self) -> None:
        c, m = self.c, self.m
        self.assertEqual(c.get_synonyms(m), [])
        self.assertEqual(c.set_synonyms(m, [("iOS", "glacier")]), [["iOS", "glacier"]])
        self.assertEqual(c.get_synonyms(m), [["iOS", "glacier"]])
        names = [h.name for h in c.search("ios", metalake=m, types=["table"], min_position=self.position).hits]
        self.assertEqual(names, ["glacier_events"])
        with self.assertRaises(IllegalArgumentError):
            c.set_synonyms(m, [["a", ""]])
        with self.assertRaises(ValueError):
            c.set_synonyms(m, ["ios"])
        self.assertEqual(c.set_synonyms(m, []), [])


if __name__ == "__main__":
    unittest.main()
