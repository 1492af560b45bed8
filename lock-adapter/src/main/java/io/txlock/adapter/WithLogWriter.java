package io.txlock.adapter;

import java.io.PrintWriter;

/** {@link OwnIdentity} that keeps the log writer the container gives it (a connection factory, a pooled connection). */
abstract class WithLogWriter extends OwnIdentity {

    private transient PrintWriter logWriter;

    /** @param out the container's log writer */
    public void setLogWriter(PrintWriter out) {
        this.logWriter = out;
    }

    /** @return the container's log writer, or null */
    public PrintWriter getLogWriter() {
        return logWriter;
    }
}
