package io.txlock.spring.plain;

import io.txlock.LockManager;
import io.txlock.LockScope;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A Boot application with the starter but without Micrometer's core and Actuator on its class path, as an
 * application that uses neither has it: run as a JVM of its own, it prints what it found and exits.
 */
@SpringBootApplication
public class PlainApplication {

    @Service
    public static class Orders {
        private final LockManager locks;

        public Orders(LockManager locks) {
            this.locks = locks;
        }

        @Transactional
        public LockScope ship() {
            return locks.acquire("order:1").scope();
        }
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, PlainApplication.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(PlainApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        try (ConfigurableApplicationContext context = application.run(args)) {
            System.out.println("RESULT micrometer=" + present("io.micrometer.core.instrument.MeterRegistry")
                    + " actuator=" + present("org.springframework.boot.actuate.health.HealthIndicator")
                    + " managers=" + context.getBeansOfType(LockManager.class).size()
                    + " scope=" + context.getBean(Orders.class).ship());
        }
    }
}
