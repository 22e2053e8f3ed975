"""Prices usage with CloudKitty's own HashMap code, reading the rules from a CloudKitty database.

The price oracle of the target tests (issue 14): after Ratecard applied its rules to a real
CloudKitty 17, this loads them back the way CloudKitty's processor does (HashMap._load_rates
through CloudKitty's own SQLAlchemy layer, against the SQLite file the API wrote) and prices each
usage point as the processor would, so that the test can compare with Ratecard's quote. Nothing of
CloudKitty is replaced: unlike packages/rating/test/cloudkitty/hashmap_oracle.py, which fakes the
database to price rule sets given inline.

Input on stdin: {"config_file": ".../cloudkitty.conf", "points": [{"service", "volume",
"metadata"}]}. Output on stdout: one entry per point, {"price": exact decimal text, plain and
without trailing zeros} or {"error": the name of what CloudKitty raised}.

Run with the system interpreter that has Debian's python3-cloudkitty (installed by start.sh):
    /usr/bin/python3 hashmap_sqlite_oracle.py < points.json
"""
import decimal
import json
import sys

from oslo_config import cfg

from cloudkitty import dataframe
from cloudkitty.rating import hash as hash_module


def plain(value):
    # format(..., "f") is exact (no context rounding), unlike normalize().
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def price_point(processor, point):
    data_point = dataframe.DataPoint(
        "unit", point["volume"], 0, {}, point.get("metadata", {})
    )
    processor._res = {}
    try:
        processor.process_services(point["service"], data_point)
        processor.process_fields(point["service"], data_point)
        priced = processor.add_rating_informations(data_point)
    except Exception as error:  # CloudKitty lets these escape and fails the rating
        return {"error": type(error).__name__}
    return {"price": plain(decimal.Decimal(priced.price))}


def main():
    request = json.load(sys.stdin)
    # CloudKitty's own configuration file: its [database] connection is the SQLite file the API
    # writes. Read once, like the processor's worker does at the start of a collect period.
    cfg.CONF(["--config-file", request["config_file"]], project="cloudkitty")
    # No tenant: Ratecard's quote, like CloudKitty's, applies no tenant rules.
    processor = hash_module.HashMap(None)
    results = [price_point(processor, point) for point in request["points"]]
    json.dump(results, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
