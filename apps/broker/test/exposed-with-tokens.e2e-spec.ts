import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeStreamReply, encodeStreamRequest, STREAM_PREAMBLE, StreamFrameReader, StreamRequestKind } from '@mmmq/core';
import { spawnBroker } from './broker-process.fixture';

const TOKEN = 'standalone-publisher-0123456789';
const TOKENS = JSON.stringify([{ token: TOKEN, roles: ['publish'], name: 'producers' }]);
const PUBLISH = '{"topic":"orders","content":1}';

describe('the standalone broker on every interface, with tokens', () => {
  let rootDir: string;

  beforeAll(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-exposed-'));
  });
  afterAll(() => rm(rootDir, { recursive: true, force: true }));

  it('starts, warns that it binds every interface, and serves only requests with a token, on HTTP and the stream', async () => {
    const broker = await spawnBroker({ MMMQ_ROOT_DIR: rootDir, MMMQ_HOST: '0.0.0.0', MMMQ_AUTH_TOKENS: TOKENS });
    try {
      expect(broker.output()).toMatch(/WARN.*MMMQ_HOST=0\.0\.0\.0 binds every interface.*only the 1 configured token\(s\)/);
      expect(broker.output()).not.toContain(TOKEN);
      const url = broker.url.replace('0.0.0.0', '127.0.0.1');
      const post = (headers: Record<string, string>) =>
        fetch(`${url}/mmmq/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: PUBLISH });
      expect((await post({})).status).toBe(401);
      expect((await post({ authorization: `Bearer ${TOKEN}` })).status).toBe(200);

      const streamPort = Number(/Publish stream listening on mmmq:\/\/[^:]+:(\d+)/.exec(broker.output())?.[1]);
      const answers = await streamExchange(streamPort, [encodeStreamRequest(1, StreamRequestKind.PUBLISH, [PUBLISH])]);
      expect(answers.get(1)).toBe(401);
      const authenticated = await streamExchange(streamPort, [
        encodeStreamRequest(1, StreamRequestKind.AUTH, [TOKEN]),
        encodeStreamRequest(2, StreamRequestKind.PUBLISH, [PUBLISH]),
      ]);
      expect([authenticated.get(1), authenticated.get(2)]).toEqual([200, 200]);
    } finally {
      broker.child.kill('SIGTERM');
      await broker.exited;
    }
  }, 120_000);
});

/** Writes the frames after the preamble and resolves with each request's status once all are answered. */
function streamExchange(port: number, frames: Buffer[]): Promise<Map<number, number>> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const reader = new StreamFrameReader(1024 * 1024);
    const statuses = new Map<number, number>();
    socket.on('data', (chunk: Buffer) => {
      for (const frame of reader.push(chunk)) {
        const reply = decodeStreamReply(frame)!;
        statuses.set(reply.requestId, reply.status);
      }
      if (statuses.size === frames.length) {
        socket.destroy();
        resolve(statuses);
      }
    });
    socket.on('error', reject);
    socket.write(Buffer.concat([STREAM_PREAMBLE, ...frames]));
  });
}
