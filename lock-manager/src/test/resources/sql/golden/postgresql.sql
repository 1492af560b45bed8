-- The SQL of PostgresStatements for the table method_lock, as DialectSqlGoldenTest renders it; do not edit: regenerate.

-- adminDelete
DELETE FROM method_lock WHERE name = ? AND version = ?;

-- adminHeld
SELECT name, version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM method_lock
WHERE name LIKE ? ESCAPE '!' AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= clock_timestamp())
ORDER BY name;

-- adminHeldVersion
SELECT version FROM method_lock WHERE name = ? AND state = 'HELD';

-- adminHeldVersionUnlocked
SELECT version FROM method_lock WHERE name = ? AND state = 'HELD' FOR UPDATE SKIP LOCKED;

-- adminNames
SELECT name FROM method_lock WHERE name LIKE ? ESCAPE '!' ORDER BY name;

-- adminUnlockedNames
SELECT name FROM method_lock WHERE name LIKE ? ESCAPE '!' FOR UPDATE SKIP LOCKED;

-- advisoryLock (wait 0 ms)
SELECT CASE WHEN pg_try_advisory_lock(?) THEN nextval('method_lock_token_seq') END;

-- advisoryLock (wait 1500 ms)
SELECT CASE WHEN pg_try_advisory_lock(?) THEN nextval('method_lock_token_seq')
  WHEN set_config('lock_timeout', ?, true) IS NULL THEN NULL
  WHEN pg_advisory_lock(?) IS NULL THEN NULL
  ELSE nextval('method_lock_token_seq') END;

-- advisoryLocked
SELECT 1 FROM pg_locks, (SELECT CAST(? AS BIGINT) AS key) AS txlock_key
WHERE locktype = 'advisory' AND granted AND objsubid = 1
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND classid = CAST((key >> 32) & 4294967295 AS oid) AND objid = CAST(key & 4294967295 AS oid)
LIMIT 1;

-- advisoryNamespace
SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.oid = to_regclass('method_lock');

-- advisoryUnlock
SELECT CASE WHEN pg_advisory_unlock(?) THEN 1 ELSE 0 END;

-- advisoryUnlockAll
SELECT pg_advisory_unlock_all();

-- advisoryXactLock
SELECT nextval('method_lock_token_seq') FROM (SELECT pg_advisory_xact_lock(?)) AS txlock_locked;

-- advisoryXactLockIfFree
SELECT CASE WHEN pg_try_advisory_xact_lock(?) THEN nextval('method_lock_token_seq') END;

-- delete
DELETE FROM method_lock WHERE name = ? AND version = ? AND owner_id = ?;

-- free
UPDATE method_lock SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
  expires_at = clock_timestamp(), updated_at = clock_timestamp()
WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD';

-- freeLeavingQueue
WITH txlock_freed AS (
UPDATE method_lock SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
  expires_at = clock_timestamp(), updated_at = clock_timestamp()
WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD'
RETURNING name)
SELECT (SELECT count(*) FROM txlock_freed) FROM (SELECT set_config('synchronous_commit', 'off', true)) AS txlock_no_flush, (SELECT hashtextextended(?, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint)) AS k) AS txlock_key,
  LATERAL (SELECT pg_advisory_unlock(txlock_key.k)
    FROM (SELECT pg_advisory_xact_lock(txlock_key.k)) AS txlock_until_commit) AS txlock_left;

