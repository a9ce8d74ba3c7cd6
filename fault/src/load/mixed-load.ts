import { Agent } from 'node:http';
import type { Attempt, PublishHistory, PublishRoute } from '../history/publish-history';
import type { Random } from '../random';
import { httpRequest } from './http-post';
import { messageContent, messageJson } from './message-content';
import { KIND_PUBLISH, KIND_PUBLISH_BATCH, StreamConnection } from './stream-connection';

export interface LoadPlan {
  httpUrl: string;
  streamUrl?: string;
  history: PublishHistory;
  random: Random;
  cycle: number;
  topics: readonly string[];
  clients: { http: number; batch: number; stream: number };
  /** Unknown outcomes of earlier cycles to publish again first, same id and content (a producer's retry). */
  retries?: readonly Attempt[];
  /** Requests in flight per stream connection. */
  streamWindow?: number;
  /** Longest batch (HTTP or stream). */
  maxBatch?: number;
  /**
   * Share of batches (HTTP and stream) whose messages name several topics (2 to {@link MAX_BATCH_TOPICS} of
   * `topics`), committed atomically by a v2 broker; the others name one topic.
   */
  multiTopicShare?: number;
  /** A request without an answer after this long counts as unknown. */
  timeoutMs?: number;
  /** Pause after a refusal (a 503 of a full disk) before the next publish. */
  pauseAfterNackMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_STREAM_WINDOW = 32;
const DEFAULT_MAX_BATCH = 20;
/** Topics one multi-topic batch spreads its messages over, at most. */
export const MAX_BATCH_TOPICS = 5;

/** How one request ended for the load: `gone` means the broker is down and the client stops. */
type Settled = 'acked' | 'nacked' | 'unknown' | 'gone';

interface Sent {
  attempts: Attempt[];
  /** Resolves with the HTTP-like answer, rejects when the outcome is unknown. */
  answer: Promise<{ status: number; body: string }>;
}

/**
 * Producers publishing concurrently until stopped or until the broker goes away: sequential HTTP clients (one
 * message per request), HTTP batch clients, and pipelining publish-stream connections (single and batch
 * requests). Every message is recorded in the history with its outcome. A client whose connection fails stops;
 * one whose request had an unknown outcome starts a new session (its order is no longer defined).
 */
export class MixedLoad {
  private stopped = false;
  private sessions = 0;
  private batchCount = 0;
  private acks = 0;
  private ackWaiters: Array<{ count: number; resolve(): void }> = [];
  readonly done: Promise<void>;

  constructor(private readonly plan: LoadPlan) {
    const { http, batch, stream } = plan.clients;
    const clients: Array<Promise<void>> = [];
    if (plan.retries?.length) clients.push(this.runHttp('retry', plan.retries));
    for (let i = 0; i < http; i++) clients.push(this.runHttp(`h${i}`));
    for (let i = 0; i < batch; i++) clients.push(this.runBatch(`b${i}`));
    for (let i = 0; i < stream && plan.streamUrl; i++) clients.push(this.runStream(`s${i}`));
    this.done = Promise.all(clients).then(() => this.releaseAckWaiters());
  }

  get acknowledged(): number {
    return this.acks;
  }

  /** Resolves once `count` publishes of this load were acknowledged, or when the load ends. */
  acknowledgedAtLeast(count: number): Promise<void> {
    if (this.acks >= count) return Promise.resolve();
    return new Promise((resolve) => this.ackWaiters.push({ count, resolve }));
  }

  /** Stops issuing; resolves once every client has its answers. */
  stop(): Promise<void> {
    this.stopped = true;
    return this.done;
  }

  private newSession(client: string): string {
    return `c${this.plan.cycle}-${client}-${this.sessions++}`;
  }

  private runHttp(client: string, retries?: readonly Attempt[]): Promise<void> {
    const queue = retries ? [...retries] : undefined;
    return this.runSequential(
      client,
      () => !queue || queue.length > 0,
      (agent, session, sequence) => {
        const original = queue?.shift();
        const topic = original?.topic ?? this.plan.random.pick(this.plan.topics);
        const attempt = this.begin(topic, 'http', session, sequence(), original);
        const sent = this.post('/mmmq/messages', messageJson(topic, attempt.id, attempt.content), [attempt], agent);
        return this.settle(sent, (body) => [(body as { offset: number }).offset]);
      },
    );
  }

  private runBatch(client: string): Promise<void> {
    return this.runSequential(
      client,
      () => true,
      (agent, session, sequence) => {
        const batch = this.newBatch();
        const attempts = this.batchTopics().map((topic) => this.begin(topic, 'http-batch', session, sequence(), undefined, batch));
        const body = `{"messages":[${attempts.map((a) => messageJson(a.topic, a.id, a.content)).join(',')}]}`;
        return this.settle(this.post('/mmmq/messages/batch', body, attempts, agent), batchOffsets);
      },
    );
  }

  /**
   * One sequential HTTP client on one keep-alive connection: sends while `more()` and the load runs, and starts a
   * new session (numbered from 0) after an unknown outcome, since what follows it is not ordered after it.
   */
  private async runSequential(
    client: string,
    more: () => boolean,
    send: (agent: Agent, session: string, sequence: () => number) => Promise<Settled>,
  ): Promise<void> {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let session = this.newSession(client);
    let next = 0;
    try {
      while (!this.stopped && more()) {
        const settled = await send(agent, session, () => next++);
        if (settled === 'gone') return;
        if (settled === 'unknown') {
          session = this.newSession(client);
          next = 0;
        }
      }
    } finally {
      agent.destroy();
    }
  }

