import { join, sep } from 'node:path';
import { Topic } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { PublishIntake } from '../../src/publish/publish-intake';
import { decodeEnvelope } from '../../src/format/message-envelope';
import { WRITE_RECOVERY_DELAY_MS } from '../../src/storage/journal/journal';
import { StorageUnavailableError } from '../../src/storage/storage.errors';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { copyCrash, crashCopy, JOURNAL_FILES, losePower, TOPIC_FILES } from './crash-copy';
import { IoSpy, ioError } from './io-spy';
import { recordPayloads } from './journal-bytes';
import { Ledger, TopicContents } from './ledger';
import { bootContainer, NO_AUTOMATIC_FLUSH, readState, recoverState } from './recovered-state';
import { useTempDir } from './temp-dir';

// These tests provoke write failures on purpose; what the broker logs about them is expected, so it is not printed.
Logger.overrideLogger(false);

const TOPICS = ['alpha', 'beta', 'gamma'];
const VOLATILE_FILES = new RegExp(`${TOPIC_FILES.source}|${JOURNAL_FILES.source}`);

/** Where the failure strikes the second commit group, and whether it stops the whole journal or one topic. */
interface Injection {
  at: 'journal write' | 'journal write, after part of the record' | 'journal fsync' | 'topic data write' | 'topic index write';
  code: 'EIO' | 'ENOSPC';
  /** The failed topic when only a topic's file failed; the journal goes on for the others. */
  topic?: string;
}

const INJECTIONS: Injection[] = [
  { at: 'journal write', code: 'EIO' },
  { at: 'journal write, after part of the record', code: 'ENOSPC' },
  { at: 'journal fsync', code: 'EIO' },
  { at: 'topic data write', code: 'ENOSPC', topic: 'beta' },
  { at: 'topic index write', code: 'EIO', topic: 'beta' },
];

/** One publish attempt: the messages it carried and what the broker answered. */
interface Attempt {
  ids: string[];
  topics: string[];
  settled: Promise<void>;
  error?: unknown;
}

/** Entry ids by topic, from stored envelopes. */
const idsOf = (topics: TopicContents): TopicContents =>
  Object.fromEntries(
    Object.entries(topics).map(([topic, entries]) => [topic, entries.map((entry) => decodeEnvelope(Buffer.from(entry)).id as string)]),
  );

