import { Injectable, Scope } from '@nestjs/common';
import { InvalidConsumerOptionsError, InvalidListenerError, MessageContext, MMMQListener, Payload, Ctx } from '../../src';
import { bootstrapListeners } from '../support/listener-bootstrap';
import { OrderCreated } from '../support/order-created.dto';

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
    const failure = bootstrapListeners([TwoContents]);
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
    await expect(bootstrapListeners([ThreeParameters])).rejects.toThrow(/ThreeParameters\.onCreated declares 3 parameters/);
  });

  it('refuses a MessageContext in the content position', async () => {
    @Injectable()
    class ContextFirst {
      @MMMQListener('order.created')
      onCreated(context: MessageContext): void {
        void context;
      }
    }
    await expect(bootstrapListeners([ContextFirst])).rejects.toThrow(/ContextFirst\.onCreated takes MessageContext as its first parameter/);
  });

  it('refuses a blank pattern', async () => {
    @Injectable()
    class BlankPattern {
      @MMMQListener('  ')
      onAnything(): void {}
    }
    const failure = bootstrapListeners([BlankPattern]);
    await expect(failure).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(failure).rejects.toThrow(/BlankPattern\.onAnything has an invalid topic pattern: Topic pattern must not be blank/);
  });

  it('refuses a malformed pattern', async () => {
    @Injectable()
    class DoubledDot {
      @MMMQListener({ pattern: 'order..created' })
      onCreated(): void {}
    }
    await expect(bootstrapListeners([DoubledDot])).rejects.toThrow(/DoubledDot\.onCreated has an invalid topic pattern: .*empty segment/);
  });

  it('refuses an undecorated parameter of another type than MessageContext next to a decorated one', async () => {
    @Injectable()
    class HalfDecorated {
      // @ts-expect-error the compiler refuses it too; the bootstrap check covers JavaScript and loosely typed code
      @MMMQListener('order.created')
      onCreated(@Payload() order: OrderCreated, note: string): void {
        void [order, note];
      }
    }
    const failure = bootstrapListeners([HalfDecorated]);
    await expect(failure).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(failure).rejects.toThrow(
      /HalfDecorated\.onCreated: parameter 2 \(String\) has no parameter decorator.*decorate it with @Payload\(\) for the content or @Ctx\(\) for the MessageContext/,
    );
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
    await expect(bootstrapListeners([WrongContext])).rejects.toThrow(
      /WrongContext\.onCreated: the @Ctx\(\) parameter 2 must be typed MessageContext, not OrderCreated/,
    );
  });

  it('refuses an unknown decorator option', async () => {
    @Injectable()
    class Misspelt {
      @MMMQListener({ pattern: 'order.created', consumerID: 'billing.orders' } as never)
      onCreated(): void {}
    }
    await expect(bootstrapListeners([Misspelt])).rejects.toThrow(/Misspelt\.onCreated: @MMMQListener has unknown option\(s\) consumerID/);
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
    await expect(bootstrapListeners([First, Second])).rejects.toThrow(
      /First\.onCreated and Second\.onCancelled have the same consumer id billing\.orders/,
    );
  });

  it('refuses a consumer id that cannot name a dead-letter topic', async () => {
    @Injectable()
    class DottedId {
      @MMMQListener({ pattern: 'order.created', consumerId: 'billing.' })
      onCreated(): void {}
    }
    await expect(bootstrapListeners([DottedId])).rejects.toThrow(
      /DottedId\.onCreated has an invalid consumer id: .*cannot start or end with a dot/,
    );
  });

  it('refuses two decorators on one method', async () => {
    @Injectable()
    class Twice {
      @MMMQListener('order.created')
      @MMMQListener('order.cancelled')
      onOrder(): void {}
    }
    await expect(bootstrapListeners([Twice])).rejects.toThrow(/Twice\.onOrder has 2 @MMMQListener decorators/);
  });

  it('refuses a listener that is request-scoped', async () => {
    @Injectable({ scope: Scope.REQUEST })
    class PerRequest {
      @MMMQListener('order.created')
      onCreated(): void {}
    }
    await expect(bootstrapListeners([PerRequest])).rejects.toThrow(/PerRequest has listeners but is request-scoped or transient/);
  });

  it('refuses a listeners entry that names no listener', async () => {
    @Injectable()
    class Known {
      @MMMQListener('order.created')
      onCreated(): void {}
    }
    const failure = bootstrapListeners([Known], { listeners: { 'Known.onCreatd': { concurrency: 2 } } });
    await expect(failure).rejects.toBeInstanceOf(InvalidConsumerOptionsError);
    await expect(failure).rejects.toThrow(
      'listeners["Known.onCreatd"] names no listener of this application; known listeners: Known.onCreated',
    );
  });
});
