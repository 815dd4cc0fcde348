package dev.fairing4j.core.cache;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.internal.Durations;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.Sizes;
import dev.fairing4j.core.internal.TextTable;
import java.util.ArrayList;
import java.util.List;

/**
 * fairing4j's disk caches with their sizes, and what a {@link Caches#prune()} or
 * {@link Caches#clean()} removed: a table in a terminal, HTML in a notebook.
 *
 * @param caches each cache, as found after any removal
 * @param removedEntries how many entries were removed
 * @param removedBytes how many bytes they held
 * @param notes what was kept and why (a build held the caches, entries in use), in words
 */
public record CacheReport(List<CacheUsage> caches, int removedEntries, long removedBytes,
    List<String> notes) implements Displayable {
  private static final List<String> HEADERS = List.of("CACHE", "SIZE", "ENTRIES", "LIMIT",
      "PATH");

  /** Copies the lists. */
  public CacheReport {
    KernelBridge.install();  // the first displayable value registers the renderer
    caches = List.copyOf(caches);
    notes = List.copyOf(notes);
  }

  /** The bytes all caches hold. */
  public long totalBytes() {
    return caches.stream().mapToLong(CacheUsage::bytes).sum();
  }

  /** The cache named {@code name}, if listed. */
  public java.util.Optional<CacheUsage> cache(String name) {
    return caches.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  private List<List<String>> rows() {
    List<List<String>> rows = new ArrayList<>();
    for (CacheUsage cache : caches) {
      rows.add(List.of(cache.name(), Sizes.human(cache.bytes()), String.valueOf(cache.entries()),
          cache.limit().map(l -> Sizes.human(l.maxBytes()) + ", " + age(l.maxAge())).orElse("-"),
          cache.path().toString()));
    }
    rows.add(List.of("total", Sizes.human(totalBytes()), "", "", ""));
    return rows;
  }

  private String footer() {
    List<String> lines = new ArrayList<>();
    if (removedEntries > 0) {
      lines.add("removed " + removedEntries + " entries, " + Sizes.human(removedBytes));
    }
    lines.addAll(notes);
    return String.join("\n", lines);
  }

  @Override
  public String toText() {
    String footer = footer();
    return TextTable.text(HEADERS, rows()) + (footer.isEmpty() ? "" : "\n" + footer);
  }

  @Override
  public String toHtml() {
    String footer = footer();
    return TextTable.html(HEADERS, rows()) + (footer.isEmpty() ? ""
        : "<p>" + TextTable.escape(footer).replace("\n", "<br>") + "</p>");
  }

  @Override
  public String toString() {
    return toText();
  }

  /** An age limit as people read it: 30 days, 12 h, 1 min. */
  static String age(java.time.Duration age) {
    return age.toDays() > 0 && age.equals(java.time.Duration.ofDays(age.toDays()))
        ? age.toDays() + (age.toDays() == 1 ? " day" : " days")
        : Durations.human(age);
  }
}
