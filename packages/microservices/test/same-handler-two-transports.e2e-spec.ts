import { connect as connectTcp } from 'node:net';
import { DynamicModule, Module, Type, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClientProviderOptions, ClientProxy, ClientsModule, MicroserviceOptions, Transport } from '@nestjs/microservices';
import { BrokerApp, freePort, startBroker, waitFor } from '@mmmq/test-support';
import { connect as connectAmqp } from 'amqplib';
import { lastValueFrom } from 'rxjs';
import { MmmqClient, MmmqServer } from '../src';
import { HandledOrders } from './support/portable/handled-orders.service';
import { OrderCreatedDto } from './support/portable/order-created.dto';
import { OrdersController } from './support/portable/orders.controller';

/** The RabbitMQ the CI starts (.ci/run); a developer runs `rabbitmq-server -detached`. */
const RABBITMQ_HOST = '127.0.0.1';
const RABBITMQ_PORT = 5672;
const RABBITMQ_URL = `amqp://guest:guest@${RABBITMQ_HOST}:${RABBITMQ_PORT}`;
/** Unique per run, so parallel or earlier runs never share it; deleted afterwards. */
const RABBITMQ_QUEUE = `mmmq-same-handler-${process.pid}-${Date.now()}`;

const ORDERS = 'ORDERS';
/** Emitted on both transports; each handler must receive it as the same DTO. */
const ORDER = { orderId: 'o-1', quantity: 2 };

/** What differs between the two boots: Nest's server options and the client registration, nothing else. */
interface TransportChoice {
  server: MicroserviceOptions;
  client: ClientProviderOptions;
}

/** The application a user writes: the controller, its service and a client, whatever transport the client uses. */
function ordersModule(transportClient: DynamicModule): Type {
  @Module({ imports: [transportClient], controllers: [OrdersController], providers: [HandledOrders] })
  class OrdersModule {}
  return OrdersModule;
}

describe('the same @EventPattern handler file on two transports, switching only the transport options', () => {
  let broker: BrokerApp;
  let rabbitMqUsed = false;

  // Nest's built-in RabbitMQ transport. Default noAck (true): with noAck false an event handler must ack through
  // RmqContext itself, which would tie the controller to RabbitMQ.
  const rabbitMq = async (): Promise<TransportChoice> => {
    await requireRabbitMq();
    rabbitMqUsed = true;
    const options = { urls: [RABBITMQ_URL], queue: RABBITMQ_QUEUE, queueOptions: { durable: false } };
    return { server: { transport: Transport.RMQ, options }, client: { name: ORDERS, transport: Transport.RMQ, options } };
  };

  const mmmq = async (): Promise<TransportChoice> => {
    const options = { app: 'orders', broker: broker.url, advertisedUrl: `http://127.0.0.1:${await freePort()}`, host: '127.0.0.1' };
    return {
      server: { strategy: new MmmqServer(options) },
      client: { name: ORDERS, customClass: MmmqClient, options: { broker: broker.url } },
    };
  };

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker?.close();
    if (rabbitMqUsed) await deleteQueue(RABBITMQ_QUEUE);
  });

  it.each([
    ['RabbitMQ', rabbitMq],
    ['MMMQ', mmmq],
  ])('%s: the handler receives the emitted order as a validated OrderCreatedDto', async (name, transport) => {
    const { server, client } = await transport();
    const app = await NestFactory.createMicroservice<MicroserviceOptions>(ordersModule(ClientsModule.register([client])), server);
    try {
      app.useGlobalPipes(new ValidationPipe({ transform: true }));
      await app.listen();

      await lastValueFrom(app.get<ClientProxy>(ORDERS).emit('order.created', ORDER));

      const handled = app.get(HandledOrders);
      await waitFor(() => handled.orders.length > 0, { message: `the order handled on ${name}` });
      expect(handled.orders).toStrictEqual([Object.assign(new OrderCreatedDto(), ORDER)]);
      expect(handled.orders[0]).toBeInstanceOf(OrderCreatedDto);
      expect(handled.orders[0].summary).toBe('2 × o-1');
    } finally {
      await app.close();
    }
  });
});

/** Fails with what to do when nothing listens on RabbitMQ's port: Nest's RMQ transport would retry forever. */
async function requireRabbitMq(): Promise<void> {
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = connectTcp({ host: RABBITMQ_HOST, port: RABBITMQ_PORT, timeout: 2_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
  if (!reachable) {
    throw new Error(
      `RabbitMQ is not reachable at ${RABBITMQ_HOST}:${RABBITMQ_PORT}; this test needs it (start it with \`rabbitmq-server -detached\`, as .ci/run does)`,
    );
  }
}

async function deleteQueue(queue: string): Promise<void> {
  const connection = await connectAmqp(RABBITMQ_URL);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(queue);
    await channel.close();
  } finally {
    await connection.close();
  }
}
