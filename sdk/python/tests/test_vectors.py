"""The shared conformance vectors (testdata/protocol.json)."""

import json
import os
import pathlib

import pytest

import seqd


def vectors():
    path = (
        os.environ.get("SEQD_PROTOCOL_VECTORS")
        or pathlib.Path(__file__).resolve().parents[3] / "testdata" / "protocol.json"
    )
    with open(path) as f:
        return json.load(f)


V = vectors()


def test_ranges():
    for c in V["ranges"]:
        r = seqd.Range(int(c["first"]), int(c["last"]), int(c["increment"]))
        assert r.count == int(c["count"]), c
        assert [r.at(i) for i in range(len(c["values"]))] == [int(v) for v in c["values"]]
        for t in c["tail_after"]:
            tail = r.tail(int(t["used"]))
            assert tail is not None and tail.first == int(t["first"]) and tail.last == r.last


def test_shapes():
    assert len(V["shapes"]) > 50
    for c in V["shapes"]:
        sh = seqd.parse_shape(c["shape"])
        r = seqd.Range(1, 1, 1, sh)
        v, ok = r.value_of(int(c["counter"]))
        want = int(c["value"]) if sh.shaped else int(c["counter"])
        assert (v, ok) == (want, not c["skipped"]), c
        assert str(sh) == c["shape"] or c["shape"] == "ordered"


def test_shape_ranges():
    for c in V["shape_ranges"]:
        r = seqd.Range(int(c["first"]), int(c["last"]), 1, seqd.parse_shape(c["shape"]))
        assert list(r.values()) == [int(v) for v in c["values"]], c["shape"]


class Recorder:
    def __init__(self):
        self.released = []

    def release(self, name, r):
        self.released.append(r)
        return True


def test_release():
    for c in V["release"]:
        src = Recorder()
        b = seqd.Batch(src, "s", size=10)
        cur = c["current"]
        b._set_cur(seqd.Range(int(cur["first"]), int(cur["last"]), int(cur["increment"])))
        b._used = int(c["used_counters"])
        if c["prefetched"]:
            p = c["prefetched"]
            b._next = seqd.Range(int(p["first"]), int(p["last"]), int(p["increment"]))
        b.close()
        assert [(r.first, r.last) for r in src.released] == [(int(w["first"]), int(w["last"])) for w in c["release"]], c


@pytest.mark.parametrize("case", V["errors"], ids=lambda c: c["sqlstate"])
def test_errors(case):
    cls = seqd.error_class(case["sqlstate"])
    assert (cls.kind if cls is not seqd.SeqdError else "other") == case["kind"]
    assert seqd.retry_of(case["sqlstate"]) == case["retry"]


def test_invalid_shapes():
    assert len(V["invalid_shapes"]) > 30
    for text in V["invalid_shapes"]:
        try:
            sh = seqd.parse_shape(text)
        except ValueError:
            continue
        pytest.fail(f"{text!r} read as {sh}")


def test_shape_texts():
    for c in V["shape_texts"]:
        assert str(seqd.parse_shape(c["text"])) == c["shape"], c


def test_snowflake_shapes():
    """Every snowflake layout of the vectors is covered, each with its largest counter."""
    texts = {c["shape"] for c in V["shapes"] if c["shape"].startswith("snowflake ")}
    assert {
        "snowflake 1288834974657000 1000 10 12 node 0",
        "snowflake 1288834974657000 1000 10 12 node 1023",
        "snowflake 1409529600000000 10000 16 8 node 7",
        "snowflake 0 1000 0 18 node 0",
    } <= texts
    sh = seqd.parse_shape("snowflake 1288834974657000 1000 10 12 node 1023")
    assert (sh.epoch_micros, sh.unit_micros, sh.node_bits, sh.counter_bits, sh.node) == (
        1288834974657000,
        1000,
        10,
        12,
        1023,
    )
    assert sh.value((1 << 53) - 1) == (1 << 63) - 1
    assert any(c["shape"].startswith("snowflake ") for c in V["shape_ranges"])
