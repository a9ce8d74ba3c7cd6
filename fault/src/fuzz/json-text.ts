import fc from 'fast-check';
import { Random } from '../random';

/** Whitespace JSON allows between tokens. */
const WHITESPACE = ['', '', '', ' ', '  ', '\n', '\t', '\r\n '];

/**
 * Serialises a JSON value with whitespace between tokens (drawn from `seed`), so that byte spans matter: a
 * parser that re-serialised, or trimmed wrongly, would show.
 */
export function spacedJson(value: unknown, seed: number): string {
  const random = new Random(seed);
  const ws = () => random.pick(WHITESPACE);
  const write = (v: unknown): string => {
    if (Array.isArray(v)) return `[${ws()}${v.map((item) => `${ws()}${write(item)}${ws()}`).join(',')}${ws()}]`;
    if (v !== null && typeof v === 'object') {
      const members = Object.entries(v).map(([key, item]) => `${ws()}${JSON.stringify(key)}${ws()}:${ws()}${write(item)}${ws()}`);
      return `{${members.join(',')}${ws()}}`;
    }
    return JSON.stringify(v);
  };
  return write(value);
}

/** Valid topic names: segments of `[A-Za-z0-9_-]` joined by dots, not reserved. */
export const topicName = fc
  .array(fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/), { minLength: 1, maxLength: 4 })
  .map((segments) => segments.join('.'))
  .filter((name) => !name.startsWith('__'));

/** Any JSON value, spaced, as text. */
export const jsonText = fc.tuple(fc.jsonValue({ maxDepth: 6 }), fc.integer()).map(([value, seed]) => spacedJson(value, seed));

/** A valid `POST /mmmq/messages` body and the exact content text it carries. */
export const publishBody = fc
  .record({
    topic: topicName,
    content: jsonText,
    id: fc.option(fc.stringMatching(/^[!-~]{1,40}$/), { nil: undefined }),
    headerValue: fc.option(fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean()), { nil: undefined }),
    order: fc.integer({ min: 0, max: 5 }),
    seed: fc.integer(),
  })
  .map(({ topic, content, id, headerValue, order, seed }) => {
    const random = new Random(seed);
    const ws = () => random.pick(WHITESPACE);
    // Field names are compared after unescaping, as JSON.parse does: "cont\u0065nt" is "content".
    const key = (name: string) => (random.chance(0.2) ? `"${escapeOneCharacter(name, random)}"` : `"${name}"`);
    const members = [`${key('topic')}${ws()}:${ws()}${JSON.stringify(topic)}`, `${key('content')}${ws()}:${ws()}${content}`];
    if (id !== undefined) members.push(`${key('id')}:${JSON.stringify(id)}`);
    if (headerValue !== undefined) members.push(`${key('headers')}:{"h":${JSON.stringify(headerValue)}}`);
    for (let i = 0; i < order; i++) members.push(members.shift() as string);
    return { body: `${ws()}{${ws()}${members.join(`${ws()},${ws()}`)}${ws()}}${ws()}`, topic, content, id };
  });

function escapeOneCharacter(name: string, random: Random): string {
  const i = random.int(0, name.length - 1);
  return `${name.slice(0, i)}\\u${name.charCodeAt(i).toString(16).padStart(4, '0')}${name.slice(i + 1)}`;
}

/** Edits to apply to a text: replace, insert or delete one character at a relative position. */
export const edits = fc.array(
  fc.record({
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    op: fc.constantFrom('replace', 'insert', 'delete'),
    char: fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', '0', 'e', '-', ' ', '\u0000', 'é', '\ud800', 'n'),
  }),
  { minLength: 1, maxLength: 4 },
);

export function applyEdits(text: string, list: ReadonlyArray<{ at: number; op: string; char: string }>): string {
  let result = text;
  for (const { at, op, char } of list) {
    const i = Math.min(result.length, Math.floor(at * result.length));
    if (op === 'replace') result = result.slice(0, i) + char + result.slice(i + 1);
    else if (op === 'insert') result = result.slice(0, i) + char + result.slice(i);
    else result = result.slice(0, i) + result.slice(i + 1);
  }
  return result;
}
