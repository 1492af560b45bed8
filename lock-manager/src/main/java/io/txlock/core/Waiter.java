package io.txlock.core;

import java.util.concurrent.locks.Condition;

/** A caller queued for one name. All fields are guarded by the name's mutex unless said otherwise. */
abstract class Waiter {
    final Caller caller;
    /** Set by {@link #wake()}: the next attempt should not wait for its pause to end. */
    boolean woken;
    /** {@link System#nanoTime()} before which the waiter pauses, unless woken. */
    long pauseUntil;

    Waiter(Caller caller) {
        this.caller = caller;
    }

    boolean pauseOver(long now) {
        return woken || now - pauseUntil >= 0;
    }

    /** Tells the waiter it may be its turn. Called with the name's mutex held. */
    abstract void wake();

    /** A thread blocked in {@code acquire}. */
    static final class Sync extends Waiter {
        final Condition turn;

        Sync(Caller caller, Condition turn) {
            super(caller);
            this.turn = turn;
        }

        @Override
        void wake() {
            woken = true;
            turn.signal();
        }
    }
}
