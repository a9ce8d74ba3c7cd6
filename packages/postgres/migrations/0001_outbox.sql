-- The transactional outbox (@mmmq/postgres). Unqualified names: migrate() runs this with search_path set to the
-- configured schema. See docs/exactly-once.md, "Transactional outbox" and "Relay".
CREATE TABLE mmmq_outbox (
  -- The message's id on the broker too: no code path can give a retry a new id.
  message_id text PRIMARY KEY,
  -- Order of writing; the relay publishes in this order (per aggregate, strictly, when asked to).
  position bigint GENERATED ALWAYS AS IDENTITY,
  topic text NOT NULL,
  -- The content as JSON text, exactly as add() serialised it (jsonb would reorder keys and drop whitespace).
  content text NOT NULL,
  headers jsonb NOT NULL DEFAULT '{}',
  aggregate_type text,
  aggregate_id text,
  traceparent text,
  tracestate text,
  created_at timestamptz NOT NULL DEFAULT now(),
  status text NOT NULL DEFAULT 'PENDING'
    CONSTRAINT mmmq_outbox_status_check CHECK (status IN ('PENDING', 'AMBIGUOUS', 'PUBLISHED', 'FAILED')),
  -- Leases taken so far (each is one publish attempt of the relay).
  attempts integer NOT NULL DEFAULT 0,
  -- Not claimable before this: the backoff of an AMBIGUOUS row.
  available_at timestamptz NOT NULL DEFAULT now(),
  -- The lease of the relay batch that holds the row; after PUBLISHED or FAILED, the one that finished it.
  lease_owner text,
  lease_until timestamptz,
  published_at timestamptz,
  broker_offset bigint,
  -- Why the last attempt failed: the rejection of a FAILED row, the error of an AMBIGUOUS one.
  failure_reason text
);

-- Claimable rows only: PUBLISHED rows pile up until retention deletes them, and the relay must not scan them.
CREATE INDEX mmmq_outbox_claimable ON mmmq_outbox (position) WHERE status IN ('PENDING', 'AMBIGUOUS');

-- The earlier unpublished row of an aggregate, looked up for each candidate when the relay keeps aggregate order.
CREATE INDEX mmmq_outbox_claimable_aggregate ON mmmq_outbox (aggregate_type, aggregate_id, position)
  WHERE status IN ('PENDING', 'AMBIGUOUS') AND aggregate_id IS NOT NULL;

-- What retention deletes, oldest first.
CREATE INDEX mmmq_outbox_published ON mmmq_outbox (published_at) WHERE status = 'PUBLISHED';

-- Wakes listening relays at commit (once per transaction: identical notifications are merged). The channel
-- is derived from the schema so relays of different schemas do not wake each other; mirrored by outboxChannel().
CREATE FUNCTION mmmq_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(left('mmmq_outbox_' || TG_TABLE_SCHEMA, 63), '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER mmmq_outbox_notify AFTER INSERT ON mmmq_outbox FOR EACH STATEMENT EXECUTE FUNCTION mmmq_outbox_notify();
