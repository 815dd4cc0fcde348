package org.dflib.jjava.jupyter.kernel.display;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Stand-in of JJava's renderer registry: functions registered per class or interface, found for
 * a value through its type hierarchy; {@code text/plain} from {@code toString()} otherwise.
 */
public class Renderer {
  private final Map<Class<?>, List<RenderFunction<Object>>> functions = new HashMap<>();

  public <T> RenderRegistration<T> createRegistration(Class<T> type) {
    return new RenderRegistration<>(type);
  }

  public DisplayData render(Object value) {
    DisplayData out = new DisplayData();
    List<Class<?>> types = new ArrayList<>();
    for (Class<?> c = value.getClass(); c != null; c = c.getSuperclass()) {
      types.add(c);
      types.addAll(List.of(c.getInterfaces()));
    }
    for (Class<?> type : types) {
      for (RenderFunction<Object> function : functions.getOrDefault(type, List.of())) {
        function.render(value, new RenderContext(out));
      }
    }
    out.data.putIfAbsent("text/plain", String.valueOf(value));
    return out;
  }

  /** Stand-in of JJava's registration builder. */
  public class RenderRegistration<T> {
    private final Class<T> type;

    RenderRegistration(Class<T> type) {
      this.type = type;
    }

    @SuppressWarnings("unchecked")
    public void register(RenderFunction<T> function) {
      functions.computeIfAbsent(type, t -> new ArrayList<>())
          .add((RenderFunction<Object>) (RenderFunction<?>) function);
    }
  }
}
