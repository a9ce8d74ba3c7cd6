// Moved to @mmmq/test-support; this path stays for tests that import it.
export { TestConsumer, type ReceivedDelivery, type Reply, type TestConsumerOptions } from '@mmmq/test-support';
