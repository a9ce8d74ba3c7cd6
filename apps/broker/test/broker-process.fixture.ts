// Moved to @mmmq/test-support; this path stays for tests that import it.
export { BROKER_MAIN, spawnBroker, type BrokerProcess } from '@mmmq/test-support';
