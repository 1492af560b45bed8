package io.txlock.chaos;

/**
 * One line of a history: what a holder (or the controller) did and when, on {@link System#nanoTime()}, which on
 * Linux is one monotonic clock for every process of the machine.
 *
 * @param nanos when, on the machine's monotonic clock
 * @param actor the holder's id, or {@value #CONTROLLER}
 * @param kind what happened
 * @param token the fencing token the event is about, or 0
 * @param detail the rest: {@code true}/{@code false} of a validity check, {@code accepted}/{@code refused} of a
 *     write, {@code phase class message} of an exception, {@code KIND victim} of a fault (a holder; at the end of a
 *     backend fault, what it hit)
 */
record Event(long nanos, String actor, Kind kind, long token, String detail) {

    /** The actor name of the controller's own events. */
    static final String CONTROLLER = "controller";

    /** What an event records. */
    enum Kind {
        /** A holder JVM started. */
        START,
        /** An acquire is about to be called (logged before the call). */
        REQ,
        /** An acquire returned a handle (logged after the call returned). */
        GRANT,
        /** {@code isValid()} answered; the time is taken before the call. */
        VALID,
        /** {@code extend()} returned: the new lease in ms. */
        EXTEND,
        /** A fenced write: accepted or refused by the resource. */
        WRITE,
        /** {@code release()} returned normally. */
        REL,
        /** An {@code onLost} listener ran. */
        LOST,
        /** A call of the lock API threw: {@code phase class message}. */
        EXC,
        /** The resource database failed a write (not the lock library's doing). */
        RESERR,
        /** The holder stopped on request and closed its manager. */
        END,
        /** The controller starts a fault: {@code KIND victim}. */
        FAULT_BEGIN,
        /** The controller ended a fault (the victim resumed, or the server is back): {@code KIND victim}. */
        FAULT_END
    }

    /** @return the line this event is written as */
    String toLine() {
        return nanos + "\t" + actor + "\t" + kind + "\t" + token + "\t" + detail.replaceAll("[\t\r\n]+", " ");
    }

    /**
     * @param line a line written by {@link #toLine()}
     * @return the event, or null if the line is not complete (the last line of a killed holder)
     */
    static Event parse(String line) {
        String[] f = line.split("\t", 5);
        if (f.length < 5) {
            return null;
        }
        try {
            return new Event(Long.parseLong(f[0]), f[1], Kind.valueOf(f[2]), Long.parseLong(f[3]), f[4]);
        } catch (IllegalArgumentException incomplete) {
            return null;
        }
    }

    boolean valid() {
        return kind == Kind.VALID && detail.equals("true");
    }

    boolean accepted() {
        return kind == Kind.WRITE && detail.equals("accepted");
    }
}
