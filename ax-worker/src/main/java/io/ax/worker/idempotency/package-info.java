/**
 * Idempotency guards keyed by executionId, so that a redelivered execution's effect happens once:
 * {@link io.ax.worker.idempotency.InMemoryIdempotencyGuard} for one process and tests,
 * {@link io.ax.worker.idempotency.JdbcIdempotencyGuard} for a fleet, committing a marker row in the same
 * transaction as the handler's own writes.
 */
package io.ax.worker.idempotency;
