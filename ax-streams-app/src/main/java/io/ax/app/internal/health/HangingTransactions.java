package io.ax.app.internal.health;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the partitions a scheduler reads {@code read_committed} or writes in transactions for a hanging transaction
 * ({@link OpenTransaction#isHangingGiven}): records no coordinator will ever commit or abort, behind which every
 * {@code read_committed} reader of the partition waits for ever. A scheduler restoring a changelog behind one stays
 * REBALANCING and fires nothing; a worker stops at it on {@code ax.dispatch}. Kafka itself leaves such transactions
 * behind in rare failures (seen here: a broker killed and restarted while transactions were open, which then aborted
 * them before it knew the partitions' leaders and skipped their markers; an unclean leader election).
 *
 * <p>Every {@code checkIntervalMs} it lists each watched partition's end and last stable offset; where they differ it
 * asks the leader which transactions are open, and a transaction seen open at the same start offset for at least
 * {@code hangingAfterMs} is judged against its coordinator's view. A hanging transaction of this application's own
 * producers (transactional ids {@code <application.id>-...}) that its coordinator aborted
 * ({@link OpenTransaction#wasAbortedGiven}) is aborted here too ({@code Admin.abortTransaction}, as
 * {@code kafka-transactions.sh abort} does), with one WARN line. Any other hanging transaction (anyone else's, one its
 * coordinator committed or no longer shows the outcome of, one the abort fails for, e.g. not authorised: it needs the
 * cluster's ClusterAction) is reported in one ERROR line naming the partition, the producer, the coordinator's view and
 * the command that ends it: Kafka has no way to write a commit marker after the fact, and an abort could drop committed
 * writes, so that call is the operator's. Each open transaction is reported once, an abort that failed at every check until it succeeds.
 *
 * <p>Bounded work: two offset listings of the watched partitions per check, and producer and transaction look-ups only
 * for partitions whose last stable offset is behind. One daemon thread; {@link #checkOnce()} is what it runs.
 */
public final class HangingTransactions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HangingTransactions.class);
    private static final long REQUEST_TIMEOUT_MS = 15_000;

    private final Admin admin;
    private final String applicationId;
    private final List<String> topics;
    private final String bootstrapServers;
    private final long hangingAfterMs;
    private final boolean abort;
    private final Time time;
    /** When each open transaction was first seen; forgotten once it is no longer open. */
    private final Map<OpenTransaction, Long> firstSeenMs = new HashMap<>();
    private final Set<OpenTransaction> reported = new HashSet<>();
    /** The watched topics' partitions; listed again at each check until every watched topic exists. */
    private List<TopicPartition> partitions = List.of();
    private boolean allTopicsListed;
    private ScheduledExecutorService thread;
    private boolean lastCheckFailed;

    /**
     * @param topics          the topics to watch (those that do not exist yet are skipped)
     * @param hangingAfterMs  how long a transaction must be seen open before the coordinator is asked about it
     * @param abort           abort hanging transactions of this application's producers; false: report only
     */
    public HangingTransactions(Admin admin, String applicationId, Collection<String> topics, String bootstrapServers,
                               long hangingAfterMs, boolean abort, Time time) {
        this.admin = admin;
        this.applicationId = applicationId;
        this.topics = List.copyOf(topics);
        this.bootstrapServers = bootstrapServers;
        this.hangingAfterMs = hangingAfterMs;
        this.abort = abort;
        this.time = time;
    }

    /** Runs {@link #checkOnce()} every {@code checkIntervalMs} on a daemon thread until closed. */
    public HangingTransactions start(long checkIntervalMs) {
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ax-hanging-transactions");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::checkQuietly, checkIntervalMs, checkIntervalMs, TimeUnit.MILLISECONDS);
        return this;
    }

    private void checkQuietly() {
        try {
            checkOnce();
            if (lastCheckFailed) {
                log.info("Hanging-transaction check works again");
                lastCheckFailed = false;
            }
        } catch (Exception e) {
            if (!lastCheckFailed) {
                log.warn("Hanging-transaction check failed (retried every interval; logged again once it works): {}", e.toString());
                lastCheckFailed = true;
            }
        } catch (Throwable t) {
            log.error("Hanging-transaction check stopped", t);
            throw t;
        }
    }

    /**
     * One check; returns the hanging transactions it found this time (aborted or reported).
     *
     * @throws Exception when the cluster cannot be asked (the next check tries again)
     */
    public synchronized List<OpenTransaction> checkOnce() throws Exception {
        long nowMs = time.milliseconds();
        List<OpenTransaction> open = openNow();
        firstSeenMs.keySet().retainAll(open);
        reported.retainAll(open);
        List<OpenTransaction> hanging = new ArrayList<>();
        for (OpenTransaction transaction : open) {
            long seenMs = firstSeenMs.computeIfAbsent(transaction, t -> nowMs);
            if (nowMs - seenMs >= hangingAfterMs && !reported.contains(transaction)) {
                Optional<TransactionListing> owner = ownerOf(transaction.producerId());
                Optional<TransactionDescription> view = owner.isEmpty() ? Optional.empty() : describe(owner.get().transactionalId());
                if (transaction.isHangingGiven(view)) {
                    hanging.add(transaction);
                    reported.add(transaction);
                    endOrReport(transaction, owner, view, nowMs - seenMs);
                }
            }
        }
        return hanging;
    }

    /**
     * The transactions open now on the watched partitions whose last stable offset is behind their end, as their
     * leaders report them; nothing judged. (The chaos suite prints these when a run does not complete.)
     *
     * @throws Exception when the cluster cannot be asked
     */
    public synchronized List<OpenTransaction> openNow() throws Exception {
        return openTransactions(behindPartitions());
    }

    private List<TopicPartition> behindPartitions() throws Exception {
        if (!allTopicsListed) {
            partitions = watchedPartitions();
        }
        Map<TopicPartition, OffsetSpec> latest = partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
        Map<TopicPartition, Long> end = new HashMap<>();
        admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all()
                .get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS).forEach((p, info) -> end.put(p, info.offset()));
        List<TopicPartition> behind = new ArrayList<>();
        admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS).forEach((p, info) -> {
                    if (info.offset() < end.get(p)) {
                        behind.add(p);
                    }
                });
        return behind;
    }

    private List<TopicPartition> watchedPartitions() throws Exception {
        Set<String> existing = admin.listTopics().names().get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        List<String> present = topics.stream().filter(existing::contains).toList();
        allTopicsListed = present.size() == topics.size();
        List<TopicPartition> all = new ArrayList<>();
        for (TopicDescription topic : admin.describeTopics(present).allTopicNames()
                .get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS).values()) {
            topic.partitions().forEach(p -> all.add(new TopicPartition(topic.name(), p.partition())));
        }
        return List.copyOf(all);
    }

    private List<OpenTransaction> openTransactions(List<TopicPartition> behind) throws Exception {
        List<OpenTransaction> open = new ArrayList<>();
        if (behind.isEmpty()) {
            return open;
        }
        Map<TopicPartition, PartitionProducerState> states = admin.describeProducers(behind).all()
                .get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        for (TopicPartition partition : behind) {
            for (ProducerState producer : states.get(partition).activeProducers()) {
                if (producer.currentTransactionStartOffset().isPresent()) {
                    open.add(new OpenTransaction(partition, producer.producerId(), producer.producerEpoch(),
                            producer.currentTransactionStartOffset().getAsLong(), producer.coordinatorEpoch().orElse(-1)));
                }
            }
        }
        return open;
    }

    private Optional<TransactionListing> ownerOf(long producerId) throws Exception {
        return admin.listTransactions(new ListTransactionsOptions().filterProducerIds(List.of(producerId))).all()
                .get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS).stream().findFirst();
    }

    private Optional<TransactionDescription> describe(String transactionalId) throws Exception {
        return Optional.ofNullable(admin.describeTransactions(List.of(transactionalId)).all()
                .get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(transactionalId));
    }

    private void endOrReport(OpenTransaction transaction, Optional<TransactionListing> owner,
                             Optional<TransactionDescription> view, long openForMs) {
        String whose = owner.map(TransactionListing::transactionalId).orElse("(no transactional id has this producer id)");
        String coordinator = view.map(v -> v.state() + " at epoch " + v.producerEpoch()).orElse("nothing");
        String what = "transaction of producer " + transaction.producerId() + " epoch " + transaction.producerEpoch()
                + " (" + whose + ") open on " + transaction.partition() + " since offset " + transaction.startOffset()
                + " for at least " + openForMs + " ms, while its coordinator says " + coordinator;
        boolean ours = owner.isPresent() && owner.get().transactionalId().startsWith(applicationId + "-");
        boolean aborted = transaction.wasAbortedGiven(view);
        if (!abort || !ours || !aborted) {
            String why = !ours ? "not this scheduler's producer"
                    : !aborted ? "its coordinator does not say it aborted it, and aborting a committed transaction here"
                            + " would drop, on this partition alone, writes the rest of it made visible"
                    : "ax.hanging.transaction.abort is off";
            log.error("Hanging {}: read_committed readers of {} are stopped behind it; not aborted: {}. Check, then end"
                    + " it with: {}", what, transaction.partition(), why, transaction.abortCommand(bootstrapServers));
            return;
        }
        try {
            admin.abortTransaction(new AbortTransactionSpec(transaction.partition(), transaction.producerId(),
                    (short) transaction.producerEpoch(), transaction.coordinatorEpoch())).all()
                    .get(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            log.warn("Aborted a hanging {}: the partition's read_committed readers move on", what);
        } catch (Exception e) {
            reported.remove(transaction); // tried again, and reported again, at the next check
            log.error("Hanging {}: aborting it failed ({}); read_committed readers of {} are stopped behind it. End it with: {}",
                    what, e.getCause() == null ? e.toString() : e.getCause().toString(), transaction.partition(),
                    transaction.abortCommand(bootstrapServers));
        }
    }

    @Override
    public void close() {
        if (thread != null) {
            thread.shutdownNow();
        }
    }
}
