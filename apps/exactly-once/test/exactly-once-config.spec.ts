import {
  DEFAULT_BROKER_URL,
  DEFAULT_DATABASE_SCHEMA,
  DEFAULT_DATABASE_URL,
  DEFAULT_EXAMPLE_PORT,
  InvalidExactlyOnceConfigError,
  readExactlyOnceConfig,
} from '../src/exactly-once-config';

describe('readExactlyOnceConfig', () => {
  it('uses the named defaults when nothing is set', () => {
    expect(readExactlyOnceConfig({})).toEqual({
      broker: DEFAULT_BROKER_URL,
      databaseUrl: DEFAULT_DATABASE_URL,
      schema: DEFAULT_DATABASE_SCHEMA,
      port: DEFAULT_EXAMPLE_PORT,
      loseFirstAck: false,
    });
  });

  it('reads every variable', () => {
    expect(
      readExactlyOnceConfig({
        MMMQ_BROKER: 'https://broker:8443',
        DATABASE_URL: 'postgresql://app:secret@db:5432/shop',
        DATABASE_SCHEMA: 'shop_1',
        EXAMPLE_PORT: '3100',
        BILLING_LOSE_FIRST_ACK: '1',
      }),
    ).toEqual({
      broker: 'https://broker:8443',
      databaseUrl: 'postgresql://app:secret@db:5432/shop',
      schema: 'shop_1',
      port: 3100,
      loseFirstAck: true,
    });
  });

  it.each([
    [{ MMMQ_BROKER: 'broker:8080' }, /^MMMQ_BROKER must be an http/],
    [{ DATABASE_URL: 'mysql://db/shop' }, /^DATABASE_URL must be a postgres/],
    [{ DATABASE_SCHEMA: 'shop; DROP TABLE orders' }, /^DATABASE_SCHEMA must be a PostgreSQL identifier/],
    [{ EXAMPLE_PORT: '70000' }, /^EXAMPLE_PORT must be a port number/],
    [{ BILLING_LOSE_FIRST_ACK: 'yes' }, /^BILLING_LOSE_FIRST_ACK must be 1 or 0/],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => readExactlyOnceConfig(env)).toThrow(InvalidExactlyOnceConfigError);
    expect(() => readExactlyOnceConfig(env)).toThrow(message);
  });

  it('does not quote a refused DATABASE_URL, which may hold a password', () => {
    expect(() => readExactlyOnceConfig({ DATABASE_URL: 'mysql://app:hunter2@db/shop' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});
