-- txlock lock table for H2 2.x. A plain script and a Flyway-style migration at once.
-- One row per lock name. version is the fencing token of the latest grant; tokens come from
-- method_lock_token_seq, which no rollback can take back, so they only ever grow. Every session draws from the
-- database's one sequence, whose cache only spares a write of it per value: a restart skips what was cached.
-- H2 measures VARCHAR in UTF-16 units: 510 of them hold the 255 code points a name may have.
CREATE TABLE method_lock (
    name        VARCHAR(510) NOT NULL,
    state       VARCHAR(8)   NOT NULL,
    version     BIGINT       NOT NULL,
    owner_host  VARCHAR(255),
    owner_id    VARCHAR(255),
    hold_count  INTEGER      NOT NULL,
    acquired_at TIMESTAMP(6) WITH TIME ZONE,
    expires_at  TIMESTAMP(6) WITH TIME ZONE,
    updated_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    CONSTRAINT method_lock_pk PRIMARY KEY (name),
    CONSTRAINT method_lock_state_ck CHECK (state IN ('FREE', 'HELD'))
);
CREATE INDEX method_lock_expires_ix ON method_lock (expires_at);
CREATE SEQUENCE method_lock_token_seq CACHE 1000;
