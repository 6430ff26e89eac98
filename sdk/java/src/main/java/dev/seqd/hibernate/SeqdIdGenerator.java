package dev.seqd.hibernate;

import dev.seqd.Batch;
import dev.seqd.IdGenerator;
import dev.seqd.Seqd;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.AnnotationBasedGenerator;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;

/**
 * Hibernate ORM 6's generator behind {@link SeqdId}: each id is the next value of an AsyncBatch over
 * the seqd sequence. Entities naming the same sequence share one generator. {@link #closeAll()} (at
 * shutdown) gives their unused values back; values a process dies holding are a gap, never a
 * duplicate.
 */
public class SeqdIdGenerator implements BeforeExecutionGenerator, AnnotationBasedGenerator<SeqdId> {
  private static final long serialVersionUID = 1L;

  /** The Hibernate setting that holds the seqd DataSource (an object, e.g. a HikariDataSource). */
  public static final String DATASOURCE = "seqd.datasource";

  private static final Map<String, IdGenerator> SHARED = new ConcurrentHashMap<>();

  private transient IdGenerator ids;

  /** Made by Hibernate, which then calls {@link #initialize}. */
  public SeqdIdGenerator() {}

  @Override
  public void initialize(SeqdId config, Member member, GeneratorCreationContext context) {
    Class<?> type =
        member instanceof Field f ? f.getType() : member instanceof Method m ? m.getReturnType() : Object.class;
    if (type != Long.class && type != long.class) {
      throw new IllegalArgumentException("@SeqdId needs a Long id, not " + type.getName() + " (" + member + ")");
    }
    Object ds = context.getServiceRegistry().requireService(ConfigurationService.class).getSettings().get(DATASOURCE);
    if (!(ds instanceof DataSource dataSource)) {
      throw new IllegalStateException("@SeqdId: set the Hibernate setting \"" + DATASOURCE + "\" to seqd's DataSource");
    }
    String key = System.identityHashCode(dataSource) + "/" + config.sequence();
    ids =
        SHARED.computeIfAbsent(
            key,
            k -> {
              Seqd seqd = new Seqd(dataSource);
              seqd.create(config.sequence(), 1, "CACHE " + config.cache());
              return Batch.async(seqd, config.sequence(), config.size(), config.lowWatermark());
            });
  }

  @Override
  public Object generate(SharedSessionContractImplementor session, Object owner, Object currentValue, EventType eventType) {
    return ids.next();
  }

  @Override
  public EnumSet<EventType> getEventTypes() {
    return EventTypeSets.INSERT_ONLY;
  }

  /** Closes every shared generator, giving unused values back to seqd. */
  public static void closeAll() {
    for (String k : SHARED.keySet()) {
      IdGenerator g = SHARED.remove(k);
      if (g != null) {
        g.close();
      }
    }
  }

  /** The shared generator of a sequence, for its statistics; null if none. */
  public static IdGenerator generator(DataSource ds, String sequence) {
    return SHARED.get(System.identityHashCode(ds) + "/" + sequence);
  }
}
