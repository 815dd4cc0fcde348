package dev.fairing4j.core.internal;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a static field that holds mutable state for the whole JVM (a cache, a registry, a thread
 * pool, a lazily found fact) and says why it has no narrower owner and what bounds it. A service
 * that runs for months keeps such state for its life, so each must be bounded; the SDK's
 * architecture test fails on a static field of mutable state without this mark, which keeps a new
 * one from arriving unnoticed.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.FIELD)
public @interface JvmWide {
  /** Why the state is shared by the whole JVM rather than owned by a client or a job. */
  String why();

  /** What keeps it from growing: a size or age limit, or a fixed set of keys. */
  String bound();
}
