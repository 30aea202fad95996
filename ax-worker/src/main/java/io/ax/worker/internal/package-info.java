/** Insides of the worker SDK. Not API: may change in any release. */
package io.ax.worker.internal;
