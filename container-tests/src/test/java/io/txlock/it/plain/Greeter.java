package io.txlock.it.plain;

import jakarta.enterprise.context.ApplicationScoped;

/** A bean of an application that has txlock on its class path and does not use {@code @Locked}. */
@ApplicationScoped
public class Greeter {

    public String greet(String name) {
        return "hello " + name;
    }
}
