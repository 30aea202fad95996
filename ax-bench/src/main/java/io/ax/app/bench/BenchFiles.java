package io.ax.app.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Directory sizes and deletion for the bench's scratch directories. */
public final class BenchFiles {
    private BenchFiles() {
    }

    /** Total bytes of the regular files under {@code dir} (0 if it does not exist). Files vanishing meanwhile count 0. */
    public static long sizeBytes(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            return paths.filter(Files::isRegularFile).mapToLong(BenchFiles::sizeOrZero).sum();
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return sizeBytes(dir); // RocksDB compacted while we walked: walk again
            }
            throw e;
        }
    }

    /** Deletes {@code dir} and everything under it; quiet if it does not exist. */
    public static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static long sizeOrZero(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }
}
