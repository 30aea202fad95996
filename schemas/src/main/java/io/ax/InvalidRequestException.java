package io.ax;

/**
 * A request, report or record that ax refuses: it could not be decoded, or a field breaks a rule.
 * The client throws it before sending; the scheduler turns it into a REJECTED event on {@code ax.state}
 * carrying {@link #getMessage()} as the reason.
 */
public class InvalidRequestException extends AxException {
    private final String field;

    public InvalidRequestException(String field, String message) {
        super(message);
        this.field = field;
    }

    public InvalidRequestException(String field, String message, Throwable cause) {
        super(message, cause);
        this.field = field;
    }

    /** The offending field (JSON/Avro name), or {@code null} when the record as a whole is bad. */
    public String field() {
        return field;
    }
}
