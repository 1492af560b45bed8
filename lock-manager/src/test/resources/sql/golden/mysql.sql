-- The SQL of MySqlStatements for the table method_lock, as DialectSqlGoldenTest renders it; do not edit: regenerate.

-- adminDelete
DELETE FROM method_lock WHERE name = ? AND version = ?;

-- adminHeld
SELECT name, version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM method_lock
WHERE name LIKE ? ESCAPE '!' AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= UTC_TIMESTAMP(6))
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
SELECT GET_LOCK(?, ?);

-- advisoryLocked
SELECT IS_USED_LOCK(?);

-- advisoryNamespace
SELECT DATABASE();

-- advisoryUnlock
SELECT RELEASE_LOCK(?);

-- advisoryUnlockAll
SELECT RELEASE_ALL_LOCKS();

-- delete
DELETE FROM method_lock WHERE name = ? AND version = ? AND owner_id = ?;

-- ensureLockedRow (wait 0 ms)
INSERT INTO method_lock (version, name, state, hold_count, expires_at, updated_at)
VALUES (0, ?, 'FREE', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE hold_count = hold_count;

-- free
UPDATE method_lock SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
  expires_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD';

-- insertClaim (wait 0 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
VALUES (0, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
  UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE hold_count = hold_count + 1;

-- insertFree (wait 0 ms)
INSERT IGNORE INTO method_lock (version, name, state, hold_count, expires_at, updated_at)
SELECT ?, ?, 'FREE', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6);

-- insertHeld (wait 0 ms)
INSERT IGNORE INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT ?, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
  UTC_TIMESTAMP(6);

-- insertHeldUnqueued (wait 0 ms)
INSERT IGNORE INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT ?, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
  UTC_TIMESTAMP(6)
FROM (SELECT SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256) AS k) AS txlock_key
WHERE IS_FREE_LOCK(txlock_key.k) = 1 OR IS_USED_LOCK(txlock_key.k) = CONNECTION_ID();

-- inspect
SELECT version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM method_lock
WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= UTC_TIMESTAMP(6));

-- inspectRow
SELECT name, state, version, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at FROM method_lock
WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= UTC_TIMESTAMP(6));

-- leaveQueue
SELECT RELEASE_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256));

-- lockProbe
SELECT 1 FROM method_lock WHERE name = ? FOR UPDATE SKIP LOCKED;

-- lockRow
SELECT 1 FROM method_lock WHERE name = ? FOR UPDATE;

-- lockRowNoWait
SELECT 1 FROM method_lock WHERE name = ? FOR UPDATE NOWAIT;

-- newestToken
SELECT MAX(id) FROM method_lock_token;

-- purgeTokensBelow (batch 500)
DELETE FROM method_lock_token WHERE id < ? LIMIT 500;

-- queueLock
SELECT IF(GET_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256), ?) = 1, '', NULL);

-- queueUnlock
SELECT RELEASE_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256));

-- reapCandidates
SELECT name FROM method_lock
WHERE expires_at < UTC_TIMESTAMP(6)
  AND (state = 'HELD' OR expires_at < TIMESTAMPADD(MICROSECOND, -60000 * 1000, UTC_TIMESTAMP(6)))
ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED;

-- reapDelete
DELETE FROM method_lock WHERE name = ? AND expires_at < UTC_TIMESTAMP(6)
  AND (state = 'HELD' OR expires_at < TIMESTAMPADD(MICROSECOND, -60000 * 1000, UTC_TIMESTAMP(6)));

-- renew
UPDATE method_lock SET expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD';

-- retoken
UPDATE method_lock SET version = ? WHERE name = ? AND version = ?;

-- rowExists
SELECT 1 FROM method_lock WHERE name = ?;

-- selectState
SELECT version, state, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) DIV 1000
FROM method_lock WHERE name = ?;

-- selectStateForUpdate
SELECT version, state, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) DIV 1000
FROM method_lock WHERE name = ? FOR UPDATE;

-- selectStateUnqueued
SELECT version, CASE WHEN txlock_queue.free THEN state ELSE 'HELD' END,
  CASE WHEN txlock_queue.free THEN TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) DIV 1000
    ELSE GREATEST(0, TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at) DIV 1000) END
FROM method_lock, (SELECT IS_FREE_LOCK(txlock_key.k) = 1 OR IS_USED_LOCK(txlock_key.k) = CONNECTION_ID() AS free
  FROM (SELECT SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256) AS k) AS txlock_key) AS txlock_queue
WHERE name = ?;

-- selectTokenAndNow
SELECT LAST_INSERT_ID(), TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6));

-- sessionWait (wait 0 ms)
SELECT @@SESSION.innodb_lock_wait_timeout;
SET SESSION innodb_lock_wait_timeout = 1;

-- sessionWait (wait 1500 ms)
SELECT @@SESSION.innodb_lock_wait_timeout;
SET SESSION innodb_lock_wait_timeout = 2;

-- takeOver (wait 0 ms)
UPDATE method_lock SET version = ?, state = 'HELD', owner_host = ?, owner_id = ?, hold_count = 1,
  acquired_at = UTC_TIMESTAMP(6), expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
  updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6));

-- takeOverUnqueued (wait 0 ms)
UPDATE method_lock SET version = ?, state = 'HELD', owner_host = ?, owner_id = ?, hold_count = 1,
  acquired_at = UTC_TIMESTAMP(6), expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
  updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6))
  AND (IS_FREE_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(name AS BINARY), CHAR(0), 'queue'), 256)) = 1 OR IS_USED_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(name AS BINARY), CHAR(0), 'queue'), 256)) = CONNECTION_ID());

-- tokenInsert
INSERT INTO method_lock_token () VALUES ();

-- tokenInsertUnqueued
INSERT INTO method_lock_token (id)
SELECT NULL FROM (SELECT SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256) AS k) AS txlock_key
WHERE IS_FREE_LOCK(txlock_key.k) = 1 OR IS_USED_LOCK(txlock_key.k) = CONNECTION_ID();
