"""The official Apache Gravitino Python client against a live semcat
(SPEC §2.10), with the client's default settings: its version check on.

Run by TestGravitinoClient (cmd/semcat/gravitino_test.go), which starts
semcat and sets GRAVITINO_URI, and puts the client of
../shared/gravitino-client on sys.path.
"""

import os
import unittest
import uuid

from gravitino import Catalog, GravitinoAdminClient, GravitinoClient, NameIdentifier
from gravitino.api.rel.column import Column
from gravitino.api.rel.expressions.distributions.distributions import Distributions
from gravitino.api.rel.expressions.literals.literals import Literals
from gravitino.api.rel.expressions.named_reference import NamedReference
from gravitino.api.rel.expressions.sorts.sort_orders import SortOrders
from gravitino.api.rel.expressions.transforms.transforms import Transforms
from gravitino.api.rel.indexes.indexes import Indexes
from gravitino.api.rel.indexes.index import Index
from gravitino.api.rel.table_change import TableChange
from gravitino.api.rel.types.types import Types
from gravitino.api.stats.statistic_values import StatisticValues
from gravitino.namespace import Namespace
from gravitino.auth.simple_auth_provider import SimpleAuthProvider
from gravitino.api.authorization.owner import Owner
from gravitino.api.authorization.privileges import Privileges
from gravitino.api.authorization.securable_objects import SecurableObjects
from gravitino.api.catalog_change import CatalogChange
from gravitino.api.metadata_object import MetadataObject
from gravitino.api.metadata_objects import MetadataObjects
from gravitino.api.metalake_change import MetalakeChange
from gravitino.api.schema_change import SchemaChange
from gravitino.api.tag.tag_change import TagChange
from gravitino.exceptions.base import (
    CatalogAlreadyExistsException,
    CatalogInUseException,
    CatalogNotInUseException,
    ForbiddenException,
    GroupAlreadyExistsException,
    IllegalArgumentException,
    IllegalMetadataObjectException,
    IllegalPrivilegeException,
    IllegalStatisticNameException,
    IllegalRoleException,
    MetalakeAlreadyExistsException,
    MetalakeInUseException,
    MetalakeNotInUseException,
    NoSuchCatalogException,
    NoSuchGroupException,
    NoSuchMetadataObjectException,
    NoSuchMetalakeException,
    NoSuchRoleException,
    NoSuchSchemaException,
    NoSuchUserException,
    NotEmptyException,
    NotFoundException,
    NotInUseException,
    RESTException,
    RoleAlreadyExistsException,
    NoSuchTagException,
    NoSuchTableException,
    NonEmptySchemaException,
    SchemaAlreadyExistsException,
    TableAlreadyExistsException,
    TagAlreadyAssociatedException,
    TagAlreadyExistsException,
    UnsupportedOperationException,
    UserAlreadyExistsException,
)

URI = os.environ["GRAVITINO_URI"]


def unique(prefix):
    return prefix + "_" + uuid.uuid4().hex[:8]


class GravitinoTest(unittest.TestCase):
    """Each test gets its own metalake, dropped with force afterwards."""

    def setUp(self):
        self.admin = GravitinoAdminClient(uri=URI)  # checks the server's version
        self.ml = unique("ml")
        self.admin.create_metalake(self.ml, "test metalake", {"team": "data"})
        self.client = GravitinoClient(uri=URI, metalake_name=self.ml)

    def tearDown(self):
        self.admin.drop_metalake(self.ml, force=True)
        self.client.close()  # sends CLOSE /, which must succeed
        self.admin.close()

    def assertRaisesWithMessage(self, exc, text, fn, *args, **kwargs):
        """fn raises exc, whose message holds text (the client builds
        messages from the error body's message and stack)."""
        with self.assertRaises(exc) as cm:
            fn(*args, **kwargs)
        self.assertIn(text, str(cm.exception))
        return cm.exception

    def relational(self, name="rel"):
        return self.client.create_catalog(name, Catalog.Type.RELATIONAL, "hive", "a catalog", {"k": "v"})


class TestVersion(unittest.TestCase):
    def test_server_version(self):
        admin = GravitinoAdminClient(uri=URI)
        v = admin.get_server_version()
        self.assertGreaterEqual(v.major, 1)
        self.assertTrue(v.compile_date)
        self.assertTrue(v.git_commit)


