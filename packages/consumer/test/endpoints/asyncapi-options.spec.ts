import { DEFAULT_ASYNCAPI_PATH, InvalidConsumerOptionsError, MmmqConsumerModule } from '../../src';
import { initConsumer } from '../support/consumer-context';

type Extras = Pick<NonNullable<Parameters<typeof MmmqConsumerModule.forRoot>[0]>, 'asyncapi'>;

/** The paths of the controllers a module definition adds. */
function controllerPaths(extras: Extras): string[] {
  return (MmmqConsumerModule.forRoot(extras).controllers ?? []).map((controller) => Reflect.getMetadata('path', controller));
}

describe('MmmqConsumerModule asyncapi option, checked when the module is built', () => {
  it.each<[string, unknown, RegExp]>([
    ['not a boolean or object', 'yes', /^asyncapi must be an object, got "yes"/],
    ['an unknown key', { pth: 'docs' }, /^asyncapi has unknown field\(s\) pth; allowed are enabled, path, title, version, description$/],
    ['enabled not a boolean', { enabled: 'no' }, /^asyncapi\.enabled must be true or false/],
    ['a path with a leading slash', { path: '/asyncapi.json' }, /^asyncapi\.path must be path segments/],
    ['a blank title', { title: ' ' }, /^asyncapi\.title must be a non-blank string/],
    ['a version that is not a string', { version: 2 }, /^asyncapi\.version must be a non-blank string, got 2/],
  ])('refuses %s, naming the option', (_case, asyncapi, message) => {
    expect(() => MmmqConsumerModule.forRoot({ asyncapi } as Extras)).toThrow(InvalidConsumerOptionsError);
    expect(() => MmmqConsumerModule.forRoot({ asyncapi } as Extras)).toThrow(message);
  });

  it('adds no route by default, nor with false or { enabled: false }; the default path with true, the given one with an object', () => {
    expect(controllerPaths({})).toEqual([]);
    expect(controllerPaths({ asyncapi: false })).toEqual([]);
    expect(controllerPaths({ asyncapi: { enabled: false, path: 'x' } })).toEqual([]);
    expect(controllerPaths({ asyncapi: true })).toEqual([DEFAULT_ASYNCAPI_PATH]);
    expect(controllerPaths({ asyncapi: { path: 'docs/asyncapi.json' } })).toEqual(['docs/asyncapi.json']);
    const async = MmmqConsumerModule.forRootAsync({ useFactory: () => ({}), asyncapi: true });
    expect((async.controllers ?? []).map((controller) => Reflect.getMetadata('path', controller))).toEqual(['asyncapi.json']);
  });

  it('names asyncapi returned by a forRootAsync factory, where it comes too late to add the route', async () => {
    const failure = initConsumer({
      imports: [MmmqConsumerModule.forRootAsync({ useFactory: () => ({ app: 'billing', asyncapi: true }) as never })],
    });
    await expect(failure).rejects.toThrow(
      "asyncapi must be given beside useFactory (forRootAsync({ useFactory, asyncapi })), not in the factory's result",
    );
  });
});
