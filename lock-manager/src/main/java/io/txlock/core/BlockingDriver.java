package io.txlock.core;

import java.util.concurrent.locks.Condition;

/**
 * Runs a {@link Contender} on the caller's thread, which parks on its name's mutex between steps. The caller's
 * interrupt ends the wait where it asked for that ({@code interruptible}); else it is kept for after the wait.
 */
final class BlockingDriver implements Contender.Driver {

    private final Contender contender;
    private final boolean interruptible;
    /** Guarded by the name's mutex; made when the caller first parks. */
    private Condition turn;
    /** Read and written by the caller's thread only: an interrupt to restore after the wait. */
    private boolean interrupted;

    private BlockingDriver(Contender contender, boolean interruptible) {
        this.contender = contender;
        this.interruptible = interruptible;
    }

    /**
     * @param contender a new contender, made {@code interruptible} or not
     * @return the handle, or null if not granted within the wait
     */
    static Handle acquire(Contender contender, boolean interruptible) {
        return new BlockingDriver(contender, interruptible).run();
    }

    private Handle run() {
        boolean granted = false;
        try {
            Contender.Step step = firstStep();
            while (true) {
                if (step == Contender.Step.ATTEMPT) {
                    step = contender.attempt();
                }
                switch (step) {
                    case DONE:
                        granted = true;
                        return contender.handle();
                    case EXPIRED, OVER:
                        return null;
                    case CLOSED:
                        throw contender.closedError();
                    default:
                        step = awaitStep();
                }
            }
        } finally {
            // a granted contender is GRANTED, which abandon() would leave as it is: no need to take the mutex for it
            if (!granted) {
                contender.abandon();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Joins the queue and takes the first step under one hold of the name's mutex (which both take again, reentrantly). */
    private Contender.Step firstStep() {
        contender.name.mutex.lock();
        try {
            return contender.join(this) == Contender.Step.DONE ? Contender.Step.DONE : awaitStep();
        } finally {
            contender.name.mutex.unlock();
        }
    }

    /** @return the next step that is not a wait: the caller parks through those */
    private Contender.Step awaitStep() {
        contender.name.mutex.lock();
        try {
            while (true) {
                long now = System.nanoTime();
                Contender.Step step = contender.next(now);
                if (step != Contender.Step.WAIT && step != Contender.Step.PAUSE) {
                    return step;
                }
                if (turn == null) {
                    turn = contender.name.mutex.newCondition();
                }
                try {
                    turn.awaitNanos(contender.waitNanos(now));
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw Contender.interrupted(contender.name.name, null);
                    }
                    interrupted = true;
                }
            }
        } finally {
            contender.name.mutex.unlock();
        }
    }

    @Override
    public void wake() {
        if (turn != null) {
            turn.signal();
        }
    }
}
