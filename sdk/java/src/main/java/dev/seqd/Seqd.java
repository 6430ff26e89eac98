package dev.seqd;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Reserves and gives back ranges of seqd sequences through a JDBC DataSource (a pool such as
 * HikariCP). Safe for concurrent use, as the DataSource is.
 */
public final class Seqd implements Source {
  private final DataSource ds;

  public Seqd(DataSource ds) {
    this.ds = ds;
  }

  /** name as seqd_reserve and nextval read it: a quoted identifier. */
  public static String quote(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /** CREATE SEQUENCE name START WITH start [options], unless it exists. */
  public void create(String name, long start, String options) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE SEQUENCE IF NOT EXISTS " + quote(name) + " START WITH " + start + " " + options);
    } catch (SQLException e) {
      throw SeqdException.wrap("create", name, e);
    }
  }

  /** One value: nextval(name). */
  public long nextval(String name) {
    try (Connection c = ds.getConnection();
        PreparedStatement p = c.prepareStatement("SELECT nextval(?)")) {
      p.setString(1, quote(name));
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw SeqdException.wrap("nextval", name, e);
    }
  }

  /** The next n values of name (counters, for a shaped sequence). */
  @Override
  public Range reserve(String name, long n) {
    if (n < 1) {
      throw new SeqdException("seqd: reserve " + n + " values of \"" + name + "\"", SeqdException.Kind.INVALID, null, null);
    }
    if (n == 1) {
      long v = nextval(name);
      return new Range(v, v, 1);
    }
    try (Connection c = ds.getConnection();
        PreparedStatement p = c.prepareStatement("SELECT first, last, increment, shape FROM seqd_reserve(?, ?)")) {
      p.setString(1, quote(name));
      p.setLong(2, n);
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        return new Range(rs.getLong(1), rs.getLong(2), rs.getLong(3), Shape.parse(rs.getString(4)));
      }
    } catch (SQLException e) {
      throw SeqdException.wrap("reserve", name, e);
    }
  }

  /** Gives r back; true when it was still the sequence's unused tail. */
  @Override
  public boolean release(String name, Range r) {
    try (Connection c = ds.getConnection();
        PreparedStatement p = c.prepareStatement("SELECT seqd_release(?, ?, ?)")) {
      p.setString(1, quote(name));
      p.setLong(2, r.first());
      p.setLong(3, r.last());
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    } catch (SQLException e) {
      throw SeqdException.wrap("release", name, e);
    }
  }
}
