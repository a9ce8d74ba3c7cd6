import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy, ClientsModule } from '@nestjs/microservices';
import { Test, TestingModule } from '@nestjs/testing';
import { MmmqClient } from '../../src/client/mmmq-client';
import type { MmmqClientOptions } from '../../src/client/mmmq-client.options';

/** Injection token the test applications register the client under. */
export const MMMQ_CLIENT = 'MMMQ';

/** A service of the application that emits through the client, injected as any Nest client is. */
@Injectable()
export class OrderEvents {
  constructor(@Inject(MMMQ_CLIENT) readonly client: ClientProxy) {}
}

export interface ClientApp {
  client: ClientProxy;
  module: TestingModule;
  close(): Promise<void>;
}

/** A Nest application with `ClientsModule.register([{ name: 'MMMQ', customClass: MmmqClient, options }])`. */
export function startClientApp(options: MmmqClientOptions): Promise<ClientApp> {
  return start(ClientsModule.register([{ name: MMMQ_CLIENT, customClass: MmmqClient, options }]));
}

/** The same, registered with `ClientsModule.registerAsync` and a `useFactory`. */
export function startAsyncClientApp(options: () => MmmqClientOptions): Promise<ClientApp> {
  return start(ClientsModule.registerAsync([{ name: MMMQ_CLIENT, useFactory: () => ({ customClass: MmmqClient, options: options() }) }]));
}

async function start(clients: ReturnType<typeof ClientsModule.register>): Promise<ClientApp> {
  const module = await Test.createTestingModule({ imports: [clients], providers: [OrderEvents] }).compile();
  await module.init();
  return { client: module.get(OrderEvents).client, module, close: () => module.close() };
}
