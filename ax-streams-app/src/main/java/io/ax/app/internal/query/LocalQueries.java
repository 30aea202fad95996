package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.app.internal.store.HistoryEntry;
import io.ax.app.internal.store.IndexCounts;
import io.ax.app.internal.store.IndexEntry;
import io.ax.app.internal.store.TaskHistory;
import io.ax.app.internal.store.TaskIndex;
import io.ax.schema.StoredTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The questions one instance answers from its own active partitions: a task, an execution, one page of a listing,
 * the counters. Every answer is bounded: a listing examines at most {@link #SCAN_BUDGET} index keys per partition,
 * so a filter that matches little cannot make one request walk millions of tasks.
 */
final class LocalQueries {
    /** Index keys (or tasks, for a listing without an indexed filter) one partition examines for one page. */
    static final int SCAN_BUDGET = 10_000;

    private final LocalStores stores;
    private final String instance;
    /** Each partition's counters as its index last wrote them, null where no stream task here has it open yet. */
    private final java.util.function.IntFunction<IndexCounts> indexCounts;

    LocalQueries(LocalStores stores, String instance, java.util.function.IntFunction<IndexCounts> indexCounts) {
        this.stores = stores;
        this.instance = instance;
        this.indexCounts = indexCounts;
    }

    /** The task with its {@code history} of state changes. */
    Optional<ObjectNode> task(int partition, String taskId) {
        stores.requireRunning();
        StoredTask task = stores.tasks(partition).get(taskId);
        if (task == null) {
            return Optional.empty();
        }
        ObjectNode json = TaskView.of(task, partition, instance);
        json.set("history", HistoryView.of(TaskHistory.of(task)));
        return Optional.of(json);
    }

    /**
     * The task of {@code executionId}, if one of this instance's partitions has it: as {@link #task} when it is the task's
     * latest execution; otherwise (an older execution, or the next occurrence still pending), while the task's history
     * holds a change of it, with {@code execution} and {@code attempts} told from the history
     * ({@link HistoryView#describeExecution}). {@code latest} says which.
     */
    Optional<ObjectNode> execution(String executionId) {
        for (int partition : stores.activePartitions()) {
            String taskId = TaskIndex.taskOfExecution(stores.index(partition), executionId);
            StoredTask stored = taskId == null ? null : stores.tasks(partition).get(taskId);
            if (stored == null) {
                continue;
            }
            ObjectNode task = TaskView.of(stored, partition, instance);
            List<HistoryEntry> history = TaskHistory.of(stored);
            task.set("history", HistoryView.of(history));
            boolean latest = stored.getExecution() != null && executionId.equals(stored.getExecution().getExecutionId());
            if (!latest) {
                HistoryView.describeExecution(task, history, executionId);
            }
            task.put("latest", latest);
            return Optional.of(task);
        }
        return Optional.empty();
    }

    /** One page over this instance's partitions (see {@link Page#merge}). */
    Page list(ListQuery query) {
        List<Page> pages = new ArrayList<>();
        for (int partition : stores.activePartitions()) {
            pages.add(listPartition(partition, query));
        }
        return Page.merge(pages, query.limit());
    }

    private Page listPartition(int partition, ListQuery query) {
        if (query.state() != null) {
            return listByIndex(partition, query, TaskIndex.BY_STATE, query.state().name());
        }
        if (query.jobType() != null) {
            return listByIndex(partition, query, TaskIndex.BY_JOB_TYPE, query.jobType());
        }
        if (query.owner() != null) {
            return listByIndex(partition, query, TaskIndex.BY_OWNER, query.owner());
        }
        return listAll(partition, query);
    }

    /** Walks one value's range of an index from the cursor on; other filters are checked on each task read. */
    private Page listByIndex(int partition, ListQuery query, byte dimension, String value) {
        ReadOnlyKeyValueStore<Bytes, byte[]> index = stores.index(partition);
        ReadOnlyKeyValueStore<String, StoredTask> tasks = stores.tasks(partition);
        byte[] prefix = TaskIndex.valuePrefix(dimension, value);
        Bytes from = query.after() == null ? Bytes.wrap(prefix) : TaskIndex.valueKey(dimension, value, query.after());
        boolean onlyThisFilter = countFilters(query) == 1;
        List<ObjectNode> found = new ArrayList<>();
        int examined = 0;
        try (KeyValueIterator<Bytes, byte[]> keys = index.range(from, null)) {
            while (keys.hasNext()) {
                Bytes key = keys.next().key;
                if (!TaskIndex.hasPrefix(key, prefix)) {
                    return new Page(found, null);
                }
                String taskId = TaskIndex.taskIdOf(key, prefix.length);
                if (taskId.equals(query.after())) {
                    continue;
                }
                examined++;
                StoredTask task = tasks.get(taskId);
                if (task != null && (onlyThisFilter || matches(query, IndexEntry.of(task)))) {
                    found.add(TaskView.of(task, partition, instance));
                }
                if (found.size() == query.limit() || examined >= SCAN_BUDGET) {
                    return new Page(found, taskId);
                }
            }
        }
        return new Page(found, null);
    }

    /** No indexed filter: the task store itself, in taskId order (bounded like an index walk). */
    private Page listAll(int partition, ListQuery query) {
        List<ObjectNode> found = new ArrayList<>();
        int examined = 0;
        try (KeyValueIterator<String, StoredTask> all = stores.tasks(partition).range(query.after(), null)) {
            while (all.hasNext()) {
                KeyValue<String, StoredTask> next = all.next();
                if (next.value == null || next.key.equals(query.after())) {
                    continue;
                }
                examined++;
                if (matches(query, IndexEntry.of(next.value))) {
                    found.add(TaskView.of(next.value, partition, instance));
                }
                if (found.size() == query.limit() || examined >= SCAN_BUDGET) {
                    return new Page(found, next.key);
                }
            }
        }
        return new Page(found, null);
    }

    private static boolean matches(ListQuery query, IndexEntry entry) {
        return entry != null && query.matches(entry.state(), entry.jobType(), entry.owner(), entry.nextDueAtMs());
    }

    private static int countFilters(ListQuery query) {
        int filters = 0;
        for (Object filter : new Object[] {query.state(), query.jobType(), query.owner(), query.dueBeforeMs()}) {
            filters += filter == null ? 0 : 1;
        }
        return filters;
    }

    /**
     * Tasks by state and by jobType on this instance's partitions, summed: from each partition's counters as its index
     * last wrote them, kept in memory ({@link IndexCounts}), or read from the index store where its stream task has not
     * published them yet (the same values: a read of the store sorts its memtable, milliseconds a partition).
     */
    Counts counts() {
        Counts counts = new Counts(new TreeMap<>(), new TreeMap<>());
        for (int partition : stores.activePartitions()) {
            IndexCounts published = indexCounts.apply(partition);
            if (published != null) {
                published.of(TaskIndex.BY_STATE).forEach((state, n) -> counts.byState().merge(state, n, Long::sum));
                published.of(TaskIndex.BY_JOB_TYPE).forEach((jobType, n) -> counts.byJobType().merge(jobType, n, Long::sum));
                continue;
            }
            ReadOnlyKeyValueStore<Bytes, byte[]> index = stores.index(partition);
            addCounts(index, TaskIndex.BY_STATE, counts.byState());
            addCounts(index, TaskIndex.BY_JOB_TYPE, counts.byJobType());
        }
        return counts;
    }

    private static void addCounts(ReadOnlyKeyValueStore<Bytes, byte[]> index, byte dimension, Map<String, Long> into) {
        Bytes prefix = TaskIndex.countPrefix(dimension);
        try (KeyValueIterator<Bytes, byte[]> counters = index.range(prefix, null)) {
            while (counters.hasNext()) {
                KeyValue<Bytes, byte[]> next = counters.next();
                if (!TaskIndex.hasPrefix(next.key, prefix.get())) {
                    return;
                }
                into.merge(TaskIndex.countedValue(next.key), TaskIndex.countOf(next.value), Long::sum);
            }
        }
    }

    /** Counts of tasks by state and by jobType. */
    record Counts(Map<String, Long> byState, Map<String, Long> byJobType) {
        void add(Counts other) {
            other.byState().forEach((k, v) -> byState.merge(k, v, Long::sum));
            other.byJobType().forEach((k, v) -> byJobType.merge(k, v, Long::sum));
        }
    }
}
