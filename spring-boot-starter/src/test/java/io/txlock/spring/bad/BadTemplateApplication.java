package io.txlock.spring.bad;

import io.txlock.cdi.Locked;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;

/** An application with a {@link Locked} template that names no parameter: it must not start. */
@SpringBootApplication
public class BadTemplateApplication {

    @Service
    public static class Typo {
        @Locked("order:{orderNo}")
        public void ship(long orderNumber) {
        }
    }
}
