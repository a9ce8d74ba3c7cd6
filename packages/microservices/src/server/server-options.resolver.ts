import type { DeliveryMode, MmmqConsumerOptions } from '@mmmq/consumer';
import { explainInvalidTransportOption, type InProcessBrokerTransport, type MmmqTransport } from '@mmmq/core';
import type { Deserializer } from '@nestjs/microservices';
import type { Server as HttpServer } from 'node:http';
import { Server as NetServer } from 'node:net';
import { InvalidServerOptionsError } from '../errors/invalid-server-options.error';
import { NoBrokerError } from '../errors/no-broker.error';
import { DEFAULT_PUSH_HOST, MmmqServerOptions } from './mmmq-server.options';

/**
 * Where messages arrive, once the options are checked: pushed to the application's server or the transport's own,
 * nowhere (pull, or the `transport` option), or `in-process` (neither `broker`, `transport` nor a push option is set):
 * from the broker of this very application, which must then import `MmmqBrokerModule` (checked when it starts).
 */
export type PushPlace =
  { kind: 'shared'; server: HttpServer } | { kind: 'own'; port: number; host: string } | { kind: 'none' } | { kind: 'in-process' };

/** The transport's own options, split from those the consumer checks. */
export interface ServerOptionsSplit {
  consumer: MmmqConsumerOptions;
  /** Checked by {@link resolvePushPlace} once the consumer options are. */
  push: Pick<MmmqServerOptions, 'httpServer' | 'port' | 'host' | 'advertisedUrl'>;
  deserializer: Deserializer | undefined;
}

/** @throws InvalidServerOptionsError naming the option */
export function splitServerOptions(options: MmmqServerOptions): ServerOptionsSplit {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidServerOptionsError(`MmmqServer options must be an object, got ${options === null ? 'null' : typeof options}`);
  }
  const { httpServer, port, host, deserializer, ...consumer } = options;
  if (deserializer !== undefined && typeof (deserializer as Deserializer)?.deserialize !== 'function') {
    throw new InvalidServerOptionsError('deserializer must have a deserialize(value, options) method');
  }
  return { consumer, push: { httpServer, port, host, advertisedUrl: options.advertisedUrl }, deserializer };
}

/** The options of the MMMQ broker's push server: refused beside `transport`, which receives without one. */
const PUSH_SERVER_OPTIONS = ['httpServer', 'port', 'host'] as const;

/**
 * Where messages arrive: from the application's own broker, in process, when neither `broker`, `transport` nor any
 * push option is set; nowhere with a `transport` (already checked), which receives on its own connections, and then
 * none of the push server's options may be set; else as {@link resolvePushPlace} says.
 * @throws InvalidServerOptionsError naming the option
 */
export function resolvePushPlaceOf(
  { transport, delivery, broker }: { transport: MmmqTransport | undefined; delivery: DeliveryMode; broker: unknown },
  push: ServerOptionsSplit['push'],
): PushPlace {
  if (transport === undefined && broker === undefined && delivery === 'push' && pushOptionsGiven(push).length === 0) {
    return { kind: 'in-process' };
  }
  if (transport === undefined) return resolvePushPlace(delivery, push);
  const problem = explainInvalidTransportOption({ ...push, transport }, PUSH_SERVER_OPTIONS);
  if (problem !== undefined) throw new InvalidServerOptionsError(problem);
  return { kind: 'none' };
}

/**
 * Where pushes arrive for `delivery` (already checked): the application's server, the transport's own (on `port`,
 * by default the port of `advertisedUrl`), or nowhere (pull).
 * @throws InvalidServerOptionsError naming the option
 */
export function resolvePushPlace(delivery: DeliveryMode, { httpServer, port, host, advertisedUrl }: ServerOptionsSplit['push']): PushPlace {
  const given = [httpServer !== undefined && 'httpServer', port !== undefined && 'port', host !== undefined && 'host'].filter(Boolean);
  if (delivery !== 'push') {
    if (given.length > 0)
      throw new InvalidServerOptionsError(`${given[0]} is for push delivery; with delivery: '${delivery}' nothing is pushed`);
    return { kind: 'none' };
  }
  if (httpServer !== undefined) {
    if (!(httpServer instanceof NetServer))
      throw new InvalidServerOptionsError('httpServer must be a Node HTTP server, e.g. app.getHttpServer()');
    if (port !== undefined || host !== undefined) {
      throw new InvalidServerOptionsError(
        `${port !== undefined ? 'port' : 'host'} cannot be set with httpServer: pushes arrive on that server`,
      );
    }
    return { kind: 'shared', server: httpServer as HttpServer };
  }
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65_535)) {
    throw new InvalidServerOptionsError(`port must be an integer from 0 to 65535, got ${JSON.stringify(port)}`);
  }
  if (host !== undefined && (typeof host !== 'string' || host.length === 0)) {
    throw new InvalidServerOptionsError(`host must be a non-empty string, got ${JSON.stringify(host)}`);
  }
  const listenPort = (port as number | undefined) ?? portOf(advertisedUrl);
  if (listenPort === undefined) {
    throw new InvalidServerOptionsError(
      'port is needed: with push delivery and no advertisedUrl, say where the push server listens (or pass httpServer, or use delivery: pull)',
    );
  }
  return { kind: 'own', port: listenPort, host: (host as string | undefined) ?? DEFAULT_PUSH_HOST };
}

/**
 * The application's broker to receive from in process, or undefined to receive as `place` says.
 * @throws NoBrokerError when the options leave only the application's broker and there is none
 * @throws InvalidServerOptionsError when a push option is set without `broker` in the broker's own application
 */
export function inProcessBrokerOf(
  place: PushPlace,
  { broker, transport }: { broker: unknown; transport: MmmqTransport | undefined },
  push: ServerOptionsSplit['push'],
  attached: InProcessBrokerTransport | undefined,
): InProcessBrokerTransport | undefined {
  if (place.kind === 'in-process') {
    if (attached === undefined) throw new NoBrokerError();
    return attached;
  }
  const given = pushOptionsGiven(push);
  if (attached !== undefined && broker === undefined && transport === undefined && given.length > 0) {
    throw new InvalidServerOptionsError(
      `${given[0]} is set, but this application imports MmmqBrokerModule and broker is not set: its @EventPattern ` +
        `handlers receive from that broker in process, and nothing is pushed. Remove ${given.join(', ')}, or set broker ` +
        `to receive pushes over HTTP`,
    );
  }
  return undefined;
}

function pushOptionsGiven(push: ServerOptionsSplit['push']): string[] {
  return (['httpServer', 'port', 'host', 'advertisedUrl'] as const).filter((option) => push[option] !== undefined);
}

/** The port of an `http(s)://` URL, explicit or implied; undefined when there is none to read. */
function portOf(url: unknown): number | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.port !== '') return Number(parsed.port);
    return parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : undefined;
  } catch {
    return undefined;
  }
}
