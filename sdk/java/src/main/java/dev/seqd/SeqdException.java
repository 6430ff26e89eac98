package dev.seqd;

import java.sql.SQLException;

/**
 * A failure of a seqd call, classified by SQLSTATE as docs/protocol.md says. {@link #isRetryable()}:
 * sending the request again is safe and may succeed (a reservation whose outcome was unknown is
 * burned, never handed out twice). The driver's SQLException is the cause.
 */
public class SeqdException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What an error means to a client. */
  public enum Kind {
    NOT_FOUND,
    LIMIT_REACHED,
    INVALID,
    AUTH,
    CONFLICT,
    UNAVAILABLE,
    CLOSED,
    OTHER
  }

  private final Kind kind;
  private final String sqlState;

  public SeqdException(String message, Kind kind, String sqlState, Throwable cause) {
    super(message, cause);
    this.kind = kind;
    this.sqlState = sqlState;
  }

  public Kind kind() {
    return kind;
  }

  /** The server's SQLSTATE, or null. */
  public String sqlState() {
    return sqlState;
  }

  public boolean isRetryable() {
    return kind == Kind.CONFLICT || kind == Kind.UNAVAILABLE;
  }

  /** The kind of an SQLSTATE. */
  public static Kind kindOf(String sqlState) {
    if (sqlState == null) {
      return Kind.OTHER;
    }
    if (sqlState.startsWith("08")) {
      return Kind.UNAVAILABLE;
    }
    return switch (sqlState) {
      case "42P01" -> Kind.NOT_FOUND;
      case "2200H", "22003" -> Kind.LIMIT_REACHED;
      case "22023", "42601" -> Kind.INVALID;
      case "28P01", "42501" -> Kind.AUTH;
      case "40001", "40P01" -> Kind.CONFLICT;
      case "25006", "58030", "57P01", "57P02", "57P03", "53300", "53100", "57014" -> Kind.UNAVAILABLE;
      default -> Kind.OTHER;
    };
  }

  /** docs/protocol.md's retry column: "no", "yes" or "another_host". */
  public static String retryOf(String sqlState) {
    if ("25006".equals(sqlState) || "58030".equals(sqlState)) {
      return "another_host";
    }
    Kind k = kindOf(sqlState);
    return k == Kind.CONFLICT || k == Kind.UNAVAILABLE ? "yes" : "no";
  }

  static SeqdException wrap(String op, String name, SQLException e) {
    String state = e.getSQLState();
    Kind kind = state == null ? Kind.UNAVAILABLE : kindOf(state);
    return new SeqdException("seqd: " + op + " \"" + name + "\": " + e.getMessage(), kind, state, e);
  }
}
