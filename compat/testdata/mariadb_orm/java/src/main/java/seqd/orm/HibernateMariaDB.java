package seqd.orm;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.hibernate.JDBCException;
import org.hibernate.SessionFactory;
import org.hibernate.boot.model.relational.Namespace;
import org.hibernate.boot.model.relational.Sequence;
import org.hibernate.cfg.Configuration;
import org.hibernate.dialect.Dialect;
import org.hibernate.dialect.MariaDBDialect;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.id.IdentifierGenerator;
import org.hibernate.id.enhanced.SequenceStyleGenerator;
import org.hibernate.mapping.Table;
import org.hibernate.tool.schema.spi.SchemaFilter;
import org.hibernate.tool.schema.spi.SchemaFilterProvider;

/**
 * Hibernate ORM 6 with org.hibernate.dialect.MariaDBDialect over MariaDB
 * Connector/J, with its defaults, on each server named in the arguments
 * (NAME HOST PORT USER PASSWORD DATABASE, repeated; the first is seqd).
 * Hibernate must choose MariaDBDialect itself. Two entities take their ids
 * from @SequenceGenerator sequences, one with allocationSize 1 and one with
 * 50 (Hibernate's pooled optimizer); hbm2ddl makes the sequences with
 * Hibernate's own DDL, and a second session factory boots where they
 * exist, as an application's restart does.
 * Four threads, each with sessions of its own, take 50 ids each per entity
 * from the entity's own identifier generator, all 200 distinct. seqd has no
 * tables, so there the ids come from the generator alone (the schema filter
 * leaves tables out); on a server with tables the entities are persisted
 * too, 200 each, all distinct. A third entity's sequence is never created:
 * its id is Hibernate's JDBCException, whose class and error number must
 * be the same on every server. Exits non-zero at the first failure.
 */
