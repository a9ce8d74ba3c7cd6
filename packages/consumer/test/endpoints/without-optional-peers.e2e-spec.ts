import { execFile } from 'node:child_process';
import { join } from 'node:path';

const FIXTURE = join(__dirname, 'fixtures/without-optional-peers.cjs');

/** What the fixture prints: an application of the built package, without @nestjs/terminus and prom-client. */
function run(extras: Record<string, unknown>): Promise<string> {
  return new Promise((resolve) => {
    execFile(process.execPath, [FIXTURE], { env: { ...process.env, EXTRAS: JSON.stringify(extras) } }, (_error, stdout, stderr) =>
      resolve(`${stdout}${stderr}`.trim()),
    );
  });
}

describe('a consumer application without @nestjs/terminus and prom-client installed (built package)', () => {
  it('starts, serving neither route, while health and metrics are off', async () => {
    expect(await run({})).toBe('started 404 404');
  });

  it('fails at bootstrap naming the package and the option once health is on', async () => {
    expect(await run({ health: true })).toBe(
      'failed MissingPeerDependencyError: The MmmqConsumerModule option health needs the package @nestjs/terminus, which is not installed: install it (npm install @nestjs/terminus) or leave health out',
    );
  });

  it('fails at bootstrap naming the package and the option once metrics is on', async () => {
    expect(await run({ metrics: { path: 'm' } })).toMatch(
      /^failed MissingPeerDependencyError: The MmmqConsumerModule option metrics needs the package prom-client, which is not installed/,
    );
  });
});