class TestMetalakes(GravitinoTest):
    def test_load_list(self):
        ml = self.admin.load_metalake(self.ml)
        self.assertEqual(ml.name(), self.ml)
        self.assertEqual(ml.comment(), "test metalake")
        self.assertEqual(ml.properties(), {"team": "data", "in-use": "true"})
        self.assertEqual(ml.audit_info().creator(), "anonymous")
        self.assertIn(self.ml, [m.name() for m in self.admin.list_metalakes()])

    def test_alter(self):
        new = unique("ml2")
        ml = self.admin.alter_metalake(
            self.ml,
            MetalakeChange.rename(new),
            MetalakeChange.update_comment("new comment"),
            MetalakeChange.set_property("k", "v"),
            MetalakeChange.remove_property("team"),
        )
        self.ml = new
        self.assertEqual(ml.name(), new)
        self.assertEqual(ml.comment(), "new comment")
        self.assertEqual(ml.properties().get("k"), "v")
        self.assertNotIn("team", ml.properties())

    def test_errors(self):
        self.assertRaisesWithMessage(MetalakeAlreadyExistsException, self.ml, self.admin.create_metalake, self.ml, "", {})
        self.assertRaisesWithMessage(NoSuchMetalakeException, "does not exist", self.admin.load_metalake, unique("nope"))
        self.assertFalse(self.admin.drop_metalake(unique("nope")))

    def test_disable_enable_drop(self):
        # An enabled metalake is in use: no drop without force.
        self.assertRaisesWithMessage(MetalakeInUseException, "in use", self.admin.drop_metalake, self.ml)
        self.admin.disable_metalake(self.ml)
        self.admin.disable_metalake(self.ml)  # already disabled: fine
        self.assertEqual(self.admin.load_metalake(self.ml).properties()["in-use"], "false")
        self.assertRaisesWithMessage(
            MetalakeNotInUseException, "disabled", self.admin.alter_metalake, self.ml, MetalakeChange.update_comment("x")
        )
        # Below a disabled metalake nothing works.
        self.assertRaisesWithMessage(NotInUseException, "disabled", self.client.list_catalogs)
        self.admin.enable_metalake(self.ml)
        self.assertEqual(self.client.list_catalogs(), [])
        # A disabled metalake with catalogs still needs force.
        self.relational()
        self.admin.disable_metalake(self.ml)
        self.assertRaisesWithMessage(NotEmptyException, "has catalogs", self.admin.drop_metalake, self.ml)
        self.assertTrue(self.admin.drop_metalake(self.ml, force=True))
        self.assertRaises(NoSuchMetalakeException, self.admin.load_metalake, self.ml)
        self.admin.create_metalake(self.ml, "", {})  # for tearDown


class TestCatalogs(GravitinoTest):
    def test_create_load_list(self):
        cat = self.relational()
        self.assertEqual(cat.name(), "rel")
        self.assertEqual(cat.type(), Catalog.Type.RELATIONAL)
        self.assertEqual(cat.provider(), "hive")
        self.assertEqual(cat.properties(), {"k": "v", "in-use": "true"})
        loaded = self.client.load_catalog("rel")
        self.assertEqual((loaded.name(), loaded.comment(), loaded.provider()), ("rel", "a catalog", "hive"))
        self.assertEqual(loaded.audit_info().creator(), "anonymous")
        self.client.create_catalog("files", Catalog.Type.FILESET, None, None, {"location": "/tmp/x"})
        self.assertEqual(self.client.list_catalogs(), ["files", "rel"])
        infos = {c.name(): c for c in self.client.list_catalogs_info()}
        self.assertEqual(infos["files"].type(), Catalog.Type.FILESET)
        self.assertEqual(infos["files"].provider(), "semcat")

    def test_alter(self):
        self.relational()
        cat = self.client.alter_catalog(
            "rel",
            CatalogChange.rename("rel2"),
            CatalogChange.update_comment(None),
            CatalogChange.set_property("a", "b"),
            CatalogChange.remove_property("k"),
        )
        self.assertEqual(cat.name(), "rel2")
        self.assertIsNone(cat.comment())
        self.assertEqual(cat.properties(), {"a": "b", "in-use": "true"})

    def test_errors(self):
        self.relational()
        self.assertRaisesWithMessage(CatalogAlreadyExistsException, "already exists", self.relational)
        self.assertRaisesWithMessage(NoSuchCatalogException, "does not exist", self.client.load_catalog, "nope")
        self.assertFalse(self.client.drop_catalog("nope"))

    def test_disable_enable_drop(self):
        cat = self.relational()
        cat.as_schemas().create_schema("s", None, {})
        self.assertRaisesWithMessage(CatalogInUseException, "in use", self.client.drop_catalog, "rel")
        self.client.disable_catalog("rel")
        self.assertEqual(self.client.load_catalog("rel").properties()["in-use"], "false")
        self.assertRaisesWithMessage(
            CatalogNotInUseException, "disabled", self.client.alter_catalog, "rel", CatalogChange.update_comment("x")
        )
        self.assertRaisesWithMessage(CatalogNotInUseException, "disabled", cat.as_schemas().list_schemas)
        self.assertRaisesWithMessage(NotEmptyException, "has schemas", self.client.drop_catalog, "rel")
        self.client.enable_catalog("rel")
        self.assertEqual(cat.as_schemas().list_schemas(), ["s"])
        self.assertTrue(self.client.drop_catalog("rel", force=True))
        self.assertRaises(NoSuchCatalogException, self.client.load_catalog, "rel")


