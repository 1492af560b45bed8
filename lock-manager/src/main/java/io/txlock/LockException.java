package io.txlock;

/** Root of every error txlock reports. Unchecked. */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what happened and, where it helps, what to do */
    public LockException(String message) {
        super(message);
    }

    /**
     * @param message what happened and, where it helps, what to do
     * @param cause the underlying error
     */
    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
