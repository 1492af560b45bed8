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
        if (contender.join(this) == Contender.Step.DONE) {
            return contender.handle();
        }
        try {
            while (true) {
                Contender.Step step = awaitStep();
                if (step == Contender.Step.ATTEMPT) {
                    step = contender.attempt();
                }
                switch (step) {
                    case DONE:
                        return contender.handle();
                    case EXPIRED, OVER:
                        return null;
                    case CLOSED:
                        throw contender.closedError();
                    default:
                        break;
                }
            }
        } finally {
            contender.abandon();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
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
