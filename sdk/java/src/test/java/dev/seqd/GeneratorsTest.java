package dev.seqd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The generators against a real seqd (SEQD_TEST_JDBC), through HikariCP. */
class GeneratorsTest {
  static HikariDataSource ds;
  static Seqd source;

  @BeforeAll
  static void open() {
    ds = Env.pool(Env.need("SEQD_TEST_JDBC"), 8);
    source = new Seqd(ds);
  }

  @AfterAll
  static void close() {
    ds.close();
  }

  @Test
  void asyncIsNextval() {
    String name = Env.fresh();
    source.create(name, 1, "");
    try (IdGenerator g = new Async(source, name)) {
      assertEquals(1, g.next());
      assertEquals(2, g.next());
    }
  }

  @Test
  void batchGivesTheTailBack() {
    String name = Env.fresh();
    source.create(name, 1, "");
    Batch g = Batch.of(source, name, 100);
    for (long want = 1; want <= 10; want++) {
      assertEquals(want, g.next());
    }
    g.close();
    Stats st = g.stats();
    assertEquals(10, st.issued());
    assertEquals(90, st.released());
    assertEquals(0, st.burned());
    assertEquals(11, source.nextval(name));
    SeqdException e = assertThrows(SeqdException.class, g::next);
    assertEquals(SeqdException.Kind.CLOSED, e.kind());
  }

  @Test
  void threadsGetUniqueValues() throws Exception {
    List<BiFunction<Seqd, String, IdGenerator>> makers =
        List.of(
            (s, n) -> Batch.of(s, n, 50), (s, n) -> Batch.async(s, n, 50, 20), (s, n) -> new Async(s, n));
    for (BiFunction<Seqd, String, IdGenerator> make : makers) {
      String name = Env.fresh();
      source.create(name, 1, "");
      IdGenerator g = make.apply(source, name);
      ConcurrentLinkedQueue<Long> all = new ConcurrentLinkedQueue<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        Thread th =
            new Thread(
                () -> {
                  long prev = Long.MIN_VALUE;
                  for (int i = 0; i < 300; i++) {
                    long v = g.next();
                    assertTrue(v > prev, "one thread's values increase");
                    prev = v;
                    all.add(v);
                  }
                });
        threads.add(th);
        th.start();
      }
      for (Thread th : threads) {
        th.join();
      }
      g.close();
      assertEquals(2400, all.size());
      assertEquals(2400, new HashSet<>(all).size());
      Stats st = g.stats();
      assertEquals(2400, st.issued());
      assertEquals(st.reserved(), st.issued() + st.released() + st.burned());
    }
  }

  @Test
  void shapedSequences() throws Exception {
    String name = Env.fresh();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "create sequence \"" + name + "\" bit_reversed_positive skip range 2305843009213693952 6917529027641081856");
    }
    Shape sh = Shape.parse("bit_reversed_positive skip 2305843009213693952 6917529027641081856");
    List<Long> want = new ArrayList<>();
    for (long c = 1; want.size() < 150; c++) {
      if (!sh.skipped(sh.value(c))) {
        want.add(sh.value(c));
      }
    }
    try (Batch g = Batch.of(source, name, 32)) {
      for (int i = 0; i < 100; i++) {
        assertEquals(want.get(i), g.next());
      }
    }
    assertEquals(want.get(100), source.nextval(name)); // the tail came back
  }

  @Test
  void snowflakeSequences() throws Exception {
    String name = Env.fresh();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("create sequence \"" + name + "\" snowflake");
    }
    Shape sh = source.reserve(name, 10).shape();
    assertEquals(Shape.Kind.SNOWFLAKE, sh.kind());
    assertEquals(
        "snowflake 1288834974657000 1000 10 12 node " + sh.node(), sh.toString(), "Twitter's layout");
    List<Long> got = new ArrayList<>();
    try (Batch g = Batch.of(source, name, 32)) {
      for (int i = 0; i < 100; i++) {
        got.add(g.next());
      }
    }
    try (IdGenerator g = Batch.async(source, name, 32, 8)) {
      for (int i = 0; i < 100; i++) {
        got.add(g.next());
      }
    }
    long now = System.currentTimeMillis() * 1000;
    for (int i = 0; i < got.size(); i++) {
      long v = got.get(i);
      assertTrue(i == 0 || v > got.get(i - 1), "in order, every value new");
      assertEquals(sh.node(), v >>> 12 & 1023);
      // The time part is the clock's, or up to 10 s ahead of it.
      long t = sh.epochMicros() + (v >>> 22) * sh.unitMicros();
      assertTrue(Math.abs(t - now) < 600_000_000L, v + ": time " + t + ", now " + now);
    }
  }

  @Test
  void errorsKeepTheSqlState() {
    SeqdException e = assertThrows(SeqdException.class, () -> Batch.of(source, "no_such_sequence", 10).next());
    assertEquals(SeqdException.Kind.NOT_FOUND, e.kind());
    assertEquals("42P01", e.sqlState());
    String name = Env.fresh();
    source.create(name, 1, "maxvalue 5");
    Batch g = Batch.of(source, name, 4);
    Set<Long> got = new HashSet<>();
    for (int i = 0; i < 5; i++) {
      got.add(g.next());
    }
    assertEquals(Set.of(1L, 2L, 3L, 4L, 5L), got);
    e = assertThrows(SeqdException.class, g::next);
    assertEquals(SeqdException.Kind.LIMIT_REACHED, e.kind());
    assertEquals("2200H", e.sqlState());
  }
}
