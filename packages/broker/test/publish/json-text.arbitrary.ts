import fc from 'fast-check';

/** A JSON value and one of its many valid spellings: random whitespace, random `\uXXXX` escapes. */
export interface SpelledJson {
  value: unknown;
  text: string;
}

const WHITESPACE = ['', ' ', '  ', '\n', '\t', '\r\n', ' \n\t '];

export function spelledJson(value: fc.Arbitrary<unknown> = fc.jsonValue()): fc.Arbitrary<SpelledJson> {
  return fc
    .record({
      value,
      spaces: fc.array(fc.constantFrom(...WHITESPACE), { minLength: 1, maxLength: 16 }),
      escapes: fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }),
    })
    .map(({ value, spaces, escapes }) => ({ value, text: spell(value, cycle(spaces), cycle(escapes)) }));
}

function cycle<T>(items: T[]): () => T {
  let next = 0;
  return () => items[next++ % items.length];
}

function spell(value: unknown, space: () => string, escape: () => boolean): string {
  const pad = (text: string) => space() + text + space();
  if (Array.isArray(value)) return pad(`[${value.map((item) => spell(item, space, escape)).join(',')}${space()}]`);
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([key, item]) => `${pad(spellString(key, escape))}:${spell(item, space, escape)}`);
    return pad(`{${members.join(',')}${space()}}`);
  }
  if (typeof value === 'string') return pad(spellString(value, escape));
  return pad(JSON.stringify(value));
}

function spellString(text: string, escape: () => boolean): string {
  let out = '"';
  for (const char of text) {
    if (escape()) {
      for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
    } else {
      out += JSON.stringify(char).slice(1, -1);
    }
  }
  return out + '"';
}
