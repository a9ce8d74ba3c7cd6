import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { FAST_BACKOFF, publishAll } from './delivery.fixture';

const SHUTTING_DOWN = { acknowledgement: 'NACK', message: 'shutting down' };

/**
 * A consumer shutting down answers what it took, then leaves its dispatchers; a push that reached it meanwhile is
 * answered 503 ("not taken"). The broker lets a leaving host's pushes in flight be answered before it stops the
 * member, so neither answer is lost to an abort.
 */
describe('a push host that leaves while a push to it is in flight', () => {
  let broker: BrokerApp;
  const leaving = new TestConsumer();
  const staying = new TestConsumer();

  beforeEach(async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
    await leaving.start();
    await staying.start();
  });
  afterEach(async () => {
    await broker.close();
    await leaving.stop();
    await staying.stop();
    leaving.received.length = 0;
    staying.received.length = 0;
  });

  const leave = async () => {
    const removed = await broker.request('DELETE', `/mmmq/dispatchers/work/hosts/${encodeURIComponent(leaving.url)}`);
    expect(removed.status).toBe(204);
  };
  const subscription = async () => {
    const { body } = await broker.request('GET', '/mmmq/subscriptions');
    return body.find((row: { consumerId: string }) => row.consumerId === 'work');
  };

  it('keeps the ACK that arrives after the leave: the message is settled, not pushed again', async () => {
    leaving.reply = () => ({ ackAfterMs: 300 });
    await broker.addDispatcher('work', leaving.url, 'order.*');
    await publishAll(broker, 'order.created', [{ n: 0 }]);
    await leaving.waitFor(() => leaving.received.length === 1, { message: 'the push to the leaving host' });

    await leave();
    await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'work', host: staying.url, pattern: 'order.*' });
    await publishAll(broker, 'order.created', [{ n: 1 }]);
    await staying.waitFor(() => staying.received.length >= 1, { message: 'the next message at the staying host' });
    await staying.expectQuiet({ forMs: 200, message: 'no redelivery of the acknowledged message' });

    expect(staying.contents()).toEqual([{ n: 1 }]);
    const { stats } = await subscription();
    expect(stats).toMatchObject({ delivered: 2, redelivered: 0 });
  });

  it('does not count a push it answered 503 as a delivery: the next host gets deliveryCount 1', async () => {
    leaving.reply = () => ({ status: 503, body: SHUTTING_DOWN, afterMs: 300 });
    await broker.addDispatcher('work', leaving.url, 'order.*');
    await publishAll(broker, 'order.created', [{ n: 0 }]);
    await leaving.waitFor(() => leaving.received.length === 1, { message: 'the push to the leaving host' });

    await leave();
    await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'work', host: staying.url, pattern: 'order.*' });
    await staying.waitFor(() => staying.received.length >= 1, { message: 'the message at the staying host' });

    expect(staying.received.map(({ body }) => [body.content, body.deliveryCount, body.redelivered])).toEqual([[{ n: 0 }, 1, false]]);
  });
});
