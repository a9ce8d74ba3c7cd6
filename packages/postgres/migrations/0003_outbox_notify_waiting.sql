-- NOTIFY only while a relay waits for it. A transaction that NOTIFYs takes a database-wide lock at commit and holds
-- it through its WAL flush, so writers that all NOTIFY commit one after another, with no group commit: measured here
-- (pgbench, 16 clients, business row + outbox row) 730–1,110 commits/s with a NOTIFY per commit, 3,050 without.
-- A relay about to sleep holds the advisory lock (hashtext('mmmq_outbox'), hashtext(<channel>)) exclusively on its
-- LISTEN connection; a busy relay does not, and looks at the table again after every round instead. At commit, each
-- writer takes the same lock shared, for the rest of its transaction: when it cannot, a relay is asleep and the
-- writer NOTIFYs. A relay takes the lock only once no writer holds it shared, that is once every writer that did
-- not NOTIFY has committed (or rolled back), and then looks at the table once more before it sleeps: no commit is
-- missed, whatever the writer's isolation level. See docs/exactly-once.md, "Relay".
CREATE OR REPLACE FUNCTION mmmq_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  channel text := left('mmmq_outbox_' || TG_TABLE_SCHEMA, 63);
BEGIN
  IF NOT pg_try_advisory_xact_lock_shared(hashtext('mmmq_outbox'), hashtext(channel)) THEN
    PERFORM pg_notify(channel, '');
  END IF;
  RETURN NULL;
END;
$$;

-- At commit (deferred), not at INSERT: the shared lock is then held only while the writer commits, so a relay never
-- waits for a long transaction to decide whether it may sleep. Row-level, as constraint triggers must be; after the
-- first row of a transaction the lock is the backend's already, and pg_notify merges identical notifications.
DROP TRIGGER mmmq_outbox_notify ON mmmq_outbox;
CREATE CONSTRAINT TRIGGER mmmq_outbox_notify AFTER INSERT ON mmmq_outbox DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION mmmq_outbox_notify();
