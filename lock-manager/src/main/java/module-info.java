/**
 * txlock: the API ({@code io.txlock}), the SPI for backends and transaction managers ({@code io.txlock.spi}), and
 * the providers and integrations of this artifact; the core ({@code io.txlock.core}), the one algorithm behind
 * {@code LockManager}, is not exported. At run time it needs {@code java.sql}, {@code java.naming}, SLF4J and the
 * lock table's DDL ({@code io.txlock.sql}); Jakarta EE, JPA ({@code io.txlock.entity}) and Micrometer are optional:
 * needed only by the packages that use them, whose users require those modules themselves.
 */
@SuppressWarnings("requires-automatic")
module io.txlock {
    requires transitive java.sql;
    requires java.naming;
    requires org.slf4j;
    // the DDL JdbcLockSchema reads through the class loader: the module opens its script packages
    requires io.txlock.sql;
    requires static io.txlock.entity;
    requires static jakarta.annotation;
    requires static jakarta.cdi;
    requires static jakarta.inject;
    requires static jakarta.interceptor;
    requires static jakarta.persistence;
    requires static jakarta.transaction;
    requires static micrometer.core;
    requires static micrometer.observation;

    exports io.txlock;
    exports io.txlock.spi;
    exports io.txlock.jdbc;
    exports io.txlock.jpa;
    exports io.txlock.jta;
    exports io.txlock.cdi;
    exports io.txlock.micrometer;

    // CDI injects the interceptor's private field and calls the extension's package-private observer methods
    opens io.txlock.cdi;

    uses io.txlock.spi.TransactionSupport;

    // the CDI extension is found through META-INF/services on the class path, where CDI containers run: "provides
    // jakarta.enterprise.inject.spi.Extension" would fail resolution wherever jakarta.cdi is not resolved (a module
    // must read the service's module, and it only reads jakarta.cdi statically)
    provides io.txlock.spi.TransactionSupport with io.txlock.jta.JtaTransactionSupport;
}
