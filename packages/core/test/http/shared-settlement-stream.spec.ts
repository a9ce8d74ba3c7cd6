import { ConsumerAcknowledgement, SettlementStreamError, SharedSettlementParser, sharedRefusalLine, sharedSettlementLine } from '../../src';

describe('the streamed reply to a shared push', () => {
  const parse = (sizes: number[]) => {
    const settled: Array<[number, number, ConsumerAcknowledgement]> = [];
    const refused: Array<[number, number, string]> = [];
    const parser = new SharedSettlementParser(sizes, {
      settled: (part, index, acknowledgement) => settled.push([part, index, acknowledgement]),
      refused: (part, status, message) => refused.push([part, status, message]),
    });
    return { parser, settled, refused };
  };

  it('hands over each message of each part as its line completes, even when a chunk cuts it in two', () => {
    const { parser, settled } = parse([2, 1]);
    const text =
      sharedSettlementLine(1, 0, { acknowledgement: 'ACK' }) +
      sharedSettlementLine(0, 1, { acknowledgement: 'NACK', message: 'no', delayMs: 5 }) +
      sharedSettlementLine(0, 0, { acknowledgement: 'ACK' });
    parser.push(Buffer.from(text.slice(0, 30)));
    expect(settled).toEqual([]);
    parser.push(Buffer.from(text.slice(30)));
    parser.end();
    expect(settled.map(([part, index, { acknowledgement, message, delayMs }]) => [part, index, acknowledgement, message, delayMs])).toEqual(
      [
        [1, 0, 'ACK', undefined, undefined],
        [0, 1, 'NACK', 'no', 5],
        [0, 0, 'ACK', undefined, undefined],
      ],
    );
    expect(parser.settledCount).toBe(3);
  });

  it('hands over a part refused whole, and ignores lines for it or for a message settled already', () => {
    const { parser, settled, refused } = parse([2, 2]);
    parser.push(
      Buffer.from(
        sharedSettlementLine(0, 0, { acknowledgement: 'ACK' }) +
          sharedSettlementLine(0, 0, { acknowledgement: 'NACK' }) +
          sharedRefusalLine(1, 503, 'not now') +
          sharedSettlementLine(1, 0, { acknowledgement: 'ACK' }) +
          sharedRefusalLine(1, 404, 'twice'),
      ),
    );
    expect(settled.map(([part, index, { acknowledgement }]) => [part, index, acknowledgement])).toEqual([[0, 0, 'ACK']]);
    expect(refused).toEqual([[1, 503, 'not now']]);
  });

  it.each([
    ['not JSON', 'nope\n'],
    ['a part out of the push', sharedSettlementLine(2, 0, { acknowledgement: 'ACK' })],
    ['a message out of its part', sharedSettlementLine(0, 2, { acknowledgement: 'ACK' })],
    ['no acknowledgement', `${JSON.stringify({ part: 0, index: 0 })}\n`],
    ['a refusal of no part', sharedRefusalLine(3, 503, 'x')],
  ])('refuses a line that is %s', (_, line) => {
    expect(() => parse([2, 1]).parser.push(Buffer.from(line))).toThrow(SettlementStreamError);
  });

  it('reads a last line without its newline when the reply ends', () => {
    const { parser, settled } = parse([1]);
    parser.push(Buffer.from(sharedSettlementLine(0, 0, { acknowledgement: 'ACK' }).trim()));
    expect(settled).toEqual([]);
    parser.end();
    expect(settled).toHaveLength(1);
  });
});
