-- The SQL of H2Statements for the table method_lock, as DialectSqlGoldenTest renders it; do not edit: regenerate.

-- adminDelete
DELETE FROM method_lock WHERE name = ? AND version = ?;

-- adminHeld
SELECT name, version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM method_lock
WHERE name LIKE ? ESCAPE '!' AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= CURRENT_TIMESTAMP)
ORDER BY name;

-- adminHeldVersion
SELECT version FROM method_lock WHERE name = ? AND state = 'HELD';

-- adminHeldVersionUnlocked
SELECT version FROM method_lock WHERE name = ? AND state = 'HELD' FOR UPDATE SKIP LOCKED;

-- adminNames
SELECT name FROM method_lock WHERE name LIKE ? ESCAPE '!' ORDER BY name;

-- adminUnlockedNames
SELECT name FROM method_lock WHERE name LIKE ? ESCAPE '!' FOR UPDATE SKIP LOCKED;

-- delete
DELETE FROM method_lock WHERE name = ? AND version = ? AND owner_id = ?;

-- free
UPDATE method_lock SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
  expires_at = CURRENT_TIMESTAMP, updated_at = CURRENT_TIMESTAMP
WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD';

-- insertClaim (wait 0 ms)
INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
VALUES (0, ?, 'HELD', ?, ?, 1, CURRENT_TIMESTAMP, DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP),
  CURRENT_TIMESTAMP);

-- insertFree (wait 0 ms)
SELECT version FROM FINAL TABLE (
  INSERT INTO method_lock (version, name, state, hold_count, expires_at, updated_at)
  SELECT NEXT VALUE FOR method_lock_token_seq, ?1, 'FREE', 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP
  WHERE NOT EXISTS (SELECT 1 FROM method_lock WHERE name = ?1));

-- insertHeld (wait 0 ms)
SELECT version FROM FINAL TABLE (
  INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
  SELECT NEXT VALUE FOR method_lock_token_seq, ?1, 'HELD', ?2, ?3, 1, CURRENT_TIMESTAMP,
    DATEADD(MILLISECOND, CAST(?4 AS BIGINT), CURRENT_TIMESTAMP), CURRENT_TIMESTAMP
  WHERE NOT EXISTS (SELECT 1 FROM method_lock WHERE name = ?1));

-- inspect
SELECT version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM method_lock
WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= CURRENT_TIMESTAMP);

-- inspectRow
SELECT name, state, version, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at FROM method_lock
WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= CURRENT_TIMESTAMP);

-- lockProbe
SELECT 1 FROM method_lock WHERE name = ? FOR UPDATE SKIP LOCKED;

-- lockRow (wait 0 ms)
SELECT NEXT VALUE FOR method_lock_token_seq FROM method_lock WHERE name = ? FOR UPDATE NOWAIT;

-- lockRow (wait 1500 ms)
SELECT NEXT VALUE FOR method_lock_token_seq FROM method_lock WHERE name = ? FOR UPDATE WAIT 1.500;

-- reapCandidates
SELECT name FROM method_lock
WHERE expires_at < CURRENT_TIMESTAMP
  AND (state = 'HELD' OR expires_at < DATEADD(MILLISECOND, CAST(-60000 AS BIGINT), CURRENT_TIMESTAMP))
ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED;

-- reapDelete
DELETE FROM method_lock WHERE name = ? AND expires_at < CURRENT_TIMESTAMP
  AND (state = 'HELD' OR expires_at < DATEADD(MILLISECOND, CAST(-60000 AS BIGINT), CURRENT_TIMESTAMP));

-- renew
UPDATE method_lock SET expires_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP), updated_at = CURRENT_TIMESTAMP
WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD';

-- retoken
SELECT version FROM FINAL TABLE (
  UPDATE method_lock SET version = NEXT VALUE FOR method_lock_token_seq WHERE name = ? AND version = ?);

-- rowExists
SELECT 1 FROM method_lock WHERE name = ?;

-- selectState
SELECT version, state, DATEDIFF(MILLISECOND, CURRENT_TIMESTAMP, expires_at) FROM method_lock WHERE name = ?;

-- selectTokenAndNow
SELECT NEXT VALUE FOR method_lock_token_seq,
  DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP);

-- sessionWait (wait 0 ms)
SELECT LOCK_TIMEOUT();
SET LOCK_TIMEOUT 1;

-- sessionWait (wait 1500 ms)
SELECT LOCK_TIMEOUT();
SET LOCK_TIMEOUT 1500;

-- takeOver (wait 0 ms)
SELECT version FROM FINAL TABLE (
  UPDATE method_lock SET version = NEXT VALUE FOR method_lock_token_seq, state = 'HELD', owner_host = ?, owner_id = ?,
    hold_count = 1, acquired_at = CURRENT_TIMESTAMP,
    expires_at = DATEADD(MILLISECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP), updated_at = CURRENT_TIMESTAMP
  WHERE name = ? AND (state = 'FREE' OR expires_at < CURRENT_TIMESTAMP));
