package io.txlock.spi;

/**
 * How the core stops an attempt that blocks in the backend ({@link LockProvider#blocksWhileWaiting()}): when its
 * caller is interrupted, or its lock manager closes. A provider registers, just before it blocks, the action that
 * makes the blocked call return (cancelling a JDBC statement, say) and closes the registration once the call
 * returned. The core may run the action from another thread, more than once, and also before the call started
 * blocking; the provider then answers promptly ("held", or a failure) and leaves nothing locked. The core turns
 * that answer into the caller's {@code LockInterruptedException}, or the closed manager's error.
 */
public interface Cancellation {

    /**
     * An attempt may have several registrations open at once (a statement's cancel, and a pause's wake-up around it):
     * a cancel runs the action of each.
     *
     * @param cancel what makes the blocked call return; must not block, and may run more than once
     * @return the registration, to close once the call returned
     */
    Registration onCancel(Runnable cancel);

    /** @return whether the attempt was cancelled: the provider must not start another blocking call for it */
    boolean isCancelled();

    /** An open {@link #onCancel} registration. */
    interface Registration extends AutoCloseable {
        /** The blocking call returned: its cancel action is not needed any more. */
        @Override
        void close();
    }

    /** For attempts that are never cancelled. */
    Cancellation NONE = new Cancellation() {
        @Override
        public Registration onCancel(Runnable cancel) {
            return () -> { };
        }

        @Override
        public boolean isCancelled() {
            return false;
        }
    };
}
