package io.ax.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class AxSchemasTest {
    /** Committed for clients in other languages, which compute fingerprints differently (see NOTES). */
    private static final Path FINGERPRINTS = Path.of("fingerprints.json");

    @Test
    void shouldKeepTheCommittedFingerprintMapInStepWithTheSchemas() throws IOException {
        String expected = AxSchemas.fingerprintsJson();
        String committed = Files.exists(FINGERPRINTS) ? Files.readString(FINGERPRINTS, StandardCharsets.UTF_8) : "";
        Files.writeString(Path.of("target", "fingerprints.json"), expected, StandardCharsets.UTF_8);
        assertThat(committed)
                .as("schemas/fingerprints.json is stale: copy schemas/target/fingerprints.json over it. A changed schema"
                        + " also needs its released version kept under src/main/resources/io/ax/schema/history/")
                .isEqualTo(expected);
    }

    @Test
    void shouldDocumentEveryField() {
        for (Schema schema : AxSchemas.current()) {
            assertDocumented(schema);
        }
    }

    private static void assertDocumented(Schema schema) {
        if (schema.getType() == Schema.Type.UNION) {
            schema.getTypes().forEach(AxSchemasTest::assertDocumented);
            return;
        }
        if (schema.getType() == Schema.Type.ARRAY) {
            assertDocumented(schema.getElementType());
            return;
        }
        if (schema.getType() != Schema.Type.RECORD) {
            return;
        }
        assertThat(schema.getDoc()).as("doc of %s", schema.getFullName()).isNotBlank();
        for (Schema.Field field : schema.getFields()) {
            assertThat(field.doc()).as("doc of %s.%s", schema.getFullName(), field.name()).isNotBlank();
            assertDocumented(field.schema());
        }
    }
}
