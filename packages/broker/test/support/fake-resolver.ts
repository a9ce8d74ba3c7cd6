import type { LookupAddress } from 'node:dns';
import { PushTargetResolver } from '../../src/dispatch/push-target-guard';

/** DNS as a test says: names map to addresses, to an error code, or to no answer at all ('hang'); others are not found. */
export class FakeResolver extends PushTargetResolver {
  readonly records = new Map<string, string[] | string>();
  readonly asked: string[] = [];

  override resolve(hostname: string): Promise<LookupAddress[]> {
    this.asked.push(hostname);
    const record = this.records.get(hostname) ?? 'ENOTFOUND';
    if (record === 'hang') return new Promise(() => undefined);
    if (typeof record === 'string') return Promise.reject(Object.assign(new Error(`getaddrinfo ${record} ${hostname}`), { code: record }));
    return Promise.resolve(record.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  }
}
