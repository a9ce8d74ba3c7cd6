import { Injectable, Scope } from '@nestjs/common';
import {
  InvalidConsumerOptionsError,
  InvalidListenerError,
  MessageContext,
  MMMQListener,
  MmmqConsumerModule,
  Payload,
  Ctx,
} from '../../src';
import { initConsumer } from '../support/consumer-context';
import { OrderCreated } from '../support/order-created.dto';

/** Bootstraps an application with `providers` and the given consumer options, expecting it to fail. */
function bootstrap(providers: Function[], options: Parameters<typeof MmmqConsumerModule.forRoot>[0] = {}) {
  return initConsumer({ imports: [MmmqConsumerModule.forRoot(options)], providers: providers as never[] });
}

describe('a misconfigured listener fails bootstrap, naming its class and method', () => {
  it('refuses a handler with two content parameters', async () => {
    @Injectable()
    class TwoContents {
      // @ts-expect-error the compiler refuses it too; the bootstrap check covers JavaScript and loosely typed code
      @MMMQListener('order.created')
      onCreated(order: OrderCreated, other: OrderCreated): void {
        void [order, other];
      }
    }
    const failure = bootstrap([TwoContents]);
    await expect(failure).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(failure).rejects.toThrow(/TwoContents\.onCreated has a second parameter of type OrderCreated/);
  });

  it('refuses a handler with more than two parameters', async () => {
    @Injectable()
    class ThreeParameters {
      // @ts-expect-error the compiler refuses it too
      @MMMQListener('order.created')
      onCreated(order: OrderCreated, context: MessageContext, extra: string): void {
        void [order, context, extra];
      }
    }
    await expect(bootstrap([ThreeParameters])).rejects.toThrow(/ThreeParameters\.onCreated declares 3 parameters/);
  });

  it('refuses a MessageContext in the content position', async () => {
    @Injectable()
    class ContextFirst {
      @MMMQListener('order.created')
      onCreated(context: MessageContext): void {
        void context;
      }
    }
    await expect(bootstrap([ContextFirst])).rejects.toThrow(/ContextFirst\.onCreated takes MessageContext as its first parameter/);
  });

  it('refuses a blank pattern', async () => {
    @Injectable()
    class BlankPattern {
      @MMMQListener('  ')
      onAnything(): void {}
    }
    const failure = bootstrap([BlankPattern]);
    await expect(failure).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(failure).rejects.toThrow(/BlankPattern\.onAnything has an invalid topic pattern: Topic pattern must not be blank/);
  });

  it('refuses a malformed pattern', async () => {
    @Injectable()
    class DoubledDot {
      @MMMQListener({ pattern: 'order..created' })
      onCreated(): void {}
    }
    await expect(bootstrap([DoubledDot])).rejects.toThrow(/DoubledDot\.onCreated has an invalid topic pattern: .*empty segment/);
  });

  it('refuses a class listener whose listens() gives a blank pattern', async () => {
    @Injectable()
    @MMMQListener()
    class BlankInterface implements MMMQListener {
      listens(): string {
        return '';
      }
      handle(): void {}
    }
    await expect(bootstrap([BlankInterface])).rejects.toThrow(/BlankInterface\.handle has an invalid topic pattern/);
  });

  it('refuses a class listener whose handle() takes three parameters', async () => {
    @Injectable()
    @MMMQListener('order.created')
    class WideHandle implements MMMQListener {
      handle(a: unknown, b: MessageContext, c?: unknown): void {
        void [a, b, c];
      }
    }
    await expect(bootstrap([WideHandle])).rejects.toThrow(/WideHandle\.handle declares 3 parameters/);
  });

  it('refuses a class listener whose decorator and listens() name different patterns', async () => {
    @Injectable()
    @MMMQListener('order.created')
    class Disagreeing implements MMMQListener {
      listens(): string {
        return 'order.*';
      }
      handle(): void {}
    }
    await expect(bootstrap([Disagreeing])).rejects.toThrow(
      'Disagreeing: @MMMQListener says "order.created" but listens() returns "order.*"; they must agree',
    );
  });

  it('refuses a decorated class without a handle() method', async () => {
    @Injectable()
    // @ts-expect-error the compiler refuses it too
    @MMMQListener('order.created')
    class NoHandle {
      onCreated(): void {}
    }
    await expect(bootstrap([NoHandle])).rejects.toThrow(/NoHandle is decorated with @MMMQListener but has no handle\(\) method/);
  });

  it('refuses a class listener whose handle() is decorated as well', async () => {
    @Injectable()
    @MMMQListener('order.created')
    class BothStyles {
      @MMMQListener('order.created')
      handle(): void {}
    }
    await expect(bootstrap([BothStyles])).rejects.toThrow(
      /BothStyles\.handle is decorated with @MMMQListener in a class that is decorated/,
    );
  });

  it('refuses a decorated parameter next to an undecorated one', async () => {
    @Injectable()
    class HalfDecorated {
      @MMMQListener('order.created')
      onCreated(@Payload() order: OrderCreated, context: MessageContext): void {
        void [order, context];
      }
    }
    await expect(bootstrap([HalfDecorated])).rejects.toThrow(/HalfDecorated\.onCreated: parameter 2 has no parameter decorator/);
  });

  it('refuses an @Ctx() parameter of another type', async () => {
    @Injectable()
    class WrongContext {
      // @ts-expect-error the compiler refuses it too; the bootstrap check covers JavaScript and loosely typed code
      @MMMQListener('order.created')
      onCreated(@Payload() order: OrderCreated, @Ctx() context: OrderCreated): void {
        void [order, context];
      }
    }
    await expect(bootstrap([WrongContext])).rejects.toThrow(
      /WrongContext\.onCreated: the @Ctx\(\) parameter 2 must be typed MessageContext, not OrderCreated/,
    );
  });

  it('refuses an unknown decorator option', async () => {
    @Injectable()
    class Misspelt {
      @MMMQListener({ pattern: 'order.created', consumerID: 'billing.orders' } as never)
      onCreated(): void {}
    }
    await expect(bootstrap([Misspelt])).rejects.toThrow(/Misspelt\.onCreated: @MMMQListener has unknown option\(s\) consumerID/);
  });

  it('refuses two listeners with one consumer id, naming both', async () => {
    @Injectable()
    class First {
      @MMMQListener({ pattern: 'order.created', consumerId: 'billing.orders' })
      onCreated(): void {}
    }
    @Injectable()
    class Second {
      @MMMQListener({ pattern: 'order.cancelled', consumerId: 'billing.orders' })
      onCancelled(): void {}
    }
    await expect(bootstrap([First, Second])).rejects.toThrow(
      /First\.onCreated and Second\.onCancelled have the same consumer id billing\.orders/,
    );
  });

  it('refuses a consumer id that cannot name a dead-letter topic', async () => {
    @Injectable()
    class DottedId {
      @MMMQListener({ pattern: 'order.created', consumerId: 'billing.' })
      onCreated(): void {}
    }
    await expect(bootstrap([DottedId])).rejects.toThrow(/DottedId\.onCreated has an invalid consumer id: .*cannot start or end with a dot/);
  });

  it('refuses two decorators on one method', async () => {
    @Injectable()
    class Twice {
      @MMMQListener('order.created')
      @MMMQListener('order.cancelled')
      onOrder(): void {}
    }
    await expect(bootstrap([Twice])).rejects.toThrow(/Twice\.onOrder has 2 @MMMQListener decorators/);
  });

  it('refuses a class listener that is request-scoped', async () => {
    @Injectable({ scope: Scope.REQUEST })
    @MMMQListener('order.created')
    class PerRequestClass {
      handle(): void {}
    }
    await expect(bootstrap([PerRequestClass])).rejects.toThrow(/PerRequestClass has listeners but is request-scoped or transient/);
  });

  it('refuses a listener that is request-scoped', async () => {
    @Injectable({ scope: Scope.REQUEST })
    class PerRequest {
      @MMMQListener('order.created')
      onCreated(): void {}
    }
    await expect(bootstrap([PerRequest])).rejects.toThrow(/PerRequest has listeners but is request-scoped or transient/);
  });

  it('refuses a listeners entry that names no listener', async () => {
    @Injectable()
    class Known {
      @MMMQListener('order.created')
      onCreated(): void {}
    }
    const failure = bootstrap([Known], { listeners: { 'Known.onCreatd': { concurrency: 2 } } });
    await expect(failure).rejects.toBeInstanceOf(InvalidConsumerOptionsError);
    await expect(failure).rejects.toThrow(
      'listeners["Known.onCreatd"] names no listener of this application; known listeners: Known.onCreated',
    );
  });
});
