"""End-to-end tests of the Python client's policy calls (semcat SPEC §2.10)
against a live server; run as test_client.py is (SEMCAT_TEST_URL). The
catalog they need is created with plain urllib in a metalake of their own,
dropped afterwards."""

from __future__ import annotations

import unittest
import uuid

from semcat import AlreadyExistsError, IllegalArgumentError, NotFoundError, Policy

from .test_client import URL, new_client, q, rest
from .test_client import setUpModule as _require_server


def setUpModule() -> None:
    _require_server()


class PolicyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.m = "pypolicy_" + uuid.uuid4().hex[:10]
        m = q(cls.m)
        try:
            rest("POST", "/api/metalakes", {"name": cls.m})
            rest("POST", "/api/metalakes/%s/catalogs" % m, {"name": "rel", "type": "relational"})
            rest("POST", "/api/metalakes/%s/catalogs/rel/schemas" % m, {"name": "sales"})
            for t in ("orders", "items"):
                rest("POST", "/api/metalakes/%s/catalogs/rel/schemas/sales/tables" % m,
                     {"name": t, "columns": [{"name": "id", "type": "long"}]})
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

    def test_policies(self) -> None:
        c, m = self.c, self.m
        self.assertTrue(URL)
        p = c.create_policy(m, "retention", ["catalog", "TABLE"], {"days": 30, "tiers": ["hot", None]},
                            comment="thirty days", properties={"team": "data"})
        self.assertIsInstance(p, Policy)
        self.assertEqual((p.name, p.policy_type, p.enabled, p.inherited), ("retention", "custom", True, None))
        self.assertEqual(p.supported_object_types, ("catalog", "table"))
        self.assertEqual(p.custom_rules, {"days": 30, "tiers": ["hot", None]})
        c.create_policy(m, "masking", ["TABLE"], enabled=False)
        with self.assertRaises(AlreadyExistsError) as e:
            c.create_policy(m, "masking", ["TABLE"])
        self.assertEqual(e.exception.type, "PolicyAlreadyExistsException")
        with self.assertRaises(IllegalArgumentError):
            c.create_policy(m, "bad", ["TABLE"], policy_type="system_iceberg_compaction")
        with self.assertRaises(ValueError):
            c.create_policy(m, "bad", [])

        self.assertEqual(c.list_policies(m), ["masking", "retention"])
        self.assertEqual([(p.name, p.enabled) for p in c.list_policy_infos(m)], [("masking", False), ("retention", True)])
        self.assertEqual(c.get_policy(m, "retention").comment, "thirty days")
        with self.assertRaises(NotFoundError) as e:
            c.get_policy(m, "nope")
        self.assertEqual((e.exception.code, e.exception.type), (1003, "NoSuchPolicyException"))

        c.enable_policy(m, "masking")
        self.assertTrue(c.get_policy(m, "masking").enabled)
        c.disable_policy(m, "masking")
        self.assertFalse(c.get_policy(m, "masking").enabled)
        self.assertIsNone(c.update_policy_comment(m, "masking", None).comment)
        p = c.update_policy_content(m, "masking", ["TABLE"], {"mask": "sha256"})
        self.assertEqual(p.custom_rules, {"mask": "sha256"})

        # Attach to the catalog and a table; the table's sibling inherits.
        self.assertEqual(c.associate_policies(m, "catalog", "rel", add=["retention", "nope"]), ["retention"])
        self.assertEqual(c.associate_policies(m, "TABLE", ("rel", "sales", "orders"), add="masking"), ["masking"])
        with self.assertRaises(AlreadyExistsError) as e:
            c.associate_policies(m, "table", "rel.sales.orders", add=["masking"])
        self.assertEqual(e.exception.type, "PolicyAlreadyAssociatedException")
        self.assertEqual(c.list_object_policies(m, "table", "rel.sales.orders"), ["masking", "retention"])
        infos = c.list_object_policy_infos(m, "table", "rel.sales.items")
        self.assertEqual([(p.name, p.inherited) for p in infos], [("retention", True)])
        self.assertFalse(c.get_object_policy(m, "table", "rel.sales.orders", "masking").inherited)
        self.assertTrue(c.get_object_policy(m, "schema", "rel.sales", "retention").inherited)
        with self.assertRaises(NotFoundError):
            c.get_object_policy(m, "table", "rel.sales.items", "masking")
        self.assertEqual(c.list_policy_objects(m, "retention"), [("catalog", "rel")])

        p = c.rename_policy(m, "retention", "keep")
        self.assertEqual(p.name, "keep")
        self.assertEqual(c.associate_policies(m, "catalog", "rel", remove="keep"), [])
        self.assertEqual(c.list_object_policies(m, "table", "rel.sales.items"), [])
        self.assertTrue(c.delete_policy(m, "keep"))
        self.assertFalse(c.delete_policy(m, "keep"))
        with self.assertRaises(ValueError):
            c.associate_policies(m, "volume", "rel", add="x")