  private async runStream(client: string): Promise<void> {
    const { streamUrl, random } = this.plan;
    let connection: StreamConnection;
    try {
      connection = await StreamConnection.open(streamUrl ?? '', this.plan.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    } catch {
      return;
    }
    const session = this.newSession(client);
    let sequence = 0;
    const window = this.plan.streamWindow ?? DEFAULT_STREAM_WINDOW;
    const inFlight = new Set<Promise<unknown>>();
    while (!this.stopped && connection.open) {
      if (inFlight.size >= window) {
        await Promise.race(inFlight);
        continue;
      }
      const batch = random.chance(0.3) ? this.newBatch() : undefined;
      const topics = batch ? this.batchTopics() : [random.pick(this.plan.topics)];
      const attempts = topics.map((topic) => this.begin(topic, batch ? 'stream-batch' : 'stream', session, sequence++, undefined, batch));
      const messages = attempts.map((a) => messageJson(a.topic, a.id, a.content));
      const answer = batch
        ? connection.send(KIND_PUBLISH_BATCH, `{"messages":[${messages.join(',')}]}`)
        : connection.send(KIND_PUBLISH, messages[0]);
      const settled = this.settle({ attempts, answer }, batch ? batchOffsets : (body) => [(body as { offset: number }).offset]);
      inFlight.add(settled);
      void settled.finally(() => inFlight.delete(settled));
      // Let the event loop breathe so answers are read while the window fills.
      if (inFlight.size % 8 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.allSettled(inFlight);
    connection.destroy();
  }

  private begin(topic: string, route: PublishRoute, session: string, sequence: number, retry?: Attempt, batch?: string): Attempt {
    const { history, random, cycle } = this.plan;
    const id = retry?.id ?? `${session}-${sequence}`;
    const content = retry?.content ?? messageContent(id, random);
    return history.begin({ id, topic, content, route, session, sequence, cycle, batch });
  }

  /** The topic of each message of a new batch: one topic, or (a `multiTopicShare` of the time) several. */
  private batchTopics(): string[] {
    const { random, topics } = this.plan;
    const size = random.int(1, this.plan.maxBatch ?? DEFAULT_MAX_BATCH);
    if (size < 2 || topics.length < 2 || !random.chance(this.plan.multiTopicShare ?? 0)) {
      return new Array<string>(size).fill(random.pick(topics));
    }
    const spread = random.shuffle(topics).slice(0, random.int(2, Math.min(MAX_BATCH_TOPICS, size, topics.length)));
    // Every chosen topic gets at least one message, the rest at random, in a random order.
    return random.shuffle([...spread, ...Array.from({ length: size - spread.length }, () => random.pick(spread))]);
  }

  private newBatch(): string {
    return `c${this.plan.cycle}-batch${this.batchCount++}`;
  }

  private post(path: string, body: string, attempts: Attempt[], agent: Agent): Sent {
    const timeoutMs = this.plan.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return { attempts, answer: httpRequest(`${this.plan.httpUrl}${path}`, { body, agent, timeoutMs }) };
  }

  /**
   * Records the outcome of one request: `acked` / `nacked`, `unknown` (no answer, e.g. a timeout) or `gone`
   * (the connection failed: the broker is down, this client stops).
   */
  private async settle(sent: Sent, offsetsOf: (body: unknown) => number[]): Promise<Settled> {
    const { history } = this.plan;
    let answer: { status: number; body: string };
    try {
      answer = await sent.answer;
    } catch (error) {
      for (const attempt of sent.attempts) history.unknown(attempt);
      return /No answer within/.test(String(error)) ? 'unknown' : 'gone';
    }
    if (answer.status !== 200) {
      for (const attempt of sent.attempts) history.nack(attempt, answer.status);
      if (this.plan.pauseAfterNackMs) await new Promise((resolve) => setTimeout(resolve, this.plan.pauseAfterNackMs));
      return 'nacked';
    }
    const parsed: unknown = JSON.parse(answer.body);
    const offsets = offsetsOf(parsed);
    if (offsets.length !== sent.attempts.length || offsets.some((offset) => !Number.isSafeInteger(offset))) {
      throw new Error(`An ACK without an offset for every message: ${answer.body.slice(0, 200)}`);
    }
    const topics = batchTopicsOf(parsed);
    if (sent.attempts.some((attempt, i) => topics[i] !== undefined && topics[i] !== attempt.topic)) {
      throw new Error(`A batch ACK naming other topics than were sent, in another order: ${answer.body.slice(0, 200)}`);
    }
    sent.attempts.forEach((attempt, i) => history.ack(attempt, offsets[i]));
    this.acks += sent.attempts.length;
    this.ackWaiters = this.ackWaiters.filter((waiter) => {
      if (this.acks < waiter.count) return true;
      waiter.resolve();
      return false;
    });
    return 'acked';
  }

  private releaseAckWaiters(): void {
    for (const waiter of this.ackWaiters.splice(0)) waiter.resolve();
  }
}

/** The topic each message of a batch answer names, where it names one. */
function batchTopicsOf(body: unknown): Array<string | undefined> {
  const messages = (body as { messages?: Array<{ topic?: unknown }> } | null)?.messages ?? [];
  return messages.map((message) => (typeof message?.topic === 'string' ? message.topic : undefined));
}

function batchOffsets(body: unknown): number[] {
  return ((body as { messages?: Array<{ offset: number }> }).messages ?? []).map((message) => message.offset);
}
