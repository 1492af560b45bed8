package io.txlock;

/**
 * A release or extension by someone who does not hold the lock: it was already released, its lease ran
 * out (and perhaps another holder took it), or the caller is not the owner. Nothing was changed.
 */
public class LockNotHeldException extends LockException {
    private static final long serialVersionUID = 1L;

    /** @param message which lock and why it is not held */
    public LockNotHeldException(String message) {
        super(message);
    }
}
