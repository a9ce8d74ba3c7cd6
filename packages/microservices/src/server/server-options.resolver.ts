import type { MmmqConsumerOptions } from '@mmmq/consumer';
import type { Deserializer } from '@nestjs/microservices';
import { Server as NetServer } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import { InvalidServerOptionsError } from '../errors/invalid-server-options.error';
import { DEFAULT_PUSH_HOST, MmmqServerOptions } from './mmmq-server.options';

/** Where pushes arrive, once the options are checked. */
export type PushPlace = { kind: 'shared'; server: HttpServer } | { kind: 'own'; port: number | undefined; host: string } | { kind: 'none' };

/** The transport's own options, apart from those the consumer checks. */
export interface ServerSettings {
  consumer: MmmqConsumerOptions;
  push: PushPlace;
  deserializer: Deserializer | undefined;
}

/** @throws InvalidServerOptionsError naming the option */
export function splitServerOptions(options: MmmqServerOptions): ServerSettings {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidServerOptionsError(`MmmqServer options must be an object, got ${options === null ? 'null' : typeof options}`);
  }
  const { httpServer, port, host, deserializer, ...consumer } = options;
  if (deserializer !== undefined && typeof (deserializer as Deserializer)?.deserialize !== 'function') {
    throw new InvalidServerOptionsError('deserializer must have a deserialize(value, options) method');
  }
  return { consumer, push: pushPlace(options.delivery ?? 'push', httpServer, port, host), deserializer };
}

function pushPlace(delivery: string, httpServer: unknown, port: unknown, host: unknown): PushPlace {
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
  return { kind: 'own', port: port as number | undefined, host: (host as string | undefined) ?? DEFAULT_PUSH_HOST };
}
