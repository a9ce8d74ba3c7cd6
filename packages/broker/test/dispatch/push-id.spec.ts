import { pushIdOf } from '../../src/dispatch/push-id';

describe('pushIdOf (webhook-id)', () => {
  it('names one message by consumer, topic and offset', () => {
    expect(pushIdOf('billing', 'order.created', [41])).toBe('billing:order.created:41');
  });

  it('names consecutive messages by their first and last offsets', () => {
    expect(pushIdOf('billing', 'order.created', [3, 4, 5])).toBe('billing:order.created:3-5');
  });

  it('tells apart the subsets of a batch that remain after partial acknowledgements', () => {
    const all = pushIdOf('billing', 'order.created', [3, 4, 5, 6]);
    const gaps = [
      [3, 5, 6],
      [3, 4, 6],
      [3, 6],
    ].map((offsets) => pushIdOf('billing', 'order.created', offsets));
    expect(gaps[0]).toMatch(/^billing:order\.created:3-6~[0-9a-f]{16}$/);
    expect(new Set([all, ...gaps]).size).toBe(4);
    expect(pushIdOf('billing', 'order.created', [3, 5, 6])).toBe(gaps[0]);
  });

  it('differs between consumers and topics', () => {
    expect(pushIdOf('audit', 'order.created', [0])).not.toBe(pushIdOf('billing', 'order.created', [0]));
    expect(pushIdOf('billing', 'order.paid', [0])).not.toBe(pushIdOf('billing', 'order.created', [0]));
  });
});
