package io.ax.app.internal.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PageTest {
    private static ObjectNode task(String taskId) {
        return TaskView.MAPPER.createObjectNode().put("taskId", taskId);
    }

    private static Page page(String resumeAfter, String... taskIds) {
        return new Page(Arrays.stream(taskIds).map(PageTest::task).toList(), resumeAfter);
    }

    private static List<String> ids(Page page) {
        return page.tasks().stream().map(t -> t.get("taskId").asText()).toList();
    }

    @Test
    void shouldMergeExhaustedSourcesInTaskIdOrderAndEndTheListing() {
        Page merged = Page.merge(List.of(page(null, "b", "d"), page(null, "a", "c")), 20);
        assertThat(ids(merged)).containsExactly("a", "b", "c", "d");
        assertThat(merged.resumeAfter()).isNull();
    }

    @Test
    void shouldStopAtTheLimitAndResumeAfterTheLastTaskTaken() {
        Page merged = Page.merge(List.of(page(null, "a", "c", "e"), page(null, "b", "d")), 3);
        assertThat(ids(merged)).containsExactly("a", "b", "c");
        assertThat(merged.resumeAfter()).isEqualTo("c");
    }

    @Test
    void shouldNotTakeTasksBeyondWhereASourceStoppedLooking() {
        // The second source looked only up to "b" (a bounded scan): "c" and "d" of the first may have peers there.
        Page merged = Page.merge(List.of(page(null, "a", "c", "d"), page("b")), 10);
        assertThat(ids(merged)).containsExactly("a");
        assertThat(merged.resumeAfter()).isEqualTo("b");
    }

    @Test
    void shouldAnswerAnEmptyPageWithACursorWhenNoSourceFoundAnythingYet() {
        Page merged = Page.merge(List.of(page("m"), page(null)), 20);
        assertThat(merged.tasks()).isEmpty();
        assertThat(merged.resumeAfter()).isEqualTo("m");
    }

    @Test
    void shouldEndWhenTheLimitIsExactlyWhatIsLeft() {
        Page merged = Page.merge(List.of(page(null, "a"), page(null, "b")), 2);
        assertThat(ids(merged)).containsExactly("a", "b");
        assertThat(merged.resumeAfter()).isNull();
    }

    @Test
    void shouldOrderByUtf8BytesAsTheStoresDo() {
        // UTF-16 order (String.compareTo) would put the emoji (a surrogate pair, D83D) before U+FF5E; UTF-8 does not.
        Page merged = Page.merge(List.of(page(null, "\uD83D\uDE00"), page(null, "\uFF5E")), 20);
        assertThat(ids(merged)).containsExactly("\uFF5E", "\uD83D\uDE00");
    }

    @Test
    void shouldRoundTripTheInternalForm() {
        Page page = page("c", "a", "c");
        assertThat(Page.fromInternalJson(page.toInternalJson())).isEqualTo(page);
        assertThat(page.toPublicJson().get("nextCursor").asText()).isEqualTo(ListQuery.cursorOf("c"));
    }
}
