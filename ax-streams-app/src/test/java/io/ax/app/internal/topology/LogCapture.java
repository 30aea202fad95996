package io.ax.app.internal.topology;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Every log line of the JVM while it runs (the root logger's events, at the levels configured), measured as a line
 * would be written: the message, its arguments formatted, the MDC and the exception's message. For tests that bound
 * what hostile input can make a log line hold.
 */
public final class LogCapture {
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture() {
        appender.start();
        root.addAppender(appender);
    }

    public static LogCapture root() {
        return new LogCapture();
    }

    public void stop() {
        root.detachAppender(appender);
    }

    /** Each line as written, MDC included. */
    public List<String> lines() {
        synchronized (appender) { // AppenderBase.doAppend appends under this lock
            return appender.list.stream().map(LogCapture::line).toList();
        }
    }

    public List<ILoggingEvent> events() {
        synchronized (appender) { // AppenderBase.doAppend appends under this lock
            return List.copyOf(appender.list);
        }
    }

    /** Length of the longest line, MDC and exception message included. */
    public int longest() {
        return lines().stream().mapToInt(String::length).max().orElse(0);
    }

    private static String line(ILoggingEvent event) {
        StringBuilder line = new StringBuilder(event.getLevel() + " " + event.getLoggerName() + " " + event.getFormattedMessage());
        Map<String, String> mdc = event.getMDCPropertyMap();
        if (mdc != null) {
            mdc.forEach((key, value) -> line.append(' ').append(key).append('=').append(value));
        }
        if (event.getThrowableProxy() != null) {
            line.append(' ').append(event.getThrowableProxy().getMessage());
        }
        return line.toString();
    }
}
