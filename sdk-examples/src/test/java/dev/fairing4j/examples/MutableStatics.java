package dev.fairing4j.examples;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaStaticInitializer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * The static fields of compiled classes that hold mutable state for the whole JVM and do not say
 * why ({@code @JvmWide}): every non-final static field, and every static final field whose
 * initializer creates a mutable container, thread pool, thread or atomic (found in the class's
 * static initializer: the calls on the lines since the previous field was set). Constants built
 * with {@code List.of}, {@code Map.of} or {@code copyOf} are not state.
 */
final class MutableStatics {
  private static final String MARK = "dev.fairing4j.core.internal.JvmWide";
  private static final List<Class<?>> MUTABLE = List.of(Map.class, java.util.Collection.class,
      Executor.class, Thread.class, Process.class, java.util.concurrent.atomic.AtomicReference.class,
      java.util.concurrent.atomic.AtomicLong.class, java.util.concurrent.atomic.AtomicInteger.class,
      java.util.concurrent.atomic.AtomicBoolean.class);

  private MutableStatics() {}

  /** "Class.field (why)" for each unmarked static field of mutable state in {@code classes}. */
  static List<String> unmarked(JavaClasses classes) {
    List<String> found = new ArrayList<>();
    for (JavaClass type : classes) {
      for (JavaField field : type.getFields()) {
        if (!field.getModifiers().contains(JavaModifier.STATIC)
            || field.getModifiers().contains(JavaModifier.SYNTHETIC)
            || field.isAnnotatedWith(MARK)) {
          continue;
        }
        if (!field.getModifiers().contains(JavaModifier.FINAL)) {
          found.add(type.getName() + "." + field.getName() + " (not final)");
        } else if (createdMutable(type, field)) {
          found.add(type.getName() + "." + field.getName() + " (a mutable "
              + field.getRawType().getSimpleName() + ")");
        }
      }
    }
    return found;
  }

  private static boolean createdMutable(JavaClass type, JavaField field) {
    Optional<JavaStaticInitializer> init = type.getStaticInitializer();
    if (init.isEmpty()) {
      return false;
    }
    List<JavaFieldAccess> sets = init.get().getFieldAccesses().stream()
        .filter(a -> a.getAccessType() == JavaFieldAccess.AccessType.SET)
        .filter(a -> a.getTarget().getOwner().equals(type))
        .sorted(Comparator.comparingInt(JavaAccess::getLineNumber)).toList();
    int previous = -1;
    for (JavaFieldAccess set : sets) {
      if (set.getTarget().getName().equals(field.getName())) {
        int from = previous;
        int to = set.getLineNumber();
        List<JavaAccess<?>> calls = new ArrayList<>();
        init.get().getCallsFromSelf().stream()
            .filter(c -> c.getLineNumber() > from && c.getLineNumber() <= to).forEach(calls::add);
        boolean immutable = calls.stream().map(JavaAccess::getTarget).map(AccessTarget::getName)
            .anyMatch(n -> n.equals("of") || n.equals("copyOf") || n.startsWith("unmodifiable"));
        boolean creates = calls.stream().anyMatch(MutableStatics::createsState);
        return creates && !immutable;
      }
      previous = set.getLineNumber();
    }
    return false;
  }

  private static boolean createsState(JavaAccess<?> call) {
    JavaClass owner = call.getTargetOwner();
    String name = call.getTarget().getName();
    if (owner.getName().equals("java.util.concurrent.Executors") && name.startsWith("new")) {
      return true;
    }
    if (owner.getName().equals("java.util.Collections") && name.startsWith("synchronized")) {
      return true;
    }
    return name.equals("<init>") && MUTABLE.stream().anyMatch(owner::isAssignableTo);
  }
}
