package dev.fairing4j.examples;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * The first images of FashionMNIST's test set with their labels, as a served model gets them
 * (each image 784 pixel values, 0-255, as the training script reads them), and the share of
 * predictions that match: what the training printed as {@code accuracy=} for the same images.
 *
 * @param images the images, each 784 pixel values
 * @param labels their classes, 0-9
 */
public record FashionMnistTestSet(List<int[]> images, int[] labels) {
  /** The test images' file in FashionMNIST's directory. */
  public static final String IMAGES = "t10k-images-idx3-ubyte.gz";
  /** The test labels' file. */
  public static final String LABELS = "t10k-labels-idx1-ubyte.gz";

  /**
   * The first {@code count} test images and labels in {@code dataDir} (Debian's
   * {@code dataset-fashion-mnist} puts them in {@value FashionMnist#DATA_DIR}).
   *
   * @throws UncheckedIOException when the files are missing or not IDX files
   */
  public static FashionMnistTestSet read(Path dataDir, int count) {
    try {
      return new FashionMnistTestSet(images(dataDir.resolve(IMAGES), count),
          labels(dataDir.resolve(LABELS), count));
    } catch (IOException e) {
      throw new UncheckedIOException("read FashionMNIST's test set in " + dataDir, e);
    }
  }

  /** The share of {@code predictions} (classes, as numbers) equal to the labels. */
  public double accuracy(List<Object> predictions) {
    if (predictions.size() != labels.length) {
      throw new IllegalArgumentException(predictions.size() + " predictions for "
          + labels.length + " images");
    }
    int correct = 0;
    for (int i = 0; i < labels.length; i++) {
      correct += ((Number) predictions.get(i)).intValue() == labels[i] ? 1 : 0;
    }
    return correct / (double) labels.length;
  }

  private static List<int[]> images(Path file, int count) throws IOException {
    try (DataInputStream in = idx(file, 3)) {
      int total = in.readInt();
      int pixels = in.readInt() * in.readInt();
      if (total < count) {
        throw new IOException(file + " holds " + total + " images, not " + count);
      }
      List<int[]> images = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int[] image = new int[pixels];
        for (int p = 0; p < pixels; p++) {
          image[p] = in.readUnsignedByte();
        }
        images.add(image);
      }
      return images;
    }
  }

  private static int[] labels(Path file, int count) throws IOException {
    try (DataInputStream in = idx(file, 1)) {
      in.readInt();
      int[] labels = new int[count];
      for (int i = 0; i < count; i++) {
        labels[i] = in.readUnsignedByte();
      }
      return labels;
    }
  }

  private static DataInputStream idx(Path file, int dims) throws IOException {
    InputStream raw = new GZIPInputStream(Files.newInputStream(file));
    DataInputStream in = new DataInputStream(new BufferedInputStream(raw));
    int magic = in.readInt();
    if ((magic & 0xFF) != dims) {
      in.close();
      throw new IOException(file + " is not an IDX file of " + dims + " dimensions");
    }
    return in;
  }
}
