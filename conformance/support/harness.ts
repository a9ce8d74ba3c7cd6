import { MmmqConsumerModule, MmmqConsumerOptions } from '@mmmq/consumer';
import { MmmqProducerModule, MmmqProducerOptions, Producer } from '@mmmq/producer';
import { freePort } from '@mmmq/test-support';
import { INestApplication, Module, ModuleMetadata, Provider, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { SessionOptions, TransportSession, TransportUnderTest } from './transport-under-test';

/** Consumer options a test may set: the same on every transport. */
export type ConsumerTestOptions = Pick<MmmqConsumerOptions, 'ackMode' | 'shutdownTimeoutMs' | 'listeners'>;

/** A running consumer application. */
export interface ConsumerInstance {
  app: INestApplication;
  get<T>(type: Type<T>): T;
  /** Closes it as a deployment would (graceful shutdown). Idempotent. */
  close(): Promise<void>;
}

/**
 * Boots producer and consumer applications on one transport session. Every application is built from the same
 * modules with the same listener and producer code; only the options the session gives (`broker`/`advertisedUrl`
 * or `transport`) differ between transports.
 */
export class ConformanceHarness {
  private readonly apps = new Set<INestApplication>();
  private readonly closing = new Map<INestApplication, Promise<void>>();

  private constructor(
    readonly transport: TransportUnderTest,
    readonly session: TransportSession,
  ) {}

  static async start(transport: TransportUnderTest, options: SessionOptions = {}): Promise<ConformanceHarness> {
    return new ConformanceHarness(transport, await transport.start(options));
  }

  /** A producer application's `Producer`. */
  async producer(options: Omit<MmmqProducerOptions, 'broker'> = {}): Promise<Producer> {
    const app = await this.boot({ imports: [MmmqProducerModule.forRoot({ ...this.session.producerOptions(), ...options })] });
    await app.init();
    return app.get(Producer);
  }

  /** A consumer application named `app` with `listeners` (classes with `@MMMQListener` methods); resolves once they receive. */
  async consumer(app: string, listeners: Provider[], options: ConsumerTestOptions = {}): Promise<ConsumerInstance> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const module = MmmqConsumerModule.forRoot({ ...this.session.consumerOptions(url), app, ...options });
    const nest = await this.boot({ imports: [module], providers: listeners });
    await nest.listen(port, '127.0.0.1');
    await this.session.ready(nest);
    return { app: nest, get: (type) => nest.get(type), close: () => this.closeApp(nest) };
  }

  /** Closes every application, then the session. */
  async close(): Promise<void> {
    await Promise.all([...this.apps].map((app) => this.closeApp(app)));
    await this.session.close();
  }

  private async boot(metadata: ModuleMetadata): Promise<INestApplication> {
    @Module({ ...metadata, imports: [...(this.session.imports() as ModuleMetadata['imports'] & object), ...(metadata.imports ?? [])] })
    class ConformanceAppModule {}
    // abortOnError false: a failing bootstrap rejects here instead of ending the test process.
    const app = await NestFactory.create(ConformanceAppModule, { abortOnError: false });
    this.apps.add(app);
    return app;
  }

  private closeApp(app: INestApplication): Promise<void> {
    let closed = this.closing.get(app);
    if (!closed) {
      closed = app.close().finally(() => this.apps.delete(app));
      this.closing.set(app, closed);
    }
    return closed;
  }
}
