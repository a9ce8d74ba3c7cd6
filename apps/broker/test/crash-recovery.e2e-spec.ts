import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { DEFAULT_FLUSH_BYTES, DEFAULT_FLUSH_INTERVAL_MS, TopicQueueContainer } from '@mmmq/broker';
import { decodeEnvelope, DecodedEnvelope } from '@mmmq/broker/internal';
import { spawnBroker } from './broker-process.fixture';
import { publishLoad, SentMessage } from './publish-load';

const MESSAGES = 10_000;
const CLIENTS = 50;
const TOPICS = Array.from({ length: 5 }, (_, index) => `crash.topic-${index}`);
const KILL_AFTER_ACKS = 5_000;
/** Small segments, so the crash also lands around rotations. */
const SEGMENT_MAX_BYTES = 256 * 1024;
const PADDING = 'x'.repeat(1000);

const topicOf = (seq: number) => TOPICS[seq % TOPICS.length];
const contentOf = (seq: number) => `{"seq":${seq},"padding":"${PADDING}"}`;

describe('a broker killed with SIGKILL mid-stream loses no acknowledged message', () => {
  let rootDir: string;

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-crash-'));
  });

  afterAll(() => rm(rootDir, { recursive: true, force: true }));

  it('keeps every ACK at its offset, in order, with nothing partial, and continues after restart', async () => {
    const env = { MMMQ_ROOT_DIR: rootDir, MMMQ_SEGMENT_MAX_BYTES: String(SEGMENT_MAX_BYTES) };
    const first = await spawnBroker(env);
    const sent = await publishLoad({
      url: first.url,
      messages: MESSAGES,
      clients: CLIENTS,
      topicOf,
      contentOf,
      onAck: (acked) => {
        if (acked === KILL_AFTER_ACKS) first.child.kill('SIGKILL');
      },
    });
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const acked = sent.filter((message) => message.offset !== undefined);
    expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    expect(acked.length).toBeLessThan(MESSAGES);

    const second = await spawnBroker(env);
    const afterRestart = new Map<string, number>();
    for (const topic of TOPICS) {
      const response = await fetch(`${second.url}/mmmq/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"topic":"${topic}","id":"after-restart","content":{"after":"restart"}}`,
      });
      expect(response.status).toBe(200);
      afterRestart.set(topic, ((await response.json()) as { offset: number }).offset);
    }
    second.child.kill('SIGTERM');
    await second.exited;

    const stored = await readTopics(rootDir);
    const sentBySeq = new Map(sent.map((message) => [message.seq, message]));
    for (const topic of TOPICS) {
      const entries = stored.get(topic) ?? [];
      const restartOffset = afterRestart.get(topic) ?? -1;
      // The publish after the restart went right after the recovered tail: no gap, nothing overwritten.
      expect(restartOffset).toBe(entries.length - 1);
      expect(entries[restartOffset].id).toBe('after-restart');
      expectEveryEntryIsASentMessage(topic, entries.slice(0, restartOffset), sentBySeq);
      expectAckOrderIsOffsetOrder(acked.filter((message) => message.topic === topic));
    }
    for (const message of acked) {
      const entry = stored.get(message.topic)?.[message.offset ?? -1];
      expect(entry?.id).toBe(`m-${message.seq}`);
    }
  }, 300_000);
});

/** Opens the data directory in-process, after every broker process is gone, and decodes every entry. */
async function readTopics(rootDir: string): Promise<Map<string, DecodedEnvelope[]>> {
  const container = TopicQueueContainer.standalone({
    rootDir,
    segmentMaxBytes: SEGMENT_MAX_BYTES,
    flushIntervalMs: DEFAULT_FLUSH_INTERVAL_MS,
    flushBytes: DEFAULT_FLUSH_BYTES,
  });
  try {
    const topics = new Map<string, DecodedEnvelope[]>();
    for (const name of TOPICS) {
      const queue = await container.getOrCreate(Topic.of(name));
      const entries: DecodedEnvelope[] = [];
      for (let offset = 0; offset < queue.tailOffset; offset++) {
        const payload = await queue.peek(offset);
        if (!payload) throw new Error(`${name}@${offset} is below the tail but unreadable`);
        entries.push(decodeEnvelope(payload));
      }
      topics.set(name, entries);
    }
    return topics;
  } finally {
    await container.onApplicationShutdown();
  }
}

/** Every stored entry is a whole message that was really sent to this topic, and none is stored twice. */
function expectEveryEntryIsASentMessage(topic: string, entries: DecodedEnvelope[], sentBySeq: Map<number, SentMessage>): void {
  const seen = new Set<number>();
  for (const entry of entries) {
    const seq = (JSON.parse(entry.content.toString()) as { seq: number }).seq;
    expect(sentBySeq.get(seq)?.topic).toBe(topic);
    expect(entry).toMatchObject({ id: `m-${seq}`, topic });
    expect(entry.content.toString()).toBe(contentOf(seq));
    expect(seen.has(seq)).toBe(false);
    seen.add(seq);
  }
}

/**
 * Concurrent publishes have no order among themselves, but causality must hold: a message sent after another
 * was ACKed sits at a higher offset. That covers each client's own sequence too.
 */
function expectAckOrderIsOffsetOrder(acked: SentMessage[]): void {
  const byOffsetDescending = [...acked].sort((a, b) => (b.offset ?? 0) - (a.offset ?? 0));
  let earliestAckAbove = Number.POSITIVE_INFINITY;
  for (const message of byOffsetDescending) {
    // No message at a higher offset may have been ACKed before this one was even sent.
    if (earliestAckAbove < message.sentAt) {
      throw new Error(`m-${message.seq} was sent after a message at a higher offset had been ACKed`);
    }
    earliestAckAbove = Math.min(earliestAckAbove, message.ackedAt ?? Number.POSITIVE_INFINITY);
  }
  const offsets = acked.map((message) => message.offset);
  expect(new Set(offsets).size).toBe(offsets.length);
}
