import { Injectable } from '@nestjs/common';
import { of } from 'rxjs';
import { Gate } from '@mmmq/test-support';
import { MessageContext, MMMQListener } from '../../src';

/**
 * The replier of the request-reply tests: one listener per way a handler can answer, and two that let a requester
 * see and steer it (`calc.state`, `calc.open`), so the same cases run against it in process and in another process
 * (`fixtures/calculator-process.cjs` is its twin there).
 */
@Injectable()
export class Calculator {
  /** Holds `slow` until opened. */
  readonly gate = new Gate();
  slowStarted = 0;
  failures = 0;
  readonly events: unknown[] = [];

  @MMMQListener('calc.sum', { consumerId: 'calc-sum' })
  sum(numbers: number[]): number {
    return numbers.reduce((total, n) => total + n, 0);
  }

  @MMMQListener('calc.echo', { consumerId: 'calc-echo', concurrency: 8 })
  async echo(value: unknown, context: MessageContext): Promise<{ value: unknown; id: string }> {
    await Promise.resolve();
    return { value, id: context.id };
  }

  @MMMQListener('calc.observe', { consumerId: 'calc-observe' })
  observe(n: number) {
    return of(n, n * 2, n * 3);
  }

  @MMMQListener('calc.fail', { consumerId: 'calc-fail' })
  fail(request: { fail: boolean }): string {
    if (!request.fail) return 'ok';
    this.failures++;
    throw new RangeError('division by zero');
  }

  @MMMQListener('calc.slow', { consumerId: 'calc-slow' })
  async slow(n: number): Promise<number> {
    this.slowStarted++;
    await this.gate.promise;
    return n;
  }

  @MMMQListener('calc.state', { consumerId: 'calc-state' })
  state(): { slowStarted: number; failures: number; events: unknown[] } {
    return { slowStarted: this.slowStarted, failures: this.failures, events: this.events };
  }

  @MMMQListener('calc.open', { consumerId: 'calc-open' })
  open(): void {
    this.gate.open();
  }

  @MMMQListener('calc.silent', { consumerId: 'calc-silent' })
  silent(value: unknown): void {
    this.events.push(value);
  }
}
