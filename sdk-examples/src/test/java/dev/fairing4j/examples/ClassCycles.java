package dev.fairing4j.examples;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The dependency cycles among top-level classes (nested classes count as their outer class):
 * the strongly connected components of more than one class, found with Tarjan's algorithm.
 * ArchUnit's slice rules cannot ignore dependencies inside a package while keeping those across
 * packages, which is what {@link ArchitectureTest} needs.
 */
final class ClassCycles {
  private final Map<String, Set<String>> edges = new TreeMap<>();
  private final Map<String, Integer> index = new HashMap<>();
  private final Map<String, Integer> low = new HashMap<>();
  private final Deque<String> stack = new ArrayDeque<>();
  private final Set<String> onStack = new HashSet<>();
  private final List<Set<String>> cycles = new ArrayList<>();

  private ClassCycles() {}

  /** The cycles among {@code classes}, each as the sorted names of its classes. */
  static List<Set<String>> of(JavaClasses classes) {
    ClassCycles search = new ClassCycles();
    Set<String> known = new HashSet<>();
    classes.forEach(c -> known.add(topLevel(c)));
    for (JavaClass origin : classes) {
      Set<String> targets = search.edges.computeIfAbsent(topLevel(origin), k -> new TreeSet<>());
      for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
        String target = topLevel(dependency.getTargetClass());
        if (known.contains(target) && !target.equals(topLevel(origin))) {
          targets.add(target);
        }
      }
    }
    // Iterative, not recursive: a long dependency chain must not overflow the stack.
    for (String node : search.edges.keySet()) {
      if (!search.index.containsKey(node)) {
        search.connect(node);
      }
    }
    return search.cycles;
  }

  private static String topLevel(JavaClass type) {
    String name = type.getName();
    int dollar = name.indexOf('$');
    return dollar < 0 ? name : name.substring(0, dollar);
  }

  private void connect(String root) {
    Deque<Map.Entry<String, java.util.Iterator<String>>> work = new ArrayDeque<>();
    visit(root, work);
    while (!work.isEmpty()) {
      Map.Entry<String, java.util.Iterator<String>> frame = work.peek();
      String node = frame.getKey();
      if (frame.getValue().hasNext()) {
        String next = frame.getValue().next();
        if (!index.containsKey(next)) {
          visit(next, work);
        } else if (onStack.contains(next)) {
          low.put(node, Math.min(low.get(node), index.get(next)));
        }
        continue;
      }
      work.pop();
      if (!work.isEmpty()) {
        String parent = work.peek().getKey();
        low.put(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node).equals(index.get(node))) {
        Set<String> component = new TreeSet<>();
        String member;
        do {
          member = stack.pop();
          onStack.remove(member);
          component.add(member);
        } while (!member.equals(node));
        if (component.size() > 1) {
          cycles.add(component);
        }
      }
    }
  }

  private void visit(String node, Deque<Map.Entry<String, java.util.Iterator<String>>> work) {
    index.put(node, index.size());
    low.put(node, index.get(node));
    stack.push(node);
    onStack.add(node);
    work.push(Map.entry(node,
        edges.getOrDefault(node, Set.of()).iterator()));
  }
}
