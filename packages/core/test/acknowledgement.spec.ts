import { Acknowledgement, isAcknowledgement, isBrokerAcknowledgement, isConsumerAcknowledgement } from '../src/acknowledgement';

describe('Acknowledgement', () => {
  it('spells the wire values', () => {
    expect(Acknowledgement).toEqual({ ACK: 'ACK', NACK: 'NACK' });
  });

  it.each([
    ['ACK', true],
    ['NACK', true],
    ['ack', false],
    ['Ack', false],
    [' ACK', false],
    ['', false],
    [undefined, false],
    [true, false],
    [{ acknowledgement: 'ACK' }, false],
  ])('isAcknowledgement(%p) is %p', (value, expected) => {
    expect(isAcknowledgement(value)).toBe(expected);
  });
});

describe('isConsumerAcknowledgement', () => {
  it.each([
    [{ acknowledgement: 'ACK' }, true],
    [{ acknowledgement: 'NACK' }, true],
    [{ acknowledgement: 'NACK', message: 'database down' }, true],
    [{ acknowledgement: 'ACK', extra: 1 }, true],
    [{ acknowledgement: 'ack' }, false],
    [{ acknowledgement: 'ACK', message: 42 }, false],
    [{}, false],
    ['ACK', false],
    [null, false],
    [[{ acknowledgement: 'ACK' }], false],
  ])('%p → %p', (value, expected) => {
    expect(isConsumerAcknowledgement(value)).toBe(expected);
  });
});

describe('isBrokerAcknowledgement', () => {
  it.each([
    [{ acknowledgement: 'ACK', id: 'm1', topic: 'order', offset: 0 }, true],
    [{ acknowledgement: 'NACK', message: 'disk full' }, true],
    [{ acknowledgement: 'ACK' }, true],
    [{ acknowledgement: 'ACK', id: 1 }, false],
    [{ acknowledgement: 'ACK', topic: { name: 'order' } }, false],
    [{ acknowledgement: 'ACK', offset: '3' }, false],
    [{ acknowledgement: 'ACK', offset: 1.5 }, false],
    [{ acknowledgement: 'ACK', offset: 2 ** 53 }, false],
    [{ acknowledgement: 'NACK', message: null }, false],
    [{ acknowledgement: 'MAYBE' }, false],
    [undefined, false],
  ])('%p → %p', (value, expected) => {
    expect(isBrokerAcknowledgement(value)).toBe(expected);
  });
});
