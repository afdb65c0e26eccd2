"""End-to-end tests of the semcat Python client against a live server.

Run from the repository root:

    SEMCAT_TEST_URL=http://127.0.0.1:8090 PYTHONPATH=clients/python \
        python3 -m unittest discover -s clients/python/tests -t clients/python -v

`go test ./cmd/semcat -run TestPythonClient` does exactly that against a
fresh server with the demo catalog. The server must run with the demo catalog
(`make run` does). SEMCAT_TEST_USER or SEMCAT_TEST_TOKEN authenticate the
fixtures and the client against a server in auth mode simple or jwt.

The fixtures are created with plain urllib (not the client under test) in a
metalake of their own, which is dropped afterwards.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import socket
import tarfile
import tempfile
import threading
import unittest
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

import semcat
from semcat import (
    Client,
    IllegalArgumentError,
    IndexNotCaughtUpError,
    MetricInfo,
    NameIdentifier,
    NotFoundError,
    SemcatConnectionError,
    SemcatError,
    UnsupportedError,
)

URL = os.environ.get("SEMCAT_TEST_URL", "").rstrip("/")
USER = os.environ.get("SEMCAT_TEST_USER") or None
TOKEN = os.environ.get("SEMCAT_TEST_TOKEN") or None


def setUpModule() -> None:
    if not URL:
        raise RuntimeError(
            "SEMCAT_TEST_URL is not set: these tests need a live semcat server with the demo catalog. "
            "Run them with `go test ./cmd/semcat -run TestPythonClient`, or start `make run` and set "
            "SEMCAT_TEST_URL=http://127.0.0.1:8090."
        )


def _auth_header() -> Dict[str, str]:
    if TOKEN:
        return {"Authorization": "Bearer " + TOKEN}
    if USER:
        return {"Authorization": "Basic " + base64.b64encode((USER + ":").encode()).decode()}
    return {}


def rest(method: str, path: str, body: Any = None) -> Tuple[Dict[str, Any], Dict[str, str]]:
    """One raw REST call for the fixtures; fails loudly on any error."""
    data = json.dumps(body).encode("utf-8") if body is not None else None
    headers = {"Content-Type": "application/json", **_auth_header()}
    req = urllib.request.Request(URL + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read().decode("utf-8")), dict(resp.headers)
    except urllib.error.HTTPError as e:
        raise AssertionError("%s %s: HTTP %d %s" % (method, path, e.code, e.read().decode("utf-8", "replace"))) from None


def q(name: str) -> str:
    return urllib.parse.quote(name, safe="")


def new_client(**kwargs: Any) -> Client:
    if TOKEN:
        kwargs.setdefault("token", TOKEN)
    elif USER:
        kwargs.setdefault("user", USER)
    return Client(URL, **kwargs)


def expr(*pairs: Tuple[str, str]) -> Dict[str, Any]:
    return {"dialects": [{"dialect": d, "expression": e} for d, e in pairs]}


class Fixture:
    """The catalog the tests create: names, bodies as sent, and the position
    of the last write."""

    def __init__(self) -> None:
        self.tag = uuid.uuid4().hex[:10]
        self.metalake = "pyclient_" + self.tag
        self.catalog = "rel"
        self.schema = "sales"
        self.ns = (self.metalake, self.catalog, self.schema)
        self.word = "quokka" + self.tag  # a word of the orders table's comment
        self.field = "ShipTo" + self.tag  # a struct column of the orders table
        self.batch = "batch" + self.tag  # the property value of the paging tables
        self.position = ""
        self.tables: Dict[str, Dict[str, Any]] = {}
        self.models: Dict[str, Dict[str, Any]] = {}

    def write(self, method: str, path: str, body: Any = None) -> Dict[str, Any]:
        out, headers = rest(method, path, body)
        pos = headers.get("X-Semcat-Position")
        if not pos:
            raise AssertionError("%s %s: no X-Semcat-Position header" % (method, path))
        self.position = pos
        return out

    def schema_path(self, schema: Optional[str] = None) -> str:
        return "/api/metalakes/%s/catalogs/%s/schemas/%s" % (q(self.metalake), q(self.catalog), q(schema or self.schema))

    def create(self) -> None:
        m = self.metalake
        self.write("POST", "/api/metalakes", {"name": m, "comment": "Python client tests"})
        self.write("POST", "/api/metalakes/%s/catalogs" % q(m), {"name": self.catalog, "type": "relational"})
        self.write("POST", "/api/metalakes/%s/catalogs" % q(m), {"name": "files", "type": "fileset"})
        self.write("POST", "/api/metalakes/%s/catalogs/files/schemas" % q(m), {"name": "raw"})
        for s in (self.schema, "paging", "empty"):
            self.write("POST", "/api/metalakes/%s/catalogs/%s/schemas" % (q(m), q(self.catalog)), {"name": s})

        self.tables["orders"] = {
            "name": "orders",
            "comment": "Orders placed through the %s storefront — Bestellübersicht 注文" % self.word,
            "columns": [
                {"name": "order_id", "type": "long", "comment": "Primary key", "nullable": False},
                {"name": "customer_id", "type": "long", "nullable": True},
                {
                    "name": self.field,
                    "type": {
                        "type": "struct",
                        "fields": [
                            {"name": "Street", "type": "string", "nullable": True},
                            {"name": "Zip", "type": "varchar(10)", "nullable": True, "comment": "Postleitzahl"},
                        ],
                    },
                    "nullable": True,
                },
                {
                    "name": "items",
                    "type": {
                        "type": "list",
                        "elementType": {
                            "type": "struct",
                            "fields": [
                                {"name": "sku", "type": "string", "nullable": True},
                                {"name": "qty", "type": "integer", "nullable": True},
                            ],
                        },
                        "containsNull": True,
                    },
                    "nullable": True,
                },
                {"name": "amount", "type": "decimal(12,2)", "nullable": True},
            ],
            "properties": {"owner": "Zoë Ångström", "注記": "売上データ 📈"},
        }
        self.tables["customers"] = {
            "name": "customers",
            "comment": "One row per customer",
            "columns": [
                {"name": "customer_id", "type": "long", "nullable": False},
                {"name": "name", "type": "string", "nullable": True},
                {
                    "name": "Contact",
                    "type": {
                        "type": "struct",
                        "fields": [
                            {"name": "Email", "type": "string", "nullable": True},
                            {
                                "name": "Phone",
                                "type": {"type": "struct", "fields": [{"name": "Number", "type": "string", "nullable": True}]},
                                "nullable": True,
                            },
                        ],
                    },
                    "nullable": True,
                },
            ],
            "properties": {},
        }
        # '/' and '=' are valid in names and must travel escaped.
        self.tables["a/b=c"] = {
            "name": "a/b=c",
            "comment": None,
            "columns": [{"name": "id", "type": "long", "nullable": True}],
            "properties": {},
        }
        for body in self.tables.values():
            self.write("POST", self.schema_path() + "/tables", body)

        orders_ds = {
            "name": "orders",
            "source": {"namespace": [self.catalog, self.schema], "name": "orders"},
            "primaryKey": ["order_id"],
            "fields": [{"name": "amount", "expression": expr(("ANSI_SQL", "amount")), "datatype": "Decimal"}],
        }
        customers_ds = {
            "name": "customers",
            "source": {"namespace": [self.catalog, self.schema], "name": "customers"},
            "primaryKey": ["customer_id"],
        }
        self.models["revenue"] = {
            "name": "revenue",
            "comment": "Umsatz — revenue model",
            "definition": {
                "datasets": [orders_ds, customers_ds],
                "relationships": [
                    {
                        "name": "orders_to_customers",
                        "from": "orders",
                        "to": "customers",
                        "fromColumns": ["customer_id"],
                        "toColumns": ["customer_id"],
                    }
                ],
                # Deliberately not in name order.
                "metrics": [
                    {
                        "name": "total_amount",
                        "expression": expr(("ANSI_SQL", "SUM(orders.amount)"), ("SNOWFLAKE", "SUM(orders.amount)::NUMBER(18,2)")),
                        "description": "Umsatz gesamt in € — 売上",
                        "datatype": "Decimal",
                        "aiContext": {"synonyms": ["revenue", "turnover"], "instructions": "Use for revenue", "team": "finance"},
                        "customExtensions": [{"vendorName": "acme", "data": "{\"certified\": true}"}],
                    },
                    {"name": "order_count", "expression": expr(("ANSI_SQL", "COUNT(orders.order_id)")), "datatype": "Integer"},
                    {
                        "name": "Avg_basket",
                        "expression": expr(("ANSI_SQL", "AVG(orders.amount)")),
                        "aiContext": "average basket size",
                    },
                ],
            },
            "properties": {"domain": "sales"},
        }
        self.models["basics"] = {
            "name": "basics",
            "definition": {
                "datasets": [customers_ds],
                "metrics": [{"name": "customer_count", "expression": expr(("ANSI_SQL", "COUNT(*)")), "description": None}],
            },
        }
        self.models["no_metrics"] = {"name": "no_metrics", "definition": {"datasets": [customers_ds]}}
        for body in self.models.values():
            self.write("POST", self.schema_path() + "/semantic-models", body)

        for i in range(7):
            self.write(
                "POST",
                self.schema_path("paging") + "/tables",
                {"name": "p%d" % i, "columns": [{"name": "id", "type": "long"}], "properties": {"batch": self.batch}},
            )

    def drop(self) -> None:
        try:
            rest("DELETE", "/api/metalakes/%s?force=true" % q(self.metalake))
        except Exception:  # best effort: never hide the tests' own outcome
            pass


class ClientTest(unittest.TestCase):
    fx: Fixture
    c: Client

    @classmethod
    def setUpClass(cls) -> None:
        cls.fx = Fixture()
        try:
            cls.fx.create()
        except BaseException:
            cls.fx.drop()
            raise
        cls.c = new_client()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.fx.drop()

    # ---- basics -----------------------------------------------------------

    def test_version(self) -> None:
        v = self.c.version()
        self.assertIsInstance(v, str)
        self.assertTrue(v)
        # semcat's own version, not the Gravitino API version it implements.
        raw, _ = rest("GET", "/api/version")
        self.assertEqual(v, raw["version"]["semcatVersion"])
        self.assertEqual(self.c.api_version(), raw["version"]["version"])

    def test_package_exports(self) -> None:
        self.assertTrue(semcat.__version__)
        for name in semcat.__all__:
            self.assertTrue(hasattr(semcat, name), name)

    # ---- metric discovery ---------------------------------------------------

    def expected_metric_ids(self) -> List[NameIdentifier]:
        ns = self.fx.ns
        return [
            NameIdentifier(ns + ("basics",), "customer_count"),
            NameIdentifier(ns + ("revenue",), "Avg_basket"),
            NameIdentifier(ns + ("revenue",), "order_count"),
            NameIdentifier(ns + ("revenue",), "total_amount"),
        ]

    def test_list_metrics_sorted_and_equal_to_infos(self) -> None:
        ids = self.c.list_metrics(self.fx.ns)
        self.assertEqual(ids, self.expected_metric_ids())
        # Sorted by model, then metric name in byte order (upper case first).
        self.assertEqual(ids, sorted(ids, key=lambda i: (i.namespace[3].encode(), i.name.encode())))
        infos = self.c.list_metric_infos(self.fx.ns)
        self.assertTrue(all(isinstance(i, MetricInfo) for i in infos))
        self.assertEqual([i.identifier for i in infos], ids)
        self.assertEqual(str(ids[0]), "%s.%s.%s.basics.customer_count" % self.fx.ns)
        self.assertEqual(ids[0].parts, self.fx.ns + ("basics", "customer_count"))

    def test_metric_listing_filters(self) -> None:
        all_infos = self.c.list_metric_infos(self.fx.ns)
        # Paged one at a time, the same listing.
        self.assertEqual(self.c.list_metric_infos(self.fx.ns, page_size=1), all_infos)
        self.assertEqual(self.c.list_metrics(self.fx.ns, page_size=2), [i.identifier for i in all_infos])
        named = self.c.list_metric_infos(self.fx.ns, names=["total_amount", "customer_count"])
        self.assertEqual(sorted(i.name for i in named), ["customer_count", "total_amount"])
        self.assertEqual(self.c.list_metrics(self.fx.ns, names="total_amount"), [NameIdentifier(self.fx.ns + ("revenue",), "total_amount")])
        with self.assertRaises(ValueError):
            self.c.list_metrics(self.fx.ns, page_size=0)

    def test_metric_infos_carry_stored_definitions(self) -> None:
        infos = {(i.model, i.name): i for i in self.c.list_metric_infos(self.fx.ns)}
        for model in ("revenue", "basics"):
            for sent in self.fx.models[model]["definition"]["metrics"]:
                info = infos[(model, sent["name"])]
                self.assertEqual(info.namespace, self.fx.ns + (model,))
                for key, value in sent.items():
                    if value is not None:
                        self.assertEqual(info.metric[key], value, "%s.%s %s" % (model, sent["name"], key))
        total = infos[("revenue", "total_amount")]
        self.assertEqual(total.description, "Umsatz gesamt in € — 売上")
        self.assertEqual(total.datatype, "Decimal")
        self.assertEqual(total.metric["aiContext"]["team"], "finance")  # unknown aiContext keys survive
        self.assertEqual(
            total.expressions, {"ANSI_SQL": "SUM(orders.amount)", "SNOWFLAKE": "SUM(orders.amount)::NUMBER(18,2)"}
        )
        self.assertEqual(infos[("revenue", "Avg_basket")].metric["aiContext"], "average basket size")
        self.assertEqual(infos[("revenue", "Avg_basket")].ai_context, "average basket size")
        self.assertEqual(total.ai_context["synonyms"], ["revenue", "turnover"])
        self.assertEqual(total.aiContext, total.ai_context)
        # The definitions are those of the models as loaded.
        model = self.c.get_model(self.fx.ns + ("revenue",))
        by_name = {m["name"]: m for m in model["definition"]["metrics"]}
        for (model_name, name), info in infos.items():
            if model_name == "revenue":
                self.assertEqual(info.metric, by_name[name])

    def test_metric_namespace_forms(self) -> None:
        want = self.c.list_metrics(self.fx.ns)
        self.assertEqual(self.c.list_metrics(".".join(self.fx.ns)), want)
        self.assertEqual(self.c.list_metrics(list(self.fx.ns)), want)
        self.assertEqual(self.c.list_metrics(NameIdentifier(self.fx.ns[:2], self.fx.ns[2])), want)

    def test_list_metrics_empty_schema(self) -> None:
        self.assertEqual(self.c.list_metrics((self.fx.metalake, "rel", "empty")), [])
        self.assertEqual(self.c.list_metric_infos((self.fx.metalake, "rel", "empty")), [])

    def test_list_metrics_errors(self) -> None:
        with self.assertRaises(NotFoundError) as cm:
            self.c.list_metrics((self.fx.metalake, "rel", "nope"))
        self.assertEqual(cm.exception.code, 1003)
        self.assertEqual(cm.exception.type, "NoSuchSchemaException")
        with self.assertRaises(UnsupportedError) as cm2:
            self.c.list_metric_infos((self.fx.metalake, "files", "raw"))
        self.assertEqual((cm2.exception.code, cm2.exception.status), (1006, 405))

    def test_demo_metricflow_metrics(self) -> None:
        ids = self.c.list_metrics("demo.warehouse.main")
        self.assertEqual(len(ids), 113)
        self.assertTrue(all(i.namespace == ("demo", "warehouse", "main", "simple_manifest") for i in ids))
        self.assertEqual([i.name for i in ids], sorted(i.name for i in ids))
        infos = self.c.list_metric_infos(("demo", "warehouse", "main"))
        self.assertEqual([i.identifier for i in infos], ids)
        self.assertTrue(all(i.metric["expression"]["dialects"] for i in infos))
        sales = {i.name: i for i in self.c.list_metric_infos("demo.warehouse.sales")}
        self.assertEqual(sales["total_revenue"].metric["aiContext"]["synonyms"], ["sales", "turnover"])

    # ---- tables and models ------------------------------------------------

    def test_list_tables(self) -> None:
        ids = self.c.list_tables(self.fx.ns)
        self.assertEqual([i.name for i in ids], ["a/b=c", "customers", "orders"])
        self.assertTrue(all(i.namespace == self.fx.ns for i in ids))
        self.assertEqual(len(self.c.list_tables((self.fx.metalake, "rel", "paging"))), 7)

    def test_get_table_nested_columns(self) -> None:
        for name in ("orders", "customers"):
            table = self.c.get_table(self.fx.ns + (name,))
            sent = self.fx.tables[name]
            self.assertEqual(table["name"], name)
            self.assertEqual(table["columns"], sent["columns"])
            self.assertEqual(table["properties"], sent["properties"])
            self.assertEqual(table["comment"], sent["comment"])
            self.assertIn("creator", table["audit"])
        # An identifier from a listing works as is.
        first = self.c.list_tables(self.fx.ns)[1]
        self.assertEqual(self.c.get_table(first)["name"], "customers")

    def test_name_with_slash_via_tuple(self) -> None:
        table = self.c.get_table(self.fx.ns + ("a/b=c",))
        self.assertEqual(table["name"], "a/b=c")
        self.assertIsNone(table["comment"])

    def test_dotted_name_is_one_segment(self) -> None:
        # Server names cannot contain '.', but the tuple form sends it as one
        # path segment: the server names the whole value in its answer.
        with self.assertRaises(IllegalArgumentError) as cm:
            self.c.get_table(self.fx.ns + ("x.y",))
        self.assertIn("'x.y'", cm.exception.message)
        self.assertEqual((cm.exception.code, cm.exception.status), (1001, 400))

    def test_list_and_get_models(self) -> None:
        ids = self.c.list_models(self.fx.ns)
        self.assertEqual([i.name for i in ids], ["basics", "no_metrics", "revenue"])
        self.assertTrue(all(i.namespace == self.fx.ns for i in ids))
        model = self.c.get_model(ids[2])
        sent = self.fx.models["revenue"]
        self.assertEqual(model["name"], "revenue")
        self.assertEqual(model["comment"], sent["comment"])
        self.assertEqual(model["properties"], {"domain": "sales"})
        self.assertEqual(model["definition"]["metrics"], sent["definition"]["metrics"])
        self.assertEqual(model["definition"]["relationships"], sent["definition"]["relationships"])
        self.assertEqual(
            self.c.get_model("%s.%s.%s.basics" % self.fx.ns)["definition"]["datasets"][0]["name"], "customers"
        )
        demo = self.c.list_models("demo.warehouse.main")
        self.assertEqual(demo, [NameIdentifier(("demo", "warehouse", "main"), "simple_manifest")])

    def test_missing_model_not_found(self) -> None:
        with self.assertRaises(NotFoundError) as cm:
            self.c.get_model(self.fx.ns + ("missing_model",))
        e = cm.exception
        self.assertIsInstance(e, SemcatError)
        self.assertEqual(e.code, 1003)
        self.assertEqual(e.status, 404)
        self.assertEqual(e.type, "NoSuchSemanticModelException")
        self.assertIn("missing_model", e.message)
        self.assertIn("/semantic-models/missing_model", e.url or "")
        self.assertIn("1003", str(e))
        with self.assertRaises(NotFoundError):
            self.c.get_table(self.fx.ns + ("missing_table",))
        with self.assertRaises(NotFoundError):
            self.c.list_models(("no_such_metalake_" + self.fx.tag, "rel", "sales"))

    def test_bad_namespace_value_error(self) -> None:
        c = self.c
        cases = [
            (c.list_metrics, "m.c", "namespace"),
            (c.list_metrics, "m.c.s.x", "namespace"),
            (c.list_metric_infos, ("m", "c"), "namespace"),
            (c.list_tables, ["m", "c", "s", "t"], "namespace"),
            (c.list_models, "m..s", "namespace"),
            (c.get_model, "m.c.s", "ident"),
            (c.get_model, ("m", "c", "s", "x", "y"), "ident"),
            (c.get_table, "m.c.s.t.u", "ident"),
            (c.get_table, ("m", "c", "s", ""), "ident"),
            (c.get_table, "", "ident"),
        ]
        for method, value, arg in cases:
            with self.subTest(method=method.__name__, value=value):
                with self.assertRaises(ValueError) as cm:
                    method(value)
                self.assertTrue(str(cm.exception).startswith(arg + ":"), str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            c.get_table("m.c.s.t.u")
        self.assertIn("tuple form", str(cm.exception))
        with self.assertRaises(TypeError):
            c.list_tables(42)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            c.get_table(("m", "c", "s", 1))  # type: ignore[arg-type]

    def test_unicode_round_trip(self) -> None:
        table = self.c.get_table(self.fx.ns + ("orders",))
        self.assertEqual(table["comment"], self.fx.tables["orders"]["comment"])
        self.assertEqual(table["properties"]["owner"], "Zoë Ångström")
        self.assertEqual(table["properties"]["注記"], "売上データ 📈")
        self.assertEqual(table["columns"][2]["type"]["fields"][1]["comment"], "Postleitzahl")
        self.assertEqual(self.c.get_model(self.fx.ns + ("revenue",))["comment"], "Umsatz — revenue model")
        # A non-ASCII name reaches the server intact (UTF-8, percent-encoded),
        # which rejects it as a name: names are ASCII word characters.
        for name in ("Bestellübersicht", "注文", "a b"):
            with self.subTest(name=name):
                with self.assertRaises(IllegalArgumentError) as cm:
                    self.c.get_table(self.fx.ns + (name,))
                self.assertIn("'%s'" % name, cm.exception.message)

    # ---- search ---------------------------------------------------------------

    def search(self, query: str, **kwargs: Any) -> semcat.SearchResult:
        kwargs.setdefault("metalake", self.fx.metalake)
        kwargs.setdefault("min_position", self.fx.position)
        return self.c.search(query, **kwargs)

    def test_search_by_comment_word(self) -> None:
        res = self.search(self.fx.word)
        self.assertEqual([str(h) for h in res.hits], ["table:%s.%s.%s.orders" % self.fx.ns])
        self.assertEqual(res.total, 1)
        self.assertIsNone(res.cursor)
        self.assertTrue(res.position)
        hit = res.hits[0]
        self.assertEqual((hit.type, hit.namespace, hit.name), ("table", self.fx.ns, "orders"))
        self.assertGreater(hit.score, 0)
        self.assertEqual(hit.user_properties["owner"], "Zoë Ångström")
        self.assertEqual(hit.system_properties["entity-type"], "table")
        self.assertIn("comment", [m["key"] for m in hit.matches])
        self.assertEqual(hit.identifier, NameIdentifier(self.fx.ns, "orders"))
        # A prefix, non-ASCII words (in any case) and a unicode property
        # value find it too.
        for query in (self.fx.word[:-2] + "*", "BESTELLÜBERSICHT", "注文", 'owner:"zoë ångström"'):
            with self.subTest(query=query):
                self.assertEqual([h.name for h in self.search(query).hits], ["orders"])

    def test_search_by_schema_field(self) -> None:
        for query in ("schema:" + self.fx.field, "schema:%s.Zip" % self.fx.field, self.fx.field + ":struct"):
            with self.subTest(query=query):
                res = self.search(query, types=["table"])
                self.assertEqual([h.name for h in res.hits], ["orders"])
                # A column match names the column's path (SPEC §2.6).
                self.assertIn("column", [m["key"] for m in res.hits[0].matches])
        res = self.search("schema:%s.Zip" % self.fx.field)
        self.assertIn(self.fx.field + ".Zip", [m.get("field") for m in res.hits[0].matches])

    def test_search_wait_ms_read_your_write(self) -> None:
        res = self.search(self.fx.word, wait_ms=20000)
        self.assertEqual(res.total, 1)

    def test_search_filters_and_facets(self) -> None:
        res = self.search("*", types="table", catalog="rel", schema="sales", facets=["type", "schema"], limit=1000)
        self.assertEqual(sorted(h.name for h in res.hits), ["a/b=c", "customers", "orders"])
        self.assertEqual(res.total, 3)
        # A facet counts without its own filter (SPEC §2.6: several values
        # per facet), so the other types stay listed beside the chosen one.
        self.assertIn(semcat.FacetValue("table", 3), res.facets["type"])
        self.assertGreater(len(res.facets["type"]), 1)
        self.assertIn(semcat.FacetValue("sales", 3), res.facets["schema"])
        metrics = self.search("turnover", types=["metric"])
        self.assertEqual([str(h) for h in metrics.hits], ["metric:%s.%s.%s.revenue.total_amount" % self.fx.ns])
        both = self.search("*", types=["semantic_model", "metric"], schema="sales", facets="type", limit=1000)
        self.assertLessEqual({("semantic_model", 3), ("metric", 4)}, {(f.value, f.count) for f in both.facets["type"]})
        self.assertEqual(both.total, 7)
        by_name = self.search("*", types="table", schema="paging", sort="-name", limit=3)
        self.assertEqual([h.name for h in by_name.hits], ["p6", "p5", "p4"])
        offset = self.search("*", types="table", schema="paging", sort="name", limit=2, offset=2)
        self.assertEqual([h.name for h in offset.hits], ["p2", "p3"])

    def test_search_default_metalake(self) -> None:
        c = new_client(metalake=self.fx.metalake)
        self.assertEqual(c.search(self.fx.word, min_position=self.fx.position).total, 1)
        with self.assertRaises(ValueError):
            self.c.search("x")  # neither the call nor the client names a metalake
        demo = self.c.search("turnover", metalake="demo", types=["metric"])
        self.assertEqual([str(h) for h in demo.hits], ["metric:demo.warehouse.sales.sales.total_revenue"])

    def test_search_pages_with_cursor(self) -> None:
        query = "batch:" + self.fx.batch
        first = self.search(query, sort="name", limit=3)
        self.assertEqual(first.total, 7)
        self.assertEqual([h.name for h in first.hits], ["p0", "p1", "p2"])
        self.assertTrue(first.cursor)
        self.assertEqual(first.next_cursor, first.cursor)
        second = self.search(query, sort="name", limit=3, cursor=first.cursor)
        self.assertEqual([h.name for h in second.hits], ["p3", "p4", "p5"])
        third = self.search(query, sort="name", limit=3, cursor=second.cursor)
        self.assertEqual([h.name for h in third.hits], ["p6"])
        self.assertIsNone(third.cursor)

    def test_iter_search_yields_every_hit_once(self) -> None:
        query = "batch:" + self.fx.batch
        for page_size in (1, 2, 3, 7, 100):
            for sort in ("name", "-name", "created"):
                with self.subTest(page_size=page_size, sort=sort):
                    hits = list(
                        self.c.iter_search(
                            query, metalake=self.fx.metalake, sort=sort, page_size=page_size, min_position=self.fx.position
                        )
                    )
                    names = [h.name for h in hits]
                    self.assertEqual(sorted(names), ["p%d" % i for i in range(7)])
        everything = list(self.c.iter_search("*", metalake="demo", sort="name", page_size=25))
        ids = [str(h) for h in everything]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(len(ids), self.c.search("*", metalake="demo").total)

    def test_iter_search_relevance_order(self) -> None:
        # The default relevance sort pages by the last hit's score (the
        # cursor once carried Bleve's "_score" placeholder instead).
        hits = list(
            self.c.iter_search("batch:" + self.fx.batch, metalake=self.fx.metalake, page_size=2, min_position=self.fx.position)
        )
        self.assertEqual(sorted(h.name for h in hits), ["p%d" % i for i in range(7)])

    def test_search_errors(self) -> None:
        with self.assertRaises(IndexNotCaughtUpError) as cm:
            self.search("*", min_position="tzzzzzzzz", wait_ms=50)
        self.assertEqual((cm.exception.code, cm.exception.status), (1013, 503))
        for bad in ("", "-x", '"open'):
            with self.subTest(query=bad):
                with self.assertRaises(IllegalArgumentError) as cm2:
                    self.search(bad)
                self.assertEqual(cm2.exception.code, 1001)
        with self.assertRaises(IllegalArgumentError):
            self.search("*", types=["nonsense"])
        with self.assertRaises(TypeError):
            self.search("*", limit="10")  # type: ignore[arg-type]


class _Recorder(BaseHTTPRequestHandler):
    """A canned server for transport behaviour the live server cannot show."""

    seen: List[Dict[str, Any]] = []
    routes: Dict[str, Tuple[int, str, str]] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        type(self).seen.append({"path": self.path, "headers": dict(self.headers)})
        status, ctype, body = type(self).routes.get(
            self.path.split("?")[0], (200, "application/json", '{"code":0,"version":{"version":"fake"}}')
        )
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


class TransportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        _Recorder.seen = []
        _Recorder.routes = {
            "/api/version": (200, "application/json", '{"code":0,"version":{"version":"fake"}}'),
            "/api/metalakes/m/search": (502, "text/html", "<html>Bad Gateway</html>"),
            "/api/metalakes/m/catalogs/c/schemas/s/tables": (404, "text/plain", "404 page not found"),
            "/api/metalakes/m/catalogs/c/schemas/s/semantic-models": (200, "application/json", "not json"),
            "/api/metalakes/m/catalogs/c/schemas/s/semantic-model-metrics": (
                409,
                "application/json",
                '{"code":1012,"type":"ConcurrentModificationException","message":"changed"}',
            ),
        }
        cls.server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()
        cls.url = "http://127.0.0.1:%d" % cls.server.server_address[1]

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.shutdown()
        cls.server.server_close()
        cls.thread.join()

    def last_headers(self) -> Dict[str, str]:
        return {k.lower(): v for k, v in _Recorder.seen[-1]["headers"].items()}

    def test_auth_headers(self) -> None:
        Client(self.url).version()
        self.assertNotIn("authorization", self.last_headers())
        Client(self.url, user="alice").version()
        self.assertEqual(self.last_headers()["authorization"], "Basic " + base64.b64encode(b"alice:").decode())
        Client(self.url, token="abc.def.ghi").version()
        self.assertEqual(self.last_headers()["authorization"], "Bearer abc.def.ghi")
        self.assertEqual(self.last_headers()["accept"], "application/json")
        with self.assertRaises(ValueError):
            Client(self.url, user="alice", token="t")
        with self.assertRaises(ValueError):
            Client("ftp://example.com")
        with self.assertRaises(ValueError):
            Client("127.0.0.1:8090")

    def test_path_escaping_and_prefix(self) -> None:
        c = Client(self.url + "/prefix/", user="u")
        with self.assertRaises(SemcatError):
            c.get_table(("m", "c", "s", "a/b c.ü"))  # the canned answer has no "table"
        self.assertEqual(
            _Recorder.seen[-1]["path"], "/prefix/api/metalakes/m/catalogs/c/schemas/s/tables/a%2Fb%20c.%C3%BC"
        )
        with self.assertRaises(SemcatError):  # the canned answer has no "results"
            c.search('x y:"a b"', metalake="m", types=["table", "metric"], tags=["t1", "t2"], facets=["type", "tags"])
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(_Recorder.seen[-1]["path"]).query)
        self.assertEqual(query["query"], ['x y:"a b"'])
        self.assertEqual(query["type"], ["table", "metric"])
        self.assertEqual(query["tag"], ["t1", "t2"])
        self.assertEqual(query["facets"], ["type,tags"])

    def test_errors_without_semcat_body(self) -> None:
        c = Client(self.url)
        with self.assertRaises(SemcatError) as cm:
            c.search("x", metalake="m")
        self.assertEqual((cm.exception.status, cm.exception.code), (502, None))
        self.assertIn("Bad Gateway", cm.exception.message)
        with self.assertRaises(NotFoundError) as cm2:
            c.list_tables("m.c.s")
        self.assertEqual((cm2.exception.status, cm2.exception.code), (404, None))
        with self.assertRaises(SemcatError):
            c.list_models("m.c.s")
        with self.assertRaises(semcat.ConcurrentModificationError) as cm3:
            c.list_metrics("m.c.s")
        self.assertEqual((cm3.exception.code, cm3.exception.type), (1012, "ConcurrentModificationException"))

    def test_connection_error(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        url = "http://127.0.0.1:%d" % port
        with self.assertRaises(SemcatConnectionError) as cm:
            Client(url, timeout=5).version()
        self.assertIsInstance(cm.exception, SemcatError)
        self.assertEqual(cm.exception.url, url + "/api/version")
        self.assertIn(url, str(cm.exception))
        self.assertIsNone(cm.exception.code)

    def test_error_classes(self) -> None:
        classes = {
            1011: semcat.UnauthorizedError,
            1001: semcat.IllegalArgumentError,
            1002: semcat.InternalError,
            1003: semcat.NotFoundError,
            1004: semcat.AlreadyExistsError,
            1005: semcat.NonEmptyError,
            1006: semcat.UnsupportedError,
            1008: semcat.ForbiddenError,
            1009: semcat.NotInUseError,
            1010: semcat.InUseError,
            1012: semcat.ConcurrentModificationError,
            1013: semcat.IndexNotCaughtUpError,
        }
        for code, cls in classes.items():
            e = semcat.errors.error_from_response(400, {"code": code, "type": "X", "message": "m"})
            self.assertIs(type(e), cls)
            self.assertTrue(issubclass(cls, SemcatError))
            self.assertEqual((e.code, e.type, e.message, e.status), (code, "X", "m", 400))
        self.assertIs(type(semcat.errors.error_from_response(400, {"code": 4242, "message": "?"})), SemcatError)


class PackagingTest(unittest.TestCase):
    """`pip install clients/python` builds with the client's own backend."""

    @classmethod
    def setUpClass(cls) -> None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        spec = importlib.util.spec_from_file_location("semcat_build", os.path.join(root, "build_backend", "semcat_build.py"))
        assert spec and spec.loader
        cls.backend = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cls.backend)

    def test_wheel(self) -> None:
        self.assertEqual(self.backend.get_requires_for_build_wheel(), [])
        with tempfile.TemporaryDirectory() as d:
            name = self.backend.build_wheel(d)
            self.assertEqual(name, "semcat-%s-py3-none-any.whl" % semcat.__version__)
            with zipfile.ZipFile(os.path.join(d, name)) as zf:
                names = zf.namelist()
                for module in ("__init__", "client", "errors", "models"):
                    self.assertIn("semcat/%s.py" % module, names)
                info = "semcat-%s.dist-info/" % semcat.__version__
                metadata = zf.read(info + "METADATA").decode("utf-8")
                self.assertIn("\nVersion: %s\n" % semcat.__version__, metadata)
                self.assertIn("Requires-Python: >=3.9", metadata)
                record = zf.read(info + "RECORD").decode("utf-8").splitlines()
                self.assertEqual(sorted(r.split(",")[0] for r in record), sorted(names))
                for row in record:
                    path, digest, size = row.split(",")
                    if digest:
                        data = zf.read(path)
                        want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                        self.assertEqual((digest, int(size)), ("sha256=" + want, len(data)), path)

    def test_sdist_and_editable(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            name = self.backend.build_sdist(d)
            with tarfile.open(os.path.join(d, name)) as tf:
                names = tf.getnames()
            top = "semcat-%s/" % semcat.__version__
            for want in ("PKG-INFO", "pyproject.toml", "README.md", "build_backend/semcat_build.py", "semcat/client.py"):
                self.assertIn(top + want, names)
            name = self.backend.build_editable(d)
            with zipfile.ZipFile(os.path.join(d, name)) as zf:
                self.assertIn("_semcat_editable.pth", zf.namelist())


if __name__ == "__main__":
    unittest.main()
