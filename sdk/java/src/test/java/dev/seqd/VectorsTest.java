package dev.seqd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The shared conformance vectors (testdata/protocol.json); every integer is a decimal string. */
class VectorsTest {
  static JsonNode v;

  @BeforeAll
  static void load() throws Exception {
    v = new ObjectMapper().readTree(new File(Env.need("SEQD_PROTOCOL_VECTORS")));
  }

  static long n(JsonNode j) {
    return Long.parseLong(j.asText());
  }

  @Test
  void ranges() {
    for (JsonNode c : v.get("ranges")) {
      Range r = new Range(n(c.get("first")), n(c.get("last")), n(c.get("increment")));
      assertEquals(n(c.get("count")), r.count(), c.toString());
      for (int i = 0; i < c.get("values").size(); i++) {
        assertEquals(n(c.get("values").get(i)), r.at(i));
      }
      for (JsonNode t : c.get("tail_after")) {
        Range tail = r.tail(n(t.get("used")));
        assertNotNull(tail);
        assertEquals(n(t.get("first")), tail.first());
        assertEquals(r.last(), tail.last());
      }
    }
  }

  @Test
  void shapes() {
    assertTrue(v.get("shapes").size() > 50);
    for (JsonNode c : v.get("shapes")) {
      Shape sh = Shape.parse(c.get("shape").asText());
      Range r = new Range(1, 1, 1, sh);
      long counter = n(c.get("counter"));
      long want = sh.shaped() ? n(c.get("value")) : counter;
      assertEquals(want, r.value(counter), c.toString());
      assertEquals(!c.get("skipped").asBoolean(), r.gives(counter), c.toString());
      if (sh.shaped()) {
        assertEquals(c.get("shape").asText(), sh.toString());
      }
    }
  }

  @Test
  void shapeRanges() {
    for (JsonNode c : v.get("shape_ranges")) {
      Range r = new Range(n(c.get("first")), n(c.get("last")), 1, Shape.parse(c.get("shape").asText()));
      List<Long> got = new ArrayList<>();
      for (long i = 0; i < r.count(); i++) {
        if (r.gives(r.at(i))) {
          got.add(r.value(r.at(i)));
        }
      }
      List<Long> want = new ArrayList<>();
      c.get("values").forEach(x -> want.add(n(x)));
      assertEquals(want, got, c.get("shape").asText());
    }
  }

  @Test
  void release() {
    for (JsonNode c : v.get("release")) {
      List<Range> released = new ArrayList<>();
      Source src =
          new Source() {
            @Override
            public Range reserve(String name, long count) {
              throw new UnsupportedOperationException();
            }

            @Override
            public boolean release(String name, Range r) {
              released.add(r);
              return true;
            }
          };
      Batch b = Batch.of(src, "s", 10);
      JsonNode cur = c.get("current");
      JsonNode p = c.get("prefetched");
      b.state(
          new Range(n(cur.get("first")), n(cur.get("last")), n(cur.get("increment"))),
          n(c.get("used_counters")),
          p.isNull() ? null : new Range(n(p.get("first")), n(p.get("last")), n(p.get("increment"))));
      b.close();
      assertEquals(c.get("release").size(), released.size(), c.toString());
      for (int i = 0; i < released.size(); i++) {
        assertEquals(n(c.get("release").get(i).get("first")), released.get(i).first());
        assertEquals(n(c.get("release").get(i).get("last")), released.get(i).last());
      }
    }
  }

  @Test
  void errors() {
    for (JsonNode c : v.get("errors")) {
      String state = c.get("sqlstate").asText();
      assertEquals(c.get("kind").asText(), SeqdException.kindOf(state).name().toLowerCase(), state);
      assertEquals(c.get("retry").asText(), SeqdException.retryOf(state), state);
    }
  }

  @Test
  void invalidShapes() {
    assertTrue(v.get("invalid_shapes").size() > 30);
    for (JsonNode c : v.get("invalid_shapes")) {
      String bad = c.asText();
      assertThrows(IllegalArgumentException.class, () -> Shape.parse(bad), bad);
    }
  }

  @Test
  void shapeTexts() {
    for (JsonNode c : v.get("shape_texts")) {
      assertEquals(c.get("shape").asText(), Shape.parse(c.get("text").asText()).toString(), c.toString());
    }
  }

  @Test
  void snowflake() {
    Shape sh = Shape.parse("snowflake 1288834974657000 1000 10 12 node 1023");
    assertEquals(Shape.Kind.SNOWFLAKE, sh.kind());
    assertEquals(1288834974657000L, sh.epochMicros());
    assertEquals(1000, sh.unitMicros());
    assertEquals(10, sh.nodeBits());
    assertEquals(12, sh.counterBits());
    assertEquals(1023, sh.node());
    assertEquals(Long.MAX_VALUE, sh.value((1L << 53) - 1));
    List<String> layouts = new ArrayList<>();
    v.get("shapes").forEach(c -> layouts.add(c.get("shape").asText()));
    for (String want :
        new String[] {
          "snowflake 1288834974657000 1000 10 12 node 0",
          "snowflake 1288834974657000 1000 10 12 node 1023",
          "snowflake 1409529600000000 10000 16 8 node 7",
          "snowflake 0 1000 0 18 node 0"
        }) {
      assertTrue(layouts.contains(want), want);
    }
  }
}
