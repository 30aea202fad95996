package io.ax.app.internal.store;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** A string that may be null in the index store's small binary values ({@link IndexEntry}, {@link HistoryEntry}). */
final class NullableStrings {
    private NullableStrings() {
    }

    static void write(DataOutputStream out, String value) throws IOException {
        out.writeBoolean(value != null);
        if (value != null) {
            out.writeUTF(value);
        }
    }

    static String read(DataInputStream in) throws IOException {
        return in.readBoolean() ? in.readUTF() : null;
    }
}
