package io.ax.worker.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;

/** The default worker id: {@code hostname-pid}, so operators can find the process behind a report. */
public final class WorkerIds {
    private WorkerIds() {
    }

    /** This machine's host name, or null when it cannot be told. */
    public static String host() {
        try {
            String host = InetAddress.getLocalHost().getHostName();
            return host.length() > 255 ? host.substring(0, 255) : host;
        } catch (UnknownHostException | SecurityException e) {
            return null;
        }
    }

    public static String defaultId() {
        try {
            return InetAddress.getLocalHost().getHostName() + "-" + ProcessHandle.current().pid();
        } catch (UnknownHostException | SecurityException e) {
            return "worker-" + UUID.randomUUID();
        }
    }
}
