/** Where the example expects the broker when `MMMQ_BROKER` is unset: the README's standalone broker. */
export const DEFAULT_BROKER_URL = 'http://127.0.0.1:8080';
/** Port of the example's HTTP API (and of the listeners the broker pushes to) when `EXAMPLE_PORT` is unset. */
export const DEFAULT_EXAMPLE_PORT = 3000;

export interface ExampleConfig {
  broker: string;
  port: number;
  /** Place and cancel a few orders at start-up, so that running the example shows the whole flow. */
  demo: boolean;
}

export function readExampleConfig(env: NodeJS.ProcessEnv): ExampleConfig {
  const port = Number(env.EXAMPLE_PORT ?? DEFAULT_EXAMPLE_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`EXAMPLE_PORT must be a port number from 1 to 65535, got ${JSON.stringify(env.EXAMPLE_PORT)}`);
  }
  return { broker: env.MMMQ_BROKER ?? DEFAULT_BROKER_URL, port, demo: env.EXAMPLE_DEMO !== '0' };
}
