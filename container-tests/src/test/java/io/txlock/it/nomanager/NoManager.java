package io.txlock.it.nomanager;

import io.txlock.cdi.Locked;
import jakarta.ejb.Stateless;

/** A @Locked EJB in an application that produces no LockManager: the deployment must fail. */
@Stateless
public class NoManager {

    @Locked("job:nightly")
    public void run() {
    }
}
