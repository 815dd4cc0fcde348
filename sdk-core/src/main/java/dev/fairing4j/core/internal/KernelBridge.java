package dev.fairing4j.core.internal;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.internal.JvmWide;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Jupyter kernel this JVM runs in, found by reflection so the SDK depends on none: rapaio
 * ({@code io.github.padreati:rapaio-jupyter-kernel}) or JJava (and IJava, its ancestor). On
 * {@link #install()} it registers one renderer for {@link Displayable} with the kernel, so a cell
 * whose last expression is a displayable value shows its HTML (or image) instead of a collapsed
 * {@code toString()}, and it offers display and in-place update for live progress.
 *
 * <p>How the kernels render, as read from their code:
 * <ul>
 *   <li>rapaio runs snippets in its own JVM ({@code DirectExecutionControl}); the last value of a
 *       cell and {@code display(mime, value)} go through {@code DisplaySystem.render}, which asks
 *       its renderers ({@code rendererClass().isAssignableFrom(value)}) and otherwise sends
 *       {@code toString()} as {@code text/html}, where whitespace-aligned tables collapse. A
 *       renderer joins the system list; {@code Global.display/updateDisplay} show and update.
 *       Displays are only sent while a cell runs.</li>
 *   <li>JJava keeps a {@code Renderer} registry keyed by class and interface
 *       ({@code createRegistration(type).register(function)}); the function writes into the
 *       render context's output container. {@code kernel.display(data)} shows,
 *       {@code kernel.getIO().display.updateDisplay(id, data)} updates.</li>
 * </ul>
 * Everything here fails soft: a kernel whose internals differ is treated as no kernel, and the
 * values stay plain text.
 */
public final class KernelBridge {
  private static final Logger LOG = LoggerFactory.getLogger(KernelBridge.class);
  private static final String RAPAIO_MAIN = "org.rapaio.jupyter.kernel.MainApp";
  private static final Object LOCK = new Object();
  @JvmWide(why = "the Jupyter kernel this JVM runs in, found once",
      bound = "one kernel")
  private static volatile Optional<Kernel> detected;

  private KernelBridge() {}

  /** A notebook kernel: shows values and updates what it showed. */
  public interface Kernel {
    /** {@code rapaio} or {@code jjava}. */
    String name();

    /** Shows {@code value} as a new output of the running cell; returns its display id. */
    String display(Object value);

    /** Replaces what display {@code id} shows with {@code value}. */
    void update(String id, Object value);
  }

  /**
   * Finds the kernel once per JVM and registers the renderer for {@link Displayable} with it.
   * Cheap after the first call (a volatile read). Called by the constructor of every displayable
   * value (statuses, tables, metrics, job handles), not by class initializers: the first value a
   * notebook can show registers the renderer, and a JVM that never makes one never looks.
   */
  public static void install() {
    current();
  }

  /** The kernel this JVM runs in, if any. */
  public static Optional<Kernel> current() {
    Optional<Kernel> known = detected;
    if (known != null) {
      return known;
    }
    synchronized (LOCK) {
      if (detected == null) {
        detected = detect();
        detected.ifPresent(k -> LOG.debug("running in the {} Jupyter kernel", k.name()));
      }
      return detected;
    }
  }

  private static Optional<Kernel> detect() {
    for (ClassLoader loader : loaders()) {
      try {
        Optional<Kernel> kernel = Rapaio.detect(loader);
        if (kernel.isEmpty()) {
          kernel = JJava.detect(loader);
        }
        if (kernel.isPresent()) {
          return kernel;
        }
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        LOG.debug("a notebook kernel was found but could not be used; values stay plain text", e);
      }
    }
    return Optional.empty();
  }

  private static Set<ClassLoader> loaders() {
    Set<ClassLoader> loaders = new LinkedHashSet<>();
    // In a kernel the SDK's own loader (the snippets' loader) sees the kernel's classes through
    // its parent; the context and system loaders cover kernels that load jars elsewhere.
    if (KernelBridge.class.getClassLoader() != null) {
      loaders.add(KernelBridge.class.getClassLoader());
    }
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    if (context != null) {
      loaders.add(context);
    }
    loaders.add(ClassLoader.getSystemClassLoader());
    return loaders;
  }

  private static Optional<Class<?>> find(String name, ClassLoader loader) {
    try {
      return Optional.of(Class.forName(name, false, loader));
    } catch (ClassNotFoundException | LinkageError e) {
      return Optional.empty();
    }
  }

  private static Map<String, String> bundle(Object value) {
    return ((Displayable) value).mimeBundle();
  }

  // equals/hashCode/toString of a proxy must not reach a kernel-specific method.
  private static Object objectMethod(Object proxy, Method method, Object[] args, String name) {
    return switch (method.getName()) {
      case "equals" -> proxy == args[0];
      case "hashCode" -> System.identityHashCode(proxy);
      case "toString" -> name;
      default -> null;
    };
  }

  /** rapaio: a {@code DisplayRenderer} proxy in the display system's own list. */
  static final class Rapaio implements Kernel {
    private final Method display;
    private final Method update;

    private Rapaio(Method display, Method update) {
      this.display = display;
      this.update = update;
    }

    static Optional<Kernel> detect(ClassLoader loader) throws ReflectiveOperationException {
      if (find(RAPAIO_MAIN, loader).isEmpty() || !rapaioIsMain()) {
        // The jar on a class path is not a kernel: touching MainApp would start one.
        return Optional.empty();
      }
      Class<?> displaySystem = Class.forName("org.rapaio.jupyter.kernel.display.DisplaySystem",
          true, loader);
      Class<?> rendererType = Class.forName("org.rapaio.jupyter.kernel.display.DisplayRenderer",
          true, loader);
      Class<?> dataType = Class.forName("org.rapaio.jupyter.kernel.display.DisplayData", true,
          loader);
      Class<?> global = Class.forName("org.rapaio.jupyter.kernel.global.Global", true, loader);
      Method withType = dataType.getMethod("withType", String.class, String.class);
      Method putData = dataType.getMethod("putData", String.class, Object.class);
      InvocationHandler handler = new RendererHandler(withType, putData);
      Object renderer = Proxy.newProxyInstance(rendererType.getClassLoader(),
          new Class<?>[] {rendererType}, handler);
      Object system = displaySystem.getMethod("inst").invoke(null);
      // The system list, not the service-loaded one: a %dependency resolve clears that one.
      Field field = displaySystem.getDeclaredField("systemDisplayRenderers");
      field.setAccessible(true);
      @SuppressWarnings("unchecked")
      List<Object> renderers = (List<Object>) field.get(system);
      synchronized (renderers) {
        // A second copy of the SDK (a reloaded notebook) replaces the first one's renderer.
        renderers.removeIf(r -> Proxy.isProxyClass(r.getClass())
            && Proxy.getInvocationHandler(r).getClass().getName()
                .equals(RendererHandler.class.getName()));
        renderers.add(0, renderer);
      }
      return Optional.of(new Rapaio(global.getMethod("display", String.class, Object.class),
          global.getMethod("updateDisplay", String.class, Object.class)));
    }

    private static boolean rapaioIsMain() {
      for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
        StackTraceElement[] stack = thread.getValue();
        if (thread.getKey().getName().equals("main") && stack.length > 0
            && stack[stack.length - 1].getClassName().equals(RAPAIO_MAIN)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String name() {
      return "rapaio";
    }

    @Override
    public String display(Object value) {
      try {
        return (String) display.invoke(null, null, value);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("rapaio display failed", unwrap(e));
      }
    }

    @Override
    public void update(String id, Object value) {
      try {
        update.invoke(null, id, value);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("rapaio updateDisplay failed", unwrap(e));
      }
    }
  }

  /** {@code DisplayRenderer} for rapaio: rendererClass, canRender, render. */
  static final class RendererHandler implements InvocationHandler {
    private final Method withType;
    private final Method putData;

    RendererHandler(Method withType, Method putData) {
      this.withType = withType;
      this.putData = putData;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      switch (method.getName()) {
        case "rendererClass":
          return Displayable.class;
        case "canRender":
          return Boolean.TRUE;
        case "render":
          String mime = (String) args[0];
          Map<String, String> bundle = bundle(args[1]);
          if (mime != null && bundle.containsKey(mime.trim())) {
            return withType.invoke(null, mime.trim(), bundle.get(mime.trim()));
          }
          Object data = withType.invoke(null, "text/plain", bundle.get("text/plain"));
          for (Map.Entry<String, String> entry : bundle.entrySet()) {
            putData.invoke(data, entry.getKey(), entry.getValue());
          }
          return data;
        default:
          return objectMethod(proxy, method, args, "fairing4j renderer");
      }
    }
  }

  /** JJava (and IJava): a render function registered for {@link Displayable}. */
  static final class JJava implements Kernel {
    private static final List<String[]> KERNELS = List.of(
        new String[] {"org.dflib.jjava.jupyter.kernel.BaseKernel", "notebookKernel"},
        new String[] {"org.dflib.jjava.JJava", "getKernelInstance"},
        new String[] {"io.github.spencerpark.ijava.IJava", "getKernelInstance"});

    private final Object kernel;
    private final Object renderer;

    private JJava(Object kernel, Object renderer) {
      this.kernel = kernel;
      this.renderer = renderer;
    }

    static Optional<Kernel> detect(ClassLoader loader) throws ReflectiveOperationException {
      for (String[] candidate : KERNELS) {
        Optional<Class<?>> type = find(candidate[0], loader);
        if (type.isEmpty()) {
          continue;
        }
        Object kernel;
        try {
          kernel = type.get().getMethod(candidate[1]).invoke(null);
        } catch (InvocationTargetException e) {
          continue; // notebookKernel() throws outside a notebook
        }
        if (kernel == null) {
          continue;
        }
        Object renderer = kernel.getClass().getMethod("getRenderer").invoke(kernel);
        Object registration = renderer.getClass().getMethod("createRegistration", Class.class)
            .invoke(renderer, Displayable.class);
        Method register = null;
        for (Method method : registration.getClass().getMethods()) {
          if (method.getName().equals("register") && method.getParameterCount() == 1) {
            register = method;
          }
        }
        if (register == null) {
          return Optional.empty();
        }
        Class<?> function = register.getParameterTypes()[0];
        register.invoke(registration, Proxy.newProxyInstance(function.getClassLoader(),
            new Class<?>[] {function}, JJava::renderInto));
        return Optional.of(new JJava(kernel, renderer));
      }
      return Optional.empty();
    }

    // RenderFunction.render(value, context): every form into the context's output container.
    private static Object renderInto(Object proxy, Method method, Object[] args)
        throws ReflectiveOperationException {
      if (!method.getName().equals("render") || args == null || args.length != 2) {
        return objectMethod(proxy, method, args, "fairing4j render function");
      }
      Object out = args[1].getClass().getMethod("getOutputContainer").invoke(args[1]);
      Method putData = out.getClass().getMethod("putData", String.class, Object.class);
      for (Map.Entry<String, String> entry : bundle(args[0]).entrySet()) {
        putData.invoke(out, entry.getKey(), entry.getValue());
      }
      return null;
    }

    @Override
    public String name() {
      return "jjava";
    }

    @Override
    public String display(Object value) {
      try {
        Object data = render(value);
        String id = UUID.randomUUID().toString();
        data.getClass().getMethod("setDisplayId", String.class).invoke(data, id);
        for (Method method : kernel.getClass().getMethods()) {
          if (method.getName().equals("display") && method.getParameterCount() == 1
              && method.getParameterTypes()[0].isInstance(data)) {
            method.invoke(kernel, data);
            return id;
          }
        }
        throw new NoSuchMethodException("display(DisplayData)");
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("JJava display failed", unwrap(e));
      }
    }

    @Override
    public void update(String id, Object value) {
      try {
        Object data = render(value);
        Object io = kernel.getClass().getMethod("getIO").invoke(kernel);
        Object display = io.getClass().getField("display").get(io);
        display.getClass().getMethod("updateDisplay", String.class, data.getClass())
            .invoke(display, id, data);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("JJava updateDisplay failed", unwrap(e));
      }
    }

    private Object render(Object value) throws ReflectiveOperationException {
      return renderer.getClass().getMethod("render", Object.class).invoke(renderer, value);
    }
  }

  private static Throwable unwrap(ReflectiveOperationException e) {
    return e instanceof InvocationTargetException target && target.getCause() != null
        ? target.getCause() : e;
  }

  /** For tests: forget the kernel found, so the next call looks again. */
  static void reset() {
    synchronized (LOCK) {
      detected = null;
    }
  }
}
