import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { Inject, Injectable, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { InvalidConsumerOptionsError, MMMQ_CONSUMER_OPTIONS, MmmqConsumerModule, MmmqConsumerOptions, MMMQListener } from '../src';
import { ListenerRegistry } from '../src/listener/listener-registry';
import { initConsumer } from './support/consumer-context';

@Injectable()
class OrderListener {
  @MMMQListener('order.*')
  onOrder(): void {}
}

describe('MmmqConsumerModule', () => {
  it('starts with forRoot() and no options', async () => {
    const { app } = await initConsumer({ imports: [MmmqConsumerModule.forRoot()], providers: [OrderListener] });
    expect(
      app
        .get(ListenerRegistry)
        .all()
        .map((listener) => listener.consumerId),
    ).toEqual(['order-listener.on-order']);
    await app.close();
  });

  it('takes its options from @nestjs/config through forRootAsync, listener settings included', async () => {
    const { app } = await initConsumer({
      imports: [
        ConfigModule.forRoot({
          ignoreEnvFile: true,
          load: [() => ({ MMMQ_APP: 'billing', ORDER_CONCURRENCY: 4 })],
        }),
        MmmqConsumerModule.forRootAsync({
          imports: [ConfigModule],
          inject: [ConfigService],
          useFactory: (config: ConfigService): MmmqConsumerOptions => ({
            app: config.getOrThrow<string>('MMMQ_APP'),
            listeners: { 'OrderListener.onOrder': { concurrency: config.getOrThrow<number>('ORDER_CONCURRENCY') } },
          }),
        }),
      ],
      providers: [OrderListener],
    });
    expect(app.get(ListenerRegistry).all()).toEqual([
      expect.objectContaining({ consumerId: 'billing.order-listener.on-order', concurrency: 4 }),
    ]);
    await app.close();
  });

  it('fails bootstrap with an error naming the offending option', async () => {
    const failure = initConsumer({ imports: [MmmqConsumerModule.forRoot({ queueSize: -5 })], providers: [OrderListener] });
    await expect(failure).rejects.toBeInstanceOf(InvalidConsumerOptionsError);
    await expect(failure).rejects.toThrow('queueSize must be a positive integer, got -5');
  });

  it('makes its options injectable in every module with isGlobal', async () => {
    @Injectable()
    class ReadsOptions {
      constructor(@Inject(MMMQ_CONSUMER_OPTIONS) readonly options: MmmqConsumerOptions) {}
    }
    @Module({ providers: [ReadsOptions] })
    class FeatureModule {}

    const { app } = await initConsumer({ imports: [MmmqConsumerModule.forRoot({ app: 'billing', isGlobal: true }), FeatureModule] });
    expect(app.get(ReadsOptions).options).toMatchObject({ app: 'billing' });
    await app.close();
  });

  it('subscribes listeners to an InMemoryBroker instead of registering with a broker', async () => {
    const options = { app: 'billing', broker: 'http://127.0.0.1:9', advertisedUrl: 'http://127.0.0.1:10' };
    const { app, logs } = await initConsumer({
      imports: [MmmqTestingModule.forRoot(), MmmqConsumerModule.forRoot(options)],
      providers: [OrderListener],
    });
    const broker = app.get(InMemoryBroker);
    broker.publish({ topic: 'order.created', content: {} });
    await broker.drain();
    expect(broker.deadLetters()).toEqual([]);
    expect(logs.lines).toContain('1 listener(s) subscribed to the in-memory broker; self-registration is skipped');
    await app.close();
  });
});
