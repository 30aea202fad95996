package io.ax.codec;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how to reach a Confluent-compatible schema registry.
 *
 * @param url the API root, e.g. {@code http://localhost:8081} (Confluent) or {@code http://localhost:8080/apis/ccompat/v7}
 *            (Apicurio 3); {@code /schemas/ids/{id}} and {@code /subjects/{subject}/versions} are resolved under it
 * @param userInfo {@code user:password} for HTTP basic auth, or null
 * @param truststorePath a trust store for an https registry, or null for the JDK's default trust
 * @param truststorePassword its password, or null
 * @param truststoreType its type (PKCS12, JKS)
 * @param timeout the connect and the request timeout of each registry call
 * @param cacheMax how many schema ids are kept (each a parsed schema and a resolving reader per record type)
 * @param failureBackoff how long after a failed call (registry down, timeout, 5xx) ids that are not cached fail at once
 *                       without calling the registry, and how long an unknown id is remembered as unknown
 */
public record RegistrySettings(URI url, String userInfo, String truststorePath, String truststorePassword,
                               String truststoreType, Duration timeout, int cacheMax, Duration failureBackoff) {
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    public static final int DEFAULT_CACHE_MAX = 1_000;
    public static final Duration DEFAULT_FAILURE_BACKOFF = Duration.ofSeconds(30);

    public RegistrySettings {
        Objects.requireNonNull(url, "url");
        if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
            throw new IllegalArgumentException("schema registry url must be http or https: " + url);
        }
        if (userInfo != null && !userInfo.contains(":")) {
            throw new IllegalArgumentException("schema registry basic auth user info must be user:password");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("schema registry timeout must be > 0: " + timeout);
        }
        if (cacheMax < 1) {
            throw new IllegalArgumentException("schema registry cacheMax must be >= 1: " + cacheMax);
        }
        if (failureBackoff.isNegative()) {
            throw new IllegalArgumentException("schema registry failureBackoff must be >= 0: " + failureBackoff);
        }
        truststoreType = truststoreType == null || truststoreType.isBlank() ? "PKCS12" : truststoreType;
    }

    /** A registry at {@code url} without auth or trust store, with the default timeout, cache and backoff. */
    public static RegistrySettings of(String url) {
        return new RegistrySettings(URI.create(url), null, null, null, null, DEFAULT_TIMEOUT, DEFAULT_CACHE_MAX,
                DEFAULT_FAILURE_BACKOFF);
    }

    public RegistrySettings withBasicAuth(String userInfo) {
        return new RegistrySettings(url, userInfo, truststorePath, truststorePassword, truststoreType, timeout, cacheMax, failureBackoff);
    }

    public RegistrySettings withTimeouts(Duration timeout, Duration failureBackoff) {
        return new RegistrySettings(url, userInfo, truststorePath, truststorePassword, truststoreType, timeout, cacheMax, failureBackoff);
    }

    @Override
    public String toString() {
        // Never print the password or the trust store's.
        return "RegistrySettings[url=" + url + ", basicAuth=" + (userInfo != null) + ", truststore=" + truststorePath
                + ", timeout=" + timeout + ", cacheMax=" + cacheMax + ", failureBackoff=" + failureBackoff + "]";
    }
}
