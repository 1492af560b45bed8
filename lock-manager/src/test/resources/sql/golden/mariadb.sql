-- The SQL of MariaDbStatements for the table method_lock, as DialectSqlGoldenTest renders it; do not edit: regenerate.

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
SELECT IF(GET_LOCK(?, ? / 1000) = 1, NEXTVAL(method_lock_token_seq), NULL);

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
SET STATEMENT innodb_lock_wait_timeout = 0 FOR INSERT INTO method_lock (version, name, state, hold_count, expires_at, updated_at)
VALUES (0, ?, 'FREE', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE hold_count = hold_count;

-- ensureLockedRow (wait 1500 ms)
SET STATEMENT max_statement_time = 1.500 FOR INSERT INTO method_lock (version, name, state, hold_count, expires_at, updated_at)
VALUES (0, ?, 'FREE', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE hold_count = hold_count;

-- free
UPDATE method_lock SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
  expires_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD';

-- freeLeavingQueue
BEGIN NOT ATOMIC
  DECLARE freed INT DEFAULT 0;
  DECLARE next BIGINT DEFAULT NULL;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
  START TRANSACTION;
  SELECT COUNT(*) INTO freed FROM method_lock
  WHERE name = ? AND version = ? AND owner_id = ? AND state = 'HELD' FOR UPDATE;
  DO RELEASE_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256));
  IF freed = 1 THEN
    SET next = IS_USED_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256));
    IF next IS NULL THEN
      UPDATE method_lock SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
        expires_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
      WHERE name = ?;
    ELSE
      UPDATE method_lock SET version = NEXTVAL(method_lock_token_seq), owner_host = NULL, owner_id = CONCAT('queue:', next),
        hold_count = 1, acquired_at = UTC_TIMESTAMP(6),
        expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
      WHERE name = ?;
    END IF;
  END IF;
  COMMIT;
  SELECT freed FROM DUAL;
END;

-- insertClaim (wait 0 ms)
SET STATEMENT innodb_lock_wait_timeout = 0 FOR INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
VALUES (0, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
  UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE hold_count = hold_count + 1;

-- insertClaim (wait 1500 ms)
SET STATEMENT max_statement_time = 1.500 FOR INSERT INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
VALUES (0, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
  UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE hold_count = hold_count + 1;

-- insertFree (wait 0 ms)
SET STATEMENT innodb_lock_wait_timeout = 0 FOR INSERT IGNORE INTO method_lock (version, name, state, hold_count, expires_at, updated_at)
SELECT LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), ?, 'FREE', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6);

-- insertFree (wait 1500 ms)
SET STATEMENT max_statement_time = 1.500 FOR INSERT IGNORE INTO method_lock (version, name, state, hold_count, expires_at, updated_at)
SELECT LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), ?, 'FREE', 0, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6);

-- insertHeld (wait 0 ms)
SET STATEMENT innodb_lock_wait_timeout = 0 FOR INSERT IGNORE INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6),
  TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), UTC_TIMESTAMP(6);

-- insertHeld (wait 1500 ms)
SET STATEMENT max_statement_time = 1.500 FOR INSERT IGNORE INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6),
  TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), UTC_TIMESTAMP(6);

-- insertHeldAndRetoken (wait 0 ms)
BEGIN NOT ATOMIC
  DECLARE drawn BIGINT DEFAULT NEXTVAL(method_lock_token_seq);
  DECLARE granted BIGINT DEFAULT NULL;
  SET STATEMENT innodb_lock_wait_timeout = 0 FOR
  INSERT IGNORE INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
  VALUES (drawn, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
    UTC_TIMESTAMP(6));
  IF ROW_COUNT() = 1 THEN
    UPDATE method_lock SET version = LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)) WHERE name = ? AND version = drawn;
    IF ROW_COUNT() = 1 THEN
      SET granted = LAST_INSERT_ID();
    END IF;
  END IF;
  SELECT granted FROM DUAL WHERE granted IS NOT NULL;
END;

-- insertHeldAndRetoken (wait 1500 ms)
BEGIN NOT ATOMIC
  DECLARE drawn BIGINT DEFAULT NEXTVAL(method_lock_token_seq);
  DECLARE granted BIGINT DEFAULT NULL;
  SET STATEMENT max_statement_time = 1.500 FOR
  INSERT IGNORE INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
  VALUES (drawn, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
    UTC_TIMESTAMP(6));
  IF ROW_COUNT() = 1 THEN
    UPDATE method_lock SET version = LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)) WHERE name = ? AND version = drawn;
    IF ROW_COUNT() = 1 THEN
      SET granted = LAST_INSERT_ID();
    END IF;
  END IF;
  SELECT granted FROM DUAL WHERE granted IS NOT NULL;
