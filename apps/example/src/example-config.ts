import { HOST_PORT_MAX, MmmqError } from '@mmmq/core';

/** Where the example expects the broker when `MMMQ_BROKER` is unset: the README's standalone broker. */
export const DEFAULT_BROKER_URL = 'http://127.0.0.1:8080';
/** Port of the example's HTTP API (and of the listeners the broker pushes to) when `EXAMPLE_PORT` is unset. */
export const DEFAULT_EXAMPLE_PORT = 3000;

const DIGITS = /^\d+$/;
const BROKER_PROTOCOLS = ['http:', 'https:', 'amqp:', 'amqps:'];
const DEMO_VALUES: Record<string, boolean> = { '0': false, '1': true };

export interface ExampleConfig {
  /** The MMMQ broker (`http://`, `https://`), or RabbitMQ (`amqp://`, `amqps://`) through `@mmmq/rabbitmq`. */
  broker: string;
  port: number;
  /** Place and cancel a few orders at start-up, so that running the example shows the whole flow. */
  demo: boolean;
}

/** The example's configuration is wrong; the message names the variable. */
export class InvalidExampleConfigError extends MmmqError {}

/**
 * Reads `MMMQ_BROKER` (an http or https URL of the MMMQ broker, or an amqp or amqps URL of RabbitMQ), `EXAMPLE_PORT` (1 to 65535: the broker pushes to it, so it must be
 * known before listening) and `EXAMPLE_DEMO` (`1` or `0`).
 *
 * @throws InvalidExampleConfigError naming the variable that is set to something unusable
 */
export function readExampleConfig(env: NodeJS.ProcessEnv): ExampleConfig {
  return { broker: brokerUrl(env.MMMQ_BROKER), port: examplePort(env.EXAMPLE_PORT), demo: demo(env.EXAMPLE_DEMO) };
}

function brokerUrl(value: string | undefined): string {
  if (value === undefined) return DEFAULT_BROKER_URL;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || !BROKER_PROTOCOLS.includes(url.protocol)) {
    throw new InvalidExampleConfigError(
      `MMMQ_BROKER must be an http:// or https:// URL of the MMMQ broker, or an amqp:// or amqps:// URL of RabbitMQ, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function examplePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_EXAMPLE_PORT;
  const port = Number(value);
  if (!DIGITS.test(value) || port < 1 || port > HOST_PORT_MAX) {
    throw new InvalidExampleConfigError(`EXAMPLE_PORT must be a port number from 1 to ${HOST_PORT_MAX}, got ${JSON.stringify(value)}`);
  }
  return port;
}

function demo(value: string | undefined): boolean {
  if (value === undefined) return true;
  const demo = DEMO_VALUES[value];
  if (demo === undefined) throw new InvalidExampleConfigError(`EXAMPLE_DEMO must be 1 or 0, got ${JSON.stringify(value)}`);
  return demo;
}

/** True when `broker` names RabbitMQ: the example then runs on the RabbitMQ transport. */
export function isRabbitMqUrl(broker: string): boolean {
  return broker.startsWith('amqp://') || broker.startsWith('amqps://');
}