class TestSchemas(GravitinoTest):
    def test_schemas(self):
        schemas = self.relational().as_schemas()
        s = schemas.create_schema("sales", "the sales", {"domain": "finance"})
        self.assertEqual((s.name(), s.comment(), s.properties()), ("sales", "the sales", {"domain": "finance"}))
        self.assertTrue(schemas.schema_exists("sales"))
        self.assertFalse(schemas.schema_exists("nope"))
        self.assertEqual(schemas.list_schemas(), ["sales"])
        s = schemas.alter_schema("sales", SchemaChange.set_property("k", "v"), SchemaChange.remove_property("domain"))
        self.assertEqual(s.properties(), {"k": "v"})
        self.assertEqual(schemas.load_schema("sales").properties(), {"k": "v"})
        self.assertRaisesWithMessage(SchemaAlreadyExistsException, "already exists", schemas.create_schema, "sales", None, {})
        self.assertRaisesWithMessage(NoSuchSchemaException, "does not exist", schemas.load_schema, "nope")
        self.assertTrue(schemas.drop_schema("sales", False))
        self.assertFalse(schemas.drop_schema("sales", False))


class TestTables(GravitinoTest):
    def test_tables(self):
        cat = self.relational()
        cat.as_schemas().create_schema("sales", None, {})
        tables = cat.as_table_catalog()
        ident = NameIdentifier.of("sales", "orders")
        columns = [
            Column.of("id", Types.LongType.get(), "key", nullable=False, auto_increment=True),
            Column.of("region", Types.StringType.get(), default_value=Literals.string_literal("eu")),
            Column.of("day", Types.DateType.get()),
        ]
        t = tables.create_table(
            ident,
            columns,
            "the orders",
            {"k": "v"},
            partitioning=[Transforms.identity("day")],
            distribution=Distributions.hash(4, NamedReference.field(["id"])),
            sort_orders=[SortOrders.ascending(NamedReference.field(["id"]))],
            indexes=[Indexes.primary("pk", [["id"]])],
        )
        self.assertEqual((t.name(), t.comment(), t.properties()), ("orders", "the orders", {"k": "v"}))
        loaded = tables.load_table(ident)
        self.assertEqual([c.name() for c in loaded.columns()], ["id", "region", "day"])
        self.assertEqual(loaded.columns()[0].data_type(), Types.LongType.get())
        self.assertFalse(loaded.columns()[0].nullable())
        self.assertTrue(loaded.columns()[0].auto_increment())
        self.assertEqual(len(loaded.partitioning()), 1)
        self.assertEqual(loaded.distribution().number(), 4)
        self.assertEqual(len(loaded.sort_order()), 1)
        self.assertEqual([i.name() for i in loaded.index()], ["pk"])
        # Partitions are data, which semcat does not keep: Gravitino's
        # answer of a catalog without them.
        for call in (loaded.list_partition_names, loaded.list_partitions):
            self.assertRaisesWithMessage(UnsupportedOperationException, "does not support partition operations", call)
        self.assertRaisesWithMessage(UnsupportedOperationException, "partition", loaded.get_partition, "p1")
        self.assertRaisesWithMessage(UnsupportedOperationException, "partition", loaded.drop_partition, "p1")
        # Custom statistics.
        sv = StatisticValues
        loaded.update_statistics({
            "custom-rows": sv.long_value(10),
            "custom-ratio": sv.double_value(0.5),
            "custom-owners": sv.list_value([sv.string_value("a"), sv.string_value("b")]),
            "custom-shape": sv.object_value({"fresh": sv.boolean_value(True)}),
        })
        loaded.update_statistics({"custom-rows": sv.long_value(12)})
        stats = {st.name(): st for st in loaded.list_statistics()}
        self.assertEqual(sorted(stats), ["custom-owners", "custom-ratio", "custom-rows", "custom-shape"])
        self.assertEqual(stats["custom-rows"].value(), sv.long_value(12))
        self.assertEqual(stats["custom-ratio"].value(), sv.double_value(0.5))
        self.assertEqual(stats["custom-owners"].value(), sv.list_value([sv.string_value("a"), sv.string_value("b")]))
        self.assertEqual(stats["custom-shape"].value(), sv.object_value({"fresh": sv.boolean_value(True)}))
        self.assertFalse(stats["custom-rows"].reserved())
        self.assertRaisesWithMessage(IllegalStatisticNameException, "custom-", loaded.update_statistics, {"rows": sv.long_value(1)})
        self.assertTrue(loaded.drop_statistics(["custom-rows", "custom-none"]))
        self.assertFalse(loaded.drop_statistics(["custom-none"]))
        self.assertEqual(len(loaded.list_statistics()), 3)
        # A table created without a layout answers Gravitino's empty forms.
        plain = tables.create_table(NameIdentifier.of("sales", "plain"), [Column.of("a", Types.IntegerType.get())])
        self.assertEqual(plain.partitioning(), [])
        self.assertEqual([i.name() for i in tables.list_tables(Namespace.of("sales"))], ["orders", "plain"])
        self.assertTrue(tables.table_exists(ident))
        t = tables.alter_table(
            ident,
            TableChange.update_comment("new"),
            TableChange.set_property("a", "b"),
            TableChange.remove_property("k"),
            TableChange.rename("orders2"),
        )
        self.assertEqual((t.name(), t.comment(), t.properties()), ("orders2", "new", {"a": "b"}))
        # A rename with a schema moves the table there, and back.
        cat.as_schemas().create_schema("archive", None, {})
        tables.alter_table(NameIdentifier.of("sales", "orders2"), TableChange.rename("orders2", "archive"))
        self.assertTrue(tables.table_exists(NameIdentifier.of("archive", "orders2")))
        self.assertFalse(tables.table_exists(NameIdentifier.of("sales", "orders2")))
        self.assertRaisesWithMessage(
            NoSuchSchemaException, "does not exist",
            tables.alter_table, NameIdentifier.of("archive", "orders2"), TableChange.rename("orders2", "nope"),
        )
        tables.alter_table(NameIdentifier.of("archive", "orders2"), TableChange.rename("orders2", "sales"))
        self.assertRaisesWithMessage(
            TableAlreadyExistsException, "already exists", tables.create_table, NameIdentifier.of("sales", "plain"), columns
        )
        self.assertRaisesWithMessage(NoSuchTableException, "does not exist", tables.load_table, ident)
        self.assertRaisesWithMessage(NoSuchSchemaException, "does not exist", tables.list_tables, Namespace.of("nope"))
        self.assertTrue(tables.drop_table(NameIdentifier.of("sales", "orders2")))
        self.assertFalse(tables.drop_table(NameIdentifier.of("sales", "orders2")))
        self.assertRaisesWithMessage(NonEmptySchemaException, "", cat.as_schemas().drop_schema, "sales", False)
        self.assertTrue(cat.as_schemas().drop_schema("sales", True))

    def test_column_and_index_changes(self):
        cat = self.relational()
        cat.as_schemas().create_schema("sales", None, {})
        tables = cat.as_table_catalog()
        ident = NameIdentifier.of("sales", "people")
        tables.create_table(
            ident,
            [
                Column.of("id", Types.LongType.get(), nullable=False),
                Column.of("name", Types.StringType.get()),
                Column.of(
                    "address",
                    Types.StructType.of(
                        Types.StructType.Field.nullable_field("city", Types.StringType.get()),
                        Types.StructType.Field.nullable_field("zip", Types.StringType.get()),
                    ),
                ),
            ],
        )
        position = TableChange.ColumnPosition
        t = tables.alter_table(
            ident,
            TableChange.add_column(["age"], Types.IntegerType.get(), "years", position.after("id")),
            TableChange.add_column(["rank"], Types.ShortType.get(), None, position.first(), nullable=False),
            TableChange.add_column(["address", "street"], Types.StringType.get(), None, position.first()),
            TableChange.rename_column(["name"], "full_name"),
            TableChange.rename_column(["address", "zip"], "postcode"),
            TableChange.update_column_type(["age"], Types.LongType.get()),
            TableChange.update_column_comment(["full_name"], "given and family"),
            TableChange.update_column_position(["rank"], position.after("full_name")),
            TableChange.update_column_nullability(["full_name"], False),
            TableChange.update_column_default_value(["full_name"], Literals.string_literal("anon")),
            TableChange.update_column_auto_increment(["id"], True),
            TableChange.add_index(Index.IndexType.PRIMARY_KEY, "pk", [["id"]]),
            TableChange.add_index(Index.IndexType.UNIQUE_KEY, "uk", [["full_name"]]),
        )
        self.assertEqual([c.name() for c in t.columns()], ["id", "age", "full_name", "rank", "address"])
        loaded = tables.load_table(ident)
        cols = {c.name(): c for c in loaded.columns()}
        self.assertEqual([c.name() for c in loaded.columns()], ["id", "age", "full_name", "rank", "address"])
        self.assertEqual((cols["age"].data_type(), cols["age"].comment()), (Types.LongType.get(), "years"))
        self.assertEqual(cols["full_name"].comment(), "given and family")
        self.assertFalse(cols["full_name"].nullable())
        self.assertEqual(cols["full_name"].default_value(), Literals.string_literal("anon"))
        self.assertTrue(cols["id"].auto_increment())
        self.assertFalse(cols["rank"].nullable())
        self.assertEqual([f.name() for f in cols["address"].data_type().fields()], ["street", "city", "postcode"])
        self.assertEqual([(i.name(), i.type()) for i in loaded.index()],
                         [("pk", Index.IndexType.PRIMARY_KEY), ("uk", Index.IndexType.UNIQUE_KEY)])

        t = tables.alter_table(
            ident,
            TableChange.delete_column(["rank"], False),
            TableChange.delete_column(["gone"], True),
            TableChange.delete_index("uk", False),
            TableChange.delete_index("nope", True),
        )
        self.assertEqual([c.name() for c in t.columns()], ["id", "age", "full_name", "address"])
        self.assertEqual([i.name() for i in tables.load_table(ident).index()], ["pk"])

        # A change that cannot apply is an IllegalArgumentException naming
        # it, and none of the changes beside it is applied.
        self.assertRaisesWithMessage(
            IllegalArgumentException, "'gone' does not exist",
            tables.alter_table, ident, TableChange.update_comment("lost"), TableChange.delete_column(["gone"], False),
        )
        self.assertRaisesWithMessage(
            IllegalArgumentException, "already exists",
            tables.alter_table, ident, TableChange.add_column(["age"], Types.IntegerType.get(), None, position.first()),
        )
        self.assertRaisesWithMessage(
            IllegalArgumentException, "nope",
            tables.alter_table, ident, TableChange.delete_index("nope", False),
        )
        self.assertRaisesWithMessage(
            IllegalArgumentException, "primary key",
            tables.alter_table, ident, TableChange.add_index(Index.IndexType.PRIMARY_KEY, "pk2", [["age"]]),
        )
        self.assertIsNone(tables.load_table(ident).comment())

        self.assertTrue(tables.purge_table(ident))
        self.assertFalse(tables.purge_table(ident))
        self.assertFalse(tables.table_exists(ident))


