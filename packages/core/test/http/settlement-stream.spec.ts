import { acceptsSettlementStream, ConsumerAcknowledgement, SettlementStreamError, SettlementStreamParser, settlementLine } from '../../src';

describe('a streamed batch reply', () => {
  const parse = (size: number) => {
    const settled: Array<[number, ConsumerAcknowledgement]> = [];
    return { parser: new SettlementStreamParser(size, (index, acknowledgement) => settled.push([index, acknowledgement])), settled };
  };

  it('hands over each line as it completes, even when a chunk cuts it in two', () => {
    const { parser, settled } = parse(3);
    const text = settlementLine(1, { acknowledgement: 'ACK' }) + settlementLine(0, { acknowledgement: 'NACK', message: 'no', delayMs: 5 });
    parser.push(Buffer.from(text.slice(0, 20)));
    expect(settled).toEqual([]);
    parser.push(Buffer.from(text.slice(20)));
    expect(settled.map(([index, { acknowledgement, message, delayMs }]) => [index, acknowledgement, message, delayMs])).toEqual([
      [1, 'ACK', undefined, undefined],
      [0, 'NACK', 'no', 5],
    ]);
    expect(parser.end()).toEqual([2]);
  });

  it('counts the first line of a message, ignoring a repeated one', () => {
    const { parser, settled } = parse(1);
    parser.push(Buffer.from(settlementLine(0, { acknowledgement: 'ACK' }) + settlementLine(0, { acknowledgement: 'NACK' })));
    expect(settled.map(([, { acknowledgement }]) => acknowledgement)).toEqual(['ACK']);
    expect(parser.end()).toEqual([]);
  });

  it('refuses a line that settles no message of the batch, or is no acknowledgement', () => {
    expect(() => parse(2).parser.push(Buffer.from(settlementLine(2, { acknowledgement: 'ACK' })))).toThrow(SettlementStreamError);
    expect(() => parse(2).parser.push(Buffer.from('{"index":0,"acknowledgement":"MAYBE"}\n'))).toThrow(SettlementStreamError);
    expect(() => parse(2).parser.push(Buffer.from('{"index":0,\n'))).toThrow(SettlementStreamError);
  });

  it('is asked for by an Accept header naming application/x-ndjson', () => {
    expect(acceptsSettlementStream('application/x-ndjson, application/json')).toBe(true);
    expect(acceptsSettlementStream('application/json')).toBe(false);
    expect(acceptsSettlementStream(undefined)).toBe(false);
  });
});
