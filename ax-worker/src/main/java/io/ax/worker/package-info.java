/**
 * The ax worker SDK: consume dispatched tasks, run the handler registered for their job type, report the
 * outcome.
 *
 * <pre>{@code
 * AxWorker worker = AxWorker.builder()
 *         .bootstrapServers("localhost:9092")
 *         .handler("email", context -> {
 *             mailer.send(context.payloadAsString());
 *             return Result.success();
 *         })
 *         .build();
 * worker.start();
 * Runtime.getRuntime().addShutdownHook(new Thread(worker::close));
 * }</pre>
 *
 * <p>Delivery is at-least-once: a handler may run again for the same {@code executionId} after a crash or a
 * rebalance, so handlers with effects should be idempotent per {@link io.ax.worker.JobContext#executionId()}.
 * Only the types in this package are API; {@code io.ax.worker.internal} is not.
 */
package io.ax.worker;
