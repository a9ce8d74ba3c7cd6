import { Injectable, Scope } from '@nestjs/common';
import { InvalidListenerError, MessageContext, MMMQListener } from '../../src';
import { bootstrapListeners } from '../support/listener-bootstrap';

describe('a misdeclared class listener fails bootstrap, naming its class and the fix', () => {
  it('refuses a decorated class without a handle() method, saying what to add', async () => {
    @Injectable()
    // @ts-expect-error the compiler refuses it too
    @MMMQListener('order.created')
    class NoHandle {
      onCreated(): void {}
    }
    const failure = bootstrapListeners([NoHandle]);
    await expect(failure).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(failure).rejects.toThrow(/NoHandle is decorated with @MMMQListener but has no handle\(\) method; add handle\(content/);
  });

  it('refuses a listens that is not a method', async () => {
    @Injectable()
    class PropertyPattern {
      readonly listens = 'order.created';
      handle(): void {}
    }
    const failure = bootstrapListeners([PropertyPattern]);
    await expect(failure).rejects.toBeInstanceOf(InvalidListenerError);
    await expect(failure).rejects.toThrow(
      /PropertyPattern\.listens must be a method returning the topic pattern, got "order\.created"; declare listens\(\)/,
    );
  });

  it('refuses an undecorated class whose listens() returns a blank pattern', async () => {
    @Injectable()
    class BlankListens implements MMMQListener {
      listens(): string {
        return ' ';
      }
      handle(): void {}
    }
    await expect(bootstrapListeners([BlankListens])).rejects.toThrow(
      /BlankListens\.listens\(\) must return a topic pattern such as 'order\.\*' .*: Topic pattern must not be blank/,
    );
  });

  it('refuses a decorated class whose listens() returns a malformed pattern', async () => {
    @Injectable()
    @MMMQListener()
    class MalformedListens implements MMMQListener {
      listens(): string {
        return 'order..created';
      }
      handle(): void {}
    }
    await expect(bootstrapListeners([MalformedListens])).rejects.toThrow(
      /MalformedListens\.listens\(\) must return a topic pattern .*empty segment/,
    );
  });

  it('refuses a listens() that returns no pattern at all', async () => {
    @Injectable()
    class NoPattern {
      listens(): void {}
      handle(): void {}
    }
    await expect(bootstrapListeners([NoPattern])).rejects.toThrow(
      /NoPattern\.listens\(\) must return a topic pattern .*: Topic pattern must be a string, got undefined/,
    );
  });

  it('refuses a class whose decorator and listens() name different patterns', async () => {
    @Injectable()
    @MMMQListener('order.created')
    class Disagreeing implements MMMQListener {
      listens(): string {
        return 'order.*';
      }
      handle(): void {}
    }
    await expect(bootstrapListeners([Disagreeing])).rejects.toThrow(
      'Disagreeing: @MMMQListener says "order.created" but listens() returns "order.*"; they must agree',
    );
  });

  it('refuses a class listener whose handle() takes three parameters', async () => {
    @Injectable()
    @MMMQListener('order.created')
    class WideHandle implements MMMQListener {
      handle(a: unknown, b: MessageContext, c?: unknown): void {
        void [a, b, c];
      }
    }
    await expect(bootstrapListeners([WideHandle])).rejects.toThrow(/WideHandle\.handle declares 3 parameters/);
  });

  it('refuses a class listener whose handle() is decorated as well, by decorator or by listens()', async () => {
    @Injectable()
    @MMMQListener('order.created')
    class BothStyles {
      @MMMQListener('order.created')
      handle(): void {}
    }
    @Injectable()
    class ListensAndDecoratedHandle {
      listens(): string {
        return 'order.created';
      }
      @MMMQListener('order.created')
      handle(): void {}
    }
    const oneStyle = /\.handle is decorated with @MMMQListener in a class that is a listener itself .*use one style/;
    await expect(bootstrapListeners([BothStyles])).rejects.toThrow(new RegExp(`BothStyles${oneStyle.source}`));
    await expect(bootstrapListeners([ListensAndDecoratedHandle])).rejects.toThrow(
      new RegExp(`ListensAndDecoratedHandle${oneStyle.source}`),
    );
  });

  it('refuses a request-scoped class listener, decorated or not', async () => {
    @Injectable({ scope: Scope.REQUEST })
    @MMMQListener('order.created')
    class PerRequestClass {
      handle(): void {}
    }
    @Injectable({ scope: Scope.REQUEST })
    class PerRequestListens implements MMMQListener {
      listens(): string {
        return 'order.created';
      }
      handle(): void {}
    }
    await expect(bootstrapListeners([PerRequestClass])).rejects.toThrow(/PerRequestClass has listeners but is request-scoped or transient/);
    await expect(bootstrapListeners([PerRequestListens])).rejects.toThrow(
      /PerRequestListens has listeners but is request-scoped or transient/,
    );
  });
});
