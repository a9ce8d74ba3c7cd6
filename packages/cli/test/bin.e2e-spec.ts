import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BrokerApp, CLI_MAIN, makeTempDir, removeTempDir, spawnBroker, startBroker } from '@mmmq/test-support';
import { ExitCode } from '../src';
import { mmmqJson } from './cli-runner';

const execFileAsync = promisify(execFile);

/** Runs the built `mmmq` bin (packages/cli/dist/main.js) as a child process. */
async function bin(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [CLI_MAIN, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the built mmmq bin', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.close());

  it('publishes and lists topics as a child process, finding the broker through MMMQ_BROKER, and exits 0', async () => {
    const published = await bin(['--json', 'publish', 'bin.topic', '{"via":"bin"}'], { MMMQ_BROKER: broker.url });
    const topics = await bin(['topics'], { MMMQ_BROKER: broker.url });

    expect(published.code).toBe(ExitCode.OK);
    expect(JSON.parse(published.stdout)).toMatchObject({ acknowledgement: 'ACK', topic: 'bin.topic', offset: 0 });
    expect(topics.stdout).toMatch(/│ bin\.topic\s+│ 1 /);
  });

  it('exits with the documented codes: 2 for a usage error, 3 when the broker cannot be reached', async () => {
    expect((await bin(['no-such-command'])).code).toBe(ExitCode.USAGE);
    expect((await bin(['topics', '--broker', 'http://127.0.0.1:1'])).code).toBe(ExitCode.BROKER);
  });

  it('runs the standalone broker with `mmmq broker`, which stops cleanly with exit code 0 on SIGTERM', async () => {
    const rootDir = await makeTempDir('mmmq-cli-broker-');
    try {
      const server = await spawnBroker({ MMMQ_STREAM_PORT: 'off' }, undefined, [CLI_MAIN, 'broker', '--port', '0', '--root-dir', rootDir]);

      const ack = await mmmqJson(server.url, ['publish', 'served', '{"by":"mmmq broker"}']);
      server.child.kill('SIGTERM');

      expect(ack).toMatchObject({ acknowledgement: 'ACK', offset: 0 });
      expect(server.dataDir).toBe(rootDir);
      expect(await server.exited).toEqual({ code: 0, signal: null });
    } finally {
      await removeTempDir(rootDir);
    }
  });
});
