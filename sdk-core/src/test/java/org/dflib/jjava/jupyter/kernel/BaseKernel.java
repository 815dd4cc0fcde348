package org.dflib.jjava.jupyter.kernel;

import java.util.ArrayList;
import java.util.List;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;

/**
 * A stand-in with the shape of JJava's kernel API (dflib/jjava: {@code BaseKernel.notebookKernel()},
 * {@code getRenderer()}, {@code display(DisplayData)}, {@code getIO().display.updateDisplay(..)}),
 * for KernelBridgeTest: JJava is on no Maven repository these machines reach, so the bridge's
 * reflection is checked against this copy of its signatures. It sends nothing anywhere; it keeps
 * what it was asked to show.
 */
public class BaseKernel {
  /** The kernel of the running notebook; null outside one, as in JJava. */
  public static BaseKernel notebookKernel;

  private final Renderer renderer = new Renderer();
  private final JupyterIO io = new JupyterIO();
  /** What was displayed. */
  public final List<DisplayData> displayed = new ArrayList<>();

  /** As JJava: throws outside a notebook. */
  public static BaseKernel notebookKernel() {
    if (notebookKernel == null) {
      throw new NullPointerException("No kernel running.");
    }
    return notebookKernel;
  }

  public Renderer getRenderer() {
    return renderer;
  }

  public JupyterIO getIO() {
    return io;
  }

  public void display(DisplayData data) {
    displayed.add(data);
  }

  /** JJava's IO holder: a public {@code display} field. */
  public static final class JupyterIO {
    public final Display display = new Display();
  }

  /** What {@code updateDisplay} received. */
  public static final class Display {
    public final List<String> updates = new ArrayList<>();

    public void updateDisplay(String id, DisplayData data) {
      updates.add(id + " " + data.data);
    }
  }
}