class TestUsersGroupsRoles(GravitinoTest):
    def test_users(self):
        u = self.client.add_user("alice")
        self.assertEqual((u.name(), u.roles()), ("alice", []))
        self.assertEqual(self.client.get_user("alice").name(), "alice")
        self.client.add_user("bob")
        self.assertEqual(self.client.list_user_names(), ["alice", "bob"])
        self.assertEqual([x.name() for x in self.client.list_users()], ["alice", "bob"])
        self.assertRaisesWithMessage(UserAlreadyExistsException, "already exists", self.client.add_user, "alice")
        self.assertTrue(self.client.remove_user("alice"))
        self.assertFalse(self.client.remove_user("alice"))
        self.assertRaisesWithMessage(NoSuchUserException, "does not exist", self.client.get_user, "alice")

    def test_groups(self):
        g = self.client.add_group("eng")
        self.assertEqual(g.name(), "eng")
        self.assertEqual(self.client.get_group("eng").name(), "eng")
        self.assertEqual(self.client.list_group_names(), ["eng"])
        self.assertEqual([x.name() for x in self.client.list_groups()], ["eng"])
        self.assertRaisesWithMessage(GroupAlreadyExistsException, "already exists", self.client.add_group, "eng")
        self.assertTrue(self.client.remove_group("eng"))
        self.assertFalse(self.client.remove_group("eng"))
        self.assertRaisesWithMessage(NoSuchGroupException, "does not exist", self.client.get_group, "eng")

    def test_roles_and_grants(self):
        cat = self.relational()
        cat.as_schemas().create_schema("sales", None, {})
        objects = [
            SecurableObjects.of_metalake(self.ml, [Privileges.allow("USE_CATALOG")]),
            SecurableObjects.of_catalog("rel", [Privileges.allow("USE_CATALOG"), Privileges.deny("CREATE_SCHEMA")]),
        ]
        role = self.client.create_role("analyst", {"k": "v"}, objects)
        self.assertEqual(role.name(), "analyst")
        self.assertEqual(role.properties(), {"k": "v"})
        got = {o.full_name(): sorted((p.name().name, p.condition().name) for p in o.privileges()) for o in role.securable_objects()}
        self.assertEqual(got, {self.ml: [("USE_CATALOG", "ALLOW")], "rel": [("CREATE_SCHEMA", "DENY"), ("USE_CATALOG", "ALLOW")]})
        self.assertEqual(self.client.get_role("analyst").name(), "analyst")
        self.client.create_role("empty")
        self.assertEqual(self.client.list_role_names(), ["analyst", "empty"])
        self.assertRaisesWithMessage(RoleAlreadyExistsException, "already exists", self.client.create_role, "empty")
        self.assertRaisesWithMessage(NoSuchRoleException, "does not exist", self.client.get_role, "nope")

        # Roles to users and groups: granting twice and revoking what is not
        # held are fine; a missing role is IllegalRoleException.
        self.client.add_user("alice")
        self.assertEqual(self.client.grant_roles_to_user(["analyst"], "alice").roles(), ["analyst"])
        self.assertEqual(self.client.grant_roles_to_user(["analyst", "empty"], "alice").roles(), ["analyst", "empty"])
        self.assertEqual(self.client.revoke_roles_from_user(["empty"], "alice").roles(), ["analyst"])
        self.assertEqual(self.client.revoke_roles_from_user(["empty"], "alice").roles(), ["analyst"])
        self.assertRaisesWithMessage(IllegalRoleException, "does not exist", self.client.grant_roles_to_user, ["nope"], "alice")
        self.assertRaisesWithMessage(NoSuchUserException, "does not exist", self.client.grant_roles_to_user, ["analyst"], "carol")
        self.client.add_group("eng")
        self.assertEqual(self.client.grant_roles_to_group(["analyst"], "eng").roles(), ["analyst"])
        self.assertEqual(self.client.revoke_roles_from_group(["analyst"], "eng").roles(), [])
        self.assertRaisesWithMessage(NoSuchGroupException, "does not exist", self.client.grant_roles_to_group, ["analyst"], "ops")

        # Privileges to roles.
        schema = SecurableObjects.of_schema(SecurableObjects.of_catalog("rel", []), "sales", [])
        r = self.client.grant_privileges_to_role("empty", schema, [Privileges.allow("USE_SCHEMA"), Privileges.allow("SELECT_TABLE")])
        got = [sorted(p.name().name for p in o.privileges()) for o in r.securable_objects() if o.full_name() == "rel.sales"]
        self.assertEqual(got, [["SELECT_TABLE", "USE_SCHEMA"]])
        r = self.client.revoke_privileges_from_role("empty", schema, [Privileges.allow("SELECT_TABLE")])
        got = [sorted(p.name().name for p in o.privileges()) for o in r.securable_objects() if o.full_name() == "rel.sales"]
        self.assertEqual(got, [["USE_SCHEMA"]])
        r = self.client.revoke_privileges_from_role("empty", schema, [Privileges.allow("USE_SCHEMA")])
        self.assertEqual([o.full_name() for o in r.securable_objects()], [])
        self.assertRaisesWithMessage(
            IllegalPrivilegeException, "fileset", self.client.grant_privileges_to_role, "empty", schema, [Privileges.allow("READ_FILESET")]
        )
        missing = SecurableObjects.of_catalog("nope", [])
        self.assertRaisesWithMessage(
            NoSuchMetadataObjectException, "does not exist", self.client.grant_privileges_to_role, "empty", missing, [Privileges.allow("USE_CATALOG")]
        )
        self.assertRaisesWithMessage(
            IllegalMetadataObjectException, "does not exist", self.client.create_role, "r2", None,
            [SecurableObjects.of_catalog("nope", [Privileges.allow("USE_CATALOG")])],
        )

        # Deleting a role takes it from its holders.
        self.assertTrue(self.client.delete_role("analyst"))
        self.assertFalse(self.client.delete_role("analyst"))
        self.assertEqual(self.client.get_user("alice").roles(), [])