public final class HibernateMariaDB {
  @Entity(name = "OneByOne")
  @jakarta.persistence.Table(name = "orm_one")
  public static class One {
    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "one")
    @SequenceGenerator(name = "one", sequenceName = "orm_one_seq", allocationSize = 1)
    Long id;
  }

  @Entity(name = "FiftyAtOnce")
  @jakarta.persistence.Table(name = "orm_fifty")
  public static class Fifty {
    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "fifty")
    @SequenceGenerator(name = "fifty", sequenceName = "orm_fifty_seq", allocationSize = 50)
    Long id;
  }

  @Entity(name = "Missing")
  @jakarta.persistence.Table(name = "orm_missing")
  public static class Missing {
    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "missing")
    @SequenceGenerator(name = "missing", sequenceName = "orm_missing_seq", allocationSize = 1)
    Long id;
  }

  /** Tables only where the server has them; never the missing sequence. */
  record Filter(boolean tables) implements SchemaFilter, SchemaFilterProvider {
    public boolean includeNamespace(Namespace n) {
      return true;
    }

    public boolean includeTable(Table t) {
      return tables;
    }

    public boolean includeSequence(Sequence s) {
      return !s.getName().getSequenceName().getText().equals("orm_missing_seq");
    }

    public SchemaFilter getCreateFilter() {
      return this;
    }

    public SchemaFilter getDropFilter() {
      return this;
    }

    public SchemaFilter getTruncatorFilter() {
      return this;
    }

    public SchemaFilter getMigrateFilter() {
      return this;
    }

    public SchemaFilter getValidateFilter() {
      return this;
    }
  }

  // Hibernate's INFO, and create-drop's first drop of sequences not there yet.
  static final Logger quiet = Logger.getLogger("org.hibernate");
  static final Logger quieter = Logger.getLogger("org.hibernate.tool.schema");

  static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }

  interface Work {
    void run() throws Exception;
  }

  /** Runs work 50 times on each of four threads. */
  static void fourThreads(Work work) throws Exception {
    List<Thread> ts = new ArrayList<>();
    List<Throwable> errs = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread th =
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < 50; i++) {
                    work.run();
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
      throw new AssertionError(errs.get(0));
    }
  }

  /** 200 ids from the entity's identifier generator, each in a session of its own. */
  static void generated(SessionFactory sf, Class<?> entity, String what) throws Exception {
    IdentifierGenerator gen =
        (IdentifierGenerator)
            sf.unwrap(SessionFactoryImplementor.class).getMappingMetamodel().getEntityDescriptor(entity).getGenerator();
    Set<Object> ids = ConcurrentHashMap.newKeySet();
    fourThreads(
        () ->
            sf.inTransaction(
                s -> ids.add(gen.generate(s.unwrap(SharedSessionContractImplementor.class), null))));
    check(ids.size() == 200, what + ": " + ids.size() + " distinct ids of 200");
    String optimizer = ((SequenceStyleGenerator) gen).getOptimizer().getClass().getSimpleName();
    System.out.println(what + ": 200 distinct generated ids (" + optimizer + ")");
  }

  /** 200 persisted entities, their ids all distinct. */
  static void persisted(SessionFactory sf, Supplier<Object> entity, String name, String what) throws Exception {
    fourThreads(() -> sf.inTransaction(s -> s.persist(entity.get())));
    long n = sf.fromSession(s -> s.createQuery("select count(distinct e.id) from " + name + " e", Long.class).getSingleResult());
    check(n == 200, what + ": " + n + " distinct persisted ids of 200");
    System.out.println(what + ": 200 distinct persisted ids");
  }

  /** A session factory on the server at a[i:i+6], the dialect left to Hibernate. */
  static SessionFactory factory(String[] a, int i, boolean tables, String hbm2ddl) {
    Configuration cfg =
        new Configuration().addAnnotatedClass(One.class).addAnnotatedClass(Fifty.class).addAnnotatedClass(Missing.class);
    cfg.setProperty("hibernate.connection.url", "jdbc:mariadb://" + a[i + 1] + ":" + a[i + 2] + "/" + a[i + 5]);
    cfg.setProperty("hibernate.connection.username", a[i + 3]);
    cfg.setProperty("hibernate.connection.password", a[i + 4]);
    cfg.setProperty("hibernate.hbm2ddl.auto", hbm2ddl);
    cfg.getProperties().put("hibernate.hbm2ddl.schema_filter_provider", new Filter(tables));
    return cfg.buildSessionFactory();
  }

  public static void main(String[] a) throws Exception {
    quiet.setLevel(Level.WARNING);
    quieter.setLevel(Level.SEVERE);
    String first = null;
    for (int i = 0; i + 6 <= a.length; i += 6) {
      String server = a[i];
      boolean tables = !server.equals("seqd");
      // The first factory creates the sequences and takes ids; the second
      // boots where they exist (create-drop makes them again, then drops).
      try (SessionFactory sf = factory(a, i, tables, "create")) {
        Dialect d = sf.unwrap(SessionFactoryImplementor.class).getJdbcServices().getDialect();
        check(d instanceof MariaDBDialect, server + ": dialect " + d);
        System.out.println(server + ": " + d.getClass().getSimpleName() + " " + d.getVersion());
        generated(sf, One.class, server + " allocationSize 1");
        generated(sf, Fifty.class, server + " allocationSize 50");
      }
      try (SessionFactory sf = factory(a, i, tables, "create-drop")) {
        if (tables) {
          persisted(sf, One::new, "OneByOne", server + " allocationSize 1");
          persisted(sf, Fifty::new, "FiftyAtOnce", server + " allocationSize 50");
        }
        String unknown;
        IdentifierGenerator missing =
            (IdentifierGenerator)
                sf.unwrap(SessionFactoryImplementor.class).getMappingMetamodel().getEntityDescriptor(Missing.class).getGenerator();
        try {
          sf.inTransaction(s -> missing.generate(s.unwrap(SharedSessionContractImplementor.class), null));
          throw new AssertionError(server + ": an unknown sequence gave an id");
        } catch (JDBCException e) {
          unknown = e.getClass().getName() + " " + e.getErrorCode() + " " + e.getSQLState();
        }
        System.out.println(server + " unknown sequence: " + unknown);
        if (first == null) {
          first = unknown;
        }
        check(unknown.equals(first), server + ": unknown sequence " + unknown + ", seqd's " + first);
      }
    }
  }
}
