import { DeadLetterHeaders } from '@mmmq/core';
import { AckMode, MessageContext, MMMQListener } from '@mmmq/consumer';
import { expectQuiet, waitFor } from '@mmmq/test-support';
import { Injectable, Type } from '@nestjs/common';
import { ConformanceHarness } from '../support/harness';
import { Journal, Numbered, numbers } from '../support/journal';
import { uniqueNames } from '../support/names';
import { TRANSPORTS } from '../support/transports';

/** Content of the ack-mode tests: `fail` makes the first delivery fail (throw, or nack() in manual mode). */
interface Task extends Numbered {
  fail?: boolean;
  terminate?: boolean;
}

/** The same handler under each acknowledge mode: throws on the first delivery of a `fail` message. */
function taskListener(journal: Journal, pattern: string, consumerId: string, ackMode: Exclude<AckMode, 'manual'>) {
  @Injectable()
  class TaskListener {
    @MMMQListener(pattern, { consumerId, ackMode })
    onTask(content: Task, context: MessageContext): void {
      const handling = journal.start(ackMode, content, context);
      if (content.fail && context.deliveryCount === 1) throw new Error(`task ${content.n} failed`);
      journal.finish(handling);
    }
  }
  return TaskListener;
}

function manualListener(journal: Journal, pattern: string, consumerId: string) {
  @Injectable()
  class ManualTaskListener {
    @MMMQListener(pattern, { consumerId, ackMode: 'manual' })
    async onTask(content: Task, context: MessageContext): Promise<void> {
      const handling = journal.start('manual', content, context);
      if (content.terminate) return context.terminate(`task ${content.n} cannot be done`);
      if (content.fail && context.deliveryCount === 1) return context.nack({ message: `task ${content.n} later` });
      await context.ack();
      journal.finish(handling);
    }
  }
  return ManualTaskListener;
}

/** 0 to 5; the odd ones fail on their first delivery. */
const TASKS: Task[] = numbers(6).map((n) => ({ n, fail: n % 2 === 1 }));

describe.each(TRANSPORTS)('acknowledge modes on $name', (transport) => {
  let harness: ConformanceHarness;

  beforeAll(async () => {
    harness = await ConformanceHarness.start(transport);
  });
  afterAll(() => harness?.close());

  async function run(listener: Type<unknown>, names: ReturnType<typeof uniqueNames>, tasks: Task[]): Promise<void> {
    await harness.consumer(names.id, [listener]);
    const producer = await harness.producer();
    for (const task of tasks) await producer.produce(names.topic('task', 'queued'), task);
  }

  function deliveries(journal: Journal): Array<[number, number]> {
    return journal.started.map(({ n, deliveryCount }): [number, number] => [n, deliveryCount]).sort(([a, x], [b, y]) => a - b || x - y);
  }

  const retriedOnce: Array<[number, number]> = TASKS.flatMap(({ n, fail }): Array<[number, number]> =>
    fail
      ? [
          [n, 1],
          [n, 2],
        ]
      : [[n, 1]],
  );

  it.each(['auto', 'dupsOk'] as const)(
    '%s: settles after the handler: a message whose handler threw comes again, a handled one does not',
    async (ackMode) => {
      const names = uniqueNames();
      const journal = new Journal();
      const consumerId = names.consumerId(`tasks-${ackMode.toLowerCase()}`);
      await run(taskListener(journal, names.topic('task', '*'), consumerId, ackMode), names, TASKS);

      await waitFor(() => journal.finished.length >= TASKS.length, { message: () => `every task, got ${JSON.stringify(journal.started)}` });
      await expectQuiet(journal.started, { forMs: 200, message: 'a handled message delivered again' });
      expect(deliveries(journal)).toEqual(retriedOnce);
      expect(await harness.session.deadLetters(consumerId)).toEqual([]);
    },
  );

  it('manual: ack() settles, nack() redelivers, terminate() dead-letters at once with the reason', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const consumerId = names.consumerId('tasks-manual');
    await run(manualListener(journal, names.topic('task', '*'), consumerId), names, [...TASKS, { n: 6, terminate: true }]);

    await waitFor(() => journal.finished.length >= TASKS.length, { message: () => `every task, got ${JSON.stringify(journal.started)}` });
    await waitFor(async () => (await harness.session.deadLetters(consumerId)).length > 0, { message: 'the terminated task' });
    await expectQuiet(journal.started, { forMs: 200, message: 'a settled message delivered again' });
    expect(deliveries(journal)).toEqual([...retriedOnce, [6, 1]]);
    const [letter, ...more] = await harness.session.deadLetters(consumerId);
    expect(more).toEqual([]);
    expect(letter.content).toEqual({ n: 6, terminate: true });
    expect(letter.headers).toMatchObject({
      [DeadLetterHeaders.REASON]: 'REJECTED',
      [DeadLetterHeaders.LAST_ERROR]: 'task 6 cannot be done',
    });
    expect(Number(letter.headers[DeadLetterHeaders.ATTEMPTS])).toBe(1);
  });

  it('none: settles on receipt, before the handler: a message whose handler threw is not delivered again', async () => {
    const names = uniqueNames();
    const journal = new Journal();
    const consumerId = names.consumerId('tasks-none');
    await run(taskListener(journal, names.topic('task', '*'), consumerId, 'none'), names, TASKS);

    const handled = TASKS.filter(({ fail }) => !fail).length;
    await waitFor(() => journal.started.length >= TASKS.length && journal.finished.length >= handled, {
      message: () => `every task once, got ${JSON.stringify(journal.started)}`,
    });
    await expectQuiet(journal.started, { forMs: 300, message: 'a message delivered again in ack mode none' });
    expect(deliveries(journal)).toEqual(TASKS.map(({ n }) => [n, 1]));
    expect(await harness.session.deadLetters(consumerId)).toEqual([]);
  });
});