END;

-- insertHeldUnqueued (wait 0 ms)
SET STATEMENT innodb_lock_wait_timeout = 0 FOR INSERT IGNORE INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6),
  TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), UTC_TIMESTAMP(6)
FROM (SELECT SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256) AS k) AS txlock_key
WHERE IS_FREE_LOCK(txlock_key.k) = 1 OR IS_USED_LOCK(txlock_key.k) = CONNECTION_ID();

-- insertHeldUnqueued (wait 1500 ms)
SET STATEMENT max_statement_time = 1.500 FOR INSERT IGNORE INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
SELECT LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6),
  TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), UTC_TIMESTAMP(6)
FROM (SELECT SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256) AS k) AS txlock_key
WHERE IS_FREE_LOCK(txlock_key.k) = 1 OR IS_USED_LOCK(txlock_key.k) = CONNECTION_ID();

-- insertHeldUnqueuedAndRetoken (wait 0 ms)
BEGIN NOT ATOMIC
  DECLARE queue VARCHAR(64) DEFAULT SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256);
  DECLARE drawn BIGINT DEFAULT NEXTVAL(method_lock_token_seq);
  DECLARE granted BIGINT DEFAULT NULL;
  IF IS_FREE_LOCK(queue) = 1 OR IS_USED_LOCK(queue) = CONNECTION_ID() THEN
    SET STATEMENT innodb_lock_wait_timeout = 0 FOR
    INSERT IGNORE INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
    VALUES (drawn, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
      UTC_TIMESTAMP(6));
    IF ROW_COUNT() = 1 THEN
      UPDATE method_lock SET version = LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)) WHERE name = ? AND version = drawn;
      IF ROW_COUNT() = 1 THEN
        SET granted = LAST_INSERT_ID();
      END IF;
    END IF;
  END IF;
  SELECT granted FROM DUAL WHERE granted IS NOT NULL;
END;

-- insertHeldUnqueuedAndRetoken (wait 1500 ms)
BEGIN NOT ATOMIC
  DECLARE queue VARCHAR(64) DEFAULT SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256);
  DECLARE drawn BIGINT DEFAULT NEXTVAL(method_lock_token_seq);
  DECLARE granted BIGINT DEFAULT NULL;
  IF IS_FREE_LOCK(queue) = 1 OR IS_USED_LOCK(queue) = CONNECTION_ID() THEN
    SET STATEMENT max_statement_time = 1.500 FOR
    INSERT IGNORE INTO method_lock (version, name, state, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at)
    VALUES (drawn, ?, 'HELD', ?, ?, 1, UTC_TIMESTAMP(6), TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
      UTC_TIMESTAMP(6));
    IF ROW_COUNT() = 1 THEN
      UPDATE method_lock SET version = LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)) WHERE name = ? AND version = drawn;
      IF ROW_COUNT() = 1 THEN
        SET granted = LAST_INSERT_ID();
      END IF;
    END IF;
  END IF;
  SELECT granted FROM DUAL WHERE granted IS NOT NULL;
END;

-- inspect
SELECT version, owner_host, owner_id, hold_count, acquired_at, expires_at FROM method_lock
WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= UTC_TIMESTAMP(6));

-- inspectRow
SELECT name, state, version, owner_host, owner_id, hold_count, acquired_at, expires_at, updated_at FROM method_lock
WHERE name = ? AND state = 'HELD' AND (expires_at IS NULL OR expires_at >= UTC_TIMESTAMP(6));

-- leaveQueue
BEGIN NOT ATOMIC
  UPDATE method_lock SET state = 'FREE', owner_host = NULL, owner_id = NULL, hold_count = 0,
    expires_at = UTC_TIMESTAMP(6), updated_at = UTC_TIMESTAMP(6)
  WHERE name = ? AND state = 'HELD' AND owner_id = CONCAT('queue:', CONNECTION_ID()) AND version > @txlock_queued;
  SELECT RELEASE_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256));
END;

-- lockProbe
SELECT 1 FROM method_lock WHERE name = ? FOR UPDATE SKIP LOCKED;

-- lockRowDrawingToken (wait 0 ms)
SET STATEMENT innodb_lock_wait_timeout = 0 FOR SELECT NEXTVAL(method_lock_token_seq) FROM method_lock WHERE name = ? FOR UPDATE;

