-- The inbox: one row per message a consumer processed, written in the transaction of the message's side effect, so
-- that a redelivery finds it and is not processed again. Keyed by both ids: each consumer processes a message once.
CREATE TABLE mmmq_inbox (
  message_id   text        NOT NULL,
  consumer_id  text        NOT NULL,
  processed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (message_id, consumer_id)
);

-- The retention job deletes the oldest rows first, in bounded batches.
CREATE INDEX ix_mmmq_inbox_processed_at ON mmmq_inbox (processed_at);
