import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker } from '../http/broker-app.fixture';

describe('dispatcher changes', () => {
  let rootDir: string;
  afterAll(() => rm(rootDir, { recursive: true, force: true }));

  it('survive a restart: GET shows the same list afterwards', async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-dispatchers-'));
    const first = await startBroker({ persistence: { rootDir } });
    await first.request('POST', '/mmmq/dispatchers', { consumerId: 'a', host: 'http://a:1', pattern: '**' });
    await first.request('POST', '/mmmq/dispatchers', { consumerId: 'b', host: 'http://b:1', pattern: 'x.*' });
    await first.request('PUT', '/mmmq/dispatchers/a', { host: 'http://a2:2', pattern: 'order.*' });
    await first.request('POST', '/mmmq/dispatchers', { consumerId: 'c', host: 'http://c:1', pattern: '**' });
    await first.request('DELETE', '/mmmq/dispatchers/b');
    const before = (await first.request('GET', '/mmmq/dispatchers')).body;
    await first.close();

    const second = await startBroker({ persistence: { rootDir } });
    try {
      expect((await second.request('GET', '/mmmq/dispatchers')).body).toEqual(before);
      expect(before.map((entry: { consumerId: string }) => entry.consumerId)).toEqual(['a', 'c']);
    } finally {
      await second.close();
    }
  });

  it('given in code are merged into dispatchers.json at boot, replacing entries with the same id', async () => {
    const broker = await startBroker({
      persistence: { rootDir },
      dispatchers: [
        { consumerId: 'c', host: 'http://code:9', pattern: 'code.*' },
        { consumerId: 'd', host: 'http://d:1', pattern: '**' },
      ],
    });
    try {
      const listed = (await broker.request('GET', '/mmmq/dispatchers')).body;
      expect(listed.map((entry: { consumerId: string; pattern: string }) => `${entry.consumerId}:${entry.pattern}`)).toEqual([
        'a:order.*',
        'c:code.*',
        'd:**',
      ]);
    } finally {
      await broker.close();
    }
  });
});
