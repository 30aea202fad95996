package io.ax.app.internal.migrate;

import io.ax.AxException;

/** {@code ./ax migrate} will not start (or go on): the message says why and what to do. */
public final class MigrationRefusedException extends AxException {
    public MigrationRefusedException(String message) {
        super(message);
    }
}
