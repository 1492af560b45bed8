package io.txlock.it.bad;

import io.txlock.cdi.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** A bean whose lock name refers to a parameter it does not have: the deployment must fail. */
@ApplicationScoped
public class BadTemplate {

    @Locked("order:{ordre.number}")
    public void ship(String order) {
    }
}
