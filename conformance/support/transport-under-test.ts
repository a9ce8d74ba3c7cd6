import type { MmmqConsumerOptions } from '@mmmq/consumer';
import type { MmmqProducerOptions } from '@mmmq/producer';
import type { INestApplicationContext } from '@nestjs/common';

/** The behaviours of the conformance suite that a transport may answer with a documented exception. */
export type Behaviour =
  | 'publishBeforeSubscription'
  | 'orderAcrossRetries'
  | 'brokerRestart'
  | 'requestReply'
  | 'scheduledMessages'
  | 'activeMembers'
  | 'unordered';

/** A dead letter as a transport hands it back: the original content, and headers carrying core's `DeadLetterHeaders`. */
export interface ConformanceDeadLetter {
  content: unknown;
  headers: Record<string, unknown>;
}

/** What a test file runs on: one broker (or exchange, or in-memory broker) for all the apps of the file. */
export interface TransportSession {
  /** Options of `MmmqProducerModule.forRoot()` for a producer application. */
  producerOptions(): MmmqProducerOptions;
  /**
   * Options of `MmmqConsumerModule.forRoot()` for a consumer application listening at `url` (only the MMMQ broker
   * pushes there); the harness adds `app` and the test's own options (ack mode, shutdown timeout).
   */
  consumerOptions(url: string): MmmqConsumerOptions;
  /** Modules besides the MMMQ ones that every application of the session imports (none once every transport is an option). */
  imports(): unknown[];
  /** Resolves once the application's listeners receive (the MMMQ broker: once their dispatchers are registered). */
  ready(app: INestApplicationContext): Promise<void>;
  /** The dead letters of `consumerId`, read the transport's way, oldest first. */
  deadLetters(consumerId: string): Promise<ConformanceDeadLetter[]>;
  /** Stops the broker and starts it again on the same data; absent where the transport has none to restart. */
  restart?(): Promise<void>;
  /** Stops what the session started and deletes what it declared. Idempotent. */
  close(): Promise<void>;
}

/** What a test file asks of its session. */
export interface SessionOptions {
  /**
   * The file restarts the broker (`TransportSession.restart`): a transport whose test broker is shared and must not be
   * restarted starts one of its own. Default false.
   */
  restartable?: boolean;
}

/** One row of the table: a transport, how to start it, and where its guarantees differ (with the reason). */
export interface TransportUnderTest {
  name: 'mmmq' | 'in-memory' | 'rabbitmq';
  start(options?: SessionOptions): Promise<TransportSession>;
  /** Behaviours this transport answers differently, each with the reason; its test asserts that behaviour instead. */
  exceptions: Partial<Record<Behaviour, string>>;
}
