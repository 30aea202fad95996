package io.ax;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SecurityConfig;

/**
 * The one place where ax reads how to reach a Kafka cluster: the connection and security settings that every Kafka
 * client ax builds shares (the scheduler's Kafka Streams clients and its topic-setup admin, {@code ./ax} commands,
 * {@code AxClient}, {@code AxWorker}, the benchmark harness).
 *
 * <p><b>Which keys</b> ({@link #KEYS}): {@code bootstrap.servers}, {@code client.dns.lookup},
 * {@code security.protocol}, {@code security.providers}, {@code socket.connection.setup.timeout.ms},
 * {@code socket.connection.setup.timeout.max.ms}, and every client-side {@code ssl.*} and {@code sasl.*} key of the
 * Kafka version on the classpath (Kafka's own {@link ConfigDef#withClientSslSupport()} and
 * {@link ConfigDef#withClientSaslSupport()}). They are given once, at the top level of ax's settings, and apply to
 * every client; other Kafka client settings stay per client ({@code streams.*}, {@code producerProperty(...)}), since
 * their right values differ between clients.
 *
 * <p><b>Where from, lowest precedence first</b> ({@link #load(Path, Map, Map)}):
 * <ol>
 *   <li>the environment: {@code AX_KAFKA_<KEY>}, the key upper-cased with dots as underscores
 *       ({@code AX_KAFKA_SECURITY_PROTOCOL=SASL_SSL}, {@code AX_KAFKA_SASL_JAAS_CONFIG=...}); only the keys above;</li>
 *   <li>a {@code .properties} file ({@code --config FILE}): any setting;</li>
 *   <li>single settings ({@code -D key=value}): any setting.</li>
 * </ol>
 * A dedicated command-line option (such as {@code --bootstrap}) wins over all three, and a client-specific setting
 * ({@code streams.security.protocol}, {@code streams.admin.ssl.keystore.location}, a builder's
 * {@code producerProperty}) wins over the shared one for that client.
 *
 * <p>An {@code AX_KAFKA_} variable that names none of the keys is refused, so a typo in a security setting fails
 * at start instead of connecting without it. Values are passed to Kafka as given: secrets should come from the
 * environment or a file only its owner can read, not from a command line that {@code ps} shows.
 */
public final class KafkaConnection {
    /** Environment variables with this prefix carry connection settings. */
    public static final String ENV_PREFIX = "AX_KAFKA_";

    /** The connection and security keys shared by every client, sorted. */
    public static final Set<String> KEYS = keys();

    private static final Map<String, String> KEY_BY_ENV_NAME = envNames();

    private KafkaConnection() {
    }

    private static Set<String> keys() {
        Set<String> keys = new TreeSet<>(new ConfigDef().withClientSslSupport().withClientSaslSupport().names());
        keys.add(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        keys.add(CommonClientConfigs.CLIENT_DNS_LOOKUP_CONFIG);
        keys.add(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG);
        keys.add(SecurityConfig.SECURITY_PROVIDERS_CONFIG);
        keys.add(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG);
        keys.add(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG);
        return Collections.unmodifiableSet(keys);
    }

    private static Map<String, String> envNames() {
        Map<String, String> byName = new HashMap<>();
        KEYS.forEach(key -> byName.put(envName(key), key));
        return Map.copyOf(byName);
    }

    /** Whether {@code key} is one of the shared connection keys ({@link #KEYS}). */
    public static boolean isConnectionKey(String key) {
        return KEYS.contains(key);
    }

    /** The environment variable that carries {@code key}: {@code security.protocol} -> {@code AX_KAFKA_SECURITY_PROTOCOL}. */
    public static String envName(String key) {
        return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The connection settings among {@code settings} (the keys of {@link #KEYS}); the others are left out. */
    public static Map<String, Object> select(Map<String, ?> settings) {
        Map<String, Object> selected = new HashMap<>();
        settings.forEach((key, value) -> {
            if (isConnectionKey(key) && value != null) {
                selected.put(key, value);
            }
        });
        return selected;
    }

    /**
     * The connection settings in {@code environment} ({@code AX_KAFKA_*} variables).
     *
     * @throws ConfigException when an {@code AX_KAFKA_} variable names no connection key
     */
    public static Map<String, String> fromEnvironment(Map<String, String> environment) {
        Map<String, String> settings = new TreeMap<>();
        environment.forEach((name, value) -> {
            if (name.startsWith(ENV_PREFIX)) {
                String key = KEY_BY_ENV_NAME.get(name);
                if (key == null) {
                    throw new ConfigException("environment variable " + name + " names no Kafka connection setting; "
                            + "the AX_KAFKA_ variables are " + ENV_PREFIX + "<KEY> for the keys " + KEYS);
                }
                settings.put(key, value);
            }
        });
        return settings;
    }

    /**
     * Every setting from the three sources, merged: the environment's connection settings, overridden by the file's
     * settings, overridden by {@code overrides}. Keys other than connection keys (ax's, {@code streams.*}) come from
     * the file and the overrides only.
     *
     * @param file        a {@code .properties} file, or null for none
     * @param overrides   single settings ({@code -D key=value})
     * @param environment the process environment ({@code System.getenv()}), passed in so tests can give their own
     * @throws UncheckedIOException when the file cannot be read
     * @throws ConfigException      when an {@code AX_KAFKA_} variable names no connection key
     */
    public static Map<String, String> load(Path file, Map<String, String> overrides, Map<String, String> environment) {
        Map<String, String> settings = new HashMap<>(fromEnvironment(environment));
        if (file != null) {
            settings.putAll(readProperties(file));
        }
        settings.putAll(overrides);
        return settings;
    }

    /**
     * The connection settings of {@code file} (may be null) over those of this process's environment: what to give
     * {@code AxClient.Builder.connectionProperties} or {@code AxWorker.Builder.connectionProperties} to reach the
     * same cluster as the scheduler configured by that file.
     */
    public static Map<String, Object> load(Path file) {
        return select(load(file, Map.of(), System.getenv()));
    }

    private static Map<String, String> readProperties(Path file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the config file " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> settings = new HashMap<>();
        properties.forEach((key, value) -> settings.put(key.toString(), value.toString()));
        return settings;
    }
}
