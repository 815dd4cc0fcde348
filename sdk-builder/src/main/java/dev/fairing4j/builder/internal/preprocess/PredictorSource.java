package dev.fairing4j.builder.internal.preprocess;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a predictor file's text says before anything runs it: the classes it defines at its top
 * level, whether it is written for KServe's Python SDK (it imports {@code kserve}, as the model
 * server checks with the same rule), and for such a file the model names its
 * {@code kserve.Model} subclasses are constructed with as string literals
 * ({@code CustomModel("custom-model")}), which is the name KServe's server serves.
 *
 * @param classes the top-level classes, in the file's order
 * @param kserve whether the file imports {@code kserve}
 * @param kserveModels the top-level classes whose bases name {@code Model} or
 *     {@code kserve.Model}
 * @param literalNames the distinct string literals those classes are constructed with
 */
public record PredictorSource(List<String> classes, boolean kserve, List<String> kserveModels,
    List<String> literalNames) {
  private static final Pattern TOP_LEVEL_CLASS =
      Pattern.compile("(?m)^class\\s+([A-Za-z_][A-Za-z0-9_]*)\\s*(?:\\(([^)]*)\\))?\\s*:");
  // The model server's rule (KSERVE_IMPORT in fairing4j_model_server.py).
  private static final Pattern KSERVE_IMPORT = Pattern.compile(
      "(?m)^\\s*(import\\s+kserve\\b|from\\s+kserve(\\.[\\w.]+)?\\s+import\\b)");
  private static final Pattern KSERVE_BASE = Pattern.compile("(^|[\\s,])(kserve\\.)?Model\\s*"
      + "($|,)");

  /** Copies the lists. */
  public PredictorSource {
    classes = List.copyOf(classes);
    kserveModels = List.copyOf(kserveModels);
    literalNames = List.copyOf(literalNames);
  }

  /** Reads {@code text}, a predictor file's source. */
  public static PredictorSource of(String text) {
    List<String> classes = new ArrayList<>();
    List<String> models = new ArrayList<>();
    boolean kserve = KSERVE_IMPORT.matcher(text).find();
    Matcher found = TOP_LEVEL_CLASS.matcher(text);
    while (found.find()) {
      classes.add(found.group(1));
      if (kserve && found.group(2) != null && KSERVE_BASE.matcher(found.group(2)).find()) {
        models.add(found.group(1));
      }
    }
    Set<String> names = new LinkedHashSet<>();
    for (String model : models) {
      Matcher call = Pattern.compile("\\b" + Pattern.quote(model)
          + "\\(\\s*(?:name\\s*=\\s*)?([\"'])([^\"'\\\\]+)\\1").matcher(text);
      while (call.find()) {
        names.add(call.group(2));
      }
    }
    return new PredictorSource(classes, kserve, models, List.copyOf(names));
  }

  /** The one model name the file's kserve models are constructed with, if there is one. */
  public Optional<String> literalName() {
    return literalNames.size() == 1 ? Optional.of(literalNames.get(0)) : Optional.empty();
  }
}
