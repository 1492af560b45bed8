package io.txlock.spring.app;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The test application: a plain Spring Boot application with the starter on its class path. Tests run it in their
 * own JVM, and as a separate JVM ({@code main}) where, given {@code counter.increments}, it prints {@code READY},
 * waits for {@code GO} on stdin, increments the shared counter that many times on {@code counter.threads} threads,
 * prints {@code DONE <n>} and exits.
 */
@SpringBootApplication
public class CounterApplication {

    public static void main(String[] args) {
        ConfigurableApplicationContext context = SpringApplication.run(CounterApplication.class, args);
        System.exit(SpringApplication.exit(context));
    }

    @Bean
    @ConditionalOnProperty("counter.increments")
    ApplicationRunner contend(CounterService counter, org.springframework.core.env.Environment env) {
        return args -> {
            int increments = env.getRequiredProperty("counter.increments", Integer.class);
            int threads = env.getProperty("counter.threads", Integer.class, 2);
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (!"GO".equals(in.readLine())) {
                throw new IllegalStateException("expected GO on stdin");
            }
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int share = increments / threads + (t < increments % threads ? 1 : 0);
                done.add(pool.submit(() -> {
                    for (int i = 0; i < share; i++) {
                        counter.increment();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            System.out.println("DONE " + increments);
        };
    }
}
