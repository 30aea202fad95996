package io.ax.app.internal.setup;

import io.ax.AxException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scheduler instance's hold on its state directory, taken before Kafka Streams opens it:
 * <ul>
 *   <li>a second process (or a second scheduler in this JVM) on the same directory is refused with a message that
 *       says what to do, instead of a RocksDB lock error deep in a stream thread;</li>
 *   <li>a directory that holds the state of another Kafka cluster (same application id, new cluster) is recognised
 *       by the marker file written here and cleared, with one log line: the local stores are only a cache of the
 *       changelog topics, and the old cluster's offsets would otherwise make every task "corrupted".</li>
 * </ul>
 * Closing releases the lock.
 */
public final class StateDirectory implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StateDirectory.class);
    static final String LOCK_FILE = "ax.lock";
    static final String MARKER_FILE = "ax-state.properties";

    private final FileChannel channel;
    private final FileLock lock;

    private StateDirectory(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Locks {@code dir} for this instance and makes sure it holds state of {@code clusterId}'s {@code applicationId}
     * only.
     *
     * @throws AxException when another scheduler holds the directory
     */
    public static StateDirectory claim(Path dir, String clusterId, String applicationId) {
        StateDirectory claimed = lock(dir);
        try {
            clearIfForeign(dir, clusterId, applicationId);
            return claimed;
        } catch (RuntimeException e) {
            claimed.close();
            throw e;
        }
    }

    private static StateDirectory lock(Path dir) {
        FileChannel channel = null;
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.READ);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // held by this JVM already
            }
            if (lock == null) {
                String holder = Files.readString(dir.resolve(LOCK_FILE), StandardCharsets.UTF_8).strip();
                channel.close();
                throw new AxException("state directory " + dir + " is in use by another ax scheduler"
                        + (holder.isEmpty() ? "" : " (" + holder + ")") + "; give each instance its own: "
                        + "./ax run --instance NAME, or -D ax.state.dir=DIR");
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8)), 0);
            return new StateDirectory(channel, lock);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot lock the state directory " + dir, e);
        }
    }

    private static void clearIfForeign(Path dir, String clusterId, String applicationId) {
        Path marker = dir.resolve(MARKER_FILE);
        try {
            if (Files.exists(marker)) {
                Properties found = new Properties();
                try (InputStream in = Files.newInputStream(marker)) {
                    found.load(in);
                }
                String foundCluster = found.getProperty("cluster.id");
                if (!clusterId.equals(foundCluster)) {
                    log.warn("State directory {} holds the state of Kafka cluster {}, not of this cluster {}: clearing it "
                            + "(local stores are a cache of the changelog topics and are restored from them)", dir, foundCluster, clusterId);
                    clearApplicationState(dir.resolve(applicationId));
                }
            }
            Properties mine = new Properties();
            mine.setProperty("cluster.id", clusterId);
            mine.setProperty("application.id", applicationId);
            try (OutputStream out = Files.newOutputStream(marker)) {
                mine.store(out, "which cluster's state this directory holds (written by the ax scheduler)");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot check the state directory " + dir, e);
        }
    }

    private static void clearApplicationState(Path appDir) throws IOException {
        if (!Files.exists(appDir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(appDir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    @Override
    public void close() {
        try {
            if (lock.isValid()) {
                lock.release();
            }
        } catch (IOException e) {
            log.debug("releasing the state directory lock failed", e);
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                log.debug("closing the state directory lock failed", e);
            }
        }
    }
}
