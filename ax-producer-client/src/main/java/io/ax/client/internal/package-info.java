/** Insides of the producer client. Not API: may change in any release. */
package io.ax.client.internal;
