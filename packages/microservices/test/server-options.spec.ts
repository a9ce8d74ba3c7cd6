import { Controller, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, MessageHandler } from '@nestjs/microservices';
import { ConsumerRuntime } from '@mmmq/consumer/internal';
import { createServer } from 'node:http';
import { InvalidServerOptionsError, MmmqServer, MmmqServerOptions } from '../src';
import { eventListeners } from '../src/server/event-listeners';

/** Nothing listens here: these tests fail before any request, or never send one (pull, registration in the background). */
const BROKER = 'http://127.0.0.1:9';
const PUSH = { app: 'shop', broker: BROKER, advertisedUrl: 'http://127.0.0.1:9' };

const construct = (options: unknown) => () => new MmmqServer(options as MmmqServerOptions);

describe('MmmqServer options, checked at construction', () => {
  it('refuses an unknown option, naming it', () => {
    expect(construct({ ...PUSH, prot: 8080 })).toThrow(/prot/);
  });

  it('refuses an httpServer that is no server', () => {
    expect(construct({ ...PUSH, httpServer: {} })).toThrow(
      new InvalidServerOptionsError('httpServer must be a Node HTTP server, e.g. app.getHttpServer()'),
    );
  });

  it('refuses port or host with httpServer', () => {
    const httpServer = createServer();
    expect(construct({ ...PUSH, httpServer, port: 3000 })).toThrow(/port cannot be set with httpServer/);
    expect(construct({ ...PUSH, httpServer, host: '127.0.0.1' })).toThrow(/host cannot be set with httpServer/);
  });

  it('refuses port, host or httpServer with pull delivery', () => {
    expect(construct({ app: 'shop', broker: BROKER, delivery: 'pull', port: 3000 })).toThrow(
      new InvalidServerOptionsError(`port is for push delivery; with delivery: 'pull' nothing is pushed`),
    );
    expect(construct({ app: 'shop', broker: BROKER, delivery: 'pull', httpServer: createServer() })).toThrow(
      /^httpServer is for push delivery/,
    );
  });

  it.each([70_000, -1, 1.5, '3000'])('refuses port %p', (port) => {
    expect(construct({ ...PUSH, port })).toThrow(/^port must be an integer from 0 to 65535/);
  });

  it('refuses a deserializer without deserialize()', () => {
    expect(construct({ ...PUSH, deserializer: {} })).toThrow(/^deserializer must have a deserialize/);
  });

  it('accepts the options of a push and a pull microservice', () => {
    expect(construct({ ...PUSH, port: 0, host: '127.0.0.1' })).not.toThrow();
    expect(construct({ ...PUSH, httpServer: createServer() })).not.toThrow();
    expect(construct({ app: 'shop', broker: BROKER, delivery: 'pull' })).not.toThrow();
  });
});

/** `app.listen()` of a pull microservice with these controllers: what it fails with. */
async function listenFailure(controllers: Type[], options: Partial<MmmqServerOptions> = {}): Promise<unknown> {
  @Module({ controllers })
  class OptionsTestModule {}
  const server = new MmmqServer({ app: 'shop', broker: BROKER, delivery: 'pull', ...options });
  const app = await NestFactory.createMicroservice(OptionsTestModule, { strategy: server, logger: false, abortOnError: false });
  try {
    await app.listen();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await app.close();
  }
}