-- insertClaim (wait 0 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
VALUES (0, ?, 'HELD', ?, ?, 1, clock_timestamp(),
  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp())
ON CONFLICT (name) DO NOTHING;

-- insertFree (wait 0 ms)
INSERT INTO method_lock (version, name, state, hold_count, expires_at, updated_at)
SELECT nextval('method_lock_token_seq'), ?, 'FREE', 0, clock_timestamp(), clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1ms', true)) AS txlock_wait
ON CONFLICT (name) DO NOTHING
RETURNING version;

-- insertFree (wait 1500 ms)
INSERT INTO method_lock (version, name, state, hold_count, expires_at, updated_at)
SELECT nextval('method_lock_token_seq'), ?, 'FREE', 0, clock_timestamp(), clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1500ms', true)) AS txlock_wait
ON CONFLICT (name) DO NOTHING
RETURNING version;

-- insertHeld (wait 0 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT nextval('method_lock_token_seq'), ?, 'HELD', ?, ?, 1, clock_timestamp(),
  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1ms', true)) AS txlock_wait
ON CONFLICT (name) DO NOTHING
RETURNING version;

-- insertHeld (wait 1500 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT nextval('method_lock_token_seq'), ?, 'HELD', ?, ?, 1, clock_timestamp(),
  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1500ms', true)) AS txlock_wait
ON CONFLICT (name) DO NOTHING
RETURNING version;

-- insertHeldAndRetoken (wait 0 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT nextval('method_lock_token_seq'), ?, 'HELD', ?, ?, 1, clock_timestamp(),
  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1ms', true)) AS txlock_wait
ON CONFLICT (name) DO NOTHING;
UPDATE method_lock SET version = nextval('method_lock_token_seq')
WHERE name = ? AND version = (SELECT currval('method_lock_token_seq'))
RETURNING version;

-- insertHeldAndRetoken (wait 1500 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT nextval('method_lock_token_seq'), ?, 'HELD', ?, ?, 1, clock_timestamp(),
  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1500ms', true)) AS txlock_wait
ON CONFLICT (name) DO NOTHING;
UPDATE method_lock SET version = nextval('method_lock_token_seq')
WHERE name = ? AND version = (SELECT currval('method_lock_token_seq'))
RETURNING version;

-- insertHeldUnqueued (wait 0 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT txlock_token.version, ?, 'HELD', ?, ?, 1, clock_timestamp(),
  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1ms', true)) AS txlock_wait,
  (SELECT nextval('method_lock_token_seq') AS version, pg_try_advisory_xact_lock(hashtextextended(?, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint))) AS queue_free) AS txlock_token
WHERE txlock_token.queue_free
ON CONFLICT (name) DO NOTHING
RETURNING version;

-- insertHeldUnqueued (wait 1500 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT txlock_token.version, ?, 'HELD', ?, ?, 1, clock_timestamp(),
  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1500ms', true)) AS txlock_wait,
  (SELECT nextval('method_lock_token_seq') AS version, pg_try_advisory_xact_lock(hashtextextended(?, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint))) AS queue_free) AS txlock_token
WHERE txlock_token.queue_free
ON CONFLICT (name) DO NOTHING
RETURNING version;

-- insertHeldUnqueuedAndRetoken (wait 0 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT txlock_token.version, ?, 'HELD', ?, ?, 1, clock_timestamp(),
  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1ms', true)) AS txlock_wait,
  (SELECT nextval('method_lock_token_seq') AS version, pg_try_advisory_xact_lock(hashtextextended(?, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint))) AS queue_free) AS txlock_token
WHERE txlock_token.queue_free
ON CONFLICT (name) DO NOTHING;
UPDATE method_lock SET version = nextval('method_lock_token_seq')
WHERE name = ? AND version = (SELECT currval('method_lock_token_seq'))
RETURNING version;

-- insertHeldUnqueuedAndRetoken (wait 1500 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT txlock_token.version, ?, 'HELD', ?, ?, 1, clock_timestamp(),
  (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1500ms', true)) AS txlock_wait,
  (SELECT nextval('method_lock_token_seq') AS version, pg_try_advisory_xact_lock(hashtextextended(?, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint))) AS queue_free) AS txlock_token
WHERE txlock_token.queue_free
ON CONFLICT (name) DO NOTHING;
UPDATE method_lock SET version = nextval('method_lock_token_seq')
WHERE name = ? AND version = (SELECT currval('method_lock_token_seq'))
RETURNING version;

-- inspect
SELECT version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM method_lock
WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= clock_timestamp());

-- inspectRow
SELECT name, state, version, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at FROM method_lock
WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= clock_timestamp());

-- leaveQueue
SELECT pg_advisory_unlock(hashtextextended(?, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint)));

-- lockOrCreateRow
INSERT INTO method_lock AS txlock_row (version, name, state, hold_count, expires_at, updated_at)
VALUES (0, ?, 'FREE', 0, clock_timestamp(), clock_timestamp())
ON CONFLICT (name) DO UPDATE SET hold_count = txlock_row.hold_count
RETURNING nextval('method_lock_token_seq');

-- lockProbe
SELECT 1 FROM method_lock WHERE name = ? FOR UPDATE SKIP LOCKED;

-- lockRowIfFree
SELECT nextval('method_lock_token_seq') FROM (
  SELECT 1 FROM method_lock AS txlock_row WHERE name = ? FOR UPDATE SKIP LOCKED) AS txlock_locked;

-- lockRowWaiting
SELECT nextval('method_lock_token_seq') FROM (
  SELECT 1 FROM method_lock AS txlock_row, (SELECT set_config('lock_timeout', ?, true)) AS txlock_wait
  WHERE txlock_row.name = ? FOR UPDATE OF txlock_row) AS txlock_locked;

-- queueLock
SELECT 'txlock_' || to_hex(txlock_key.k) FROM (SELECT hashtextextended(?, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint)) AS k) AS txlock_key,
  LATERAL (SELECT pg_advisory_lock(txlock_key.k)
    FROM (SELECT set_config('lock_timeout', ?, true)) AS txlock_wait) AS txlock_queued;

-- queueLockAndTakeOver
SELECT 'txlock_' || to_hex(txlock_key.k) FROM (SELECT hashtextextended(?, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint)) AS k) AS txlock_key,
  LATERAL (SELECT pg_advisory_lock(txlock_key.k)
    FROM (SELECT set_config('lock_timeout', ?, true)) AS txlock_wait) AS txlock_queued;
UPDATE method_lock SET version = nextval('method_lock_token_seq'), state = 'HELD', owner_host = ?, owner_id = ?,
  hold_count = 1, acquired_at = clock_timestamp(),
  expires_at = (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), updated_at = clock_timestamp()
FROM (SELECT set_config('lock_timeout', ?, true)) AS txlock_wait
WHERE name = ? AND (state = 'FREE' OR expires_at < clock_timestamp())
RETURNING version;

-- queueUnlock
SELECT pg_advisory_unlock(hashtextextended(?, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint)));

