/**
 * The lock table's JPA entity, {@link io.txlock.entity.MethodLock}: open, so that a JPA provider on the module path
 * reaches its fields.
 */
open module io.txlock.entity {
    requires static transitive jakarta.persistence;

    exports io.txlock.entity;
}
