/** A GET answer: status, content type and the body as text. */
export interface TextResponse {
  status: number;
  contentType: string | null;
  text: string;
}

/** GETs `url` over real HTTP. */
export async function httpGet(url: string): Promise<TextResponse> {
  const response = await fetch(url);
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

/** The value of the Prometheus text sample `name{labels}` (labels in any order, others allowed); undefined if absent. */
export function promSample(exposition: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of exposition.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const given = new Map([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]));
    if (Object.entries(labels).every(([key, value]) => given.get(key) === value)) return Number(match[3]);
  }
  return undefined;
}
