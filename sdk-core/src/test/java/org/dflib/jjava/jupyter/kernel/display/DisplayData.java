package org.dflib.jjava.jupyter.kernel.display;

import java.util.LinkedHashMap;
import java.util.Map;

/** Stand-in of JJava's display data: MIME type to value, and a display id. */
public class DisplayData {
  public final Map<String, Object> data = new LinkedHashMap<>();
  public String displayId;

  public void putData(String mimeType, Object value) {
    data.put(mimeType, value);
  }

  public DisplayData setDisplayId(String id) {
    displayId = id;
    return this;
  }
}
