import type { MessageHeaders } from '@mmmq/core';
import type { OutboxStatus } from '../outbox/outbox-table';

/** One outbox row as the relay leased it. */
export interface OutboxRow {
  messageId: string;
  /** Order of writing. */
  position: number;
  topic: string;
  /** The content's JSON text, as `add()` wrote it. */
  content: string;
  headers: MessageHeaders;
  aggregateType: string | null;
  aggregateId: string | null;
  traceparent: string | null;
  tracestate: string | null;
  createdAt: Date;
  status: OutboxStatus;
  /** Leases taken, this one included. */
  attempts: number;
}

/** A batch of rows leased together, under one lease token. */
export interface OutboxLease {
  /** The token in the rows' `lease_owner`: `<relayId>#<n>`, unique per lease so a stale one cannot mark the rows. */
  owner: string;
  /** In order of writing. */
  rows: OutboxRow[];
}

export interface OutboxRowRecord {
  message_id: string;
  position: string;
  topic: string;
  content: string;
  headers: MessageHeaders;
  aggregate_type: string | null;
  aggregate_id: string | null;
  traceparent: string | null;
  tracestate: string | null;
  created_at: Date;
  status: OutboxStatus;
  attempts: number;
}

export function toOutboxRow(record: OutboxRowRecord): OutboxRow {
  return {
    messageId: record.message_id,
    position: Number(record.position),
    topic: record.topic,
    content: record.content,
    headers: record.headers,
    aggregateType: record.aggregate_type,
    aggregateId: record.aggregate_id,
    traceparent: record.traceparent,
    tracestate: record.tracestate,
    createdAt: record.created_at,
    status: record.status,
    attempts: record.attempts,
  };
}