class TestTags(GravitinoTest):
    def test_tags(self):
        t = self.client.create_tag("pii", "personal data", {"color": "red"})
        self.assertEqual((t.name(), t.comment(), t.properties()), ("pii", "personal data", {"color": "red"}))
        t = self.client.create_tag("tier", None, None, ["gold", "silver", "gold"])
        self.assertEqual(t.allowed_values(), ["gold", "silver"])
        self.assertEqual(self.client.get_tag("pii").comment(), "personal data")
        self.assertEqual(self.client.list_tags(), ["pii", "tier"])
        self.assertEqual([x.name() for x in self.client.list_tags_info()], ["pii", "tier"])
        t = self.client.alter_tag(
            "pii",
            TagChange.rename("personal"),
            TagChange.update_comment("renamed"),
            TagChange.set_property("k", "v"),
            TagChange.remove_property("color"),
        )
        self.assertEqual((t.name(), t.comment(), t.properties()), ("personal", "renamed", {"k": "v"}))
        self.assertRaisesWithMessage(TagAlreadyExistsException, "already exists", self.client.create_tag, "tier", None, {})
        self.assertRaisesWithMessage(NoSuchTagException, "does not exist", self.client.get_tag, "pii")
        self.assertTrue(self.client.delete_tag("tier"))
        self.assertFalse(self.client.delete_tag("tier"))

    def test_associations(self):
        cat = self.relational()
        schema = cat.as_schemas().create_schema("sales", None, {})
        self.client.create_tag("pii", None, {})
        self.client.create_tag("gold", None, {})
        self.assertEqual(cat.supports_tags().associate_tags(["pii", "gold"], None), ["gold", "pii"])
        self.assertEqual(cat.supports_tags().list_tags(), ["gold", "pii"])
        self.assertEqual(sorted(t.name() for t in cat.supports_tags().list_tags_info()), ["gold", "pii"])
        self.assertEqual(cat.supports_tags().get_tag("pii").name(), "pii")
        self.assertEqual(schema.supports_tags().associate_tags(["pii"], None), ["pii"])
        self.assertEqual(cat.supports_tags().associate_tags(None, ["gold"]), ["pii"])
        objects = self.client.get_tag("pii").associated_objects().objects()
        self.assertEqual(sorted((o.type().value, o.name()) for o in objects), [("catalog", "rel"), ("schema", "sales")])
        self.assertEqual(self.client.get_tag("pii").associated_objects().count(), 2)
        # A dropped tag leaves every object.
        self.assertTrue(self.client.delete_tag("pii"))
        self.assertEqual(cat.supports_tags().list_tags(), [])

    def test_inherited_tags_and_values(self):
        cat = self.relational()
        schema = cat.as_schemas().create_schema("sales", None, {})
        table = cat.as_table_catalog().create_table(NameIdentifier.of("sales", "orders"), [Column.of("id", Types.LongType.get())])
        self.client.create_tag("pii", None, {})
        self.client.create_tag("gold", None, {})
        self.client.create_tag("tier", None, None, ["gold", "silver"])  # a value is required
        self.client.create_tag("flag", None, None, [])  # no value is allowed
        cat.supports_tags().associate_tags(["gold", "pii"], None)
        schema.supports_tags().associate_tags(["pii"], None)
        tags = table.supports_tags()
        # Tag values: several values of one tag, a valueless tag beside.
        self.assertEqual(
            tags.assign_tags(["flag", {"name": "tier", "value": "gold"}, {"name": "tier", "value": "silver"}], None),
            ["flag", "tier"],
        )
        # Own tags, then the schema's and the catalog's, each name once.
        self.assertEqual(tags.list_tags(), ["flag", "tier", "pii", "gold"])
        infos = [(t.name(), t.inherited(), t.assignment_values()) for t in tags.list_tags_info()]
        self.assertEqual(infos, [("flag", False, []), ("tier", False, ["gold", "silver"]), ("pii", True, []), ("gold", True, [])])
        gold = tags.get_tag("gold")
        self.assertEqual((gold.name(), gold.inherited()), ("gold", True))
        self.assertEqual(tags.get_tag("tier").assignment_values(), ["gold", "silver"])
        self.assertRaisesWithMessage(NoSuchTagException, "nope", tags.get_tag, "nope")
        self.assertEqual(schema.supports_tags().list_tags(), ["pii", "gold"])
        self.assertEqual(cat.supports_tags().list_tags(), ["gold", "pii"])
        objects = self.client.get_tag("tier").associated_objects().objects("silver")
        self.assertEqual([(o.type().value, o.name()) for o in objects], [("table", "orders")])
        self.assertEqual(self.client.get_tag("tier").associated_objects().objects("bronze"), [])

        # An assignment held is skipped by a tag-values request, refused by
        # a tag-names one; tags that do not exist are ignored.
        self.assertEqual(tags.assign_tags([{"name": "tier", "value": "gold"}], None), ["flag", "tier"])
        self.assertRaisesWithMessage(TagAlreadyAssociatedException, "already associated", tags.associate_tags, ["nope", "flag"], None)
        self.assertEqual(tags.associate_tags(["nope"], ["nada"]), ["flag", "tier"])
        # Values must be the tag's allowed ones.
        self.assertRaisesWithMessage(IllegalArgumentException, "requires a value", tags.assign_tags, ["tier"], None)
        self.assertRaisesWithMessage(IllegalArgumentException, "not one of", tags.assign_tags, [{"name": "tier", "value": "bronze"}], None)
        self.assertRaisesWithMessage(IllegalArgumentException, "does not take values", tags.assign_tags, [{"name": "flag", "value": "x"}], None)

        # Removing one value keeps the others; a tag-names removal removes all.
        self.assertEqual(tags.assign_tags(None, [{"name": "tier", "value": "gold"}]), ["flag", "tier"])
        self.assertEqual(tags.get_tag("tier").assignment_values(), ["silver"])
        self.assertEqual(tags.associate_tags(None, ["tier"]), ["flag"])
        self.assertEqual(tags.list_tags(), ["flag", "pii", "gold"])

    def test_column_tags(self):
        cat = self.relational()
        cat.as_schemas().create_schema("sales", None, {})
        tables = cat.as_table_catalog()
        ident = NameIdentifier.of("sales", "people")
        table = tables.create_table(ident, [Column.of("id", Types.LongType.get()), Column.of("email", Types.StringType.get())])
        self.client.create_tag("pii", None, {})
        self.client.create_tag("gold", None, {})
        table.supports_tags().associate_tags(["gold"], None)
        email = [c for c in table.columns() if c.name() == "email"][0].supports_tags()
        self.assertEqual(email.associate_tags(["pii"], None), ["pii"])
        # A column inherits its table's tags (and the schema's and catalog's).
        self.assertEqual(email.list_tags(), ["pii", "gold"])
        self.assertEqual([(t.name(), t.inherited()) for t in email.list_tags_info()], [("pii", False), ("gold", True)])
        self.assertTrue(email.get_tag("gold").inherited())
        objects = self.client.get_tag("pii").associated_objects().objects()
        self.assertEqual([(o.type().value, o.full_name()) for o in objects], [("column", "rel.sales.people.email")])
        # Renamed, the column keeps its tags.
        table = tables.alter_table(ident, TableChange.rename_column(["email"], "mail"))
        mail = [c for c in table.columns() if c.name() == "mail"][0].supports_tags()
        self.assertEqual(mail.list_tags(), ["pii", "gold"])
        self.assertEqual(mail.associate_tags(None, ["pii"]), [])


