package io.ax.app.fuzz;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Every input that ever broke the scheduler, replayed first by both fuzz levels. Layout (see the README next to it):
 * {@code fuzz-corpus/<topic>/<name>.<ext>} holds the record value ({@code .json}, {@code .bin}, either {@code .gz},
 * or an empty {@code .null} for a tombstone); an optional {@code <name>.properties} next to it holds {@code kind},
 * {@code found} (what it broke), the key ({@code key}, {@code key.hex}, {@code key.repeat}, {@code key.null},
 * {@code key.placement}), {@code timestamp} and {@code live.maxRetries}/{@code live.attempts}. Without it the record
 * gets a fresh key of its partition and the run's current time.
 */
public final class FuzzCorpus {
    public static final String RESOURCE = "/fuzz-corpus";
    private static final String SOURCE = "src/test/resources" + RESOURCE;
    /** How a corpus entry's origin starts: {@code corpus ax.requests/name.json}. */
    public static final String ORIGIN = "corpus ";
    private static final List<String> VALUE_EXTENSIONS = List.of(".json.gz", ".bin.gz", ".json", ".bin", ".null");
    private static final int GZIP_OVER_BYTES = 64 * 1024;
    private static final int KEY_TEXT_MAX_BYTES = 1_000;

    private FuzzCorpus() {
    }

