"""Drives seqd's HTTP API with httpx as a Python service would, and checks
every answer against the API's own OpenAPI 3.1 document (validated by
openapi-spec-validator): values taken concurrently are all distinct, a
range is reserved and its tail released, 404, 403 and 409 come with their
SQLSTATEs, a bearer token is made, used, listed and revoked, and every
documented operation is exercised.

Usage: http_api.py BASE_URL SUPERUSER PASSWORD ROLE ROLE_PASSWORD
Prints a JSON summary; exits non-zero on the first failure."""

import concurrent.futures
import json
import sys

import httpx
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate
from referencing import Registry
from referencing.jsonschema import DRAFT202012

base, su, su_pw, role, role_pw = sys.argv[1:6]

doc = httpx.get(base + "/v1/openapi.json").json()
validate(doc)  # raises on an invalid document
registry = Registry().with_resource("urn:seqd-api", DRAFT202012.create_resource(doc))
exercised = set()


def check(op, path, resp):
    """Checks resp against the schema op documents for its status."""
    exercised.add(op)
    item = doc["paths"][path]
    operation = next(
        o for o in item.values() if isinstance(o, dict) and o.get("operationId") == op
    )
    documented = operation["responses"].get(str(resp.status_code))
    assert (
        documented is not None
    ), f"{op}: status {resp.status_code} is not documented: {resp.text}"
    content = documented.get("content")
    if not content:
        assert not resp.content, f"{op}: a body where none is documented"
        return None
    ctype = resp.headers["content-type"]
    assert ctype in content, f"{op}: {ctype} is not documented for {resp.status_code}"
    schema = content[ctype]["schema"]
    body = resp.json()
    OAS31Validator(resolve_refs(schema), registry=registry).validate(body)
    return body


def resolve_refs(node):
    """schema with its local $refs pointing into the registered document."""
    if isinstance(node, dict):
        return {
            k: (
                "urn:seqd-api" + v
                if k == "$ref" and v.startswith("#")
                else resolve_refs(v)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [resolve_refs(v) for v in node]
    return node


SEQ = "/v1/sequences/{schema}/{name}"
su_client = httpx.Client(base_url=base, auth=(su, su_pw))
app = httpx.Client(base_url=base, auth=(role, role_pw))
url = "/v1/sequences/public/py_ids"

body = check(
    "create",
    SEQ,
    su_client.put(url, json={"start": "100", "increment": "5", "cache": "10"}),
)
assert body["start"] == "100" and body["last_value"] is None, body
dup = check("create", SEQ, su_client.put(url))
assert dup["sqlstate"] == "42P07" and dup["status"] == 409, dup
body = check("alter", SEQ, su_client.patch(url, json={"increment": "1"}))
assert body["increment"] == "1", body
check("describe", SEQ, su_client.get(url))


def take(n):
    with httpx.Client(base_url=base, auth=(su, su_pw)) as c:
        out = []
        for i in range(n):
            r = c.post(url + "/nextval", json={"count": "2"} if i % 2 else None)
            out += check("nextval", SEQ + "/nextval", r)["values"]
        return out


with concurrent.futures.ThreadPoolExecutor(8) as pool:
    values = [v for part in pool.map(take, [25] * 8) for v in part]
assert len(values) == 8 * sum(2 if i % 2 else 1 for i in range(25)), len(values)
assert len(set(values)) == len(values), "a value was handed out twice"

rng = check(
    "reserve", SEQ + "/reserve", su_client.post(url + "/reserve", json={"count": "50"})
)
first, last = int(rng["first"]), int(rng["last"])
assert last - first == 49, rng
rel = check(
    "release",
    SEQ + "/release",
    su_client.post(
        url + "/release", json={"first": str(first + 10), "last": str(last)}
    ),
)
assert rel["released"] is True, rel
nxt = check("nextval", SEQ + "/nextval", su_client.post(url + "/nextval"))
assert nxt["values"] == [str(first + 10)], (nxt, first)

missing = check(
    "nextval", SEQ + "/nextval", su_client.post("/v1/sequences/public/nosuch/nextval")
)
assert missing["status"] == 404 and missing["sqlstate"] == "42P01", missing
denied = check("nextval", SEQ + "/nextval", app.post(url + "/nextval"))
assert denied["status"] == 403 and denied["sqlstate"] == "42501", denied
bad = httpx.post(base + url + "/nextval", auth=(role, "wrong"))
assert (
    bad.status_code == 401
    and bad.json()["sqlstate"] == "28P01"
    and bad.headers["www-authenticate"].startswith("Basic")
), bad.text

# A bearer token: made with the password, used, listed, revoked.
made = check(
    "createToken",
    "/v1/tokens",
    su_client.post("/v1/tokens", json={"label": "py", "valid_days": "1"}),
)
holder = httpx.Client(
    base_url=base, headers={"Authorization": "Bearer " + made["token"]}
)
taken = check("nextval", SEQ + "/nextval", holder.post(url + "/nextval"))
assert len(taken["values"]) == 1, taken
refused = check("createToken", "/v1/tokens", holder.post("/v1/tokens"))
assert refused["status"] == 403 and refused["sqlstate"] == "42501", refused
listed = check("listTokens", "/v1/tokens", holder.get("/v1/tokens"))
assert [t["id"] for t in listed["tokens"]] == [made["id"]], listed
check("revokeToken", "/v1/tokens/{id}", su_client.delete("/v1/tokens/" + made["id"]))
after = holder.post(url + "/nextval")
assert after.status_code == 401 and after.json()["sqlstate"] == "28P01", after.text

check("drop", SEQ, su_client.delete(url))
gone = check("describe", SEQ, su_client.get(url))
assert gone["status"] == 404, gone
check("openapi", "/v1/openapi.json", httpx.get(base + "/v1/openapi.json"))

documented = {
    o["operationId"]
    for item in doc["paths"].values()
    for o in item.values()
    if isinstance(o, dict) and "operationId" in o
}
assert (
    documented == exercised
), f"documented but not exercised: {documented - exercised}"
print(json.dumps({"values": len(values), "operations": sorted(exercised)}))
