import path from 'node:path';
import { freePort, ManagedProcess, tempDir, track, waitForPort } from '../services';
import { HttpPublishers } from './http-publishers';
import { ReferenceSystem } from './reference-system';
import type { SequentialPublishers, System } from './system';

/** The server's entry, compiled beside this file. */
const SERVER_MAIN = path.join(__dirname, 'bare-http-server.js');

/**
 * The bare node:http ceiling as a row of the plain HTTP publishers workload: the same publishers (one keep-alive
 * connection each, one 1 KiB JSON POST at a time) against a node:http server that parses each body and discards it
 * (`bare-http-server.ts`), in a process of its own whose CPU per request is sampled like a broker's. What node:http
 * allows this machine for that traffic, so MMMQ's plain HTTP publish can be read as a share of it.
 */
export class BareHttpSystem extends ReferenceSystem implements System {
  readonly id = 'node-http';
  readonly label = 'Bare node:http server (parse and discard)';
  readonly description =
    'Not a broker: for the plain HTTP publishers workload only, a node:http server in a process of its own that reads each request\'s body, `JSON.parse`s it, discards it and answers `200 {"acknowledgement":"ACK"}`; nothing stored, nothing fsync\'d. The ceiling node:http sets for that traffic on this machine; its CPU per request is the server\'s';
  private server?: ManagedProcess;
  private port = 0;

  constructor() {
    super({ ids: ['http-publishers'], why: 'a reference for the plain HTTP publishers workload only: there is no broker to measure' });
  }

  async start(): Promise<void> {
    this.port = await freePort();
    const dir = tempDir('node-http');
    this.server = track(
      new ManagedProcess('bare node:http server', process.execPath, [SERVER_MAIN], path.join(dir, 'server.log'), {
        ...process.env,
        BENCH_BARE_HTTP_PORT: String(this.port),
      }),
    );
    const child = this.server.start();
    await waitForPort(this.port, 30_000, 'bare node:http server', child);
  }

  async stop(): Promise<void> {
    await this.server?.stop(10_000);
    this.server = undefined;
  }

  brokerPids(): number[] {
    const pid = this.server?.pid;
    return pid ? [pid] : [];
  }

  async version(): Promise<string> {
    return `node:http of Node ${process.version}`;
  }

  override async declare(): Promise<void> {}

  override async drop(): Promise<void> {}

  async openSequentialPublishers(topic: string, count: number): Promise<SequentialPublishers> {
    return new HttpPublishers(this.port, topic, count);
  }
}
