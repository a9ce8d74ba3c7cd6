import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TopicPattern } from '@mmmq/core';
import type { HttpAdapterHost } from '@nestjs/core';
import { Subject } from 'rxjs';
import { DispatcherRegistrationError, MmmqConsumerOptions } from '../../src';
import type { ListenerDefinition } from '../../src/listener/listener-definition';
import { resolveConsumerOptions } from '../../src/runtime/mmmq-consumer-options.resolver';
import { DispatcherRegistrar } from '../../src/registration/dispatcher-registrar';
import { RegistrationStatus } from '../../src/registration/registration-status';
import { waitFor } from '../support/wait-for';

interface Request {
  method: string;
  path: string;
  /** The consumer id in the path or, for a POST, in the body. */
  consumerId: string | undefined;
  answer(status: number, body?: unknown): void;
}

/** A broker stand-in whose every `/mmmq/dispatchers` request the test answers (or leaves unanswered). */
class ScriptedBroker {
  readonly requests: Request[] = [];
  url = '';
  private server!: Server;

  constructor(private readonly script: (request: Request, all: Request[]) => void) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += chunk;
    const path = decodeURIComponent(req.url ?? '');
    const request: Request = {
      method: req.method ?? '',
      path,
      consumerId: text ? (JSON.parse(text) as { consumerId?: string }).consumerId : /^\/mmmq\/dispatchers\/([^/]+)/.exec(path)?.[1],
      answer: (status, body) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body === undefined ? undefined : JSON.stringify(body));
      },
    };
    this.requests.push(request);
    this.script(request, this.requests);
  }
}

function listener(consumerId: string): ListenerDefinition {
  return {
    name: consumerId,
    where: `Billing.${consumerId}`,
    consumerId,
    pattern: new TopicPattern('order.*'),
    concurrency: 1,
    startFrom: undefined,
    ackMode: 'auto',
    contentType: { kind: 'any' },
    handle: () => undefined,
  };
}

const listening = { listening: true, listen$: new Subject<void>() } as unknown as HttpAdapterHost;

function registrar(broker: ScriptedBroker, options: MmmqConsumerOptions): DispatcherRegistrar {
  return new DispatcherRegistrar(
    resolveConsumerOptions({ app: 'billing', broker: broker.url, ...options }),
    new RegistrationStatus(),
    listening,
  );
}

describe('DispatcherRegistrar (stand-in broker)', () => {
  let broker: ScriptedBroker | undefined;
  let subject: DispatcherRegistrar | undefined;
  afterEach(async () => {
    subject?.close();
    await broker?.close();
  });

  it('with failFast, registers each listener when asked and fails on the one the broker refuses', async () => {
    broker = await new ScriptedBroker(({ method, consumerId, answer }) => {
      if (method === 'GET') return answer(404, { message: 'unknown' });
      if (consumerId === 'billing.second' || method !== 'POST') return answer(400, { message: 'pattern refused' });
      answer(201, {});
    }).start();
    subject = registrar(broker, { delivery: 'pull', registration: { failFast: true } });

    await subject.register(listener('billing.first'));
    const second = subject.register(listener('billing.second'));

    await expect(second).rejects.toThrow(DispatcherRegistrationError);
    await expect(second).rejects.toThrow('Could not register the dispatcher billing.second of Billing.billing.second');
    expect(broker.requests.map(({ method, consumerId }) => `${method} ${consumerId}`)).toEqual([
      'GET billing.first',
      'POST billing.first',
      'GET billing.second',
      'POST billing.second',
    ]);
  });

  it('in the background, registers the listeners one after another, each resolving once the broker holds it', async () => {
    broker = await new ScriptedBroker(({ method, answer }) =>
      method === 'GET' ? answer(404, { message: 'unknown' }) : answer(201, {}),
    ).start();
    subject = registrar(broker, { delivery: 'pull' });
    const registered: string[] = [];

    await Promise.all(['billing.first', 'billing.second'].map((id) => subject!.register(listener(id)).then(() => registered.push(id))));

    expect(registered).toEqual(['billing.first', 'billing.second']);
    expect(broker.requests.map(({ method, consumerId }) => `${method} ${consumerId}`)).toEqual([
      'GET billing.first',
      'POST billing.first',
      'GET billing.second',
      'POST billing.second',
    ]);
  });

  it('at shutdown, aborts the registration request in flight and takes the host out of every dispatcher at once', async () => {
    const deletes: Request[] = [];
    broker = await new ScriptedBroker((request) => {
      const { method, consumerId, answer } = request;
      if (method === 'GET' && consumerId === 'billing.first') return answer(404, { message: 'unknown' });
      if (method === 'POST') return answer(201, {});
      if (method === 'DELETE') {
        // Answered only once both are pending: removals one after another would wait here until they time out.
        deletes.push(request);
        if (deletes.length === 2) deletes.forEach((pending) => pending.answer(204));
      }
      // GET billing.second: the broker never answers, the request is in flight when the application stops.
    }).start();
    subject = registrar(broker, { advertisedUrl: 'http://127.0.0.1:1', registration: { timeoutMs: 8_000 } });
    const requests = broker.requests;
    const registering = ['billing.first', 'billing.second'].map((id) => subject!.register(listener(id)));
    await waitFor(
      () => requests.some((r) => r.method === 'GET' && r.consumerId === 'billing.second'),
      'the second registration to be in flight',
    );

    const started = Date.now();
    await subject.leaveAll();

    expect(Date.now() - started).toBeLessThan(5_000);
    await registering[0];
    await expect(registering[1]).rejects.toThrow('Registering the dispatcher billing.second stopped: the application is shutting down');
    expect(deletes.map(({ path }) => path).sort()).toEqual([
      '/mmmq/dispatchers/billing.first/hosts/http://127.0.0.1:1',
      '/mmmq/dispatchers/billing.second/hosts/http://127.0.0.1:1',
    ]);
  });

  it('with registration.leaveOnShutdown false, keeps the host in its dispatchers at shutdown', async () => {
    broker = await new ScriptedBroker(({ method, answer }) =>
      method === 'GET' ? answer(404, { message: 'unknown' }) : answer(201, {}),
    ).start();
    subject = registrar(broker, { advertisedUrl: 'http://127.0.0.1:1', registration: { failFast: true, leaveOnShutdown: false } });
    await subject.register(listener('billing.first'));

    await subject.leaveAll();

    expect(broker.requests.map(({ method }) => method)).toEqual(['GET', 'POST']);
  });
});