    /**
     * The corpus, in folder and name order: read from {@code src/test/resources/fuzz-corpus} when the tests run in the
     * module's directory (as Maven runs them), so an entry deleted there is gone without a clean build; else from the
     * test classpath.
     */
    public static List<HostileInput> load() {
        Path source = Path.of(SOURCE);
        if (Files.isDirectory(source)) {
            return load(source);
        }
        URL root = FuzzCorpus.class.getResource(RESOURCE);
        if (root == null) {
            return List.of();
        }
        try {
            return load(Path.of(root.toURI()));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<HostileInput> load(Path root) {
        List<HostileInput> inputs = new ArrayList<>();
        for (FuzzTopic topic : FuzzTopic.values()) {
            Path folder = root.resolve(topic.folder());
            if (!Files.isDirectory(folder)) {
                continue;
            }
            try (Stream<Path> files = Files.list(folder)) {
                for (Path file : files.sorted().toList()) {
                    String extension = valueExtension(file.getFileName().toString());
                    if (extension != null) {
                        inputs.add(read(topic, file, extension));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return inputs;
    }

    private static String valueExtension(String fileName) {
        return VALUE_EXTENSIONS.stream().filter(fileName::endsWith).findFirst().orElse(null);
    }

    private static HostileInput read(FuzzTopic topic, Path file, String extension) throws IOException {
        String fileName = file.getFileName().toString();
        String name = fileName.substring(0, fileName.length() - extension.length());
        byte[] value = extension.equals(".null") ? null : Files.readAllBytes(file);
        if (extension.endsWith(".gz")) {
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(value))) {
                value = in.readAllBytes();
            }
        }
        Properties meta = new Properties();
        Path sidecar = file.resolveSibling(name + ".properties");
        if (Files.exists(sidecar)) {
            meta.load(new StringReader(Files.readString(sidecar, StandardCharsets.UTF_8)));
        }
        HostileInput input = HostileInput.of(meta.getProperty("kind", topic.folder().substring(3) + "/corpus/" + name), topic, value)
                .withOrigin(ORIGIN + topic.folder() + "/" + fileName);
        if (meta.containsKey("timestamp")) {
            input = input.withTimestamp(Long.parseLong(meta.getProperty("timestamp").strip()));
        }
        if (meta.containsKey("live.attempts")) {
            input = input.withLive(new LiveTarget(Integer.parseInt(meta.getProperty("live.maxRetries", "3").strip()),
                    Integer.parseInt(meta.getProperty("live.attempts").strip())));
        }
        return withKey(input, meta);
    }

    private static HostileInput withKey(HostileInput input, Properties meta) {
        byte[] key;
        if (Boolean.parseBoolean(meta.getProperty("key.null", "false"))) {
            key = null;
        } else if (meta.containsKey("key.hex")) {
            key = HexFormat.of().parseHex(meta.getProperty("key.hex").strip());
        } else if (meta.containsKey("key")) {
            key = meta.getProperty("key").getBytes(StandardCharsets.UTF_8);
        } else {
            return meta.containsKey("key.placement")
                    ? input.withKey(input.key(), KeyPlacement.valueOf(meta.getProperty("key.placement").strip())) : input;
        }
        int repeat = Integer.parseInt(meta.getProperty("key.repeat", "1").strip());
        if (key != null && repeat > 1) {
            ByteArrayOutputStream repeated = new ByteArrayOutputStream(key.length * repeat);
            for (int i = 0; i < repeat; i++) {
                repeated.writeBytes(key);
            }
            key = repeated.toByteArray();
        }
        return input.withKey(key, KeyPlacement.valueOf(meta.getProperty("key.placement", KeyPlacement.AS_IS.name()).strip()));
    }

    /** Writes {@code input} as a corpus entry under {@code root}; returns the value file. */
    public static Path write(Path root, HostileInput input, String name, String found) {
        try {
            Path folder = Files.createDirectories(root.resolve(input.topic().folder()));
            byte[] value = input.value();
            boolean json = value != null && value.length > 0 && (value[0] == '{' || value[0] == '[' || value[0] == ' ');
            boolean gzip = value != null && value.length > GZIP_OVER_BYTES;
            String extension = value == null ? ".null" : (json ? ".json" : ".bin") + (gzip ? ".gz" : "");
            Path valueFile = folder.resolve(name + extension);
            Files.write(valueFile, value == null ? new byte[0] : gzip ? gzip(value) : value);
            Files.writeString(folder.resolve(name + ".properties"), sidecar(input, found), StandardCharsets.UTF_8);
            return valueFile;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sidecar(HostileInput input, String found) throws IOException {
        Properties meta = new Properties();
        meta.setProperty("kind", input.kind());
        meta.setProperty("found", found);
        if (input.timestampMs() != null) {
            meta.setProperty("timestamp", Long.toString(input.timestampMs()));
        }
        if (input.live() != null) {
            meta.setProperty("live.maxRetries", Integer.toString(input.live().maxRetries()));
            meta.setProperty("live.attempts", Integer.toString(input.live().attempts()));
        }
        if (input.placement() != KeyPlacement.AS_IS) {
            meta.setProperty("key.placement", input.placement().name());
        } else if (input.key() == null) {
            meta.setProperty("key.null", "true");
        } else {
            describeKey(input.key(), meta);
        }
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        meta.store(text, null); // the stream form writes control and non-ASCII characters as backslash-u escapes
        // Properties.store starts with a date comment: drop it, and sort, so the file does not change between runs.
        return text.toString(StandardCharsets.ISO_8859_1).lines().filter(line -> !line.startsWith("#")).sorted().collect(Collectors.joining("\n", "", "\n"));
    }

    private static void describeKey(byte[] key, Properties meta) {
        if (key.length > KEY_TEXT_MAX_BYTES && allSame(key)) {
            meta.setProperty("key.hex", HexFormat.of().formatHex(new byte[] {key[0]}));
            meta.setProperty("key.repeat", Integer.toString(key.length));
        } else if (isUtf8(key)) {
            meta.setProperty("key", new String(key, StandardCharsets.UTF_8));
        } else {
            meta.setProperty("key.hex", HexFormat.of().formatHex(key));
        }
    }

    private static boolean allSame(byte[] bytes) {
        for (byte b : bytes) {
            if (b != bytes[0]) {
                return false;
            }
        }
        return true;
    }

    private static boolean isUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(bytes);
        }
        return out.toByteArray();
    }
}