-- reapCandidates
SELECT name FROM method_lock
WHERE expires_at < clock_timestamp()
  AND (state = 'HELD' OR expires_at < (clock_timestamp() + CAST(-60000 AS BIGINT) * INTERVAL '1 millisecond'))
ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED;

-- reapDelete
DELETE FROM method_lock WHERE name = ? AND expires_at < clock_timestamp()
  AND (state = 'HELD' OR expires_at < (clock_timestamp() + CAST(-60000 AS BIGINT) * INTERVAL '1 millisecond'));

-- releaseSavepoint
RELEASE SAVEPOINT txlock_attempt;

-- renew
UPDATE method_lock SET expires_at = (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'),
  updated_at = clock_timestamp()
WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD';

-- retoken
UPDATE method_lock SET version = nextval('method_lock_token_seq') WHERE name = ? AND version = ?
RETURNING version;

-- rollbackToSavepoint
ROLLBACK TO SAVEPOINT txlock_attempt;

-- rowExists
SELECT 1 FROM method_lock WHERE name = ?;

-- savepoint
SAVEPOINT txlock_attempt;

-- selectState
SELECT version, state, CAST(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000 AS BIGINT)
FROM method_lock WHERE name = ?;

-- selectStateUnqueued
SELECT version, CASE WHEN txlock_queue.free THEN state ELSE 'HELD' END,
  CASE WHEN txlock_queue.free THEN CAST(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000 AS BIGINT)
    ELSE GREATEST(0, CAST(EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000 AS BIGINT)) END
FROM method_lock, (SELECT pg_try_advisory_xact_lock(hashtextextended(?, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint))) AS free) AS txlock_queue
WHERE name = ?;

-- selectTokenAndNow
SELECT nextval('method_lock_token_seq'), CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT);

-- sessionWait (wait 0 ms)
SELECT current_setting('lock_timeout');
SELECT set_config('lock_timeout', '1ms', true); -- until the transaction ends;

-- sessionWait (wait 1500 ms)
SELECT current_setting('lock_timeout');
SELECT set_config('lock_timeout', '1500ms', true); -- until the transaction ends;

-- setLockTimeout
SELECT current_setting('lock_timeout'), set_config('lock_timeout', ?, true);

-- takeOver (wait 0 ms)
UPDATE method_lock SET version = nextval('method_lock_token_seq'), state = 'HELD', owner_host = ?, owner_id = ?,
  hold_count = 1, acquired_at = clock_timestamp(),
  expires_at = (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), updated_at = clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1ms', true)) AS txlock_wait
WHERE name = ? AND (state = 'FREE' OR expires_at < clock_timestamp())
RETURNING version;

-- takeOver (wait 1500 ms)
UPDATE method_lock SET version = nextval('method_lock_token_seq'), state = 'HELD', owner_host = ?, owner_id = ?,
  hold_count = 1, acquired_at = clock_timestamp(),
  expires_at = (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), updated_at = clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1500ms', true)) AS txlock_wait
WHERE name = ? AND (state = 'FREE' OR expires_at < clock_timestamp())
RETURNING version;

-- takeOverUnqueued (wait 0 ms)
UPDATE method_lock SET version = nextval('method_lock_token_seq'), state = 'HELD', owner_host = ?, owner_id = ?,
  hold_count = 1, acquired_at = clock_timestamp(),
  expires_at = (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), updated_at = clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1ms', true)) AS txlock_wait
WHERE name = ? AND (state = 'FREE' OR expires_at < clock_timestamp()) AND pg_try_advisory_xact_lock(hashtextextended(name, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint)))
RETURNING version;

-- takeOverUnqueued (wait 1500 ms)
UPDATE method_lock SET version = nextval('method_lock_token_seq'), state = 'HELD', owner_host = ?, owner_id = ?,
  hold_count = 1, acquired_at = clock_timestamp(),
  expires_at = (clock_timestamp() + CAST(? AS BIGINT) * INTERVAL '1 millisecond'), updated_at = clock_timestamp()
FROM (SELECT set_config('lock_timeout', '1500ms', true)) AS txlock_wait
WHERE name = ? AND (state = 'FREE' OR expires_at < clock_timestamp()) AND pg_try_advisory_xact_lock(hashtextextended(name, CAST(CAST(CAST('method_lock' AS regclass) AS oid) AS bigint)))
RETURNING version;
