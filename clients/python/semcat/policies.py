"""Policies (Gravitino 1.0, semcat SPEC §2.10): named rules of a metalake
attached to catalogs, schemas, tables and semantic models, inherited from an
object's schema and catalog.

:class:`PolicyMethods` holds the client's policy calls; :class:`~semcat.Client`
has them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

__all__ = ["Policy", "PolicyMethods", "OBJECT_TYPES"]

#: The object types that carry policies, as the routes name them.
OBJECT_TYPES = ("catalog", "schema", "table", "semantic_model")


@dataclass(frozen=True)
class Policy:
    """A policy as the server returns it.

    ``inherited`` is None on the policy routes; on an object's policies it is
    True for a policy of the object's schema or catalog. ``raw`` is the
    server's JSON object, every key kept.
    """

    name: str
    comment: Optional[str]
    policy_type: str
    enabled: bool
    custom_rules: Optional[Dict[str, Any]]
    supported_object_types: Tuple[str, ...]
    properties: Optional[Dict[str, str]]
    inherited: Optional[bool]
    raw: Dict[str, Any]

    @classmethod
    def from_json(cls, obj: Dict[str, Any]) -> "Policy":
        content = obj.get("content") or {}
        return cls(
            name=obj["name"],
            comment=obj.get("comment"),
            policy_type=obj.get("policyType", ""),
            enabled=bool(obj.get("enabled")),
            custom_rules=content.get("customRules"),
            supported_object_types=tuple(content.get("supportedObjectTypes") or ()),
            properties=content.get("properties"),
            inherited=obj.get("inherited"),
            raw=obj,
        )

    def __str__(self) -> str:
        return self.name


def _policy_names(value: Union[None, str, Iterable[str]], arg: str) -> Optional[List[str]]:
    if value is None:
        return None
    items = [value] if isinstance(value, str) else list(value)
    for item in items:
        if not isinstance(item, str) or not item:
            raise ValueError("%s: want non-empty policy names, got %r" % (arg, item))
    return items


def _object(obj_type: str, full_name: Union[str, Sequence[str]]) -> Tuple[str, str]:
    if not isinstance(obj_type, str) or obj_type.lower() not in OBJECT_TYPES:
        raise ValueError("obj_type: want one of %s, got %r" % (", ".join(OBJECT_TYPES), obj_type))
    if not isinstance(full_name, str):
        full_name = ".".join(full_name)
    if not full_name:
        raise ValueError("full_name: the object's dotted name (without the metalake) is empty")
    return obj_type.lower(), full_name


def _content(
    supported_object_types: Iterable[str],
    custom_rules: Optional[Dict[str, Any]],
    properties: Optional[Dict[str, str]],
) -> Dict[str, Any]:
    types = [supported_object_types] if isinstance(supported_object_types, str) else list(supported_object_types)
    if not types:
        raise ValueError("supported_object_types: give at least one object type (catalog, schema, table, ...)")
    if custom_rules is not None and not isinstance(custom_rules, dict):
        raise TypeError("custom_rules: want a dict, got %s" % type(custom_rules).__name__)
    return {"customRules": custom_rules, "supportedObjectTypes": types, "properties": properties}


class PolicyMethods:
    """The policy calls of :class:`~semcat.Client` (it provides ``_url``
    and ``_request``)."""

    def _policies_path(self, metalake: str) -> List[str]:
        from .client import _check_metalake

        _check_metalake(metalake)
        return ["metalakes", metalake, "policies"]

    def _policy_call(self, method: str, segments: Sequence[str], member: Optional[str], body: Any = None,
                     params: Optional[Sequence[Tuple[str, str]]] = None) -> Any:
        from .client import _require

        url = self._url(segments, params)  # type: ignore[attr-defined]
        out = self._request(method, url, body=body)  # type: ignore[attr-defined]
        if member is None:
            return out
        _require(out, member, url)
        return out[member]

    def list_policies(self, metalake: str) -> List[str]:
        """The names of a metalake's policies, sorted."""
        return list(self._policy_call("GET", self._policies_path(metalake), "names"))

    def list_policy_infos(self, metalake: str) -> List[Policy]:
        """A metalake's policies, by name."""
        ps = self._policy_call("GET", self._policies_path(metalake), "policies", params=[("details", "true")])
        return [Policy.from_json(p) for p in ps]

    def get_policy(self, metalake: str, name: str) -> Policy:
        """One policy; :class:`~semcat.NotFoundError` (NoSuchPolicyException) if there is none."""
        return Policy.from_json(self._policy_call("GET", self._policies_path(metalake) + [name], "policy"))

    def create_policy(
        self,
        metalake: str,
        name: str,
        supported_object_types: Iterable[str],
        custom_rules: Optional[Dict[str, Any]] = None,
        *,
        comment: Optional[str] = None,
        properties: Optional[Dict[str, str]] = None,
        enabled: bool = True,
        policy_type: str = "custom",
    ) -> Policy:
        """Create a policy: ``supported_object_types`` such as ``["TABLE"]``,
        ``custom_rules`` any JSON object."""
        body = {"name": name, "comment": comment, "policyType": policy_type, "enabled": enabled,
                "content": _content(supported_object_types, custom_rules, properties)}
        return Policy.from_json(self._policy_call("POST", self._policies_path(metalake), "policy", body))

    def alter_policy(self, metalake: str, name: str, *updates: Dict[str, Any]) -> Policy:
        """Apply Gravitino's policy updates (all or none), e.g.
        ``{"@type": "rename", "newName": "x"}``; see :meth:`rename_policy`,
        :meth:`update_policy_comment` and :meth:`update_policy_content`."""
        body = {"updates": list(updates)}
        return Policy.from_json(self._policy_call("PUT", self._policies_path(metalake) + [name], "policy", body))

    def rename_policy(self, metalake: str, name: str, new_name: str) -> Policy:
        return self.alter_policy(metalake, name, {"@type": "rename", "newName": new_name})

    def update_policy_comment(self, metalake: str, name: str, comment: Optional[str]) -> Policy:
        return self.alter_policy(metalake, name, {"@type": "updateComment", "newComment": comment})

    def update_policy_content(
        self,
        metalake: str,
        name: str,
        supported_object_types: Iterable[str],
        custom_rules: Optional[Dict[str, Any]] = None,
        *,
        properties: Optional[Dict[str, str]] = None,
        policy_type: str = "custom",
    ) -> Policy:
        return self.alter_policy(metalake, name, {"@type": "updateContent", "policyType": policy_type,
                                                  "newContent": _content(supported_object_types, custom_rules, properties)})

    def enable_policy(self, metalake: str, name: str) -> None:
        self._policy_call("PATCH", self._policies_path(metalake) + [name], None, {"enable": True})

    def disable_policy(self, metalake: str, name: str) -> None:
        self._policy_call("PATCH", self._policies_path(metalake) + [name], None, {"enable": False})

    def delete_policy(self, metalake: str, name: str) -> bool:
        """Drop a policy and detach it from every object; False if there was none."""
        return bool(self._policy_call("DELETE", self._policies_path(metalake) + [name], "dropped"))

    def list_policy_objects(self, metalake: str, name: str) -> List[Tuple[str, str]]:
        """The objects the policy is attached to directly, as ``(type, full_name)``
        (only those the caller may see)."""
        objs = self._policy_call("GET", self._policies_path(metalake) + [name, "objects"], "metadataObjects")
        return [(o["type"], o["fullName"]) for o in objs]

    def _object_path(self, metalake: str, obj_type: str, full_name: Union[str, Sequence[str]]) -> List[str]:
        from .client import _check_metalake

        _check_metalake(metalake)
        t, f = _object(obj_type, full_name)
        return ["metalakes", metalake, "objects", t, f, "policies"]

    def list_object_policies(self, metalake: str, obj_type: str, full_name: Union[str, Sequence[str]]) -> List[str]:
        """The names of an object's policies: its own, sorted, then those it
        inherits from its schema and catalog. ``full_name`` is dotted without
        the metalake (``"rel.sales.orders"``)."""
        return list(self._policy_call("GET", self._object_path(metalake, obj_type, full_name), "names"))

    def list_object_policy_infos(self, metalake: str, obj_type: str, full_name: Union[str, Sequence[str]]) -> List[Policy]:
        """An object's policies, own and inherited (``Policy.inherited``)."""
        ps = self._policy_call("GET", self._object_path(metalake, obj_type, full_name), "policies", params=[("details", "true")])
        return [Policy.from_json(p) for p in ps]

    def get_object_policy(self, metalake: str, obj_type: str, full_name: Union[str, Sequence[str]], name: str) -> Policy:
        """One policy of an object, own or inherited; NotFoundError if it carries neither."""
        return Policy.from_json(self._policy_call("GET", self._object_path(metalake, obj_type, full_name) + [name], "policy"))

    def associate_policies(
        self,
        metalake: str,
        obj_type: str,
        full_name: Union[str, Sequence[str]],
        add: Union[None, str, Iterable[str]] = None,
        remove: Union[None, str, Iterable[str]] = None,
    ) -> List[str]:
        """Attach and detach policies of an object; answers the names of its
        own policies afterwards. Policies that do not exist are ignored;
        attaching one it holds raises AlreadyExistsError
        (PolicyAlreadyAssociatedException)."""
        body = {"policiesToAdd": _policy_names(add, "add"), "policiesToRemove": _policy_names(remove, "remove")}
        if body["policiesToAdd"] is None and body["policiesToRemove"] is None:
            raise ValueError("add, remove: give at least one")
        return list(self._policy_call("POST", self._object_path(metalake, obj_type, full_name), "names", body))