describe('MmmqServer handlers, checked at listen', () => {
  it('refuses two patterns with one consumer id', async () => {
    @Controller()
    class TwinController {
      @EventPattern('order.*', { consumerId: 'shop.twin' })
      orders(): void {}

      @EventPattern('invoice.*', { consumerId: 'shop.twin' })
      invoices(): void {}
    }
    const error = await listenFailure([TwinController]);
    expect(error).toBeInstanceOf(InvalidServerOptionsError);
    expect((error as Error).message).toMatch(
      /@EventPattern\("order\.\*"\) and @EventPattern\("invoice\.\*"\) would share consumer id shop\.twin/,
    );
  });

  it('refuses a listeners entry that names no pattern', async () => {
    @Controller()
    class OrdersController {
      @EventPattern('order.*')
      orders(): void {}
    }
    const error = await listenFailure([OrdersController], { listeners: { 'orders.*': { concurrency: 2 } } });
    expect(error).toBeInstanceOf(InvalidServerOptionsError);
    expect((error as Error).message).toBe(
      'listeners["orders.*"] names no @EventPattern or @MessagePattern of this application; known patterns: order.*',
    );
  });

  it('refuses invalid extras, naming the pattern', async () => {
    @Controller()
    class BadExtrasController {
      @EventPattern('order.*', { concurrency: 0 })
      orders(): void {}
    }
    const error = await listenFailure([BadExtrasController]);
    expect(error).toBeInstanceOf(InvalidServerOptionsError);
    expect((error as Error).message).toMatch(/@EventPattern\("order\.\*"\) extras.*concurrency/);
  });
});

describe('default consumer ids', () => {
  const handler = (extras: Record<string, unknown> = {}): MessageHandler =>
    Object.assign(async () => undefined, { isEventHandler: true, extras }) as unknown as MessageHandler;

  it('are {app}.{pattern} with ** → all, * → any, ? → one; extras and listeners override them', () => {
    const runtime = new ConsumerRuntime({
      app: 'shop',
      broker: BROKER,
      delivery: 'pull',
      listeners: { 'audit.**': { consumerId: 'shop.auditor' } },
    });
    const handlers = new Map([
      ['order.*', handler()],
      ['job.?', handler()],
      ['audit.**', handler()],
      ['invoice.paid', handler({ consumerId: 'billing.invoices' })],
      ['stock.**', handler()],
    ]);
    const listeners = eventListeners(handlers, runtime.options, () => async () => undefined);
    expect(Object.fromEntries(listeners.map(({ name, consumerId }) => [name, consumerId]))).toEqual({
      'order.*': 'shop.order.any',
      'job.?': 'shop.job.one',
      'audit.**': 'shop.auditor',
      'invoice.paid': 'billing.invoices',
      'stock.**': 'shop.stock.all',
    });
  });
});