describe('journal and topic write failures NACK exactly the groups they cover', () => {
  const dir = useTempDir();
  let spy: IoSpy;
  let container: TopicQueueContainer;
  let intake: PublishIntake;
  let acked: Ledger;
  let serial = 0;
  const dataDir = () => join(dir(), 'broker');

  beforeEach(async () => {
    spy = IoSpy.install();
    container = TopicQueueContainer.standalone(persistenceOptions(dataDir(), NO_AUTOMATIC_FLUSH));
    await Promise.all(TOPICS.map((name) => container.getOrCreate(Topic.of(name))));
    intake = new PublishIntake(container);
    acked = new Ledger(container);
  });

  afterEach(async () => {
    await container.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  /** Publishes one batch (one commit, several topics) through the broker's front door and records the answer. */
  function publish(wave: number, topics: string[]): Attempt {
    const ids = topics.map((topic) => `w${wave}-${serial++}-${topic}`);
    const messages = ids.map((id, i) => ({ topic: Topic.of(topics[i]), id, headers: {}, content: Buffer.from(JSON.stringify(id)) }));
    const attempt: Attempt = { ids, topics, settled: Promise.resolve() };
    attempt.settled = intake.publishBatch(messages).then(
      (published) => published.forEach(({ id, topic, offset }) => acked.record(topic, offset as number, [id])),
      (error: unknown) => void (attempt.error = error),
    );
    return attempt;
  }

  /** Several commits in flight at once, over several topics, single- and multi-topic. */
  const wave = (n: number, topics: string[] = TOPICS) => [
    publish(n, topics.slice(0, 2)),
    publish(n, [topics[topics.length - 1]]),
    publish(n, [...topics].reverse()),
    publish(n, [topics[0], topics[0]]),
  ];

  /** Arms the failure for the commit group written after the first one; returns that group's bytes once written. */
  function injectIntoSecondGroup(injection: Injection, onFirstGroup: () => void): () => Buffer | undefined {
    let groups = 0;
    let armed = false;
    let second: Buffer | undefined;
    const fail = (call: string) => Promise.reject(ioError(injection.code, call));
    spy.onWrite((path, bytes, position, proceed) => {
      if (path.endsWith('.journal') && position > 0 && ++groups <= 2) {
        if (groups === 1) onFirstGroup();
        if (groups === 1) return undefined;
        second = Buffer.from(bytes);
        armed = true;
        if (injection.at === 'journal write') return fail('write');
        if (injection.at === 'journal write, after part of the record')
          return proceed(bytes.subarray(0, bytes.length >> 1)).then(() => fail('write'));
        return undefined;
      }
      const extension = injection.at === 'topic data write' ? '.mmm' : '.idx';
      if (!armed || !injection.at.startsWith('topic') || !path.includes(`${sep}${injection.topic}${sep}`) || !path.endsWith(extension))
        return undefined;
      armed = false;
      return fail('write');
    });
    spy.onSync((path) => {
      if (!armed || injection.at !== 'journal fsync' || !path.endsWith('.journal')) return undefined;
      armed = false;
      return fail('fdatasync');
    });
    return () => second;
  }

  const expectAllAcked = (attempts: Attempt[]) => expect(attempts.map((attempt) => attempt.error)).toEqual(attempts.map(() => undefined));

  function expectNacked(attempt: Attempt, code: string): void {
    expect(attempt.error).toBeInstanceOf(StorageUnavailableError);
    const error = attempt.error as StorageUnavailableError;
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(error.retryAfterMs).toBeLessThanOrEqual(WRITE_RECOVERY_DELAY_MS);
    expect(error.message).toContain(code);
  }

  it.each(INJECTIONS)(
    '$code on the $at: the groups covered are NACKed, the others ACK, nothing NACKed is ever visible',
    async (injection) => {
      const first = wave(1);
      const second: Attempt[] = [];
      const secondGroup = injectIntoSecondGroup(injection, () => second.push(...wave(2)));
      await Promise.all(first.map((attempt) => attempt.settled));
      await Promise.all(second.map((attempt) => attempt.settled));

      // The failed group held exactly the second wave, and exactly that wave is NACKed.
      expect(second).toHaveLength(4);
      expect(
        recordPayloads(secondGroup() as Buffer)
          .map((payload) => decodeEnvelope(Buffer.from(payload)).id)
          .sort(),
      ).toEqual(second.flatMap((attempt) => attempt.ids).sort());
      expectAllAcked(first);
      for (const attempt of second) expectNacked(attempt, injection.code);
      const afterNack = crashCopy(dataDir(), join(dir(), 'crash-after-nack'), spy);
      const expectedAfterNack = acked.expected(TOPICS);

      // Within the refusal delay: the whole journal refuses after a journal failure; only the failed topic after a topic one.
      const refused = wave(3);
      await Promise.all(refused.map((attempt) => attempt.settled));
      for (const attempt of refused) {
        if (!injection.topic || attempt.topics.includes(injection.topic)) expectNacked(attempt, injection.code);
        else expect(attempt.error).toBeUndefined();
      }

      jest.spyOn(Date, 'now').mockReturnValue(Date.now() + WRITE_RECOVERY_DELAY_MS + 1);
      const resumed = wave(4);
      await Promise.all(resumed.map((attempt) => attempt.settled));
      expectAllAcked(resumed);

      const expected = acked.expected(TOPICS);
      expect(idsOf((await readState(container, TOPICS)).topics)).toEqual(expected);
      const nacked = new Set([...second, ...refused].filter((attempt) => attempt.error).flatMap((attempt) => attempt.ids));
      expect(
        Object.values(expected)
          .flat()
          .filter((id) => nacked.has(id)),
      ).toEqual([]);

      const beforeShutdown = crashCopy(dataDir(), join(dir(), 'crash-at-end'), spy);
      for (const [crash, holds] of [
        [afterNack, expectedAfterNack],
        [beforeShutdown, expected],
      ] as const) {
        for (const lostTail of [undefined, 'zeros', 'garbage'] as const) {
          const copy = copyCrash(crash, `${crash.dir}-${lostTail ?? 'kill'}`);
          if (lostTail) losePower(copy, lostTail, VOLATILE_FILES);
          expect({ lostTail, topics: idsOf((await recoverState(copy.dir, TOPICS)).topics) }).toEqual({ lostTail, topics: holds });
        }
      }
      await container.onApplicationShutdown();
      const restarted = await bootContainer(dataDir());
      try {
        expect(idsOf((await readState(restarted, TOPICS)).topics)).toEqual(expected);
      } finally {
        await restarted.onApplicationShutdown();
      }
    },
  );
});
