"""Drives seqd's gRPC service with grpcio, its stubs compiled from the
repository's .proto by grpcio-tools at start: values taken concurrently
are all distinct and in order per caller, a range is reserved and its
tail released, ranges flow over one stream, and NOT_FOUND,
PERMISSION_DENIED and FAILED_PRECONDITION come with their SQLSTATEs (in
the status's google.rpc.ErrorInfo, read with grpcio-status, and in the
seqd-sqlstate trailer).

Usage: grpc_api.py ADDRESS PROTO_ROOT SUPERUSER PASSWORD ROLE ROLE_PASSWORD
Prints a JSON summary; exits non-zero on the first failure."""

import base64
import concurrent.futures
import importlib
import json
import sys
import tempfile

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from grpc_tools import protoc

address, proto_root, su, su_pw, role, role_pw = sys.argv[1:7]

out = tempfile.mkdtemp()
rc = protoc.main(
    [
        "protoc",
        "-I" + proto_root,
        "--python_out=" + out,
        "--grpc_python_out=" + out,
        "seqd/v1/sequences.proto",
    ]
)
assert rc == 0, f"protoc failed: {rc}"
sys.path.insert(0, out)
pb = importlib.import_module("seqd.v1.sequences_pb2")
pb_grpc = importlib.import_module("seqd.v1.sequences_pb2_grpc")


def creds(user, password):
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return (("authorization", "Basic " + token),)


SU = creds(su, su_pw)
channel = grpc.insecure_channel(address)
stub = pb_grpc.SequencesStub(channel)


def seq(name):
    return pb.Sequence(schema="public", name=name)


def fails(what, call, code, sqlstate):
    """call fails with code, its SQLSTATE in the details and the trailer."""
    try:
        call()
    except grpc.RpcError as e:
        assert e.code() == code, f"{what}: {e.code()} {e.details()}, want {code}"
        trailer = dict(e.trailing_metadata() or ())
        assert trailer.get("seqd-sqlstate") == sqlstate, f"{what}: trailer {trailer}"
        status = rpc_status.from_call(e)
        infos = []
        for d in status.details:
            info = error_details_pb2.ErrorInfo()
            if d.Unpack(info):
                infos.append(info)
        assert [i.reason for i in infos] == [sqlstate], f"{what}: details {infos}"
        assert infos[0].domain == "seqd", infos[0]
        return
    raise AssertionError(f"{what}: succeeded")


# Concurrent takers, all distinct, in order per taker.
def taker(_):
    got = []
    for i in range(25):
        r = stub.Next(
            pb.NextRequest(sequence=seq("shared"), count=1 + i % 3), metadata=SU
        )
        assert len(r.values) == 1 + i % 3, r
        got.extend(r.values)
    assert got == sorted(got), got
    return got


with concurrent.futures.ThreadPoolExecutor(8) as pool:
    values = [v for got in pool.map(taker, range(8)) for v in got]
assert len(values) == len(set(values)) == 8 * (9 * 1 + 8 * 2 + 8 * 3), len(values)

# A range, its tail given back: the next value is the tail's first.
r = stub.Reserve(pb.ReserveRequest(sequence=seq("shared"), count=100), metadata=SU)
assert r.last - r.first == 99 and r.increment == 1 and r.shape == "", r
rel = stub.Release(
    pb.ReleaseRequest(sequence=seq("shared"), first=r.first + 10, last=r.last),
    metadata=SU,
)
assert rel.released, rel
n = stub.Next(pb.NextRequest(sequence=seq("shared")), metadata=SU)
assert list(n.values) == [r.first + 10], (n, r)

# Ranges over one stream, three requests ahead of their answers.
ranges = list(
    stub.Ranges(
        iter(
            [pb.ReserveRequest(sequence=seq("shared"), count=c) for c in (10, 20, 30)]
        ),
        metadata=SU,
    )
)
assert [x.last - x.first + 1 for x in ranges] == [10, 20, 30], ranges
assert ranges[0].last < ranges[1].first and ranges[1].last < ranges[2].first, ranges

fails(
    "no such sequence",
    lambda: stub.Next(pb.NextRequest(sequence=seq("nosuch")), metadata=SU),
    grpc.StatusCode.NOT_FOUND,
    "42P01",
)
fails(
    "a role without USAGE",
    lambda: stub.Next(
        pb.NextRequest(sequence=seq("shared")), metadata=creds(role, role_pw)
    ),
    grpc.StatusCode.PERMISSION_DENIED,
    "42501",
)
fails(
    "a wrong password",
    lambda: stub.Next(
        pb.NextRequest(sequence=seq("shared")), metadata=creds(role, "wrong")
    ),
    grpc.StatusCode.UNAUTHENTICATED,
    "28P01",
)
stub.Next(pb.NextRequest(sequence=seq("small")), metadata=SU)
fails(
    "a sequence at its limit",
    lambda: stub.Next(pb.NextRequest(sequence=seq("small")), metadata=SU),
    grpc.StatusCode.FAILED_PRECONDITION,
    "2200H",
)
# A deadline ends the call on the client's side whatever the server does;
# the server must still answer the next call.
try:
    stub.Next(pb.NextRequest(sequence=seq("shared")), metadata=SU, timeout=1e-6)
except grpc.RpcError as e:
    assert e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, e
stub.Next(pb.NextRequest(sequence=seq("shared")), metadata=SU)

print(json.dumps({"values": len(values), "ranges": len(ranges)}))
