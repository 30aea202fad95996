/**
 * The producer client of ax: schedule and cancel tasks.
 *
 * <pre>{@code
 * try (AxClient ax = AxClient.builder().bootstrapServers("localhost:9092").build()) {
 *     ax.schedule("invoice-42-reminder")
 *             .jobType("email")
 *             .after(Duration.ofMinutes(30))
 *             .payload("{\"invoice\":42}")
 *             .submit()
 *             .join();
 *     ax.cancel("invoice-42-reminder", "paid");
 * }
 * }</pre>
 *
 * <p>Only {@link io.ax.client.AxClient} and {@link io.ax.client.ScheduleBuilder} are public API; the
 * {@code internal} package is not.
 */
package io.ax.client;
