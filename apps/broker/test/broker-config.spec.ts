import { resolve } from 'node:path';
import { DEFAULT_ROOT_DIR, InvalidBrokerOptionsError } from '@mmmq/broker';
import { DEFAULT_HOST, DEFAULT_HTTP_ADAPTER, DEFAULT_PORT, DEFAULT_STREAM_PORT, readBrokerConfig } from '../src/broker-config';

describe('readBrokerConfig', () => {
  it('defaults to 127.0.0.1:8080, the publish stream on 8081 and ./mmmq, made absolute', () => {
    expect(readBrokerConfig({})).toEqual({
      port: DEFAULT_PORT,
      host: DEFAULT_HOST,
      httpAdapter: DEFAULT_HTTP_ADAPTER,
      broker: {
        persistence: { rootDir: resolve(DEFAULT_ROOT_DIR), segment: undefined },
        stream: { port: DEFAULT_STREAM_PORT, host: DEFAULT_HOST },
      },
    });
  });

  it('reads the networks pushes may reach from MMMQ_PUSH_ALLOWED_NETWORKS (comma-separated, or none)', () => {
    expect(readBrokerConfig({}).broker.delivery).toBeUndefined();
    expect(readBrokerConfig({ MMMQ_PUSH_ALLOWED_NETWORKS: 'loopback, private,10.1.0.0/16 , fd00::/8' }).broker.delivery).toEqual({
      allowedNetworks: ['loopback', 'private', '10.1.0.0/16', 'fd00::/8'],
    });
    expect(readBrokerConfig({ MMMQ_PUSH_ALLOWED_NETWORKS: 'none' }).broker.delivery).toEqual({ allowedNetworks: [] });
  });

  it('turns the publish stream off with MMMQ_STREAM_PORT=off', () => {
    expect(readBrokerConfig({ MMMQ_STREAM_PORT: 'off' }).broker.stream).toBeUndefined();
  });

  it('reads every variable', () => {
    const env = {
      MMMQ_PORT: '0',
      MMMQ_HOST: '0.0.0.0',
      MMMQ_STREAM_PORT: '9091',
      MMMQ_HTTP_ADAPTER: 'express',
      MMMQ_ROOT_DIR: '/srv/q',
      MMMQ_SEGMENT_MAX_BYTES: '4096',
    };
    expect(readBrokerConfig(env)).toEqual({
      port: 0,
      host: '0.0.0.0',
      httpAdapter: 'express',
      broker: {
        persistence: { rootDir: '/srv/q', segment: { maxBytes: 4096 } },
        stream: { port: 9091, host: '0.0.0.0' },
      },
    });
  });

  it.each([
    [{ MMMQ_PORT: 'http' }, /^MMMQ_PORT must be a non-negative integer, got "http"$/],
    [{ MMMQ_PORT: '-1' }, /^MMMQ_PORT must be/],
    [{ MMMQ_PORT: '65536' }, /^MMMQ_PORT must be a port number from 0 to 65535, got 65536$/],
    [{ MMMQ_STREAM_PORT: 'on' }, /^MMMQ_STREAM_PORT must be a non-negative integer, got "on"$/],
    [{ MMMQ_STREAM_PORT: '70000' }, /^MMMQ_STREAM_PORT must be a port number from 0 to 65535, got 70000$/],
    [{ MMMQ_HOST: '' }, /^MMMQ_HOST must not be blank$/],
    [{ MMMQ_HTTP_ADAPTER: 'koa' }, /^MMMQ_HTTP_ADAPTER must be express or fastify, got "koa"$/],
    [{ MMMQ_ROOT_DIR: '  ' }, /^MMMQ_ROOT_DIR must not be blank$/],
    [{ MMMQ_SEGMENT_MAX_BYTES: '64MB' }, /^MMMQ_SEGMENT_MAX_BYTES must be a non-negative integer, got "64MB"$/],
    [{ MMMQ_SEGMENT_MAX_BYTES: '0' }, /^MMMQ_SEGMENT_MAX_BYTES must be positive/],
    [{ MMMQ_PUSH_ALLOWED_NETWORKS: ' ' }, /^MMMQ_PUSH_ALLOWED_NETWORKS must not be blank$/],
    [{ MMMQ_PUSH_ALLOWED_NETWORKS: 'loopback,,private' }, /^MMMQ_PUSH_ALLOWED_NETWORKS entry "" must be "loopback", "private", an IP address or a CIDR/],
    [{ MMMQ_PUSH_ALLOWED_NETWORKS: 'loopback,10.0.0.0/33' }, /^MMMQ_PUSH_ALLOWED_NETWORKS entry "10\.0\.0\.0\/33" .* has a prefix longer than 32 bits/],
    [{ MMMQ_PUSH_ALLOWED_NETWORKS: 'lan' }, /^MMMQ_PUSH_ALLOWED_NETWORKS entry "lan" must be/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => readBrokerConfig(env)).toThrow(InvalidBrokerOptionsError);
    expect(() => readBrokerConfig(env)).toThrow(message);
  });
});
