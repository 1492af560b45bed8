-- txlock lock table for MySQL 8. A plain script and a Flyway-style migration at once (MariaDB has its own).
-- One row per lock name. version is the fencing token of the latest grant.
-- Names compare byte for byte (utf8mb4_bin), so 'Order' and 'order' are two locks.
-- Times are UTC (UTC_TIMESTAMP(6) of the server), whatever the session time zone.
CREATE TABLE method_lock (
    name        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    state       VARCHAR(8)   NOT NULL,
    version     BIGINT       NOT NULL,
    owner_host  VARCHAR(255),
    owner_id    VARCHAR(255),
    hold_count  INTEGER      NOT NULL,
    acquired_at DATETIME(6),
    expires_at  DATETIME(6),
    updated_at  DATETIME(6)  NOT NULL,
    CONSTRAINT method_lock_pk PRIMARY KEY (name),
    CONSTRAINT method_lock_state_ck CHECK (state IN ('FREE', 'HELD'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
CREATE INDEX method_lock_expires_ix ON method_lock (expires_at);
-- Fencing tokens: MySQL has no sequences, so tokens are AUTO_INCREMENT values, which InnoDB never
-- hands out twice, not even after a rollback or a restart. Old rows are deleted by the reaper.
CREATE TABLE method_lock_token (
    id BIGINT NOT NULL AUTO_INCREMENT,
    CONSTRAINT method_lock_token_pk PRIMARY KEY (id)
) ENGINE = InnoDB;
