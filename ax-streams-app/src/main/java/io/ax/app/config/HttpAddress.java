package io.ax.app.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** A HOST:PORT of the HTTP API; a port alone means 127.0.0.1. */
public record HttpAddress(String host, int port) {
    public static final String LOOPBACK = "127.0.0.1";

    public HttpAddress {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("HTTP host must not be empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("HTTP port must be 1-65535: " + port);
        }
    }

    /** Parses {@code [HOST:]PORT} ({@code 8080}, {@code 0.0.0.0:8080}, {@code [::1]:8080}). */
    public static HttpAddress parse(String text) {
        String value = text.trim();
        int colon = value.lastIndexOf(':');
        String host = colon < 0 ? LOOPBACK : value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        String port = colon < 0 ? value : value.substring(colon + 1);
        try {
            return new HttpAddress(host, Integer.parseInt(port));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not [HOST:]PORT: " + text);
        }
    }

    static ConfigDef.Validator validator() {
        return ConfigDef.LambdaValidator.with((name, value) -> {
            String text = String.valueOf(value);
            if (!text.isBlank()) {
                try {
                    parse(text);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(name, value, e.getMessage());
                }
            }
        }, () -> "[HOST:]PORT, or empty");
    }

    public boolean isWildcard() {
        return host.equals("0.0.0.0") || host.equals("::");
    }

    /** Whether this names the loopback interface only (a name that does not resolve counts as not loopback). */
    public boolean isLoopback() {
        try {
            return !isWildcard() && InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** This address as other hosts can reach it: a wildcard bind is advertised under this host's name. */
    HttpAddress advertisable() {
        if (!isWildcard()) {
            return this;
        }
        try {
            return new HttpAddress(InetAddress.getLocalHost().getCanonicalHostName(), port);
        } catch (UnknownHostException e) {
            throw new ConfigException(AxConfig.HTTP_ADVERTISED_CONFIG, "", "cannot name this host to advertise "
                    + this + ": set " + AxConfig.HTTP_ADVERTISED_CONFIG);
        }
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
