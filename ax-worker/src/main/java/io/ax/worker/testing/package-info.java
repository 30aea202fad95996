/** Helpers to unit-test a {@link io.ax.worker.JobHandler} without a broker: a context you build, a runner that judges like the worker. */
package io.ax.worker.testing;
