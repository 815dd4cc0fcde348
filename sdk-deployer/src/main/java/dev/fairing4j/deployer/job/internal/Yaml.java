package dev.fairing4j.deployer.job.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes manifests as multi-document YAML for {@code kubectl create -f -}: one {@code ---}
 * document per object, keys in insertion order, plain scalars where they are safe.
 */
public final class Yaml {
  /**
   * YAML as {@code kubectl create -f -} takes it: plain scalars where they are safe, no line
   * splitting, and quotes on anything another YAML reader could take for a number. Shared and
   * thread-safe (kubeconfig files are read with it too): never configure it.
   */
  public static final YAMLMapper MAPPER = new YAMLMapper(YAMLFactory.builder()
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .disable(YAMLGenerator.Feature.SPLIT_LINES)
      .stringQuotingChecker(new CautiousQuoting())
      .build());

  private Yaml() {}

  /** The objects as YAML documents, each starting with {@code ---}. */
  public static String write(List<Map<String, Object>> objects) {
    StringWriter out = new StringWriter();
    try (SequenceWriter writer = MAPPER.writer().writeValues(out)) {
      for (Map<String, Object> object : objects) {
        writer.write(object);
      }
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a manifest could not be written as YAML", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * The objects of multi-document YAML as {@link #write} writes it (a dry run's output), in
   * order, as mutable maps.
   */
  public static List<Map<String, Object>> read(String yaml) {
    List<Map<String, Object>> objects = new ArrayList<>();
    try (MappingIterator<Map<String, Object>> documents = MAPPER.readerFor(
        new TypeReference<Map<String, Object>>() {}).readValues(yaml)) {
      while (documents.hasNextValue()) {
        Map<String, Object> object = documents.nextValue();
        if (object != null) {
          objects.add(object);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("a manifest could not be read back from YAML", e);
    }
    return objects;
  }

  /**
   * Quotes every string a YAML 1.1 or 1.2 reader (kubectl's, PyYAML, SnakeYAML) might take for
   * something else. Jackson's default leaves {@code 1}, {@code 0.5}, {@code 1e3} and {@code 0x1F}
   * plain, which would turn quantities and nprocPerNode into numbers; here anything that starts
   * like a number is quoted, as are the empty string and {@code ~}.
   */
  private static final class CautiousQuoting extends StringQuotingChecker.Default {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean needToQuoteValue(String value) {
      if (value.isEmpty() || value.equals("~") || super.needToQuoteValue(value)) {
        return true;
      }
      char first = value.charAt(0);
      return Character.isDigit(first) || first == '+' || first == '-' || first == '.'
          || first == '=' || first == '<' || first == '!';
    }
  }
}
