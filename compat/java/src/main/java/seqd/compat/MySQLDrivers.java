package seqd.compat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The JDBC stacks against seqd's MySQL protocol, each with its default
 * settings: MySQL Connector/J, MariaDB Connector/J, and MariaDB
 * Connector/J under HikariCP. Usage: MySQLDrivers HOST PORT. Every stack
 * logs in as seqd with the password "pw" (a wrong one gets 1045), creates
 * a sequence, takes 200 values with NEXT VALUE FOR from four threads (all
 * distinct), reads PREVIOUS VALUE FOR and LASTVAL, sets a value through a
 * PreparedStatement, meets an unknown sequence's error by its number
 * (4091), and runs a transaction. Exits non-zero at the first failure.
 */
public final class MySQLDrivers {
  interface ConnectionSource {
    Connection get() throws SQLException;
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  static long one(Connection c, String q) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(q)) {
      check(r.next(), q + ": no row");
      long v = r.getLong(1);
      return r.wasNull() ? Long.MIN_VALUE : v;
    }
  }

  static void stack(String name, ConnectionSource pool, ConnectionSource fresh) throws Exception {
    String seq = "java_" + name;
    try (Connection c = pool.get(); Statement s = c.createStatement()) {
      s.execute("CREATE SEQUENCE " + seq + " START WITH 1 INCREMENT BY 1 NOCACHE");
    }
    ExecutorService ex = Executors.newFixedThreadPool(4);
    List<Future<List<Long>>> parts = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Callable<List<Long>> work =
          () -> {
            List<Long> out = new ArrayList<>();
            try (Connection c = pool.get()) {
              for (int i = 0; i < 50; i++) {
                out.add(one(c, "SELECT NEXT VALUE FOR " + seq));
              }
            }
            return out;
          };
      parts.add(ex.submit(work));
    }
    HashSet<Long> seen = new HashSet<>();
    for (Future<List<Long>> p : parts) {
      seen.addAll(p.get());
    }
    ex.shutdown();
    check(seen.size() == 200, name + ": " + seen.size() + " distinct values of 200");
    try (Connection c = fresh.get()) {
      check(one(c, "SELECT PREVIOUS VALUE FOR " + seq) == Long.MIN_VALUE, name + ": PREVIOUS VALUE FOR before NEXTVAL");
      check(one(c, "SELECT NEXTVAL(" + seq + ")") == 201, name + ": NEXTVAL");
      check(one(c, "SELECT LASTVAL(" + seq + ")") == 201, name + ": LASTVAL");
      try (PreparedStatement ps = c.prepareStatement("SELECT SETVAL(" + seq + ", ?)")) {
        ps.setLong(1, 1000);
        try (ResultSet r = ps.executeQuery()) {
          check(r.next() && r.getLong(1) == 1000, name + ": SETVAL");
        }
      }
      check(one(c, "SELECT NEXTVAL(" + seq + ")") == 1001, name + ": NEXTVAL after SETVAL");
      try {
        one(c, "SELECT NEXT VALUE FOR java_missing");
        check(false, name + ": an unknown sequence gave no error");
      } catch (SQLException e) {
        check(e.getErrorCode() == 4091, name + ": " + e + ", want 4091");
      }
      c.setAutoCommit(false);
      check(one(c, "SELECT NEXTVAL(" + seq + ")") == 1002, name + ": in a transaction");
      c.commit();
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.execute("DROP SEQUENCE " + seq);
      }
    }
    System.out.println(name + ": ok");
  }

  static void refused(String name, String url) {
    try (Connection c = DriverManager.getConnection(url, "seqd", "wrong")) {
      check(false, name + ": a wrong password was let in");
    } catch (SQLException e) {
      check(e.getErrorCode() == 1045, name + ": " + e + ", want 1045");
    }
    System.out.println(name + ": wrong password refused");
  }

  /**
   * MariaDB Connector/J's reset() (COM_RESET_CONNECTION) starts the
   * session again in the database it was in: the sequence memory is gone,
   * names still resolve there.
   */
  static void reset(String host, String port) throws Exception {
    String base = "jdbc:mariadb://" + host + ":" + port + "/";
    try (Connection c = DriverManager.getConnection(base + "public", "seqd", "pw"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS java_reset");
    }
    try (Connection c = DriverManager.getConnection(base + "java_reset?useResetConnection=true", "seqd", "pw"); Statement s = c.createStatement()) {
      s.execute("CREATE SEQUENCE r");
      check(one(c, "SELECT NEXTVAL(r)") == 1, "reset: NEXTVAL");
      c.unwrap(org.mariadb.jdbc.Connection.class).reset();
      check(one(c, "SELECT PREVIOUS VALUE FOR r") == Long.MIN_VALUE, "reset: the session's sequence memory is gone");
      check(one(c, "SELECT NEXTVAL(r)") == 2, "reset: names resolve in the database");
      s.execute("DROP SEQUENCE r");
    }
    System.out.println("mariadb_connector_j: reset");
  }

  public static void main(String[] a) throws Exception {
    String host = a[0], port = a[1];
    String mysqlUrl = "jdbc:mysql://" + host + ":" + port + "/public";
    String mariaUrl = "jdbc:mariadb://" + host + ":" + port + "/public";
    stack(
        "connector_j",
        () -> DriverManager.getConnection(mysqlUrl, "seqd", "pw"),
        () -> DriverManager.getConnection(mysqlUrl, "seqd", "pw"));
    stack(
        "mariadb_connector_j",
        () -> DriverManager.getConnection(mariaUrl, "seqd", "pw"),
        () -> DriverManager.getConnection(mariaUrl, "seqd", "pw"));
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(mariaUrl);
    hc.setUsername("seqd");
    hc.setPassword("pw");
    hc.setMaximumPoolSize(4);
    try (HikariDataSource ds = new HikariDataSource(hc)) {
      stack("mariadb_hikari", ds::getConnection, () -> DriverManager.getConnection(mariaUrl, "seqd", "pw"));
    }
    reset(host, port);
    refused("connector_j", mysqlUrl);
    refused("mariadb_connector_j", mariaUrl);
  }
}
