import fc from 'fast-check';
import { MmmqValidationError, StreamFrameReader, StreamFrameTooLargeError } from '@mmmq/core';
import { resolveBrokerOptions } from '../../packages/broker/src/mmmq-broker-options.resolver';
import { scanJson } from '../../packages/broker/src/format/json-scanner';
import { PublishRequestParser } from '../../packages/broker/src/publish/publish-request.parser';
import { checkProperty } from '../src/fuzz/check-property';
import { applyEdits, edits, jsonText, publishBody, spacedJson } from '../src/fuzz/json-text';
import { ScenarioRun } from '../src/harness/scenario-run';

const run = new ScenarioRun('fuzz-parsers', 6, 'Fuzzing: HTTP publish parser, JSON scanner, stream decoder');
const runs = run.sizes.fuzzRuns;
const MAX_DEPTH = 64;
const limits = { maxBodyBytes: 2 ** 20, maxJsonDepth: MAX_DEPTH, maxBatchMessages: 1000 };
const parser = new PublishRequestParser(resolveBrokerOptions({ http: limits }).http);
let failure: unknown;

afterAll(() => run.finish(failure));

/** Runs the property, remembering the first failure for the report. */
async function property<T>(name: string, check: fc.IProperty<T> | fc.IAsyncProperty<T>, numRuns = runs): Promise<void> {
  try {
    await checkProperty(run, name, check, numRuns);
  } catch (error) {
    failure ??= error;
    throw error;
  }
}

/** Parses and returns undefined, or the error if it is anything but a validation error (a 400). */
function unexpectedError(parse: () => unknown): unknown {
  try {
    parse();
    return undefined;
  } catch (error) {
    return error instanceof MmmqValidationError ? undefined : error;
  }
}

const anyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ maxLength: 200, unit: 'binary' }).map((text) => Buffer.from(text)),
  jsonText.map((text) => Buffer.from(text)),
  fc.tuple(publishBody, edits).map(([{ body }, list]) => Buffer.from(applyEdits(body, list))),
  fc.tuple(publishBody, edits).map(([{ body }, list]) => Buffer.from(`{"messages":[${applyEdits(body, list)},${body}]}`)),
);

describe('the HTTP publish parser', () => {
  it('answers any body with messages or a validation error (a 400), never another error (a 500)', () =>
    property(
      'publish parser, any bytes',
      fc.property(anyBytes, (body) => {
        const single = unexpectedError(() => parser.parseSingle(body));
        const batch = unexpectedError(() => parser.parseBatch(body));
        if (single ?? batch) throw single ?? batch;
      }),
      runs * 4,
    ));

  it('keeps the content bytes of a valid request exactly as sent', () =>
    property(
      'publish parser, valid requests',
      fc.property(publishBody, ({ body, topic, content, id }) => {
        const message = parser.parseSingle(Buffer.from(body));
        expect(message.topic.name).toBe(topic);
        expect(message.content.toString('utf8')).toBe(content);
        if (id !== undefined) expect(message.id).toBe(id);
        const batch = parser.parseBatch(Buffer.from(`{"messages":[${body},${body}]}`));
        expect(batch.map((m) => m.content.toString('utf8'))).toEqual([content, content]);
      }),
    ));

  it(`refuses content nested deeper than ${MAX_DEPTH} levels with a 400, at any depth`, () =>
    property(
      'publish parser, nesting depth',
      fc.property(fc.integer({ min: 0, max: 20_000 }), fc.boolean(), (depth, objects) => {
        const open = objects ? '{"a":' : '[';
        const close = objects ? '}' : ']';
        const content = open.repeat(depth) + '1' + close.repeat(depth);
        const body = Buffer.from(`{"topic":"t","content":${content}}`);
        if (depth <= MAX_DEPTH) expect(parser.parseSingle(body).content.length).toBe(content.length);
        else expect(() => parser.parseSingle(body)).toThrow(MmmqValidationError);
      }),
      Math.ceil(runs / 3),
    ));
});

