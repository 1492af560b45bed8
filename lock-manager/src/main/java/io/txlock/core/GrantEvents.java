package io.txlock.core;

import io.txlock.LockMetrics;
import io.txlock.spi.GrantListener;

/**
 * Routes a provider's reports about one grant to its holding, remembering those that come before it exists. Its
 * fields are guarded by this.
 */
final class GrantEvents implements GrantListener {
    private final Holdings holdings;
    private Holding holding;
    private boolean suspendedEarly;
    private String lostEarly;

    GrantEvents(Holdings holdings) {
        this.holdings = holdings;
    }

    void attach(Holding h) {
        String lost;
        boolean suspended;
        synchronized (this) {
            holding = h;
            lost = lostEarly;
            suspended = suspendedEarly;
        }
        if (lost != null) {
            holdings.lose(h, LockMetrics.Lost.BACKEND_REPORTED, lost);
        } else if (suspended) {
            h.suspend();
        }
    }

    @Override
    public void suspended() {
        Holding h;
        synchronized (this) {
            h = holding;
            if (h == null) {
                suspendedEarly = true;
                return;
            }
        }
        h.suspend();
    }

    @Override
    public void restored() {
        Holding h;
        synchronized (this) {
            h = holding;
            if (h == null) {
                suspendedEarly = false;
                return;
            }
        }
        h.restore();
    }

    @Override
    public void lost(String reason) {
        Holding h;
        synchronized (this) {
            h = holding;
            if (h == null) {
                lostEarly = reason;
                return;
            }
        }
        holdings.lose(h, LockMetrics.Lost.BACKEND_REPORTED, reason);
    }
}