-- lockRowDrawingToken (wait 1500 ms)
SET STATEMENT max_statement_time = 1.500 FOR SELECT NEXTVAL(method_lock_token_seq) FROM method_lock WHERE name = ? FOR UPDATE;

-- nextToken
SELECT NEXTVAL(method_lock_token_seq);

-- queueLock
SELECT IF(GET_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256), ? / 1000) = 1, '', NULL);

-- queueLockAndTakeOver
BEGIN NOT ATOMIC
  DECLARE granted BIGINT DEFAULT NULL;
  DECLARE passed BIGINT DEFAULT NULL;
  DECLARE lease BIGINT DEFAULT NULL;
  DECLARE since DATETIME(6) DEFAULT UTC_TIMESTAMP(6);
  SET @txlock_queued = NEXTVAL(method_lock_token_seq);
  IF GET_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(? AS BINARY), CHAR(0), 'queue'), 256), ? / 1000) = 1 THEN
    SET STATEMENT max_statement_time = ? FOR
    SELECT MAX(version), MAX(TIMESTAMPDIFF(MICROSECOND, since, expires_at) DIV 1000) INTO passed, lease
    FROM method_lock WHERE name = ? AND state = 'HELD' AND owner_id = CONCAT('queue:', CONNECTION_ID()) AND version > @txlock_queued
      AND expires_at > UTC_TIMESTAMP(6)
    FOR UPDATE;
    IF passed IS NOT NULL THEN
      SELECT '', passed, CONCAT('queue:', CONNECTION_ID()), lease FROM DUAL;
    ELSE
      SET STATEMENT max_statement_time = ? FOR UPDATE method_lock SET version = LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), state = 'HELD', owner_host = ?,
        owner_id = ?, hold_count = 1, acquired_at = UTC_TIMESTAMP(6),
        expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
      WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6));
      IF ROW_COUNT() = 1 THEN
        SET granted = LAST_INSERT_ID();
      END IF;
      SELECT '', granted, NULL, NULL FROM DUAL;
    END IF;
  ELSE
    SELECT NULL, NULL, NULL, NULL FROM DUAL;
  END IF;
END;

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
UPDATE method_lock SET version = LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)) WHERE name = ? AND version = ?;

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
SELECT NEXTVAL(method_lock_token_seq), TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6));

-- sessionWait (wait 0 ms)
SELECT @@SESSION.innodb_lock_wait_timeout;
SET SESSION innodb_lock_wait_timeout = 0;

-- sessionWait (wait 1500 ms)
SELECT @@SESSION.max_statement_time;
SET SESSION max_statement_time = 1.500;

-- takeOver (wait 0 ms)
SET STATEMENT innodb_lock_wait_timeout = 0 FOR UPDATE method_lock SET version = LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), state = 'HELD', owner_host = ?,
  owner_id = ?, hold_count = 1, acquired_at = UTC_TIMESTAMP(6),
  expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6));

-- takeOver (wait 1500 ms)
SET STATEMENT max_statement_time = 1.500 FOR UPDATE method_lock SET version = LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), state = 'HELD', owner_host = ?,
  owner_id = ?, hold_count = 1, acquired_at = UTC_TIMESTAMP(6),
  expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6));

-- takeOverUnqueued (wait 0 ms)
SET STATEMENT innodb_lock_wait_timeout = 0 FOR UPDATE method_lock SET version = LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), state = 'HELD', owner_host = ?,
  owner_id = ?, hold_count = 1, acquired_at = UTC_TIMESTAMP(6),
  expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6))
  AND (IS_FREE_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(name AS BINARY), CHAR(0), 'queue'), 256)) = 1 OR IS_USED_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(name AS BINARY), CHAR(0), 'queue'), 256)) = CONNECTION_ID());

-- takeOverUnqueued (wait 1500 ms)
SET STATEMENT max_statement_time = 1.500 FOR UPDATE method_lock SET version = LAST_INSERT_ID(NEXTVAL(method_lock_token_seq)), state = 'HELD', owner_host = ?,
  owner_id = ?, hold_count = 1, acquired_at = UTC_TIMESTAMP(6),
  expires_at = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)), updated_at = UTC_TIMESTAMP(6)
WHERE name = ? AND (state = 'FREE' OR expires_at < UTC_TIMESTAMP(6))
  AND (IS_FREE_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(name AS BINARY), CHAR(0), 'queue'), 256)) = 1 OR IS_USED_LOCK(SHA2(CONCAT(CAST(DATABASE() AS BINARY), '.method_lock:', CAST(name AS BINARY), CHAR(0), 'queue'), 256)) = CONNECTION_ID());
