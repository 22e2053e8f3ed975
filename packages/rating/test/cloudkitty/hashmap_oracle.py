"""Prices usage points with CloudKitty's own HashMap class, for comparison.

Reads a JSON list of cases {"name", "rules": RuleSet, "points": [Point]} on
stdin (the shapes of @ratecard/rating) and writes {"name", "results"} per case
on stdout, one result per point: the price as str(Decimal) plus the per-group
state HashMap left in `_res`, or the name of the error CloudKitty raised. The database layer is replaced by an in-memory fake that
answers list_*/get_* in the order of the input arrays, the way a table scan
without ORDER BY answers in insertion order.

Run with the system interpreter that has CloudKitty installed:
    /usr/bin/python3 test/cloudkitty/hashmap_oracle.py \
        < test/cloudkitty/cases.json > test/cloudkitty/cloudkitty-results.json
"""
import decimal
import json
import sys
import types

from cloudkitty import dataframe
from cloudkitty.rating import hash as hash_module
from cloudkitty.rating.hash.db import api as hash_db_api


class FakeHashMapDb:
    def __init__(self, rules):
        self.services = rules.get("services", [])
        self.fields = rules.get("fields", [])
        groups = {g["group_id"]: g for g in rules.get("groups", [])}
        self.mappings = [self._row(m, groups, "mapping_id") for m in rules.get("mappings", [])]
        self.thresholds = [self._row(t, groups, "threshold_id") for t in rules.get("thresholds", [])]

    @staticmethod
    def _row(rule, groups, id_key):
        group = groups.get(rule.get("group_id")) if rule.get("group_id") else None
        return types.SimpleNamespace(
            uuid=rule[id_key],
            service_id=rule.get("service_id"),
            field_id=rule.get("field_id"),
            tenant_id=rule.get("tenant_id"),
            group_id=rule.get("group_id"),
            group=types.SimpleNamespace(name=group["name"]) if group else None,
            value=rule.get("value"),
            map_type=rule["type"],
            cost=decimal.Decimal(rule["cost"]),
            level=decimal.Decimal(rule["level"]) if "level" in rule else None,
        )

    def list_services(self):
        return [s["service_id"] for s in self.services]

    def get_service(self, uuid):
        return types.SimpleNamespace(**next(s for s in self.services if s["service_id"] == uuid))

    def list_fields(self, service_uuid):
        return [f["field_id"] for f in self.fields if f["service_id"] == service_uuid]

    def get_field(self, uuid):
        return types.SimpleNamespace(**next(f for f in self.fields if f["field_id"] == uuid))

    @staticmethod
    def _select(rows, service_uuid, field_uuid, tenant_uuid):
        if service_uuid:
            rows = [r for r in rows if r.service_id == service_uuid]
        else:
            rows = [r for r in rows if r.field_id == field_uuid]
        return [r.uuid for r in rows if r.tenant_id == tenant_uuid]

    def list_mappings(self, service_uuid=None, field_uuid=None, tenant_uuid=None):
        return self._select(self.mappings, service_uuid, field_uuid, tenant_uuid)

    def list_thresholds(self, service_uuid=None, field_uuid=None, tenant_uuid=None):
        return self._select(self.thresholds, service_uuid, field_uuid, tenant_uuid)

    def get_mapping(self, uuid):
        return next(m for m in self.mappings if m.uuid == uuid)

    def get_threshold(self, uuid):
        return next(t for t in self.thresholds if t.uuid == uuid)


def as_text(value):
    return None if value is None else str(value)


def price_point(rules_db, point):
    hash_db_api.get_instance = lambda: rules_db
    processor = hash_module.HashMap(point.get("tenant"))
    data_point = dataframe.DataPoint("unit", point["volume"], 0, {}, point.get("metadata", {}))
    processor._res = {}
    try:
        processor.process_services(point["service"], data_point)
        processor.process_fields(point["service"], data_point)
        priced = processor.add_rating_informations(data_point)
    except Exception as error:  # CloudKitty lets these escape and fails the rating
        return {"error": type(error).__name__}
    groups = [
        {
            "group": name,
            "flat": as_text(state["flat"]),
            "rate": as_text(state["rate"]),
            "threshold_level": as_text(state["threshold"]["level"]),
            "threshold_scope": state["threshold"]["scope"],
        }
        for name, state in processor._res.items()
    ]
    return {"price": str(priced.price), "groups": groups}


def price_case(case):
    rules_db = FakeHashMapDb(case["rules"])
    return {"name": case["name"], "results": [price_point(rules_db, p) for p in case["points"]]}


def main():
    json.dump([price_case(case) for case in json.load(sys.stdin)], sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
