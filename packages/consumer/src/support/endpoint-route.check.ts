import { Injectable, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_PATH, PATH_METADATA } from './nest-internals';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';

/** The option a controller of the consumer serves, and the path to suggest when its own is taken. */
export interface ConsumerEndpoint {
  option: 'health' | 'metrics' | 'asyncapi';
  suggestedPath: string;
}

const CONSUMER_ENDPOINT = Symbol('MMMQ_CONSUMER_ENDPOINT');

/** Marks a controller the consumer adds for its `health`, `metrics` or `asyncapi` option, so its routes are checked. */
export function ConsumerEndpoint(endpoint: ConsumerEndpoint): ClassDecorator {
  return (target) => Reflect.defineMetadata(CONSUMER_ENDPOINT, endpoint, target);
}

interface ServedRoute {
  path: string;
  controller: Type;
  module: string;
}

/**
 * Refuses to start when a `GET` route of the consumer's `health`, `metrics` or `asyncapi` is declared by another
 * controller too: express would serve whichever was mounted first, silently, and fastify fail with a message naming no
 * option. A broker in the same application serves `/health/live`, `/health/ready` and `/metrics` by default, and a
 * producer with `asyncapi` serves `/asyncapi.json`.
 */
@Injectable()
export class EndpointRouteCheck {
  /**
   * Checked when the providers are made (`NestFactory.create`): the routes are mounted after, and fastify would refuse
   * a duplicate there first.
   * @throws InvalidConsumerOptionsError naming the option whose route is taken
   */
  constructor(private readonly modules: ModulesContainer) {
    const served = this.servedGetRoutes();
    for (const own of served) {
      const endpoint = Reflect.getMetadata(CONSUMER_ENDPOINT, own.controller) as ConsumerEndpoint | undefined;
      if (endpoint === undefined) continue;
      const { option, suggestedPath } = endpoint;
      const other = served.find((route) => route.path === own.path && route.controller !== own.controller);
      if (other !== undefined) {
        throw new InvalidConsumerOptionsError(
          `MmmqConsumerModule option ${option}: GET ${own.path} is served already by ${other.controller.name} of ${other.module}; ` +
            `give the consumer's another path, e.g. ${option}: { path: '${suggestedPath}' }, or turn the other route off`,
        );
      }
    }
  }

  /** Every `GET` (or any-method) route the application's controllers declare, with the module's `RouterModule` path. */
  private servedGetRoutes(): ServedRoute[] {
    const scanner = new MetadataScanner();
    const routes: ServedRoute[] = [];
    for (const module of this.modules.values()) {
      const modulePath = metadataPaths(
        Reflect.getMetadata(MODULE_PATH + this.modules.applicationId, module.metatype) ?? Reflect.getMetadata(MODULE_PATH, module.metatype),
      );
      for (const wrapper of module.controllers.values()) {
        const controller = wrapper.metatype as Type | null;
        if (!controller?.prototype) continue;
        const controllerPaths = metadataPaths(Reflect.getMetadata(PATH_METADATA, controller));
        for (const name of scanner.getAllMethodNames(controller.prototype)) {
          const handler = controller.prototype[name] as object;
          const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
          if (method !== RequestMethod.GET && method !== RequestMethod.ALL) continue;
          for (const prefix of modulePath)
            for (const base of controllerPaths)
              for (const path of metadataPaths(Reflect.getMetadata(PATH_METADATA, handler))) {
                routes.push({ path: joinPath(prefix, base, path), controller, module: module.metatype.name });
              }
        }
      }
    }
    return routes;
  }
}

function metadataPaths(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' ? [value] : [''];
}

function joinPath(...parts: string[]): string {
  return (
    '/' +
    parts
      .flatMap((part) => part.split('/'))
      .filter((segment) => segment !== '')
      .join('/')
  );
}
