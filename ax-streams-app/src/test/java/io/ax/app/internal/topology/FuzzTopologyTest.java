package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.fuzz.FuzzCorpus;
import io.ax.app.fuzz.FuzzFailures;
import io.ax.app.fuzz.FuzzFigures;
import io.ax.app.fuzz.FuzzSettings;
import io.ax.app.fuzz.HostileInput;
import io.ax.app.fuzz.HostileInputs;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzz, fast level: the corpus, then generated hostile inputs on ax.requests, ax.results and ax.retry (JSON and Avro),
 * through the topology in a TopologyTestDriver, each followed by a canary (see {@link TopologyFuzzRun} for the
 * oracle). The embedded-broker level is {@code io.ax.app.fuzz.FuzzIT}.
 *
 * <p>CI runs {@value #CI_COUNT} generated inputs. A larger run, or one seed, or single inputs again:
 * <pre>
 * mvn -B -ntp -pl ax-streams-app -am test -Dtest=FuzzTopologyTest -Dsurefire.failIfNoSpecifiedTests=false -Dax.fuzz.count=20000
 * ... -Dax.fuzz.seed=random          (the seed is printed with the figures and in every failure)
 * ... -Dax.fuzz.seed=S -Dax.fuzz.only=17,342
 * </pre>
 */
@Tag("fuzz")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FuzzTopologyTest {
    static final int CI_COUNT = 1500;
    /** The longest log line hostile input may cause (a rejection reason is at most 2000 chars, plus its coordinates). */
    static final int MAX_LOG_LINE_CHARS = 4_096;

    @Test
    @Order(1)
    void shouldAnswerEveryCorpusInputAndKeepFiringCanaries(@TempDir Path stateRoot) {
        List<HostileInput> corpus = FuzzCorpus.load();
        FuzzFigures figures = new FuzzFigures("TopologyTestDriver, corpus (" + corpus.size() + " entries)");
        FuzzFailures failures = new FuzzFailures("topology-corpus");
        LogCapture logs = LogCapture.root();
        try (TopologyFuzzRun run = new TopologyFuzzRun(stateRoot, figures)) {
            for (HostileInput input : corpus) {
                run.replaceDriver();
                List<String> problems = run.run(input);
                if (!problems.isEmpty()) {
                    failures.add(input, input.generatedIndex(), problems);
                }
            }
        } finally {
            logs.stop();
            System.out.println(figures.report());
        }
        assertThat(failures.isEmpty()).as(() -> failures.report(corpus.size(), null)).isTrue();
        // Issue 26: a value from input reaches a log line or the MDC only quoted short (a 1 MB key made a 1 MB line).
        assertThat(logs.longest()).as("longest log line of the corpus, MDC included").isLessThan(MAX_LOG_LINE_CHARS);
    }

    @Test
    @Order(2)
    void shouldAnswerEveryGeneratedInputAndKeepFiringCanaries(@TempDir Path stateRoot) {
        FuzzSettings settings = FuzzSettings.fromSystemProperties(CI_COUNT);
        HostileInputs inputs = new HostileInputs(settings.seed());
        FuzzFigures figures = new FuzzFigures("TopologyTestDriver, generated, " + settings);
        FuzzFailures failures = new FuzzFailures("topology-generated");
        int ran = 0;
        try (TopologyFuzzRun run = new TopologyFuzzRun(stateRoot, figures)) {
            for (int index : settings.indexes()) {
                HostileInput input = inputs.get(index);
                ran++;
                List<String> problems = run.run(input);
                if (!problems.isEmpty()) {
                    failures.add(input, index, problems);
                    if (failures.size() >= settings.stopAfterFailures()) {
                        break;
                    }
                }
            }
        } finally {
            System.out.println(figures.report());
        }
        int of = ran;
        String stopped = failures.size() >= settings.stopAfterFailures()
                ? " (stopped after " + settings.stopAfterFailures() + " broken inputs; -Dax.fuzz.stopAfterFailures=N for more)" : "";
        assertThat(failures.isEmpty()).as(() -> settings + stopped + ": "
                + failures.report(of, settings.reproduce("FuzzTopologyTest#shouldAnswerEveryGeneratedInputAndKeepFiringCanaries",
                        failures.indexes()))).isTrue();
    }
}
