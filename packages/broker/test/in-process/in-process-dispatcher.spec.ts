import type { TransportListener } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import type { Dispatcher } from '../../src/dispatch/dispatcher';
import type { DispatcherDefinitionJson } from '../../src/format/dispatcher-json';
import { ensureInProcessDispatcher } from '../../src/in-process/in-process-dispatcher';

/** A dispatcher registry holding one definition, recording what is asked of it. */
function dispatcherHolding(existing: Partial<DispatcherDefinitionJson>) {
  const update = jest.fn(async () => undefined);
  const add = jest.fn(async () => undefined);
  const dispatcher = { get: () => ({ consumerId: 'billing', pattern: 'order.*', ...existing }), update, add } as unknown as Dispatcher;
  return { dispatcher, update, add };
}

const listener = (startFrom: TransportListener['startFrom']) =>
  ({ consumerId: 'billing', pattern: 'order.*', startFrom }) as unknown as TransportListener;

// The update's log line is expected.
Logger.overrideLogger(false);

describe('ensureInProcessDispatcher', () => {
  const logger = new Logger('test');

  it('leaves a dispatcher that starts from the same time alone, however the time is written', async () => {
    const { dispatcher, update } = dispatcherHolding({ startFrom: { time: '2026-12-07T09:00:00Z' } });
    await ensureInProcessDispatcher(dispatcher, listener({ time: '2026-12-07T09:00:00.000+00:00' }), logger);
    expect(update).not.toHaveBeenCalled();
  });

  it('updates one that starts from another time', async () => {
    const { dispatcher, update } = dispatcherHolding({ startFrom: { time: '2026-12-07T09:00:00Z' } });
    await ensureInProcessDispatcher(dispatcher, listener({ time: '2026-12-07T10:00:00Z' }), logger);
    expect(update).toHaveBeenCalledTimes(1);
  });
});
