import { readFile } from 'node:fs/promises';
import { createSelfSignedCertificate, makeTempDir, removeTempDir, spawnBroker, TestConsumer, type BrokerProcess } from '@mmmq/test-support';

/** Long enough for several refused pushes with the default backoff's first steps (1 s, 2 s). */
const UNTRUSTED_QUIET_MS = 2_500;

/**
 * Pushes over TLS: a dispatcher whose host is `https://…` is pushed to over HTTPS, verifying the consumer's
 * certificate against Node's CAs plus `NODE_EXTRA_CA_CERTS` (docs/security.md, "Pushes to consumers").
 */
describe('HTTPS delivery to a consumer with a self-signed certificate', () => {
  let dir: string;
  let broker: BrokerProcess;
  let trusted: TestConsumer;
  let untrusted: TestConsumer;

  beforeAll(async () => {
    dir = await makeTempDir('mmmq-https-delivery-');
    const trustedCertificate = createSelfSignedCertificate(dir, 'trusted');
    const otherCertificate = createSelfSignedCertificate(dir, 'untrusted');
    trusted = new TestConsumer({ tls: { key: await readFile(trustedCertificate.keyFile), cert: trustedCertificate.cert } });
    untrusted = new TestConsumer({ tls: { key: await readFile(otherCertificate.keyFile), cert: otherCertificate.cert } });
    await trusted.start();
    await untrusted.start();
    // The broker trusts only the first consumer's certificate, as its CA.
    broker = await spawnBroker({ MMMQ_ROOT_DIR: dir, NODE_EXTRA_CA_CERTS: trustedCertificate.certFile });
  });
  afterAll(async () => {
    broker?.child.kill('SIGTERM');
    await broker?.exited;
    await trusted.stop();
    await untrusted.stop();
    await removeTempDir(dir);
  });

  const register = async (consumerId: string, url: string) => {
    const response = await fetch(`${broker.url}/mmmq/dispatchers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ consumerId, host: url, pattern: 'invoice.*' }),
    });
    expect(response.status).toBe(201);
  };

  it('pushes over HTTPS to a consumer whose certificate the broker trusts, and verifies it against that CA', async () => {
    expect(trusted.url).toMatch(/^https:\/\//);
    await register('accounting', trusted.url);
    await register('impostor', untrusted.url);
    const published = await fetch(`${broker.url}/mmmq/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'invoice.issued', content: { invoice: 42 } }),
    });
    expect(published.status).toBe(200);

    await trusted.waitFor(() => trusted.received.length === 1, { message: 'the push over HTTPS' });
    expect(trusted.received[0].body).toMatchObject({ topic: 'invoice.issued', content: { invoice: 42 }, deliveryCount: 1 });
    expect(trusted.received[0].consumerId).toBe('accounting');
    // A certificate the broker does not trust fails the TLS handshake: the push is never sent.
    await untrusted.expectQuiet({ forMs: UNTRUSTED_QUIET_MS, message: 'no push to a consumer whose certificate is not trusted' });
  }, 90_000);
});
