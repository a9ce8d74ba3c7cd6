import { spawnBroker } from './broker-process.fixture';

describe('the standalone broker refuses to start on an invalid environment variable, naming it', () => {
  it.each([
    [{ MMMQ_PORT: 'eighty' }, /MMMQ_PORT must be a non-negative integer, got "eighty"/],
    [{ MMMQ_SEGMENT_MAX_BYTES: '-1' }, /MMMQ_SEGMENT_MAX_BYTES must be a non-negative integer, got "-1"/],
    [{ MMMQ_PUSH_ALLOWED_NETWORKS: 'loopback,intranet' }, /MMMQ_PUSH_ALLOWED_NETWORKS entry "intranet" must be "loopback", "private"/],
  ])('%j', async (env, message) => {
    const starting = spawnBroker(env);
    await expect(starting).rejects.toThrow(/exited \(code 1, signal null\)/);
    await expect(starting).rejects.toThrow(message);
  }, 60_000);
});