describe('per-handler settings', () => {
  const handler = (extras: Record<string, unknown> = {}): MessageHandler =>
    Object.assign(async () => undefined, { isEventHandler: true, extras }) as unknown as MessageHandler;

  it('take the listeners entry over the extras setting by setting, keeping what the entry leaves out', () => {
    const runtime = new ConsumerRuntime({
      app: 'shop',
      broker: BROKER,
      delivery: 'pull',
      listeners: { 'order.*': { consumerId: 'shop.orders' } },
    });
    const handlers = new Map([['order.*', handler({ concurrency: 4, ackMode: 'manual', startFrom: 'latest' })]]);
    const [listener] = eventListeners(handlers, runtime.options, () => async () => undefined);
    expect(listener).toMatchObject({ consumerId: 'shop.orders', concurrency: 4, ackMode: 'manual', startFrom: 'latest' });
  });

  it('carry a selector from the extras, which a listeners entry overrides', () => {
    const runtime = new ConsumerRuntime({
      app: 'shop',
      broker: BROKER,
      delivery: 'pull',
      listeners: { 'invoice.*': { selector: "region = 'US'" } },
    });
    const handlers = new Map([
      ['order.*', handler({ selector: "region = 'EU'" })],
      ['invoice.*', handler({ selector: "region = 'EU'" })],
      ['stock.*', handler()],
    ]);
    const listeners = eventListeners(handlers, runtime.options, () => async () => undefined);
    expect(Object.fromEntries(listeners.map(({ name, selector }) => [name, selector]))).toEqual({
      'order.*': "region = 'EU'",
      'invoice.*': "region = 'US'",
      'stock.*': undefined,
    });
  });

  it('carry a backlog limit from the extras, which a listeners entry overrides field by field', () => {
    const runtime = new ConsumerRuntime({
      app: 'shop',
      broker: BROKER,
      delivery: 'pull',
      listeners: { 'invoice.*': { backlogOverflow: 'dropOldest' } },
    });
    const handlers = new Map([
      ['order.*', handler({ maxBacklog: 100 })],
      ['invoice.*', handler({ maxBacklog: 5 })],
      ['stock.*', handler()],
    ]);
    const listeners = eventListeners(handlers, runtime.options, () => async () => undefined);
    expect(Object.fromEntries(listeners.map(({ name, backlogLimit }) => [name, backlogLimit]))).toEqual({
      'order.*': { maxBacklog: 100, overflow: 'reject' },
      'invoice.*': { maxBacklog: 5, overflow: 'dropOldest' },
      'stock.*': undefined,
    });
  });

  it('carry maxActiveMembers and maxMembers from the extras and the listeners entries, checked together once overlaid', () => {
    const runtime = new ConsumerRuntime({
      app: 'shop',
      broker: BROKER,
      delivery: 'pull',
      listeners: { 'invoice.*': { maxMembers: 4 } },
    });
    const handlers = new Map([
      ['order.*', handler({ maxActiveMembers: 2 })],
      ['invoice.*', handler({ maxActiveMembers: 1, maxMembers: 9 })],
      ['stock.*', handler()],
    ]);
    const listeners = eventListeners(handlers, runtime.options, () => async () => undefined);
    expect(Object.fromEntries(listeners.map(({ name, maxActiveMembers, maxMembers }) => [name, { maxActiveMembers, maxMembers }]))).toEqual(
      {
        'order.*': { maxActiveMembers: 2 },
        'invoice.*': { maxActiveMembers: 1, maxMembers: 4 },
        'stock.*': {},
      },
    );
    const tooFew = new ConsumerRuntime({ app: 'shop', broker: BROKER, delivery: 'pull', listeners: { 'order.*': { maxMembers: 1 } } });
    expect(() =>
      eventListeners(new Map([['order.*', handler({ maxActiveMembers: 2 })]]), tooFew.options, () => async () => undefined),
    ).toThrow('@EventPattern("order.*"): maxMembers (1) must be at least maxActiveMembers (2)');
  });

  it('refuse a backlog overflow without a limit, naming the pattern', () => {
    const runtime = new ConsumerRuntime({ app: 'shop', broker: BROKER, delivery: 'pull' });
    const handlers = new Map([['order.*', handler({ backlogOverflow: 'deadLetter' })]]);
    expect(() => eventListeners(handlers, runtime.options, () => async () => undefined)).toThrow(
      '@EventPattern("order.*"): backlogOverflow needs maxBacklog',
    );
  });

  it('refuse a selector that does not parse, naming the pattern and the position', () => {
    const runtime = new ConsumerRuntime({ app: 'shop', broker: BROKER, delivery: 'pull' });
    const handlers = new Map([['order.*', handler({ selector: "region = = 'EU'" })]]);
    expect(() => eventListeners(handlers, runtime.options, () => async () => undefined)).toThrow(
      /@EventPattern\("order\.\*"\) extras\.selector is invalid at position 10: /,
    );
  });
});

describe('the push server’s port', () => {
  it('is the port of advertisedUrl, or the scheme’s, even when registration is off', () => {
    expect(construct({ app: 'shop', advertisedUrl: 'http://orders:3100', autoRegister: false })).not.toThrow();
    expect(construct({ app: 'shop', advertisedUrl: 'https://orders.example', autoRegister: false })).not.toThrow();
  });

  it('must be given, at construction, for push delivery without advertisedUrl or httpServer', () => {
    expect(construct({ app: 'shop', broker: BROKER })).toThrow(
      new InvalidServerOptionsError(
        'port is needed: with push delivery and no advertisedUrl, say where the push server listens (or pass httpServer, or use delivery: pull)',
      ),
    );
    expect(construct({ app: 'shop', port: 3100 })).not.toThrow();
  });

  it('is not needed without broker: the handlers may receive in process, which is checked when the microservice starts', () => {
    expect(construct({ app: 'shop' })).not.toThrow();
  });

  it('names the invalid delivery before anything that depends on it', () => {
    expect(construct({ app: 'shop', broker: BROKER, delivery: 'pul', port: 3000 })).toThrow(/delivery/);
  });
});
