package org.dflib.jjava.jupyter.kernel.display;

/** Stand-in of JJava's render function. */
@FunctionalInterface
public interface RenderFunction<T> {
  void render(T data, RenderContext context);
}
