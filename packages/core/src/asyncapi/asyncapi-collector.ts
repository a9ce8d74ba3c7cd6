import { ASYNCAPI_CONTRIBUTOR, asyncApiContributorOf, type AsyncApiContributor } from './asyncapi-contributor';
import type { AsyncApiOperation } from './asyncapi-operation';

/** One module of a Nest application, as `ModulesContainer` holds it (read structurally: core does not import `@nestjs/core`). */
interface ContainerModule {
  providers: ReadonlyMap<unknown, { instance: unknown }>;
  controllers: ReadonlyMap<unknown, { instance: unknown }>;
}

/** What the collector reads of Nest's `ModulesContainer`. */
export interface AsyncApiContainer {
  values(): Iterable<ContainerModule>;
  /** The application's microservice strategies (replayed to each new subscriber), where MmmqServer is found. */
  getRpcTargetRegistry?(): { subscribe(next: (target: unknown) => void): { unsubscribe(): void } };
}

/**
 * Every operation the application declares: asks each contributor among its providers (the consumer's listeners, a
 * producer's declared events) and its microservice strategies (MmmqServer's `@EventPattern`/`@MessagePattern`
 * handlers), handing them the controllers, once each even when a provider is aliased.
 */
export function collectAsyncApiOperations(container: AsyncApiContainer): AsyncApiOperation[] {
  const contributors = new Set<AsyncApiContributor>();
  for (const module of container.values()) {
    for (const wrapper of module.providers.values()) {
      const contributor = asyncApiContributorOf(wrapper.instance);
      if (contributor !== undefined) contributors.add(contributor);
    }
  }
  const targets = container.getRpcTargetRegistry?.().subscribe((target) => {
    const contributor = asyncApiContributorOf(target);
    if (contributor !== undefined) contributors.add(contributor);
  });
  targets?.unsubscribe();
  const scope = { controllers: applicationControllers(container) };
  return [...contributors].flatMap((contributor) => [...contributor[ASYNCAPI_CONTRIBUTOR](scope)]);
}

/** The instances of the application's controllers, where `@EventPattern`/`@MessagePattern` handlers are declared. */
export function applicationControllers(container: AsyncApiContainer): object[] {
  const controllers = new Set<object>();
  for (const module of container.values()) {
    for (const wrapper of module.controllers.values()) {
      if (typeof wrapper.instance === 'object' && wrapper.instance !== null) controllers.add(wrapper.instance);
    }
  }
  return [...controllers];
}
