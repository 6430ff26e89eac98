package seqd.orm;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * jOOQ with SQLDialect.MARIADB over MariaDB Connector/J, with its defaults,
 * on each server named in the arguments (NAME HOST PORT USER PASSWORD
 * DATABASE, repeated; the first is seqd): jOOQ's CREATE SEQUENCE, 200
 * values from four threads with a connection each (half DSLContext.nextval,
 * half a select of Sequence.nextval()), all distinct, and an unknown
 * sequence's DataAccessException, whose SQLSTATE and MariaDB error number
 * must be the same on every server. Exits non-zero at the first failure.
 */
public final class JooqMariaDB {
  static final org.jooq.Sequence<Long> SEQ = DSL.sequence(DSL.name("jooq_s"), SQLDataType.BIGINT);

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  public static void main(String[] a) throws Exception {
    String first = null;
    for (int i = 0; i + 6 <= a.length; i += 6) {
      String server = a[i];
      String url = "jdbc:mariadb://" + a[i + 1] + ":" + a[i + 2] + "/" + a[i + 5];
      String user = a[i + 3], password = a[i + 4];
      try (Connection c = DriverManager.getConnection(url, user, password)) {
        DSLContext ctx = DSL.using(c, SQLDialect.MARIADB);
        ctx.createSequence(SEQ).execute();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        List<Thread> ts = new ArrayList<>();
        List<Throwable> errs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          Thread th =
              new Thread(
                  () -> {
                    try (Connection tc = DriverManager.getConnection(url, user, password)) {
                      DSLContext tx = DSL.using(tc, SQLDialect.MARIADB);
                      for (int n = 0; n < 50; n++) {
                        seen.add(n % 2 == 0 ? tx.nextval(SEQ) : tx.select(SEQ.nextval()).fetchOne(0, Long.class));
                      }
                    } catch (Throwable e) {
                      synchronized (errs) {
                        errs.add(e);
                      }
                    }
                  });
          ts.add(th);
          th.start();
        }
        for (Thread th : ts) {
          th.join();
        }
        if (!errs.isEmpty()) {
          throw new AssertionError(server, errs.get(0));
        }
        check(seen.size() == 200, server + ": " + seen.size() + " distinct values of 200");
        System.out.println(server + ": 200 distinct values");
        String unknown;
        try {
          ctx.nextval(DSL.sequence(DSL.name("jooq_missing"), SQLDataType.BIGINT));
          throw new AssertionError(server + ": an unknown sequence gave a value");
        } catch (DataAccessException e) {
          SQLException cause = e.getCause(SQLException.class);
          unknown = e.getClass().getName() + " " + e.sqlState() + " " + (cause == null ? "no SQLException" : cause.getErrorCode());
        }
        System.out.println(server + " unknown sequence: " + unknown);
        if (first == null) {
          first = unknown;
        }
        check(unknown.equals(first), server + ": unknown sequence " + unknown + ", seqd's " + first);
        ctx.dropSequence(SEQ).execute();
      }
    }
  }
}
