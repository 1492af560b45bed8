package io.txlock.spring.app;

import io.txlock.cdi.Locked;
import org.springframework.stereotype.Service;

/** A class-level {@link Locked}: every public method holds the same lock. */
@Service
@Locked(value = "reports", waitTime = "0")
public class ReportJobs {

    public int generate(Runnable inside) {
        inside.run();
        return 1;
    }
}
