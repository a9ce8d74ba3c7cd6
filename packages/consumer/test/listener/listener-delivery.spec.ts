import { MmmqBrokerModule } from '@mmmq/broker';
import { makeTempDir, removeTempDir } from '@mmmq/test-support';
import { Injectable } from '@nestjs/common';
import { InvalidConsumerOptionsError, InvalidListenerError, MMMQListener, MmmqConsumerModule } from '../../src';
import { initConsumer } from '../support/consumer-context';
import { bootstrapListeners } from '../support/listener-bootstrap';

@Injectable()
class Pushing {
  @MMMQListener('order.*')
  onOrder(): void {}
}

@Injectable()
class Pulling {
  @MMMQListener('invoice.*', { delivery: 'pull' })
  onInvoice(): void {}
}

describe('a listener whose delivery cannot work fails bootstrap, naming it and the fix', () => {
  it('refuses a listener that pulls when the module sets no broker', async () => {
    const failure = bootstrapListeners([Pulling]);
    await expect(failure).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(failure).rejects.toThrow('Pulling.onInvoice: delivery is "pull" but broker is not set; set broker');
  });

  it('refuses a listener that pulls when nothing names its consumer ids (no app)', async () => {
    await expect(bootstrapListeners([Pulling], { broker: 'http://127.0.0.1:1' })).rejects.toThrow(
      'Pulling.onInvoice: delivery is "pull" but app is not set',
    );
  });

  it('refuses pull settings that no listener uses', async () => {
    await expect(bootstrapListeners([Pushing], { pull: { prefetch: 5 } })).rejects.toThrow(
      `pull is set but no listener pulls; set delivery: 'pull' on the module or on a listener to use it`,
    );
  });

  it('refuses an advertisedUrl when every listener pulls', async () => {
    const options = { app: 'billing', broker: 'http://127.0.0.1:1', delivery: 'pull' as const, advertisedUrl: 'http://127.0.0.1:2' };
    await expect(bootstrapListeners([Pulling], options)).rejects.toThrow('advertisedUrl is set but every listener pulls');
  });

  it('refuses a delivery that is neither push nor pull, in the decorator or in the listeners option', async () => {
    @Injectable()
    class Polling {
      @MMMQListener('order.*', { delivery: 'poll' as never })
      onOrder(): void {}
    }
    await expect(bootstrapListeners([Polling])).rejects.toThrow('Polling.onOrder: delivery must be "push" or "pull", got "poll"');
    const configured = bootstrapListeners([Pushing], { listeners: { 'Pushing.onOrder': { delivery: 'stream' as never } } });
    await expect(configured).rejects.toBeInstanceOf(InvalidConsumerOptionsError);
    await expect(configured).rejects.toThrow('listeners["Pushing.onOrder"].delivery must be one of "push", "pull", got "stream"');
  });

  it("refuses a listener's delivery in the broker's own application, where listeners receive in process", async () => {
    const dataDir = await makeTempDir();
    try {
      const failure = initConsumer({
        imports: [MmmqBrokerModule.forRoot({ persistence: { rootDir: dataDir } }), MmmqConsumerModule.forRoot()],
        providers: [Pulling],
      });
      await expect(failure).rejects.toThrow(
        'Pulling.onInvoice: delivery is "pull" but this application runs the broker and the module sets no broker, so its ' +
          'listeners receive in process; remove delivery, or set broker to receive over HTTP',
      );
    } finally {
      await removeTempDir(dataDir);
    }
  });
});
