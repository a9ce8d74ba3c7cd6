import type { Random } from '../random';

/** Share of messages spanning several pages. */
const LARGE_SHARE = 0.02;

/**
 * Content bytes for a message: every one names its id (so every content is unique), and the shapes cover what
 * must survive byte for byte: whitespace, `1.0`, integers beyond 2^53, escapes, raw UTF-8, scalars, and now and
 * then a body of several pages so that a kill can tear a write.
 */
export function messageContent(id: string, random: Random): Buffer {
  if (random.chance(LARGE_SHARE)) {
    return Buffer.from(`{"id":"${id}","pad":"${'p'.repeat(random.int(4_000, 12_000))}"}`);
  }
  switch (random.int(0, 5)) {
    case 0:
      return Buffer.from(`{ "id" : "${id}" , "v" : 1.0, "big" : 12345678901234567890, "s" : "\\u00fc\\ud83d\\ude00" , "e" : [ ] }`);
    case 1:
      return Buffer.from(`"${id} grüße €"`, 'utf8');
    case 2:
      return Buffer.from(`["${id}",1,null,true,-0,1e400]`);
    default:
      return Buffer.from(`{"id":"${id}","pad":"${'x'.repeat(random.int(0, 600))}"}`);
  }
}

/** The JSON of one message inside a publish request; `content` is inserted verbatim. */
export function messageJson(topic: string, id: string, content: Buffer): string {
  return `{"topic":${JSON.stringify(topic)},"id":${JSON.stringify(id)},"content":${content.toString('utf8')}}`;
}
