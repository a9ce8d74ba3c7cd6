import { Controller, Get, Header, Inject, type InjectionToken, type Type } from '@nestjs/common';
import { collectAsyncApiOperations, type AsyncApiContainer } from './asyncapi-collector';
import { buildAsyncApiDocument, type AsyncApiDocument } from './asyncapi-document.builder';
import { DEFAULT_ASYNCAPI_TITLE, type ResolvedAsyncApiRoute } from './asyncapi-route.options';

/** What a module's route needs beside its settings. */
export interface AsyncApiRouteParts {
  /** Nest's `ModulesContainer` class (core does not import `@nestjs/core`). */
  container: Type<AsyncApiContainer>;
  /** A provider of the module and how to read a default title from it (the consumer's `app` name). */
  defaultTitle?: { token: InjectionToken; read(value: unknown): string | undefined };
  /** Further class decorators, e.g. the consumer's route-conflict marker. */
  decorators?: ClassDecorator[];
}

/**
 * `GET {path}`: the application's AsyncAPI 3.0 document, built on each request from what the application declares
 * (its listeners, the `@EventPattern`/`@MessagePattern` handlers of a connected MmmqServer, a producer's `events`), so
 * a microservice connected after bootstrap is in it. A class per path, since a controller's path is fixed when it is
 * declared. No guard, as the health and metrics routes: it describes the application, it does not act on it.
 */
export function asyncApiRouteController(route: Extract<ResolvedAsyncApiRoute, { enabled: true }>, parts: AsyncApiRouteParts): Type {
  const { container, defaultTitle, decorators = [] } = parts;

  @Controller(route.path)
  class MmmqAsyncApiController {
    constructor(
      @Inject(container) private readonly modules: AsyncApiContainer,
      @Inject(defaultTitle?.token ?? container) private readonly titleSource: unknown,
    ) {}

    @Get()
    @Header('Cache-Control', 'no-store')
    document(): AsyncApiDocument {
      const title = route.title ?? defaultTitle?.read(this.titleSource) ?? DEFAULT_ASYNCAPI_TITLE;
      const description = route.description === undefined ? {} : { description: route.description };
      return buildAsyncApiDocument(collectAsyncApiOperations(this.modules), { title, version: route.version, ...description });
    }
  }
  for (const decorate of decorators) decorate(MmmqAsyncApiController);
  return MmmqAsyncApiController;
}
