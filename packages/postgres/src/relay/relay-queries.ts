import { qualifiedOutboxTable } from '../outbox/outbox-table';

/** Statuses the relay claims; the partial indexes of migrations/0001_outbox.sql have exactly this predicate. */
const CLAIMABLE = `status IN ('PENDING', 'AMBIGUOUS')`;

/** The relay's SQL for one schema. Every marking statement checks the lease token, so a stale relay changes nothing. */
export class RelayQueries {
  readonly lease: string;
  readonly markPublished: string;
  readonly markAmbiguous: string;
  readonly markFailed: string;
  readonly release: string;
  readonly nextDue: string;
  readonly purgePublished: string;

  constructor(schema: string, orderByAggregate: boolean) {
    const table = qualifiedOutboxTable(schema);
    // An earlier row of the same aggregate that is not final (leased ones included) holds this one back.
    const aggregateOrder = orderByAggregate
      ? `AND (o.aggregate_id IS NULL OR NOT EXISTS (SELECT 1 FROM ${table} e WHERE e.${CLAIMABLE} ` +
        'AND e.aggregate_id = o.aggregate_id AND e.aggregate_type IS NOT DISTINCT FROM o.aggregate_type AND e.position < o.position))'
      : '';
    // $1 limit, $2 lease token, $3 lease ms. SKIP LOCKED: concurrent relays take disjoint rows without waiting;
    // a row whose lease is still running is not claimable, one whose lease expired is again.
    this.lease =
      `WITH claimable AS (SELECT o.message_id FROM ${table} o WHERE o.${CLAIMABLE} AND o.available_at <= clock_timestamp() ` +
      `AND (o.lease_until IS NULL OR o.lease_until <= clock_timestamp()) ${aggregateOrder} ` +
      'ORDER BY o.position LIMIT $1 FOR UPDATE SKIP LOCKED) ' +
      `UPDATE ${table} t SET lease_owner = $2, lease_until = clock_timestamp() + $3 * interval '1 millisecond', ` +
      'attempts = t.attempts + 1 FROM claimable WHERE t.message_id = claimable.message_id ' +
      'RETURNING t.message_id, t.position, t.topic, t.content, t.headers, t.aggregate_type, t.aggregate_id, t.traceparent, ' +
      't.tracestate, t.created_at, t.status, t.attempts';
    const held = `t.message_id = m.id AND t.lease_owner = $1 AND t.${CLAIMABLE}`;
    // $1 lease token, $2 ids, $3 offsets (null for a nonPersistent ACK).
    this.markPublished =
      `UPDATE ${table} t SET status = 'PUBLISHED', published_at = now(), broker_offset = m.broker_offset, lease_until = NULL, ` +
      `failure_reason = NULL FROM unnest($2::text[], $3::bigint[]) AS m (id, broker_offset) WHERE ${held} RETURNING t.message_id`;
    // $1 lease token, $2 ids, $3 reason, $4 backoff ms per row.
    this.markAmbiguous =
      `UPDATE ${table} t SET status = 'AMBIGUOUS', failure_reason = $3, lease_owner = NULL, lease_until = NULL, ` +
      `available_at = now() + m.delay_ms * interval '1 millisecond' FROM unnest($2::text[], $4::bigint[]) AS m (id, delay_ms) ` +
      `WHERE ${held} RETURNING t.message_id`;
    // $1 lease token, $2 ids, $3 reason.
    this.markFailed =
      `UPDATE ${table} t SET status = 'FAILED', failure_reason = $3, lease_until = NULL FROM unnest($2::text[]) AS m (id) ` +
      `WHERE ${held} RETURNING t.message_id`;
    // $1 lease token, $2 ids: nothing was sent, so the rows are claimable again at once, their attempt not counted.
    this.release =
      `UPDATE ${table} t SET lease_owner = NULL, lease_until = NULL, attempts = t.attempts - 1 FROM unnest($2::text[]) AS m (id) ` +
      `WHERE ${held} RETURNING t.message_id`;
    // When the next claimable row becomes due, in ms from now (null: none is waiting); scans the backlog only. A row
    // held back by an earlier one of its aggregate is left out: it waits for that row, whose own due time counts,
    // and would otherwise look due at once and make the relay spin.
    this.nextDue =
      'SELECT ceil(extract(epoch FROM (min(greatest(o.available_at, coalesce(o.lease_until, o.available_at))) - clock_timestamp())) ' +
      `* 1000) AS due_in_ms FROM ${table} o WHERE o.${CLAIMABLE} ${aggregateOrder}`;
    // $1 max age ms, $2 batch size.
    this.purgePublished =
      `DELETE FROM ${table} WHERE message_id IN (SELECT message_id FROM ${table} WHERE status = 'PUBLISHED' ` +
      `AND published_at < now() - $1 * interval '1 millisecond' ORDER BY published_at LIMIT $2)`;
  }
}
