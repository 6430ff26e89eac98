package seqd.compat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/**
 * The JDBC stacks against seqd, each with its default settings: pgjdbc,
 * pgjdbc with preferQueryMode=simple, and pgjdbc under HikariCP (Spring
 * Boot's default pool). Usage: Drivers HOST PORT. Every stack creates a
 * sequence, calls nextval from several threads (all values distinct), uses
 * currval and setval, meets one error by its SQLSTATE, and runs a
 * transaction with a savepoint. Exits non-zero at the first failure.
 */
public final class Drivers {
  interface ConnectionSource {
    Connection get() throws SQLException;
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  static long nextval(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("select nextval(?)")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  static void stack(String label, ConnectionSource src) throws Exception {
    String name = "jdbc_" + label + "_s";
    try (Connection c = src.get(); Statement st = c.createStatement()) {
      st.execute("create sequence " + name);
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Callable<List<Long>>> work = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      work.add(() -> {
        List<Long> out = new ArrayList<>();
        try (Connection c = src.get()) {
          for (int i = 0; i < 50; i++) {
            out.add(nextval(c, name));
          }
        }
        return out;
      });
    }
    List<Long> all = new ArrayList<>();
    for (Future<List<Long>> f : pool.invokeAll(work)) {
      all.addAll(f.get());
    }
    pool.shutdown();
    check(all.size() == 200 && new HashSet<>(all).size() == 200, label + ": repeated values " + all);
    try (Connection c = src.get()) {
      c.getTransactionIsolation();
      try (PreparedStatement ps = c.prepareStatement("select setval(?, ?)")) {
        ps.setString(1, name);
        ps.setLong(2, 1000);
        ps.executeQuery().close();
      }
      try (PreparedStatement ps = c.prepareStatement("select nextval(?), currval(?)")) {
        ps.setString(1, name);
        ps.setString(2, name);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          check(rs.getLong(1) == 1001 && rs.getLong(2) == 1001, label + ": setval/currval");
        }
      }
      try {
        nextval(c, "jdbc_missing");
        check(false, label + ": no error");
      } catch (SQLException e) {
        check("42P01".equals(e.getSQLState()), label + ": SQLSTATE " + e.getSQLState());
      }
      c.setAutoCommit(false);
      nextval(c, name);
      Savepoint sp = c.setSavepoint("a");
      try (Statement st = c.createStatement()) {
        st.executeQuery("select 1/0");
        check(false, label + ": no division error");
      } catch (SQLException e) {
        check("22012".equals(e.getSQLState()), label + ": SQLSTATE " + e.getSQLState());
      }
      c.rollback(sp);
      check(nextval(c, name) == 1003, label + ": after savepoint");
      c.commit();
      c.setAutoCommit(true);
    }
    System.out.println(label + ": ok");
  }

  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://" + args[0] + ":" + args[1] + "/seqd";
    String user = "seqd";
    stack("pgjdbc", () -> DriverManager.getConnection(url, user, ""));
    stack("simple", () -> DriverManager.getConnection(url + "?preferQueryMode=simple", user, ""));
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setUsername(user);
    cfg.setMaximumPoolSize(4);
    try (HikariDataSource ds = new HikariDataSource(cfg)) {
      DataSource d = ds;
      stack("hikari", d::getConnection);
    }
  }
}
