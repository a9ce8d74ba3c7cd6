import { Registry } from 'prom-client';
import { InvalidConsumerOptionsError, MissingPeerDependencyError, MmmqConsumerModule } from '../../src';
import { loadOptionalPeer } from '../../src/support/optional-peer';
import { initConsumer } from '../support/consumer-context';

type Extras = Pick<NonNullable<Parameters<typeof MmmqConsumerModule.forRoot>[0]>, 'health' | 'metrics'>;

/** The error `forRoot` throws for `extras`, which it checks when the module is built. */
function refusal(extras: Record<string, unknown>): unknown {
  try {
    MmmqConsumerModule.forRoot(extras as Extras);
  } catch (error) {
    return error;
  }
  throw new Error(`forRoot accepted ${JSON.stringify(extras)}`);
}

/** The paths of the controllers a module definition adds. */
function controllerPaths(extras: Extras): string[] {
  return (MmmqConsumerModule.forRoot(extras).controllers ?? []).map((controller) => Reflect.getMetadata('path', controller));
}

/** A `require` that finds nothing, as Node's does for a package that is not installed. */
function notInstalled(id: string): never {
  throw Object.assign(new Error(`Cannot find module '${id}'\nRequire stack:\n- /app/main.js`), { code: 'MODULE_NOT_FOUND' });
}

describe('MmmqConsumerModule health and metrics options, checked when the module is built', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'health not a boolean or object',
      { health: 'yes' },
      /^health must be true, false or an object \{ enabled, path, maxHandlerMs, maxQueueFullMs \}, got "yes"/,
    ],
    [
      'an unknown health key',
      { health: { pat: 'x' } },
      /^health has unknown field\(s\) pat; allowed are enabled, path, maxHandlerMs, maxQueueFullMs$/,
    ],
    ['health.enabled not a boolean', { health: { enabled: 'no' } }, /^health\.enabled must be true or false/],
    ['health.path with a leading slash', { health: { path: '/health' } }, /^health\.path must be path segments/],
    ['health.path with an empty segment', { health: { path: 'a//b' } }, /^health\.path must be path segments/],
    ['health.maxHandlerMs not positive', { health: { maxHandlerMs: 0 } }, /^health\.maxHandlerMs must be a positive integer/],
    ['health.maxQueueFullMs not an integer', { health: { maxQueueFullMs: 1.5 } }, /^health\.maxQueueFullMs must be a positive integer/],
    ['metrics an array', { metrics: [] }, /^metrics must be true, false or an object \{ enabled, path, registry \}/],
    [
      'an unknown metrics key',
      { metrics: { prefix: 'x' } },
      /^metrics has unknown field\(s\) prefix; allowed are enabled, path, registry$/,
    ],
    ['metrics.path not a string', { metrics: { path: 8080 } }, /^metrics\.path must be path segments/],
    ['metrics.registry not a Registry', { metrics: { registry: {} } }, /^metrics\.registry must be a prom-client Registry/],
  ])('refuses %s, naming the option', (_case, extras, message) => {
    const error = refusal(extras);
    expect(error).toBeInstanceOf(InvalidConsumerOptionsError);
    expect((error as Error).message).toMatch(message);
  });

  it('adds no route by default, nor with the options false or { enabled: false }', () => {
    expect(controllerPaths({})).toEqual([]);
    expect(controllerPaths({ health: false, metrics: false })).toEqual([]);
    expect(controllerPaths({ health: { enabled: false, path: 'x' }, metrics: { enabled: false } })).toEqual([]);
  });

  it('adds the routes at their default paths with true, at the given ones with an object, also through forRootAsync', () => {
    expect(controllerPaths({ health: true, metrics: { registry: new Registry() } })).toEqual(['health', 'metrics']);
    expect(controllerPaths({ health: { path: 'probes/worker' }, metrics: { path: 'worker/metrics', registry: new Registry() } })).toEqual([
      'probes/worker',
      'worker/metrics',
    ]);
    const async = MmmqConsumerModule.forRootAsync({ useFactory: () => ({}), health: { path: 'h' } });
    expect((async.controllers ?? []).map((controller) => Reflect.getMetadata('path', controller))).toEqual(['h']);
  });

  it('names health or metrics returned by a forRootAsync factory, where they come too late to add routes', async () => {
    const failure = initConsumer({
      imports: [MmmqConsumerModule.forRootAsync({ useFactory: () => ({ app: 'billing', health: true }) as never })],
    });
    await expect(failure).rejects.toBeInstanceOf(InvalidConsumerOptionsError);
    await expect(failure).rejects.toThrow(
      "health must be given beside useFactory (forRootAsync({ useFactory, health })), not in the factory's result",
    );
  });

  it('names the missing package and the option that needs it', () => {
    const error = (() => {
      try {
        return loadOptionalPeer('@nestjs/terminus', 'health', notInstalled);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(MissingPeerDependencyError);
    expect(error).toMatchObject({ packageName: '@nestjs/terminus', option: 'health' });
    expect((error as Error).message).toBe(
      'The MmmqConsumerModule option health needs the package @nestjs/terminus, which is not installed: install it (npm install @nestjs/terminus) or leave health out',
    );
  });

  it("keeps a package's own failure to load as it is: only the package missing is a missing peer", () => {
    const brokenInside = () => notInstalled('some-dependency-of-prom-client');
    expect(() => loadOptionalPeer('prom-client', 'metrics', brokenInside)).toThrow(/^Cannot find module 'some-dependency-of-prom-client'/);
  });

  it.each([
    ['health', '@nestjs/terminus'],
    ['metrics', 'prom-client'],
  ])('refuses %s when %s is not installed, and starts without it when the option is off', (option, packageName) => {
    jest.isolateModules(() => {
      jest.doMock(packageName, () => notInstalled(packageName));
      const isolated = jest.requireActual<typeof import('../../src')>('../../src');
      expect(() => isolated.MmmqConsumerModule.forRoot({ [option]: true })).toThrow(
        `The MmmqConsumerModule option ${option} needs the package ${packageName}, which is not installed`,
      );
      expect(isolated.MmmqConsumerModule.forRoot().controllers ?? []).toEqual([]);
    });
  });
});
