import { ASYNCAPI_CONTRIBUTOR, collectAsyncApiOperations, type AsyncApiContainer, type AsyncApiOperation } from '../../src/internal';

describe('collectAsyncApiOperations', () => {
  const operation: AsyncApiOperation = { action: 'send', address: 'a', source: 'S', payload: { kind: 'any' } };
  const contributor = { [ASYNCAPI_CONTRIBUTOR]: () => [operation] };

  function container(providers: unknown[], rpcTargets: unknown[] = []): AsyncApiContainer {
    const wrappers = new Map(providers.map((instance, i) => [i, { instance }]));
    return {
      values: () => [{ providers: wrappers, controllers: new Map() }],
      getRpcTargetRegistry: () => ({
        subscribe: (next: (target: unknown) => void) => {
          rpcTargets.forEach(next);
          return { unsubscribe: () => undefined };
        },
      }),
    };
  }

  it('asks each contributor once, an aliased provider and a microservice strategy included', () => {
    const strategy = { [ASYNCAPI_CONTRIBUTOR]: () => [{ ...operation, address: 'b' }] };

    const operations = collectAsyncApiOperations(container([contributor, contributor, {}, null], [strategy, {}]));

    expect(operations.map((found) => found.address)).toEqual(['a', 'b']);
  });

  it('calls no proxy, which may answer any property with a function', () => {
    const autoMock = new Proxy({}, { get: () => () => 'not operations' });

    expect(collectAsyncApiOperations(container([autoMock, contributor]))).toEqual([operation]);
  });
});
