import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOPIC_PATTERN_MAX_WILDCARDS } from '@mmmq/core';
import { InvalidDispatchersFileError } from '../../src/dispatch/dispatchers-file';
import { startBroker } from '../http/broker-app.fixture';
import { publishAll } from './delivery.fixture';

// This pattern used to compile to a backtracking RegExp; publishing to a topic of 100 `a`s
// never answered, and the broker hung again at every restart because dispatchers.json is read back.
// Without the fix these tests do not fail, they hang (the broker runs in this process).
const HOSTILE_PATTERN = `${'a*'.repeat(40)}b`;
const MOST_WILDCARDS_PATTERN = `${'a*'.repeat(TOPIC_PATTERN_MAX_WILDCARDS)}b`;
const HUNDRED_AS = 'a'.repeat(100);

const dispatcher = (consumerId: string, pattern: string) => ({ consumerId, host: 'http://consumer-host:8080', pattern });

describe('a hostile topic pattern', () => {
  let rootDir: string;
  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-hostile-pattern-'));
  });
  afterEach(() => rm(rootDir, { recursive: true, force: true }));

  it('is refused by POST /mmmq/dispatchers with 400 naming the wildcard maximum, and publishing stays prompt', async () => {
    const broker = await startBroker({ persistence: { rootDir } });
    try {
      const refused = await broker.request('POST', '/mmmq/dispatchers', dispatcher('hostile', HOSTILE_PATTERN));
      expect(refused.status).toBe(400);
      expect(refused.body.message).toContain(`has 40 wildcards; the maximum is ${TOPIC_PATTERN_MAX_WILDCARDS}`);
      expect(JSON.parse(await readFile(join(rootDir, 'dispatchers.json'), 'utf8'))).toEqual([]);

      const accepted = await broker.request('POST', '/mmmq/dispatchers', dispatcher('busy', MOST_WILDCARDS_PATTERN));
      expect(accepted.status).toBe(201);
      expect(await publishAll(broker, HUNDRED_AS, ['x', 'y'])).toEqual([0, 1]);
    } finally {
      await broker.close();
    }
  });

  it('in dispatchers.json stops start-up with a message naming the file entry, instead of hanging', async () => {
    await writeFile(join(rootDir, 'dispatchers.json'), JSON.stringify([dispatcher('hostile', HOSTILE_PATTERN)]));

    const error = await startBroker({ persistence: { rootDir } }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(InvalidDispatchersFileError);
    expect((error as Error).message).toContain(`dispatchers.json entry 0: Topic pattern "${HOSTILE_PATTERN}"`);
    expect((error as Error).message).toContain(`has 40 wildcards; the maximum is ${TOPIC_PATTERN_MAX_WILDCARDS}`);
  });

  it('with the most wildcards allowed, read from dispatchers.json, boots and publishes promptly', async () => {
    await writeFile(join(rootDir, 'dispatchers.json'), JSON.stringify([dispatcher('busy', MOST_WILDCARDS_PATTERN)]));
    const broker = await startBroker({ persistence: { rootDir } });
    try {
      expect(await publishAll(broker, HUNDRED_AS, ['x'])).toEqual([0]);
      expect((await broker.request('GET', '/mmmq/dispatchers/busy')).body.pattern).toBe(MOST_WILDCARDS_PATTERN);
    } finally {
      await broker.close();
    }
  });
});