describe('the JSON scanner', () => {
  it('outlines exactly the spans JSON.parse reads', () =>
    property(
      'JSON scanner, spans',
      fc.property(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 })), fc.integer(), (value, seed) => {
        const text = spacedJson(value, seed);
        const bytes = Buffer.from(text);
        const root = scanJson(bytes, { maxDepth: 1000, outlineLevels: 1 }).root;
        expect(root?.kind).toBe('object');
        expect(bytes.subarray(root?.start, root?.end).toString()).toBe(text.trim());
        for (const [key, member] of Object.entries(value)) {
          const node = root?.member(key);
          expect(node).toBeDefined();
          // Compared as JSON text: toEqual tells -0 from 0, which JSON does not.
          expect(JSON.stringify(JSON.parse(bytes.subarray(node?.start, node?.end).toString()))).toBe(JSON.stringify(member));
        }
      }),
    ));

  it('never throws, whatever the bytes', () =>
    property(
      'JSON scanner, any bytes',
      fc.property(anyBytes, fc.integer({ min: 1, max: 70 }), (bytes, maxDepth) => {
        const scan = scanJson(bytes, { maxDepth, outlineLevels: 3 });
        expect(scan.depth).toBeLessThanOrEqual(maxDepth + 1);
      }),
      runs * 2,
    ));
});

/** `[u32 length][u32 requestId][u8 kind][body]`, encoded here from docs/stream-protocol.md. */
function requestFrame(requestId: number, kind: number, body: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUInt32BE(5 + body.length, 0);
  head.writeUInt32BE(requestId, 4);
  head.writeUInt8(kind, 8);
  return Buffer.concat([head, body]);
}

/** Cuts `bytes` at the given relative positions. */
function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => Math.floor(cut * bytes.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  return chunks;
}

const frames = fc.array(
  fc.record({ requestId: fc.nat({ max: 2 ** 32 - 1 }), kind: fc.nat({ max: 255 }), body: fc.uint8Array({ maxLength: 300 }) }),
  { maxLength: 20 },
);
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 30 });

describe('the publish-stream frame reader', () => {
  it('returns the frames that were sent, however the bytes are cut', () =>
    property(
      'stream decoder, frames under any chunking',
      fc.property(frames, cuts, (list, at) => {
        const encoded = list.map(({ requestId, kind, body }) => requestFrame(requestId, kind, Buffer.from(body)));
        const reader = new StreamFrameReader(1000);
        const read = chunked(Buffer.concat(encoded), at).flatMap((chunk) => reader.push(chunk));
        expect(read.map((frame) => Buffer.from(frame).toString('hex'))).toEqual(encoded.map((frame) => frame.subarray(4).toString('hex')));
      }),
    ));

  it('never throws on arbitrary bytes except to refuse an oversized frame, and never returns one', () =>
    property(
      'stream decoder, any bytes',
      fc.property(fc.uint8Array({ maxLength: 2000 }), cuts, fc.integer({ min: 5, max: 600 }), (bytes, at, max) => {
        const reader = new StreamFrameReader(max);
        try {
          for (const chunk of chunked(Buffer.from(bytes), at)) {
            for (const frame of reader.push(chunk)) expect(frame.length).toBeLessThanOrEqual(max);
          }
        } catch (error) {
          if (!(error instanceof StreamFrameTooLargeError)) throw error;
        }
      }),
      runs * 2,
    ));

  it('refuses a frame over the limit naming its request id, however the bytes are cut', () =>
    property(
      'stream decoder, oversized frame',
      fc.property(fc.nat({ max: 2 ** 32 - 1 }), fc.integer({ min: 1, max: 1000 }), cuts, (requestId, over, at) => {
        const max = 100;
        const frame = requestFrame(requestId, 1, Buffer.alloc(max - 5 + over));
        const reader = new StreamFrameReader(max);
        let refused: unknown;
        try {
          for (const chunk of chunked(frame, at)) reader.push(chunk);
        } catch (error) {
          refused = error;
        }
        expect(refused).toBeInstanceOf(StreamFrameTooLargeError);
        expect((refused as StreamFrameTooLargeError).requestId).toBe(requestId);
      }),
    ));
});
