package org.dflib.jjava.jupyter.kernel.display;

/** Stand-in of JJava's render context: the container a function writes into. */
public class RenderContext {
  private final DisplayData out;

  public RenderContext(DisplayData out) {
    this.out = out;
  }

  public DisplayData getOutputContainer() {
    return out;
  }
}
