package io.ax;

/** The root of every exception ax throws. Subclasses carry structured context. */
public class AxException extends RuntimeException {
    public AxException(String message) {
        super(message);
    }

    public AxException(String message, Throwable cause) {
        super(message, cause);
    }
}
