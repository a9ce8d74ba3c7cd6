import { spawnBroker } from './broker-process.fixture';

describe('the standalone broker refuses to start on an invalid environment variable, naming it', () => {
  it.each([
    [{ MMMQ_PORT: 'eighty' }, /MMMQ_PORT must be a non-negative integer, got "eighty"/],
    [{ MMMQ_LOG_FORMAT: 'yaml' }, /MMMQ_LOG_FORMAT must be text or json, got "yaml"/],
    [{ MMMQ_SEGMENT_MAX_BYTES: '-1' }, /MMMQ_SEGMENT_MAX_BYTES must be a non-negative integer, got "-1"/],
    [{ MMMQ_METRICS_PATH: '/metrics' }, /MMMQ_METRICS_PATH: metrics\.path must be path segments/],
    [{ MMMQ_PUSH_ALLOWED_NETWORKS: 'loopback,intranet' }, /MMMQ_PUSH_ALLOWED_NETWORKS entry "intranet" must be "loopback", "private"/],
    [
      { MMMQ_HOST: '0.0.0.0' },
      /MMMQ_HOST=0\.0\.0\.0 lets other machines reach the broker, but no tokens are configured: set MMMQ_AUTH_TOKENS or MMMQ_AUTH_TOKENS_FILE/,
    ],
    [{ MMMQ_AUTH_TOKENS: '[{"token":"short","roles":["admin"]}]' }, /MMMQ_AUTH_TOKENS\[0\]\.token must be 16 to 4096 characters long/],
  ])(
    '%j',
    async (env, message) => {
      const starting = spawnBroker(env);
      await expect(starting).rejects.toThrow(/exited \(code 1, signal null\)/);
      await expect(starting).rejects.toThrow(message);
    },
    60_000,
  );
});
