import { randomUUID } from 'node:crypto';
import type { BrokerClient } from '../broker-client';
import { LatencySummary, summarize } from './latency-summary';

/** What a bench drives: `messages` in all, or for `durationMs`, whichever is given. */
export interface BenchPlan {
  topic: string;
  consumerId: string;
  messages?: number;
  durationMs?: number;
  /** Bytes of padding in each message's content. */
  size: number;
  /** Publishes in flight at once. */
  concurrency: number;
  /** Messages per fetch. */
  fetchMax: number;
  /** How long to wait after the last publish for the consumer to receive everything. */
  drainTimeoutMs: number;
}

export interface BenchResult {
  topic: string;
  published: number;
  received: number;
  /** Received more than once (at-least-once delivery: after a lease expired). */
  duplicates: number;
  elapsedMs: number;
  publish: LatencySummary;
  endToEnd: LatencySummary;
  interrupted: boolean;
}

interface BenchContent {
  run: string;
  seq: number;
  /** Epoch ms (fractional) when it was sent: end-to-end latency is measured in this one process. */
  sentAt: number;
  pad: string;
}

/** Milliseconds a fetch waits for a message (long polling) before the consumer loop looks at the clock again. */
const FETCH_WAIT_MS = 1000;

const now = () => performance.timeOrigin + performance.now();

/**
 * Publishes with `concurrency` concurrent requests and consumes through the pull API (fetch + ack) at the same time;
 * measures each publish's round trip and each message's time from send to fetch.
 */
export class BenchRun {
  readonly run = randomUUID();
  published = 0;
  received = 0;
  private duplicates = 0;
  private readonly seen = new Set<number>();
  private readonly publishLatencies: number[] = [];
  private readonly endToEndLatencies: number[] = [];
  private publishing = true;
  private failed = false;
  /** Sequence numbers handed to publishers so far. */
  private issued = 0;
  /** Sequence numbers handed to publishers so far. */ private readonly started = now();

  constructor(
    private readonly client: BrokerClient,
    private readonly plan: BenchPlan,
    private readonly signal?: AbortSignal,
  ) {}

  async execute(): Promise<BenchResult> {
    const consumer = this.consume();
    try {
      await Promise.all(Array.from({ length: this.plan.concurrency }, () => this.publish()));
    } catch (error) {
      // A refused publish ends the run: the consumer stops too rather than wait for what never comes.
      this.failed = true;
      await consumer.catch(() => undefined);
      throw error;
    } finally {
      this.publishing = false;
    }
    await consumer;
    const elapsedMs = now() - this.started;
    return {
      topic: this.plan.topic,
      published: this.published,
      received: this.received,
      duplicates: this.duplicates,
      elapsedMs: Math.round(elapsedMs),
      publish: summarize(this.publishLatencies, elapsedMs),
      endToEnd: summarize(this.endToEndLatencies, elapsedMs),
      interrupted: this.signal?.aborted ?? false,
    };
  }

  /** Seconds elapsed, for a duration run's progress. */
  get elapsedSeconds(): number {
    return Math.floor((now() - this.started) / 1000);
  }

  private async publish(): Promise<void> {
    const pad = 'x'.repeat(this.plan.size);
    const deadline = this.plan.durationMs === undefined ? Infinity : this.started + this.plan.durationMs;
    while (!this.signal?.aborted && !this.failed && this.reserve() && now() < deadline) {
      const content: BenchContent = { run: this.run, seq: this.issued++, sentAt: now(), pad };
      const sent = now();
      if (!(await this.ignoringAbort(this.client.post('/mmmq/messages', { topic: this.plan.topic, content })))) return;
      this.publishLatencies.push(now() - sent);
      this.published++;
    }
  }

  private reserve(): boolean {
    return this.plan.messages === undefined || this.issued < this.plan.messages;
  }

  private async consume(): Promise<void> {
    const member = `bench-${this.run}`;
    let drainDeadline = Infinity;
    while (!this.signal?.aborted && !this.failed) {
      if (!this.publishing) {
        if (this.received >= this.published) return;
        drainDeadline = Math.min(drainDeadline, now() + this.plan.drainTimeoutMs);
        if (now() > drainDeadline) return;
      }
      const fetched = await this.ignoringAbort(
        this.client.post<{ messages: Array<{ lease: string; content: BenchContent }> }>(
          `/mmmq/consumers/${encodeURIComponent(this.plan.consumerId)}/fetch`,
          { max: this.plan.fetchMax, waitMs: FETCH_WAIT_MS, member },
        ),
      );
      if (!fetched) return;
      const arrived = now();
      for (const { content } of fetched.messages) {
        if (content?.run !== this.run) continue;
        if (this.seen.has(content.seq)) {
          this.duplicates++;
          continue;
        }
        this.seen.add(content.seq);
        this.received++;
        this.endToEndLatencies.push(arrived - content.sentAt);
      }
      if (fetched.messages.length === 0) continue;
      const leases = fetched.messages.map((message) => message.lease);
      if (!(await this.ignoringAbort(this.client.post(`/mmmq/consumers/${encodeURIComponent(this.plan.consumerId)}/ack`, { leases }))))
        return;
    }
  }

  /** The request's answer, or undefined when Ctrl-C cancelled it. */
  private async ignoringAbort<T>(request: Promise<T>): Promise<T | undefined> {
    try {
      return await request;
    } catch (error) {
      if (this.signal?.aborted) return undefined;
      throw error;
    }
  }
}