class TestOwners(GravitinoTest):
    def test_owners(self):
        self.relational()
        ml_obj = MetadataObjects.of([self.ml], MetadataObject.Type.METALAKE)
        cat_obj = MetadataObjects.of(["rel"], MetadataObject.Type.CATALOG)
        # The creator owns what it creates.
        owner = self.client.get_owner(ml_obj)
        self.assertEqual((owner.name(), owner.type()), ("anonymous", Owner.Type.USER))
        self.assertEqual(self.client.get_owner(cat_obj).name(), "anonymous")
        self.client.add_user("alice")
        self.client.set_owner(cat_obj, "alice", Owner.Type.USER)
        owner = self.client.get_owner(cat_obj)
        self.assertEqual((owner.name(), owner.type()), ("alice", Owner.Type.USER))
        # Tags and roles have owners too: their creator, then whom it names.
        self.client.create_tag("pii", None, {})
        self.client.create_role("auditor", {}, [])
        for obj in (MetadataObjects.of(["pii"], MetadataObject.Type.TAG), MetadataObjects.of(["auditor"], MetadataObject.Type.ROLE)):
            self.assertEqual(self.client.get_owner(obj).name(), "anonymous")
            self.client.set_owner(obj, "alice", Owner.Type.USER)
            owner = self.client.get_owner(obj)
            self.assertEqual((owner.name(), owner.type()), ("alice", Owner.Type.USER))
        self.assertRaisesWithMessage(
            NoSuchMetadataObjectException, "does not exist", self.client.get_owner, MetadataObjects.of(["nope"], MetadataObject.Type.TAG)
        )
        self.client.add_group("eng")
        self.client.set_owner(cat_obj, "eng", Owner.Type.GROUP)
        self.assertEqual(self.client.get_owner(cat_obj).type(), Owner.Type.GROUP)
        # Removing the owning group leaves the object without an owner.
        self.client.remove_group("eng")
        self.assertIsNone(self.client.get_owner(cat_obj))
        self.assertRaisesWithMessage(
            NoSuchMetadataObjectException, "does not exist", self.client.get_owner, MetadataObjects.of(["nope"], MetadataObject.Type.CATALOG)
        )
        self.assertRaisesWithMessage(NotFoundException, "does not exist", self.client.set_owner, ml_obj, "nobody", Owner.Type.USER)
        # The owner of the metalake cannot be removed.
        self.client.set_owner(ml_obj, "alice", Owner.Type.USER)
        self.assertRaisesWithMessage(IllegalArgumentException, "owns metalake", self.client.remove_user, "alice")


