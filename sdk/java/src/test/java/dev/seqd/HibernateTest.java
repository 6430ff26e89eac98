package dev.seqd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariDataSource;
import dev.seqd.hibernate.SeqdId;
import dev.seqd.hibernate.SeqdIdGenerator;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.Test;

/**
 * Real Hibernate ORM 6 persisting entities into PostgreSQL (the test database) from several
 * threads, their ids from seqd in blocks of 50 while the seqd sequence counts by 1: every id unique,
 * and together exactly 1..N: no gap and no duplicate from a block size that differs from the
 * sequence's INCREMENT (the pooled optimizer's sharp edge).
 */
class HibernateTest {
  @Entity(name = "SeqdOrder")
  @Table(name = "seqd_java_orders")
  public static class Order {
    @Id
    @SeqdId(sequence = "hibernate_order_ids", size = 50, lowWatermark = 10)
    Long id;

    String item;

    public Order() {}

    Order(String item) {
      this.item = item;
    }
  }

  @Test
  void entitiesGetTheirIdsFromSeqd() throws Exception {
    try (HikariDataSource seqdDs = Env.pool(Env.need("SEQD_TEST_JDBC"), 4)) {
      Seqd seqd = new Seqd(seqdDs);
      Configuration cfg = new Configuration().addAnnotatedClass(Order.class);
      cfg.setProperty("hibernate.connection.url", Env.need("SEQD_TEST_PG_JDBC"));
      cfg.setProperty("hibernate.hbm2ddl.auto", "create-drop");
      cfg.setProperty("hibernate.connection.pool_size", "8");
      cfg.getProperties().put(SeqdIdGenerator.DATASOURCE, seqdDs);
      int threads = 6;
      int perThread = 100;
      try (SessionFactory sf = cfg.buildSessionFactory()) {
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int tt = t;
          Thread th =
              new Thread(
                  () -> {
                    for (int i = 0; i < perThread; i += 4) {
                      int ii = i;
                      sf.inTransaction(
                          s -> {
                            for (int j = 0; j < 4; j++) {
                              s.persist(new Order("t" + tt + "-" + (ii + j)));
                            }
                          });
                    }
                  });
          ts.add(th);
          th.start();
        }
        for (Thread th : ts) {
          th.join();
        }
        List<Long> ids =
            sf.fromSession(s -> s.createQuery("select o.id from SeqdOrder o order by o.id", Long.class).list());
        int n = threads * perThread;
        assertEquals(n, ids.size());
        for (int i = 0; i < n; i++) {
          assertEquals(i + 1, ids.get(i), "ids are exactly 1.." + n);
        }
        IdGenerator g = SeqdIdGenerator.generator(seqdDs, "hibernate_order_ids");
        assertEquals(n, g.stats().issued());
        SeqdIdGenerator.closeAll();
        // Drawn from seqd: after the tail is given back, seqd's next value follows the last id.
        assertEquals(n + 1, seqd.nextval("hibernate_order_ids"));
      }
    }
  }
}
