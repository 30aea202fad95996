package io.ax.codec;

import io.ax.schema.IfExists;
import org.apache.avro.util.ClassSecurityValidator;
import org.apache.avro.util.ClassSecurityValidator.ClassSecurityPredicate;

/**
 * Lets Avro 1.12.2+ instantiate ax's generated classes (AVRO-4189 trusts only listed packages), so users
 * need not set {@code -Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.ax.schema}.
 *
 * <p>Why the API and not the system property: Avro reads the property once, when its validator class is
 * first initialized, so setting it from a library works only if nothing in the JVM used Avro before. This
 * adds trust for {@code io.ax.schema.*} only, and only when it is not already trusted (by the property, or
 * by a validator the application installed). An application that later calls
 * {@link ClassSecurityValidator#setGlobal} itself must trust {@code io.ax.schema} too.
 */
public final class AvroTrust {
    private static final String AX_SCHEMA_PACKAGE = IfExists.class.getPackageName() + ".";

    private AvroTrust() {
    }

    /** Idempotent; call before the first Avro use, e.g. from a static initializer. */
    public static synchronized void ensureAxSchemasTrusted() {
        ClassSecurityPredicate current = ClassSecurityValidator.getGlobal();
        if (!current.isTrusted(IfExists.class)) {
            ClassSecurityPredicate axSchemas = type -> type.getName().startsWith(AX_SCHEMA_PACKAGE);
            ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(current, axSchemas));
        }
    }
}
