package io.txlock.spring.nomanager;

import io.txlock.cdi.Locked;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

/** An application that uses {@link Locked} but turned the starter's lock manager off and configured none. */
@SpringBootApplication
public class NoManagerApplication {

    @Service
    public static class Nightly {
        public boolean ran;

        @Locked("nightly")
        public void run() {
            ran = true;
        }
    }
}