@unittest.skipUnless(os.environ.get("GRAVITINO_AUTH_URI"), "needs a semcat with --auth simple --authorization")
class TestAuthentication(unittest.TestCase):
    """A semcat with --auth simple, --authorization and service admin
    "admin": the client's SimpleAuthProvider sends GRAVITINO_USER."""

    uri = os.environ.get("GRAVITINO_AUTH_URI", "")

    def as_user(self, user):
        os.environ["GRAVITINO_USER"] = user
        return SimpleAuthProvider()

    def test_unauthorized(self):
        # No credentials: 401/1011, which the client reports as a
        # RESTException with the server's message (as against Gravitino).
        with self.assertRaises(RESTException) as cm:
            GravitinoAdminClient(uri=self.uri)
        self.assertIn("Authorization", str(cm.exception))

    def test_forbidden(self):
        admin = GravitinoAdminClient(uri=self.uri, auth_data_provider=self.as_user("admin"))
        ml = unique("ml")
        admin.create_metalake(ml, None, {})
        try:
            GravitinoClient(uri=self.uri, metalake_name=ml, auth_data_provider=self.as_user("admin")).add_user("bob")
            bob = GravitinoClient(uri=self.uri, metalake_name=ml, auth_data_provider=self.as_user("bob"))
            with self.assertRaises(ForbiddenException) as cm:
                bob.create_catalog("rel", Catalog.Type.RELATIONAL, "hive", None, {})
            self.assertIn("bob", str(cm.exception))
            with self.assertRaises(ForbiddenException):
                bob.add_user("carol")
        finally:
            admin.drop_metalake(ml, force=True)


if __name__ == "__main__":
    unittest.main()
