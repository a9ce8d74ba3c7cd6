import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BrokerApp, startBroker, waitFor } from '@mmmq/test-support';
import { ExitCode } from '../src';
import { CapturedOutput, mmmq, mmmqJson } from './cli-runner';

describe('mmmq commands against a running broker', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.close());

  describe('publish', () => {
    it('publishes JSON with an id and typed headers and prints the ACK as a table', async () => {
      const result = await mmmq(broker.url, [
        'publish',
        'orders.created',
        '{"orderId":42}',
        '--id',
        'o-42',
        '--header',
        'region=EU',
        '--header',
        'amount:=5',
      ]);

      expect(result).toMatchObject({ code: ExitCode.OK, stderr: '' });
      expect(result.stdout).toMatch(/acknowledgement\s*│\s*ACK/);
      expect(result.stdout).toMatch(/id\s*│\s*o-42/);
      const [stored] = await broker.stored('orders.created');
      expect(stored).toMatchObject({ id: 'o-42', headers: { region: 'EU', amount: 5 }, content: '{"orderId":42}' });
    });

    it('reads the content from @file and prints the ACK as JSON with --json', async () => {
      const file = join(broker.rootDir, 'content.json');
      await writeFile(file, '{"from":"file"}');

      const ack = await mmmqJson(broker.url, ['publish', 'orders.file', `@${file}`]);

      expect(ack).toMatchObject({ acknowledgement: 'ACK', topic: 'orders.file', offset: 0 });
      expect((await broker.stored('orders.file'))[0].content).toBe('{"from":"file"}');
    });

    it('refuses content that is not JSON as a usage error, publishing nothing', async () => {
      const result = await mmmq(broker.url, ['publish', 'orders.bad', '{not json']);

      expect(result.code).toBe(ExitCode.USAGE);
      expect(result.stderr).toContain('the content argument is not JSON');
      expect((await mmmqJson(broker.url, ['topics'])).topics.map((topic: { name: string }) => topic.name)).not.toContain('orders.bad');
    });

    it('exits with the broker-error code when the broker refuses (an invalid topic name)', async () => {
      const result = await mmmq(broker.url, ['publish', 'bad topic!', '1']);

      expect(result.code).toBe(ExitCode.BROKER);
      expect(result.stderr).toMatch(/^mmmq: POST \/mmmq\/messages failed: 400/);
    });
  });

  describe('topics and tail', () => {
    beforeAll(() => broker.publishAll('shipments', [{ n: 0 }, { n: 1 }, { n: 2 }]));

    it('lists the topics as a table and as JSON', async () => {
      const table = await mmmq(broker.url, ['topics']);
      const json = await mmmqJson(broker.url, ['topics']);

      expect(table.code).toBe(ExitCode.OK);
      expect(table.stdout).toMatch(/│ topic\s+│ messages/);
      expect(table.stdout).toMatch(/│ shipments\s+│ 3\s+│ 0\s+│ 3 /);
      expect(json.topics.find((topic: { name: string }) => topic.name === 'shipments')).toMatchObject({ messages: 3, tailOffset: 3 });
    });

    it('prints messages from --from to the end, one a line, and NDJSON with --json', async () => {
      const lines = await mmmq(broker.url, ['tail', 'shipments', '--from', '1']);
      const json = await mmmq(broker.url, ['--json', 'tail', 'shipments']);

      expect(lines.code).toBe(ExitCode.OK);
      expect(lines.stdout.trim().split('\n')).toEqual([
        expect.stringMatching(/^#1 \S+Z \S+ \{\} \{"n":1\}$/),
        expect.stringMatching(/^#2 .* \{"n":2\}$/),
      ]);
      const parsed = json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(parsed.map((message) => [message.offset, message.content])).toEqual([
        [0, { n: 0 }],
        [1, { n: 1 }],
        [2, { n: 2 }],
      ]);
    });

    it('with --follow prints messages published later, and Ctrl-C ends it with exit code 0', async () => {
      const interrupt = new AbortController();
      const stdout = new CapturedOutput();
      const following = mmmq(broker.url, ['tail', 'shipments', '--from', '3', '--follow', '--poll-ms', '20'], {
        signal: interrupt.signal,
        stdout,
      });
      await broker.publish('shipments', { n: 'later' });
      await waitFor(() => stdout.text.includes('{"n":"later"}'), {
        message: () => `tail --follow to print the new message; got ${stdout.text}`,
      });

      interrupt.abort();

      expect((await following).code).toBe(ExitCode.OK);
      expect(stdout.text).toMatch(/^#3 .*\{"n":"later"\}\n$/);
    });

    it('exits with the broker-error code for a topic that does not exist', async () => {
      const result = await mmmq(broker.url, ['tail', 'no.such.topic']);

      expect(result.code).toBe(ExitCode.BROKER);
      expect(result.stderr).toContain('404');
    });
  });

  describe('dispatchers and dlq', () => {
    it('adds, lists and removes a dispatcher', async () => {
      const added = await mmmqJson(broker.url, ['dispatchers', 'add', 'billing', 'orders.*', '--selector', "region = 'EU'"]);
      const table = await mmmq(broker.url, ['dispatchers', 'list']);
      const removed = await mmmq(broker.url, ['dispatchers', 'rm', 'billing']);

      expect(added).toMatchObject({ consumerId: 'billing', pattern: 'orders.*', selector: "region = 'EU'" });
      expect(table.stdout).toMatch(/│ billing\s+│ orders\.\*\s+│ \(pull\)/);
      expect(removed).toMatchObject({ code: ExitCode.OK, stdout: 'Removed dispatcher billing\n' });
      expect(await mmmqJson(broker.url, ['dispatchers', 'list'])).toEqual([]);
    });

    it('exits with the broker-error code when removing a dispatcher that does not exist', async () => {
      expect((await mmmq(broker.url, ['dispatchers', 'rm', 'nobody'])).code).toBe(ExitCode.BROKER);
    });

    it("lists a consumer's dead letters and redrives them by id", async () => {
      await mmmq(broker.url, ['dispatchers', 'add', 'audit', 'payments']);
      await broker.publish('payments', { amount: 7 });
      const fetched = await broker.request('POST', '/mmmq/consumers/audit/fetch', { max: 1, waitMs: 5000 });
      const [{ lease, id }] = fetched.body.messages;
      await broker.request('POST', '/mmmq/consumers/audit/terminate', { leases: [lease], reason: 'bad amount' });

      const table = await mmmq(broker.url, ['dlq', 'list', 'audit']);
      const page = await mmmqJson(broker.url, ['dlq', 'list', 'audit']);
      const redriven = await mmmqJson(broker.url, ['dlq', 'redrive', 'audit', '--id', id]);

      expect(table.code).toBe(ExitCode.OK);
      expect(table.stdout).toMatch(new RegExp(`│ 0 +│ ${id} +│ payments +│ TERMINATED`));
      expect(page.deadLetters).toEqual([expect.objectContaining({ id, topic: 'payments', content: { amount: 7 } })]);
      expect(redriven).toEqual({ redriven: 1 });
    });

    it("purges a consumer's dead letters below a position, then all, and refuses a bad --before", async () => {
      await mmmq(broker.url, ['dispatchers', 'add', 'ledger', 'refunds']);
      await broker.publishAll('refunds', [{ n: 0 }, { n: 1 }, { n: 2 }]);
      const fetched = await broker.request('POST', '/mmmq/consumers/ledger/fetch', { max: 3, waitMs: 5000 });
      const leases = fetched.body.messages.map((message: { lease: string }) => message.lease);
      await broker.request('POST', '/mmmq/consumers/ledger/terminate', { leases, reason: 'bad refund' });

      const some = await mmmqJson(broker.url, ['dlq', 'purge', 'ledger', '--before', '2']);
      const left = await mmmqJson(broker.url, ['dlq', 'list', 'ledger']);
      const unconfirmed = await mmmq(broker.url, ['dlq', 'purge', 'ledger']);
      const rest = await mmmq(broker.url, ['dlq', 'purge', 'ledger', '--yes']);
      const bad = await mmmq(broker.url, ['dlq', 'purge', 'ledger', '--before', '-1']);
      const unknown = await mmmq(broker.url, ['dlq', 'purge', 'nobody', '--yes']);

      expect(some).toEqual({ consumerId: 'ledger', purged: 2, startOffset: 2 });
      expect(left.deadLetters.map((letter: { content: unknown }) => letter.content)).toEqual([{ n: 2 }]);
      expect(unconfirmed).toMatchObject({ code: ExitCode.USAGE, stderr: expect.stringContaining('add --yes') });
      expect(rest).toMatchObject({ code: ExitCode.OK, stdout: 'Purged 1 dead letter(s) of ledger; the oldest kept is at 3\n' });
      expect(await mmmqJson(broker.url, ['dlq', 'list', 'ledger'])).toMatchObject({ deadLetters: [], startOffset: 3 });
      expect(bad.code).toBe(ExitCode.USAGE);
      expect(unknown.code).toBe(ExitCode.BROKER);
    });
  });

  describe('seek', () => {
    it("dry-runs, then moves a consumer's subscription back to an offset, and refuses an ambiguous position", async () => {
      await mmmq(broker.url, ['dispatchers', 'add', 'replay', 'replays']);
      await broker.publishAll('replays', [{ n: 0 }, { n: 1 }, { n: 2 }]);
      await waitFor(
        async () => {
          const { body } = await broker.request('POST', '/mmmq/consumers/replay/fetch', { max: 3, waitMs: 100 });
          if (body.messages.length > 0) {
            await broker.request('POST', '/mmmq/consumers/replay/ack', { leases: body.messages.map((m: { lease: string }) => m.lease) });
          }
          return (await broker.request('GET', '/mmmq/subscriptions')).body.some(
            (row: { consumerId: string; position: number }) => row.consumerId === 'replay' && row.position === 3,
          );
        },
        { message: 'replay to consume the three shipments' },
      );

      const dry = await mmmq(broker.url, ['seek', 'replay', '--offset', '1', '--dry-run']);
      const moved = await mmmqJson(broker.url, ['seek', 'replay', '--topic', 'replays', '--offset', '1']);
      const both = await mmmq(broker.url, ['seek', 'replay', '--end', '--beginning']);
      const badTime = await mmmq(broker.url, ['seek', 'replay', '--time', 'yesterday']);
      const unknown = await mmmq(broker.url, ['seek', 'nobody', '--end']);

      expect(dry.code).toBe(ExitCode.OK);
      expect(dry.stdout).toMatch(/│ replays\s+│ 3\s+│ 1\s+│ 2\s+│ 0\s+│ 0/);
      expect(dry.stdout).toMatch(/Would re-deliver 2 and skip 0 message\(s\) of replay; would end 0 leases\n$/);
      expect(moved).toEqual({
        dryRun: false,
        redeliver: 2,
        skip: 0,
        released: 0,
        subscriptions: [{ topic: 'replays', from: 3, to: 1, redeliver: 2, skip: 0, released: 0 }],
      });
      const again = await broker.request('POST', '/mmmq/consumers/replay/fetch', { max: 10, waitMs: 1000 });
      expect(again.body.messages.map((m: { content: unknown }) => m.content)).toEqual([{ n: 1 }, { n: 2 }]);
      expect(both).toMatchObject({
        code: ExitCode.USAGE,
        stderr: expect.stringContaining('Give exactly one of --offset, --time, --beginning, --end'),
      });
      expect(badTime).toMatchObject({
        code: ExitCode.USAGE,
        stderr: expect.stringContaining('--time must be an ISO 8601 time with a zone'),
      });
      expect(unknown.code).toBe(ExitCode.BROKER);
    });
    it('adds a dispatcher that starts at a time (--start-from <ISO time>) and lists it', async () => {
      const added = await mmmqJson(broker.url, ['dispatchers', 'add', 'since', 'replays', '--start-from', '2026-12-07T10:00:00Z']);
      const table = await mmmq(broker.url, ['dispatchers', 'list']);
      const bad = await mmmq(broker.url, ['dispatchers', 'add', 'since-bad', 'replays', '--start-from', 'yesterday']);
      await mmmq(broker.url, ['dispatchers', 'rm', 'since']);

      expect(added).toMatchObject({ consumerId: 'since', startFrom: { time: '2026-12-07T10:00:00Z' } });
      expect(table.stdout).toMatch(/│ since\s+│ replays\s+│ \(pull\)\s+│ 2026-12-07T10:00:00Z/);
      expect(bad).toMatchObject({
        code: ExitCode.BROKER,
        stderr: expect.stringContaining('startFrom must be "earliest", "latest" or {"time"'),
      });
    });
  });

  describe('bench', () => {
    it('publishes and consumes every message and reports throughput and latency percentiles', async () => {
      const result = await mmmqJson(broker.url, ['bench', '--messages', '200', '--concurrency', '4']);

      expect(result).toMatchObject({ published: 200, received: 200, interrupted: false });
      for (const summary of [result.publish, result.endToEnd]) {
        expect(summary.count).toBe(200);
        expect(summary.p50Ms).toBeLessThanOrEqual(summary.p90Ms);
        expect(summary.p90Ms).toBeLessThanOrEqual(summary.p99Ms);
        expect(summary.p99Ms).toBeLessThanOrEqual(summary.maxMs);
      }
      // Its dispatcher goes; the topic stays.
      const dispatchers = await mmmqJson(broker.url, ['dispatchers', 'list']);
      expect(dispatchers.map((dispatcher: { consumerId: string }) => dispatcher.consumerId)).not.toContain(
        expect.stringMatching(/^bench-/),
      );
    });

    it('draws a live progress bar on stderr when it is a terminal, leaving stdout to the result', async () => {
      const stderr = new CapturedOutput(true);

      const result = await mmmq(broker.url, ['--json', 'bench', '-n', '50'], { stderr });

      expect(result.code).toBe(ExitCode.OK);
      expect(JSON.parse(result.stdout)).toMatchObject({ published: 50, received: 50 });
      expect(stderr.text).toMatch(/bench \[[█░]+\] 100% \| 50\/50 \| published 50, received 50/);
    });

    it('prints a table and plain progress lines when stderr is not a terminal', async () => {
      const result = await mmmq(broker.url, ['bench', '-n', '50']);

      expect(result.code).toBe(ExitCode.OK);
      expect(result.stdout).toMatch(/^50 published, 50 received \(0 duplicates\)/);
      expect(result.stdout).toMatch(/│ publish\s+│ 50 /);
      expect(result.stdout).toMatch(/│ end to end\s+│ 50 /);
      expect(result.stderr).toMatch(/^bench: \d+, published \d+, received \d+$/m);
    });
  });

  describe('exit codes', () => {
    it('are USAGE for an unknown command or a bad option value, BROKER for an unreachable broker, OK for --help', async () => {
      expect((await mmmq(broker.url, ['nosuch'])).code).toBe(ExitCode.USAGE);
      expect((await mmmq(broker.url, ['tail', 'x', '--from', '-1'])).code).toBe(ExitCode.USAGE);
      expect((await mmmq(broker.url, ['bench', '-n', '1', '-d', '1'])).code).toBe(ExitCode.USAGE);
      const unreachable = await mmmq('http://127.0.0.1:1', ['topics']);
      expect(unreachable.code).toBe(ExitCode.BROKER);
      expect(unreachable.stderr).toContain('Cannot reach the broker at http://127.0.0.1:1');
      const help = await mmmq(broker.url, ['--help']);
      expect(help.code).toBe(ExitCode.OK);
      expect(help.stdout).toContain('verify');
    });
  });
});

describe('mmmq against a broker that requires tokens', () => {
  const token = 'cli-admin-token-0123456789abcdef0123456789';
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker({ auth: { tokens: [{ token, roles: ['admin'] }] } });
  });
  afterAll(() => broker.close());

  it('sends the token of MMMQ_TOKEN or --token, and exits with the broker-error code without one', async () => {
    const fromEnv = await mmmq(broker.url, ['publish', 'secured', '1'], { env: { MMMQ_BROKER: broker.url, MMMQ_TOKEN: token } });
    const fromOption = await mmmq(broker.url, ['topics', '--token', token]);
    const without = await mmmq(broker.url, ['topics']);

    expect(fromEnv.code).toBe(ExitCode.OK);
    expect(fromOption.stdout).toMatch(/│ secured\s+│ 1 /);
    expect(without.code).toBe(ExitCode.BROKER);
    expect(without.stderr).toMatch(/^mmmq: GET \/mmmq\/topics failed: 401/);
  });
});
