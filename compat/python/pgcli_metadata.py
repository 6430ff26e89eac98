"""pgcli's completion metadata, as pgcli reads it at connect.

Usage: pgcli_metadata.py HOST PORT USER DATABASE. Prints one JSON object:
each of PGExecute's metadata queries (search_path, schemata, tables,
views, table_columns, databases, foreignkeys, functions, datatypes) with
its rows as lists, sorted, or {"error": ...} where it failed.
"""

import json
import sys

from pgcli.pgexecute import PGExecute

HOST, PORT, USER, DB = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ex = PGExecute(database=DB, user=USER, password=None, host=HOST, port=PORT, dsn=None)
out = {}
for name in [
    "search_path",
    "schemata",
    "tables",
    "views",
    "table_columns",
    "databases",
    "foreignkeys",
    "functions",
    "datatypes",
]:
    try:
        rows = getattr(ex, name)()
        out[name] = sorted(
            (list(r) if isinstance(r, tuple) else [r] for r in rows),
            key=lambda r: json.dumps(r, default=str),
        )
    except Exception as e:  # noqa: BLE001 - reported, compared
        out[name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0]}"}
print(json.dumps(out, default=str))
