package dev.seqd;

import static org.junit.jupiter.api.Assertions.fail;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** What the tests connect to, from the environment go test ./sdk sets. */
final class Env {
  private Env() {}

  static String need(String name) {
    String v = System.getenv(name);
    if (v == null || v.isEmpty()) {
      fail(name + " is not set: run through go test ./sdk (the README's test command)");
    }
    return v;
  }

  static HikariDataSource pool(String jdbcUrl, int size) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(jdbcUrl);
    c.setMaximumPoolSize(size);
    return new HikariDataSource(c);
  }

  private static int seq;

  static synchronized String fresh() {
    return "java_" + System.nanoTime() + "_" + seq++;
  }
}
