package dev.seqd;

import com.zaxxer.hikari.HikariDataSource;
import dev.seqd.hibernate.SeqdId;
import dev.seqd.hibernate.SeqdIdGenerator;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.function.LongSupplier;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Java figures of docs/benchmarks.md, in one run: values per second on one thread for each
 * generator against nextval through the same driver, and Hibernate inserts per second with @SeqdId
 * against Hibernate's pooled optimizer on a PostgreSQL sequence. Not part of the test suite:
 * {@code mvn test -Dgroups=bench -Dbench.excluded=none} with SEQD_TEST_JDBC and SEQD_TEST_PG_JDBC.
 */
@Tag("bench")
class BenchTest {
  static double rate(LongSupplier f, double seconds) {
    long n = 0;
    long start = System.nanoTime();
    long deadline = start + (long) (seconds * 1e9);
    long sink = 0;
    for (; ; ) {
      for (int i = 0; i < 1000; i++) {
        sink += f.getAsLong();
      }
      n += 1000;
      long now = System.nanoTime();
      if (now >= deadline) {
        if (sink == 42) {
          System.out.print("");
        }
        return n * 1e9 / (now - start);
      }
    }
  }

  @Test
  void generators() throws Exception {
    try (HikariDataSource ds = Env.pool(Env.need("SEQD_TEST_JDBC"), 4)) {
      Seqd src = new Seqd(ds);
      String name = Env.fresh();
      src.create(name, 1, "cache 100000");
      double base;
      try (Connection c = ds.getConnection();
          PreparedStatement p = c.prepareStatement("select nextval(?)")) {
        p.setString(1, name);
        base =
            rate(
                () -> {
                  try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                  } catch (Exception e) {
                    throw new RuntimeException(e);
                  }
                },
                2);
      }
      System.out.printf("%-30s%14s%12s%n", "mode", "values/s", "x nextval");
      System.out.printf("%-30s%,14.0f%12.2f%n", "nextval (pgjdbc, prepared)", base, 1.0);
      IdGenerator[] gens = {new Async(src, name), Batch.of(src, name, 1000), Batch.async(src, name, 1 << 20, 1 << 18)};
      String[] labels = {"Async", "Batch 1000", "AsyncBatch 1M"};
      for (int i = 0; i < gens.length; i++) {
        try (IdGenerator g = gens[i]) {
          rate(g::next, 1); // warm up
          double r = rate(g::next, 2);
          System.out.printf("%-30s%,14.0f%12.2f%n", labels[i], r, r / base);
        }
      }
    }
  }

  @Entity(name = "BenchSeqd")
  @Table(name = "seqd_bench_seqd")
  public static class WithSeqd {
    @Id
    @SeqdId(sequence = "bench_order_ids", size = 50, lowWatermark = 25)
    Long id;

    String item;

    public WithSeqd() {}
  }

  @Entity(name = "BenchPooled")
  @Table(name = "seqd_bench_pooled")
  public static class WithPooled {
    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "pooled")
    @SequenceGenerator(name = "pooled", sequenceName = "seqd_bench_pooled_seq", allocationSize = 50)
    Long id;

    String item;

    public WithPooled() {}
  }

  @Test
  void hibernateInserts() throws Exception {
    try (HikariDataSource seqdDs = Env.pool(Env.need("SEQD_TEST_JDBC"), 4)) {
      Configuration cfg = new Configuration().addAnnotatedClass(WithSeqd.class).addAnnotatedClass(WithPooled.class);
      cfg.setProperty("hibernate.connection.url", Env.need("SEQD_TEST_PG_JDBC"));
      cfg.setProperty("hibernate.hbm2ddl.auto", "create-drop");
      cfg.setProperty("hibernate.jdbc.batch_size", "50");
      cfg.setProperty("hibernate.order_inserts", "true");
      cfg.getProperties().put(SeqdIdGenerator.DATASOURCE, seqdDs);
      int rows = 20000;
      try (SessionFactory sf = cfg.buildSessionFactory()) {
        System.out.printf("%-40s%14s%n", "Hibernate, 50 rows per transaction", "inserts/s");
        for (int round = 0; round < 2; round++) { // the first round warms up
          for (String kind : new String[] {"@SeqdId (blocks of 50 from seqd)", "pooled optimizer, allocationSize 50"}) {
            boolean seqd = kind.startsWith("@SeqdId");
            long start = System.nanoTime();
            for (int i = 0; i < rows; i += 50) {
              sf.inTransaction(
                  s -> {
                    for (int j = 0; j < 50; j++) {
                      if (seqd) {
                        WithSeqd e = new WithSeqd();
                        e.item = "x";
                        s.persist(e);
                      } else {
                        WithPooled e = new WithPooled();
                        e.item = "x";
                        s.persist(e);
                      }
                    }
                  });
            }
            double r = rows * 1e9 / (System.nanoTime() - start);
            if (round == 1) {
              System.out.printf("%-40s%,14.0f%n", kind, r);
            }
          }
        }
        SeqdIdGenerator.closeAll();
      }
    }
  }
}
