import { HOST_PORT_MAX, MmmqError } from '@mmmq/core';

/** Where the example expects the broker when `MMMQ_BROKER` is unset: the README's standalone broker. */
export const DEFAULT_BROKER_URL = 'http://127.0.0.1:8080';
/** The PostgreSQL the example uses when `DATABASE_URL` is unset: the development machine's (trust auth). */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** The schema that holds the example's tables and MMMQ's when `DATABASE_SCHEMA` is unset: one schema, easy to drop. */
export const DEFAULT_DATABASE_SCHEMA = 'exactly_once';
/** Port of the order and charge API when `EXAMPLE_PORT` is unset. */
export const DEFAULT_EXAMPLE_PORT = 3000;

const DIGITS = /^\d+$/;
/** PostgreSQL's plain identifiers, as `@mmmq/postgres` accepts them for its `schema` option. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const SWITCH_VALUES: Record<string, boolean> = { '0': false, '1': true };

export interface ExactlyOnceConfig {
  broker: string;
  databaseUrl: string;
  schema: string;
  port: number;
  /**
   * Demo switch: the acknowledgement of each message's first charging delivery is lost (the transaction commits,
   * then the runner throws), so the broker delivers the message again and the inbox has a duplicate to catch.
   */
  loseFirstAck: boolean;
}

/** The example's configuration is wrong; the message names the variable. */
export class InvalidExactlyOnceConfigError extends MmmqError {}

/**
 * Reads `MMMQ_BROKER` (an http or https URL), `DATABASE_URL` (a postgres:// URL), `DATABASE_SCHEMA` (a plain
 * PostgreSQL identifier), `EXAMPLE_PORT` (1 to 65535) and `BILLING_LOSE_FIRST_ACK` (`1` or `0`).
 *
 * @throws InvalidExactlyOnceConfigError naming the variable that is set to something unusable
 */
export function readExactlyOnceConfig(env: NodeJS.ProcessEnv): ExactlyOnceConfig {
  return {
    broker: brokerUrl(env.MMMQ_BROKER),
    databaseUrl: databaseUrl(env.DATABASE_URL),
    schema: schema(env.DATABASE_SCHEMA),
    port: examplePort(env.EXAMPLE_PORT),
    loseFirstAck: loseFirstAck(env.BILLING_LOSE_FIRST_ACK),
  };
}

function brokerUrl(value: string | undefined): string {
  if (value === undefined) return DEFAULT_BROKER_URL;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InvalidExactlyOnceConfigError(`MMMQ_BROKER must be an http:// or https:// URL of the broker, got ${JSON.stringify(value)}`);
  }
  return value;
}

function databaseUrl(value: string | undefined): string {
  if (value === undefined) return DEFAULT_DATABASE_URL;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    // Not quoted: a connection string may hold a password.
    throw new InvalidExactlyOnceConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }
  return value;
}

function schema(value: string | undefined): string {
  if (value === undefined) return DEFAULT_DATABASE_SCHEMA;
  if (!IDENTIFIER.test(value)) {
    throw new InvalidExactlyOnceConfigError(
      `DATABASE_SCHEMA must be a PostgreSQL identifier (letters, digits, _; at most 63), got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function examplePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_EXAMPLE_PORT;
  const port = Number(value);
  if (!DIGITS.test(value) || port < 1 || port > HOST_PORT_MAX) {
    throw new InvalidExactlyOnceConfigError(`EXAMPLE_PORT must be a port number from 1 to ${HOST_PORT_MAX}, got ${JSON.stringify(value)}`);
  }
  return port;
}

function loseFirstAck(value: string | undefined): boolean {
  if (value === undefined) return false;
  const lose = SWITCH_VALUES[value];
  if (lose === undefined) throw new InvalidExactlyOnceConfigError(`BILLING_LOSE_FIRST_ACK must be 1 or 0, got ${JSON.stringify(value)}`);
  return lose;
}
