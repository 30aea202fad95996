package io.ax.worker.internal;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One record of a batch: its handler run and its reports. */
record InFlight(ConsumerRecord<String, byte[]> record, Future<Disposition> disposition, RecordReports reports) {
    private static final Logger log = LoggerFactory.getLogger(InFlight.class);

    /**
     * Waits for the handler and for its reports' acknowledgements.
     *
     * @return whether the record is dealt with, so its offset may be committed
     * @throws VirtualMachineError thrown by the handler: the worker must stop without committing
     */
    boolean awaitDone() throws InterruptedException {
        Disposition outcome;
        try {
            outcome = disposition.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof VirtualMachineError fatal) {
                throw fatal;
            }
            log.error("Processing the dispatch at {}-{}@{} (taskId={}) failed; it will be redelivered",
                    record.topic(), record.partition(), record.offset(), record.key(), e.getCause());
            return false;
        }
        return outcome.isFinal() && reports.awaitAcknowledged(record.key());
    }
}
