import { sep } from 'node:path';
import { Topic } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';
import { Crash, crashCopy, losePower } from './crash-copy';
import { expectRecovery, multiTopicGroup, TOPICS, useCrashScenario, VOLATILE_FILES, writeHistory } from './crash-scenario';
import { Ledger } from './ledger';
import { recoverState } from './recovered-state';

// Recovery reports the torn tails and repairs these crashes leave; those warnings are expected here.
Logger.overrideLogger(false);

/** `topic/…ext`: a file of that topic's log. */
const topicFile = (path: string, topic: string, extension: string) => path.includes(`${sep}${topic}${sep}`) && path.endsWith(extension);

describe('journal crash points (a copy of the data directory taken inside the I/O call is the crash)', () => {
  const scenario = useCrashScenario();

  it.each([
    ['its first bytes', 0.1],
    ['half of it', 0.5],
    ['all but its last byte', -1],
  ])('mid journal append (%s written): the torn group is absent from every topic, everything acknowledged is there', async (_, cut) => {
    await writeHistory(scenario);
    const expected = scenario.ledger.expected(TOPICS);
    let crash: Crash | undefined;
    const remove = scenario.spy.onWrite((path, bytes, position, proceed) => {
      if (!path.endsWith('.journal')) return undefined;
      remove();
      const written = cut < 0 ? bytes.length + cut : Math.floor(bytes.length * cut);
      return (async () => {
        await proceed(bytes.subarray(0, written), position);
        crash = scenario.crash('torn-append');
        await proceed(bytes.subarray(written), position + written);
      })();
    });
    await scenario.ledger.commit(multiTopicGroup(scenario));
    await expectRecovery(scenario, crash as Crash, expected);
  });

  it.each([
    ['before the first topic write', 'alpha', '.mmm'],
    ['between the topic writes', 'beta', '.mmm'],
    ["between a topic's data and its index", 'beta', '.idx'],
    ['before the last index write', 'gamma', '.idx'],
  ])('between journal fsync and topic write (%s): the durable group is in all its topics', async (_, topic, extension) => {
    await writeHistory(scenario);
    const group = multiTopicGroup(scenario);
    const expected = scenario.ledger.expected(TOPICS, group);
    let crash: Crash | undefined;
    const journalSyncs = () => scenario.spy.syncs.filter((path) => path.endsWith('.journal')).length;
    const syncsBefore = journalSyncs();
    const remove = scenario.spy.onWrite((path) => {
      if (!topicFile(path, topic, extension)) return undefined;
      remove();
      expect(journalSyncs()).toBe(syncsBefore + 1);
      crash = scenario.crash('applying');
      return undefined;
    });
    await scenario.ledger.commit(group);
    await expectRecovery(scenario, crash as Crash, expected);
  });

  it.each([
    ["alpha's data", 'alpha', '.mmm'],
    ["beta's index", 'beta', '.idx'],
    ["gamma's data", 'gamma', '.mmm'],
    ['a checkpoint', 'alpha', '.checkpoint'],
  ])('mid flush (before the fsync of %s): nothing acknowledged is lost, checkpoints included', async (_, topic, extension) => {
    await writeHistory(scenario);
    const [alpha] = scenario.queues;
    await alpha.commit('billing', 1);
    await alpha.commit('billing', 4);
    const expected = scenario.ledger.expected(TOPICS);
    let crash: Crash | undefined;
    const remove = scenario.spy.onSync((path, proceed) => {
      if (!topicFile(path, topic, extension)) return undefined;
      remove();
      crash = scenario.crash('flushing');
      return proceed();
    });
    await scenario.container.journal.flush();
    expect(crash).toBeDefined();
    await expectRecovery(scenario, crash as Crash, expected, { 'alpha/billing': 4 });
  });

  it('after the flush fsyncs, before the FLUSHED record is written: nothing acknowledged is lost', async () => {
    await writeHistory(scenario);
    const expected = scenario.ledger.expected(TOPICS);
    let crash: Crash | undefined;
    const flushFsyncs = scenario.container.journal.stats.flushFsyncs;
    const remove = scenario.spy.onWrite((path) => {
      if (!path.endsWith('.journal')) return undefined;
      remove();
      expect(scenario.container.journal.stats.flushFsyncs).toBeGreaterThan(flushFsyncs);
      crash = scenario.crash('flushed-not-recorded');
      return undefined;
    });
    await scenario.container.journal.flush();
    await expectRecovery(scenario, crash as Crash, expected);
  });

  it('a flush started by the size trigger while a record is being applied never claims that record (power loss after it loses nothing acknowledged)', async () => {
    const dir = `${scenario.dataDir}-flush-at-every-record`;
    const container = TopicQueueContainer.standalone(persistenceOptions(dir, { flushIntervalMs: 3_600_000, flushBytes: 1 }));
    const topics = ['first', 'second'];
    const ledger = new Ledger(container);
    let crash: Crash;
    try {
      const [first, second] = await Promise.all(topics.map((name) => container.getOrCreate(Topic.of(name))));
      await ledger.commit([[first, ['first#1']]]);
      await ledger.commit([[second, ['second#1']]]);
      // The flush the size trigger started (or a new one): whatever it records as flushed must be durable.
      await container.journal.flush();
      crash = crashCopy(dir, `${dir}-crash`, scenario.spy);
    } finally {
      await container.onApplicationShutdown();
    }
    losePower(crash, 'zeros', VOLATILE_FILES);
    expect((await recoverState(crash.dir, topics)).topics).toEqual(ledger.expected(topics));
  });

  it('a flush started while a record is being applied (the timer firing during a large topic write) never claims that record', async () => {
    const [alpha, beta] = scenario.queues;
    await scenario.ledger.commit([[alpha, ['alpha#small']]]);
    const large = 'beta#large:' + 'x'.repeat(100 * 1024);
    let flushing: Promise<void> | undefined;
    const remove = scenario.spy.onWrite((path) => {
      if (!topicFile(path, 'beta', '.mmm')) return undefined;
      remove();
      flushing = scenario.container.journal.flush();
      return undefined;
    });
    await scenario.ledger.commit([[beta, [large]]]);
    await flushing;
    const crash = scenario.crash('flushed-mid-apply');
    losePower(crash, 'zeros', VOLATILE_FILES);
    const { topics } = await recoverState(crash.dir, TOPICS);
    const summarize = (entries: string[]) =>
      entries.map((entry) => (entry.length > 100 ? `${entry.length} bytes, ${entry === large ? 'intact' : 'altered'}` : entry));
    expect(summarize(topics.beta)).toEqual(summarize(scenario.ledger.expected(TOPICS).beta));
    expect(topics.alpha).toEqual(['alpha#small']);
  });
});
