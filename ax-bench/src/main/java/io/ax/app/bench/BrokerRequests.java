package io.ax.app.bench;

import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.management.JMException;
import javax.management.MalformedObjectNameException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The requests the embedded broker in this process has served, by API ({@code Produce}, {@code Fetch},
 * {@code AddPartitionsToTxn}, ...): the broker's own {@code kafka.network:type=RequestMetrics,name=RequestsPerSec}
 * meters, read from the platform MBean server, their counts summed over the API's versions ({@code FetchConsumer} and
 * {@code FetchFollower}, which count some of {@code Fetch}'s again, left out). Two readings around a
 * phase give what every client of the cluster (the scheduler, the worker, the load, the readers) asked of the broker in
 * it. Empty when no broker runs in this process ({@code --bootstrap}, or a scenario with its own brokers).
 *
 * <p>The counts depend on timing (a linger window, a fetch's wait, the commit interval batch more or fewer records in
 * one request), so they are printed, never asserted.
 */
final class BrokerRequests {
    private static final String METERS = "kafka.network:type=RequestMetrics,name=RequestsPerSec,*";
    /** Meters that count a part of {@code Fetch}'s requests again (a consumer's, a follower's): left out. */
    private static final Set<String> PARTS = Set.of("FetchConsumer", "FetchFollower");

    private BrokerRequests() {
    }

    /** The count of requests served so far, by API; empty without a broker in this process. */
    static Map<String, Long> counts() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Map<String, Long> counts = new TreeMap<>();
        for (ObjectName name : server.queryNames(meters(), null)) {
            String api = name.getKeyProperty("request");
            if (api == null || PARTS.contains(api)) {
                continue;
            }
            try {
                if (server.getAttribute(name, "Count") instanceof Long count) {
                    counts.merge(api, count, Long::sum);
                }
            } catch (JMException e) {
                // this meter was removed between the query and the read: the others are still counted
            }
        }
        return counts;
    }

    private static ObjectName meters() {
        try {
            return new ObjectName(METERS);
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(METERS, e);
        }
    }

    /** {@code after − before}, by API, the APIs with none left out. */
    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((api, count) -> {
            long served = count - before.getOrDefault(api, 0L);
            if (served > 0) {
                delta.put(api, served);
            }
        });
        return delta;
    }

    /**
     * The APIs of {@code served} as one word, most requested first, each with its requests per task to two decimals:
     * {@code Produce:3.10,Fetch:2.41,...}; APIs under 0.005 a task are left out; {@code none} when nothing was served.
     */
    static String perTaskWord(Map<String, Long> served, int n) {
        String word = served.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(Map.Entry.comparingByKey()))
                .filter(e -> e.getValue() * 200L >= n)
                .map(e -> String.format(Locale.ROOT, "%s:%.2f", e.getKey(), (double) e.getValue() / n))
                .collect(Collectors.joining(","));
        return ResultLine.word(word);
    }
}
